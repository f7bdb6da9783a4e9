import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import type { FsmAction, FsmConfig, FsmEvent, FsmState, Timer } from '../../../src/bgp/fsm/index.js';
import {
  createFsm,
  EVENT_TYPES,
  STATES,
  step,
  TIMER_EXPIRY_EVENT,
  TIMERS,
} from '../../../src/bgp/fsm/index.js';
import { fixture, simulateTimers, timerSet } from './support.js';

const RUNS = { numRuns: 300 };

const configArb: fc.Arbitrary<Partial<FsmConfig>> = fc
  .record({
    holdTime: fc.oneof(fc.constant(0), fc.integer({ min: 3, max: 300 })),
    connectRetryTime: fc.integer({ min: 1, max: 300 }),
    delayOpenTime: fc.integer({ min: 1, max: 240 }),
    idleHoldTime: fc.integer({ min: 1, max: 30 }),
    extraIdleHold: fc.integer({ min: 0, max: 200 }),
    dampResetTime: fc.integer({ min: 1, max: 600 }),
    delayOpen: fc.boolean(),
    dampPeerOscillations: fc.boolean(),
    passive: fc.boolean(),
    allowAutomaticStart: fc.boolean(),
    sendNotificationWithoutOpen: fc.boolean(),
  })
  .map(({ extraIdleHold, ...c }) => ({ ...c, maxIdleHoldTime: c.idleHoldTime + extraIdleHold }));

const subcodeArb = fc.integer({ min: -5, max: 300 });
const dataArb = fc.option(fc.uint8Array({ maxLength: 8 }), { nil: undefined });

/** Any event, including payloads a buggy caller might send. */
const eventArb: fc.Arbitrary<FsmEvent> = fc.oneof(
  fc.constantFrom(...EVENT_TYPES).map((type) => ({ type }) as FsmEvent),
  fc.record({
    type: fc.constant('ManualStop' as const),
    subcode: fc.option(subcodeArb, { nil: undefined }),
    message: fc.option(fc.string(), { nil: undefined }),
  }),
  fc.record({ type: fc.constant('AutomaticStop' as const), subcode: subcodeArb, data: dataArb }),
  fc.record({
    type: fc.constant('BGPOpen' as const),
    holdTime: fc.oneof(fc.integer({ min: 0, max: 70000 }), fc.constantFrom(1, 2, -1, 1.5, Number.NaN)),
  }),
  fc.record({
    type: fc.constantFrom('BGPHeaderErr' as const, 'BGPOpenMsgErr' as const, 'UpdateMsgErr' as const),
    subcode: subcodeArb,
    data: dataArb,
  }),
);

/** Any FSM state at all, consistent or not. */
const anyStateArb: fc.Arbitrary<FsmState> = fc
  .record({
    state: fc.constantFrom(...STATES),
    config: configArb,
    running: fc.subarray([...TIMERS]),
    passive: fc.boolean(),
    connectRetryCounter: fc.nat(50),
    dampingLevel: fc.nat(8),
    negotiated: fc.option(fc.record({ holdTime: fc.nat(300), keepaliveTime: fc.nat(100) }), { nil: null }),
  })
  .map((f) => fixture(f));

/**
 * What a well-behaved shell sends: any non-timer event, or the expiry of a timer the shell is
 * actually running. `pick` chooses among the running timers.
 */
/**
 * What a well-behaved shell sends: mostly the event that moves the session forward from its
 * current state, some arbitrary events, and expiries of timers the shell actually runs.
 */
const shellInputArb = fc.array(
  fc.record({
    kind: fc.constantFrom('progress', 'progress', 'progress', 'noise', 'expire'),
    event: eventArb,
    pick: fc.nat(),
  }),
  { minLength: 10, maxLength: 80 },
);
type ShellInput = { kind: string; event: FsmEvent; pick: number };

function progress(s: FsmState, pick: number): FsmEvent {
  switch (s.state) {
    case 'Idle':
      return pick % 3 === 0 ? { type: 'ManualStart_with_PassiveTcpEstablishment' } : { type: 'ManualStart' };
    case 'Connect':
    case 'Active':
      if (s.timers['delay-open']) return { type: 'BGPOpen', holdTime: pick % 4 === 0 ? 0 : 90 };
      return { type: s.state === 'Connect' ? 'Tcp_CR_Acked' : 'TcpConnectionConfirmed' };
    case 'OpenSent':
      return { type: 'BGPOpen', holdTime: pick % 4 === 0 ? 0 : 90 };
    case 'OpenConfirm':
      return { type: 'KeepAliveMsg' };
    case 'Established':
      return pick % 2 === 0 ? { type: 'UpdateMsg' } : { type: 'KeepAliveMsg' };
  }
}

function shellEvent(input: ShellInput, s: FsmState, running: Set<Timer>): FsmEvent {
  const live = TIMERS.filter((t) => running.has(t));
  if (input.kind === 'expire' && live.length > 0) {
    return { type: TIMER_EXPIRY_EVENT[live[input.pick % live.length]] } as FsmEvent;
  }
  if (input.kind === 'progress') return progress(s, input.pick);
  // A shell never reports a timer it is not running.
  if (Object.values(TIMER_EXPIRY_EVENT).includes(input.event.type)) return progress(s, input.pick);
  return input.event;
}

