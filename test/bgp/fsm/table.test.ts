/**
 * Walks every (state, event) cell of the FSM table under every combination of the settings
 * and timers a cell can branch on, and checks next state, actions, ConnectRetryCounter,
 * damping level and negotiated hold time against `spec` below: RFC 4271 section 8.2.2 (with
 * RFC 6608 subcodes) written out again, independently of the table. The cell list comes from
 * STATES x EVENT_TYPES, so a cell missing from the table fails here.
 */
import { describe, expect, it } from 'vitest';
import { HANDLERS } from '../../../src/bgp/fsm/handlers.js';
import type {
  FsmAction,
  FsmEvent,
  FsmEventType,
  FsmState,
  State,
  Timer,
} from '../../../src/bgp/fsm/index.js';
import { EVENT_TYPES, STATES, step, TIMERS } from '../../../src/bgp/fsm/index.js';
import type { Cell } from '../../../src/bgp/fsm/table.js';
import { FSM, GUARDS } from '../../../src/bgp/fsm/table.js';
import { expiredBy, fixture, simulateTimers, start, stop, timerSet } from './support.js';

interface Variant {
  readonly delayOpen: boolean;
  readonly damping: boolean;
  readonly passive: boolean;
  readonly holdOk: boolean;
  readonly notifyWithoutOpen: boolean;
  readonly autoStart: boolean;
  /** Idle: an automatic restart is pending. Connect/Active: a DelayOpen connection is up. */
  readonly waiting: boolean;
}

function variants(): Variant[] {
  const out: Variant[] = [];
  for (let bits = 0; bits < 1 << 7; bits++) {
    const b = (i: number) => (bits & (1 << i)) !== 0;
    out.push({
      delayOpen: b(0),
      damping: b(1),
      passive: b(2),
      holdOk: b(3),
      notifyWithoutOpen: b(4),
      autoStart: b(5),
      waiting: b(6),
    });
  }
  return out;
}

const LEVEL = 1; // fixtures start with one flap counted, so damping shows in every idle hold time
const COUNTER = 3;
const NEGOTIATED = { holdTime: 90, keepaliveTime: 30 };
const SHUTDOWN_MESSAGE = 'maintenance until 02:00';
const PREFIX_LIMIT_DATA = Uint8Array.of(0, 1, 1, 0, 0, 0, 100);
const HEADER_DATA = Uint8Array.of(0, 10);

function fixtureFor(state: State, v: Variant): FsmState {
  const running: Timer[] = [];
  if (state === 'Idle' && v.waiting) running.push('idle-hold');
  if (state === 'Connect' || state === 'Active') running.push(v.waiting ? 'delay-open' : 'connect-retry');
  if (state === 'OpenSent') running.push('hold');
  if (state === 'OpenConfirm' || state === 'Established') running.push('hold', 'keepalive');
  if (state === 'Established' && v.damping) running.push('damp-reset');
  return fixture({
    state,
    running,
    config: {
      delayOpen: v.delayOpen,
      dampPeerOscillations: v.damping,
      sendNotificationWithoutOpen: v.notifyWithoutOpen,
      allowAutomaticStart: v.autoStart,
    },
    passive: v.passive,
    connectRetryCounter: COUNTER,
    dampingLevel: LEVEL,
    negotiated: state === 'OpenConfirm' || state === 'Established' ? NEGOTIATED : null,
  });
}

function sampleEvent(type: FsmEventType, v: Variant): FsmEvent {
  switch (type) {
    case 'ManualStop':
      return { type, message: SHUTDOWN_MESSAGE };
    case 'AutomaticStop':
      return { type, subcode: 1, data: PREFIX_LIMIT_DATA };
    case 'BGPOpen':
      return { type, holdTime: v.holdOk ? 30 : 2 };
    case 'BGPHeaderErr':
      return { type, subcode: 2, data: HEADER_DATA };
    case 'BGPOpenMsgErr':
      return { type, subcode: 2 };
    case 'UpdateMsgErr':
      return { type, subcode: 11 };
    default:
      return { type } as FsmEvent;
  }
}

interface Outcome {
  readonly next: State;
  readonly actions: FsmAction[];
  readonly counter: number;
  readonly level: number;
  readonly negotiated: FsmState['negotiated'];
}

type Notify = Omit<Extract<FsmAction, { type: 'send-notification' }>, 'type'>;

const STARTS: readonly FsmEventType[] = [
  'ManualStart',
  'AutomaticStart',
  'ManualStart_with_PassiveTcpEstablishment',
  'AutomaticStart_with_PassiveTcpEstablishment',
];

/** RFC 4271 8.2.2 / RFC 6608 expectations for one cell. */
function spec(fx: FsmState, e: FsmEvent, v: Variant): Outcome {
  const s = fx.state;
  const t = e.type;
  const fired = expiredBy(e);
  const running = (timer: Timer) => fx.timers[timer] && timer !== fired;
  const stopIfRunning = (...timers: Timer[]) => timers.filter(running).map(stop);
  const same = (actions: FsmAction[] = [], level = fx.dampingLevel): Outcome => ({
    next: s,
    actions,
    counter: fx.connectRetryCounter,
    level,
    negotiated: fx.negotiated,
  });
  const to = (next: State, actions: FsmAction[], negotiated = fx.negotiated): Outcome => ({
    next,
    actions,
    counter: fx.connectRetryCounter,
    level: fx.dampingLevel,
    negotiated,
  });
  const idle = (o: {
    notify?: Notify;
    counter: 'reset' | 'inc' | 'keep';
    damp: boolean;
    restart: boolean;
  }): Outcome => {
    const actions: FsmAction[] = [];
    if (o.notify) actions.push({ type: 'send-notification', ...o.notify });
    actions.push(...stopIfRunning(...TIMERS));
    if (s === 'Established') actions.push({ type: 'left-established' });
    actions.push({ type: 'drop-connection' }, { type: 'release-resources' });
    const wait = v.damping ? Math.min(5 * 2 ** fx.dampingLevel, 40) : 5;
    if (o.restart && v.autoStart) actions.push(start('idle-hold', wait));
    return {
      next: 'Idle',
      actions,
      counter:
        o.counter === 'reset' ? 0 : o.counter === 'inc' ? fx.connectRetryCounter + 1 : fx.connectRetryCounter,
      level: o.damp && v.damping && wait < 40 ? fx.dampingLevel + 1 : fx.dampingLevel,
      negotiated: null,
    };
  };
  const fail = (notify?: Notify) => idle({ notify, counter: 'inc', damp: true, restart: true });
  const cease = (subcode: number, extra: Partial<Notify> = {}): Notify => ({ code: 6, subcode, ...extra });
  const fsmError = (subcode: number, messageType?: number): Notify =>
    messageType === undefined ? { code: 5, subcode } : { code: 5, subcode, data: Uint8Array.of(messageType) };
  const manualStop = (notify: boolean) =>
    idle({
      notify: notify ? cease(2, { message: SHUTDOWN_MESSAGE }) : undefined,
      counter: 'reset',
      damp: false,
      restart: false,
    });
  const collisionDump = (notify: boolean) =>
    idle({ notify: notify ? cease(7) : undefined, counter: 'inc', damp: false, restart: false });
  const sendOpen = () =>
    to('OpenSent', [
      ...stopIfRunning('connect-retry', 'delay-open'),
      { type: 'send-open' },
      start('hold', 240),
    ]);
  const negotiatedTimers = [start('keepalive', 10, true), start('hold', 30)];
  const agreed = { holdTime: 30, keepaliveTime: 10 };

  if (s !== 'Idle' && STARTS.includes(t)) return same();

  switch (s) {
    case 'Idle': {
      const begin = (passive: boolean): Outcome => ({
        next: passive ? 'Active' : 'Connect',
        actions: [
          ...stopIfRunning('idle-hold'),
          { type: 'initialize-resources' },
          start('connect-retry', 120, true),
          ...(passive ? [] : [{ type: 'connect' } as FsmAction]),
        ],
        counter: 0,
        level: fx.dampingLevel,
        negotiated: null,
      });
      switch (t) {
        case 'ManualStart':
          return begin(false);
        case 'ManualStart_with_PassiveTcpEstablishment':
          return begin(true);
        case 'AutomaticStart':
          return v.waiting ? same() : begin(false);
        case 'AutomaticStart_with_PassiveTcpEstablishment':
          return v.waiting ? same() : begin(true);
        case 'IdleHoldTimer_Expires':
          return v.waiting ? begin(v.passive) : same();
        case 'ManualStop':
          return same(stopIfRunning('idle-hold'));
        case 'TcpConnection_Valid':
        case 'Tcp_CR_Acked':
        case 'TcpConnectionConfirmed':
          return same([{ type: 'drop-connection' }]);
        default:
          return same();
      }
    }

    case 'Connect':
    case 'Active': {
      const delayed = v.waiting; // DelayOpenTimer running: a connection is up, our OPEN held back
      const mayNotify = delayed && v.notifyWithoutOpen;
      switch (t) {
        case 'ManualStop':
          return manualStop(mayNotify);
        case 'ConnectRetryTimer_Expires':
          if (s === 'Connect') {
            return same([
              { type: 'drop-connection' },
              ...stopIfRunning('delay-open'),
              start('connect-retry', 120, true),
              { type: 'connect' },
            ]);
          }
          return v.passive
            ? same([start('connect-retry', 120, true)])
            : to('Connect', [start('connect-retry', 120, true), { type: 'connect' }]);
        case 'DelayOpenTimer_Expires':
          return sendOpen();
        case 'TcpConnection_Valid':
          return same();
        case 'Tcp_CR_Acked':
        case 'TcpConnectionConfirmed':
          return v.delayOpen ? same([...stopIfRunning('connect-retry'), start('delay-open', 7)]) : sendOpen();
        case 'TcpConnectionFails':
          if (s === 'Active') return fail();
          return delayed
            ? to('Active', [
                stop('delay-open'),
                { type: 'drop-connection' },
                start('connect-retry', 120, true),
              ])
            : idle({ counter: 'keep', damp: false, restart: true });
        case 'BGPOpen':
          if (!delayed) return fail();
          if (!v.holdOk) return fail(mayNotify ? { code: 2, subcode: 6 } : undefined);
          return to(
            'OpenConfirm',
            [
              ...stopIfRunning('connect-retry', 'delay-open'),
              { type: 'send-open' },
              { type: 'send-keepalive' },
              ...negotiatedTimers,
            ],
            agreed,
          );
        case 'BGPHeaderErr':
          return fail(mayNotify ? { code: 1, subcode: 2, data: HEADER_DATA } : undefined);
        case 'BGPOpenMsgErr':
          return fail(mayNotify ? { code: 2, subcode: 2 } : undefined);
        case 'NotifMsgVerErr':
          return delayed ? idle({ counter: 'keep', damp: false, restart: true }) : fail();
        case 'DampResetTimer_Expires':
          return same();
        default:
          // AutomaticStop, events 10, 11, 13, 23, 25-28 and ROUTE-REFRESH: "any other event".
          return fail();
      }
    }

    case 'OpenSent':
    case 'OpenConfirm':
    case 'Established': {
      const unexpected = { OpenSent: 1, OpenConfirm: 2, Established: 3 }[s];
      switch (t) {
        case 'ManualStop':
          return manualStop(true);
        case 'AutomaticStop':
          return fail(cease(1, { data: PREFIX_LIMIT_DATA }));
        case 'HoldTimer_Expires':
          return fail({ code: 4, subcode: 0 });
        case 'ConnectRetryTimer_Expires':
        case 'DelayOpenTimer_Expires':
        case 'IdleHoldTimer_Expires':
          return fail(fsmError(0));
        case 'KeepaliveTimer_Expires':
          return s === 'OpenSent'
            ? fail(fsmError(0))
            : same([{ type: 'send-keepalive' }, start('keepalive', 30, true)]);
        case 'TcpConnection_Valid':
        case 'Tcp_CR_Acked':
        case 'TcpConnectionConfirmed':
          return same();
        case 'TcpConnectionFails':
          return s === 'OpenSent'
            ? to('Active', [stop('hold'), { type: 'drop-connection' }, start('connect-retry', 120, true)])
            : fail();
        case 'BGPOpen':
          if (s !== 'OpenSent') return fail(fsmError(unexpected, 1));
          return v.holdOk
            ? to('OpenConfirm', [{ type: 'send-keepalive' }, ...negotiatedTimers], agreed)
            : fail({ code: 2, subcode: 6 });
        case 'BGPHeaderErr':
          return fail({ code: 1, subcode: 2, data: HEADER_DATA });
        case 'BGPOpenMsgErr':
          return s === 'Established' ? fail(fsmError(3, 1)) : fail({ code: 2, subcode: 2 });
        case 'OpenCollisionDump':
          return collisionDump(true);
        case 'NotifMsgVerErr':
          return idle({ counter: s === 'Established' ? 'inc' : 'keep', damp: false, restart: true });
        case 'NotifMsg':
          return fail();
        case 'KeepAliveMsg':
          if (s === 'OpenSent') return fail(fsmError(1, 4));
          if (s === 'OpenConfirm') {
            return to('Established', [
              start('hold', 90),
              ...(v.damping ? [start('damp-reset', 300)] : []),
              { type: 'established' },
            ]);
          }
          return same([start('hold', 90)]);
        case 'UpdateMsg':
          return s === 'Established'
            ? same([{ type: 'process-update' }, start('hold', 90)])
            : fail(fsmError(unexpected, 2));
        case 'UpdateMsgErr':
          return s === 'Established' ? fail({ code: 3, subcode: 11 }) : fail(fsmError(unexpected, 2));
        case 'RouteRefreshMsg':
          return s === 'Established'
            ? same([{ type: 'process-route-refresh' }, start('hold', 90)])
            : fail(fsmError(unexpected, 5));
        case 'DampResetTimer_Expires':
          return s === 'Established' ? same([], 0) : same();
      }
    }
  }
  throw new Error(`spec has no entry for ${s} / ${t}`);
}