/** Which timers may run in each state, by RFC 4271 8.2.2 and our damping timers. */
function timersAllowed(s: FsmState, running: Set<Timer>): boolean {
  const only = (...allowed: Timer[]) => [...running].every((t) => allowed.includes(t));
  switch (s.state) {
    case 'Idle':
      return only('idle-hold');
    case 'Connect':
    case 'Active':
      // Exactly one of: waiting for TCP (ConnectRetryTimer) or holding back our OPEN (DelayOpenTimer).
      return only('connect-retry', 'delay-open') && running.size === 1;
    case 'OpenSent':
      return only('hold') && running.has('hold');
    case 'OpenConfirm':
    case 'Established': {
      const allowed: Timer[] =
        s.state === 'Established' ? ['hold', 'keepalive', 'damp-reset'] : ['hold', 'keepalive'];
      const held = s.negotiated !== null && s.negotiated.holdTime > 0;
      return only(...allowed) && running.has('hold') === held && running.has('keepalive') === held;
    }
  }
}

const count = (actions: readonly FsmAction[], type: FsmAction['type']) =>
  actions.filter((a) => a.type === type).length;

describe('FSM properties', () => {
  it('never throws and always lands in one of the six states, from any state and any events', () => {
    fc.assert(
      fc.property(anyStateArb, fc.array(eventArb, { maxLength: 40 }), (s0, events) => {
        let s = s0;
        for (const e of events) {
          const r = step(s, e);
          expect(STATES).toContain(r.state.state);
          expect(Number.isInteger(r.state.connectRetryCounter) && r.state.connectRetryCounter >= 0).toBe(
            true,
          );
          for (const a of r.actions) {
            if (a.type === 'send-notification') {
              expect(a.subcode >= 0 && a.subcode <= 255 && Number.isInteger(a.subcode)).toBe(true);
            }
          }
          s = r.state;
        }
      }),
      RUNS,
    );
  });

  it('runs only the timers its state allows, and its own timer view matches what the shell runs', () => {
    const visited = new Map<string, number>();
    fc.assert(
      fc.property(configArb, shellInputArb, (config, inputs) => {
        let s = createFsm(config);
        let running = new Set<Timer>();
        let resources = 0;
        let sessions = 0;
        for (const input of inputs) {
          const e = shellEvent(input, s, running);
          const from = s.state;
          const r = step(s, e);
          // The state object comes back unchanged exactly when nothing in it changed (the shell
          // remembers such steps), and stepping is deterministic.
          expect(r.state === s).toBe(JSON.stringify(r.state) === JSON.stringify(s));
          expect(step(s, e)).toEqual(r);
          // simulateTimers throws on a stop for a timer that is not running.
          running = simulateTimers(running, e, r.actions);
          s = r.state;
          visited.set(s.state, (visited.get(s.state) ?? 0) + 1);
          expect(timerSet(s)).toEqual(running);
          expect(timersAllowed(s, running), `${from} + ${e.type} -> ${s.state}: ${[...running]}`).toBe(true);

          // initialize/release and established/left-established pair up with the states.
          resources += count(r.actions, 'initialize-resources') - count(r.actions, 'release-resources');
          sessions += count(r.actions, 'established') - count(r.actions, 'left-established');
          expect(resources).toBe(s.state === 'Idle' ? 0 : 1);
          expect(sessions).toBe(s.state === 'Established' ? 1 : 0);

          // A NOTIFICATION always ends the connection in the same step.
          const n = r.actions.findIndex((a) => a.type === 'send-notification');
          if (n >= 0) {
            expect(s.state).toBe('Idle');
            expect(r.actions.slice(n).some((a) => a.type === 'drop-connection')).toBe(true);
          }
          // Only an Established session processes routes.
          if (count(r.actions, 'process-update') > 0) expect(from).toBe('Established');
          // Idle hold stays within the configured back-off range.
          for (const a of r.actions) {
            if (a.type === 'start-timer' && a.timer === 'idle-hold') {
              expect(a.seconds).toBeGreaterThanOrEqual(s.config.idleHoldTime);
              expect(a.seconds).toBeLessThanOrEqual(s.config.maxIdleHoldTime);
            }
          }
        }
      }),
      RUNS,
    );
    // The generator must actually reach every state, or the checks above prove little.
    if (process.env.FSM_COVERAGE) console.log(Object.fromEntries(visited));
    for (const state of STATES) expect(visited.get(state) ?? 0, state).toBeGreaterThan(100);
  });

  it('after ManualStop only a start event leaves Idle, with nothing running', () => {
    const nonStart = eventArb.filter((e) => !e.type.includes('Start'));
    fc.assert(
      fc.property(
        configArb,
        shellInputArb,
        fc.array(nonStart, { maxLength: 30 }),
        (config, prefix, after) => {
          let s = createFsm(config);
          let running = new Set<Timer>();
          for (const input of prefix) {
            const e = shellEvent(input, s, running);
            const r = step(s, e);
            running = simulateTimers(running, e, r.actions);
            s = r.state;
          }
          const wasIdle = s.state === 'Idle';
          s = step(s, { type: 'ManualStop' }).state;
          expect(s.state).toBe('Idle');
          // RFC 4271 8.2.2 zeroes the counter on ManualStop, except in Idle where the event is ignored.
          if (!wasIdle) expect(s.connectRetryCounter).toBe(0);
          expect(timerSet(s).size).toBe(0);
          for (const e of after) {
            s = step(s, e).state;
            expect(s.state).toBe('Idle');
          }
        },
      ),
      RUNS,
    );
  });

  it('is pure: the same input gives the same output and the input is left untouched', () => {
    fc.assert(
      fc.property(anyStateArb, eventArb, (s, e) => {
        const before = structuredClone(s);
        const a = step(s, e);
        const b = step(s, e);
        expect(a).toEqual(b);
        expect(s).toEqual(before);
      }),
      RUNS,
    );
  });
});