describe('FSM table shape', () => {
  it('has a cell for every state and every event, and nothing else', () => {
    expect(Object.keys(FSM).sort()).toEqual([...STATES].sort());
    for (const s of STATES) expect(Object.keys(FSM[s]).sort()).toEqual([...EVENT_TYPES].sort());
  });

  it('names only handlers and guards that exist, and uses every one of them', () => {
    const handlers = new Set<string>();
    const guards = new Set<string>();
    const walk = (c: Cell): void => {
      if ('if' in c) {
        guards.add(c.if);
        walk(c.then);
        walk(c.else);
      } else {
        expect(STATES).toContain(c.next);
        handlers.add(c.do);
      }
    };
    for (const s of STATES) for (const e of EVENT_TYPES) walk(FSM[s][e]);
    expect([...handlers].sort()).toEqual(Object.keys(HANDLERS).sort());
    expect([...guards].sort()).toEqual(Object.keys(GUARDS).sort());
  });
});

const ALL_VARIANTS = variants();
const CELLS = STATES.flatMap((s) => EVENT_TYPES.map((e) => [s, e] as const));

describe('every FSM cell follows RFC 4271 8.2.2 / RFC 6608', () => {
  it.each(CELLS)('%s + %s', (state, type) => {
    for (const v of ALL_VARIANTS) {
      const fx = fixtureFor(state, v);
      const e = sampleEvent(type, v);
      const want = spec(fx, e, v);
      const got = step(fx, e);
      const where = `${state} + ${type} with ${JSON.stringify(v)}`;
      expect(got.state.state, where).toBe(want.next);
      expect(got.actions, where).toEqual(want.actions);
      expect(got.state.connectRetryCounter, where).toBe(want.counter);
      expect(got.state.dampingLevel, where).toBe(want.level);
      expect(got.state.negotiated, where).toEqual(want.negotiated);
      // The FSM's own view of its timers agrees with what its actions make the shell run.
      expect(timerSet(got.state), where).toEqual(simulateTimers(timerSet(fx), e, got.actions));
      expect(got.state.config, where).toBe(fx.config);
    }
  });
});
