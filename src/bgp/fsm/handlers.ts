import { CeaseSubcode, ErrorCode, FsmSubcode } from '../wire/index.js';
import type { FsmAction, SendNotificationAction, Timer } from './actions.js';
import { TIMERS } from './actions.js';
import type { FsmConfig } from './config.js';
import { LARGE_HOLD_TIME } from './constants.js';
import type { FsmEvent } from './events.js';
import { EVENT_MESSAGE_TYPE } from './events.js';
import type { FsmState, Negotiated, State } from './states.js';
import { idleHoldSeconds, negotiateHoldTime, nextDampingLevel } from './timers.js';

/** The next FSM state under construction, plus the actions emitted so far, for one step. */
export class Draft {
  connectRetryCounter: number;
  negotiated: Negotiated | null;
  dampingLevel: number;
  passive: boolean;
  readonly timers: Record<Timer, boolean>;
  readonly actions: FsmAction[] = [];

  constructor(readonly from: FsmState) {
    this.connectRetryCounter = from.connectRetryCounter;
    this.negotiated = from.negotiated;
    this.dampingLevel = from.dampingLevel;
    this.passive = from.passive;
    this.timers = { ...from.timers };
  }

  get config(): FsmConfig {
    return this.from.config;
  }

  emit(action: FsmAction): void {
    this.actions.push(action);
  }

  startTimer(timer: Timer, seconds: number, jitter = false): void {
    this.emit({ type: 'start-timer', timer, seconds, jitter });
    this.timers[timer] = true;
  }

  /** Stops only what runs, so the shell never sees a stop for a timer it does not have. */
  stopTimer(timer: Timer): void {
    if (!this.timers[timer]) return;
    this.emit({ type: 'stop-timer', timer });
    this.timers[timer] = false;
  }

  /** The next state; the one it started from when nothing changed (so the shell can tell). */
  finish(state: State): FsmState {
    const from = this.from;
    if (
      state === from.state &&
      this.connectRetryCounter === from.connectRetryCounter &&
      this.negotiated === from.negotiated &&
      this.dampingLevel === from.dampingLevel &&
      this.passive === from.passive &&
      sameTimers(this.timers, from.timers)
    ) {
      return from;
    }
    return {
      state,
      config: this.from.config,
      connectRetryCounter: this.connectRetryCounter,
      negotiated: this.negotiated,
      dampingLevel: this.dampingLevel,
      passive: this.passive,
      timers: Object.freeze({ ...this.timers }),
    };
  }
}

function sameTimers(a: Readonly<Record<Timer, boolean>>, b: Readonly<Record<Timer, boolean>>): boolean {
  for (const t in a) if (a[t as Timer] !== b[t as Timer]) return false;
  return true;
}

type Notification = Omit<SendNotificationAction, 'type'>;

const OCTET_MAX = 0xff;
const isOctet = (n: unknown): n is number =>
  Number.isInteger(n) && (n as number) >= 0 && (n as number) <= OCTET_MAX;

/** RFC 9003: a Shutdown Communication rides only on Administrative Shutdown and Reset. */
const SHUTDOWN_COMMUNICATION_SUBCODES: ReadonlySet<number> = new Set([
  CeaseSubcode.ADMINISTRATIVE_SHUTDOWN,
  CeaseSubcode.ADMINISTRATIVE_RESET,
]);

/** RFC 6608 section 3: the FSM error subcode for an unexpected message, by state. */
const UNEXPECTED_MESSAGE_SUBCODE: Readonly<Partial<Record<State, number>>> = {
  OpenSent: FsmSubcode.UNEXPECTED_MESSAGE_IN_OPENSENT,
  OpenConfirm: FsmSubcode.UNEXPECTED_MESSAGE_IN_OPENCONFIRM,
  Established: FsmSubcode.UNEXPECTED_MESSAGE_IN_ESTABLISHED,
};

/**
 * Whether a NOTIFICATION may go out: always once our OPEN is sent; before that (a DelayOpen
 * connection in Connect or Active) only with SendNOTIFICATIONwithoutOPEN (RFC 4271 8.1.1).
 */
function canNotify(d: Draft): boolean {
  switch (d.from.state) {
    case 'OpenSent':
    case 'OpenConfirm':
    case 'Established':
      return true;
    case 'Connect':
    case 'Active':
      return d.from.timers['delay-open'] && d.config.sendNotificationWithoutOpen;
    default:
      return false;
  }
}

function ceaseFor(e: FsmEvent): Notification {
  if (e.type === 'ManualStop') {
    const subcode = isOctet(e.subcode) ? e.subcode : CeaseSubcode.ADMINISTRATIVE_SHUTDOWN;
    const message = SHUTDOWN_COMMUNICATION_SUBCODES.has(subcode) ? e.message : undefined;
    if (message !== undefined) return { code: ErrorCode.CEASE, subcode, message };
    // e.g. RFC 4486 section 4: Maximum Number of Prefixes Reached carries AFI, SAFI and the limit.
    return e.data ? { code: ErrorCode.CEASE, subcode, data: e.data } : { code: ErrorCode.CEASE, subcode };
  }
  if (e.type === 'AutomaticStop') {
    const subcode = isOctet(e.subcode) ? e.subcode : 0;
    return e.data ? { code: ErrorCode.CEASE, subcode, data: e.data } : { code: ErrorCode.CEASE, subcode };
  }
  return { code: ErrorCode.CEASE, subcode: CeaseSubcode.CONNECTION_COLLISION_RESOLUTION };
}

/** RFC 6608: unexpected messages name the state and carry their type; anything else is Unspecific. */
function fsmErrorFor(state: State, e: FsmEvent): Notification {
  const messageType = EVENT_MESSAGE_TYPE[e.type];
  const subcode = UNEXPECTED_MESSAGE_SUBCODE[state];
  if (messageType === undefined || subcode === undefined) {
    return { code: ErrorCode.FSM, subcode: FsmSubcode.UNSPECIFIED };
  }
  return { code: ErrorCode.FSM, subcode, data: Uint8Array.of(messageType) };
}

/** The NOTIFICATION a failed check asks for (RFC 4271 sections 6.1-6.3). */
function messageErrorFor(e: FsmEvent, config: FsmConfig): Notification {
  const withData = (code: number, subcode: number, data?: Uint8Array): Notification => {
    const s = isOctet(subcode) ? subcode : 0;
    return data ? { code, subcode: s, data } : { code, subcode: s };
  };
  switch (e.type) {
    case 'BGPHeaderErr':
      return withData(ErrorCode.MESSAGE_HEADER, e.subcode, e.data);
    case 'BGPOpenMsgErr':
      return withData(ErrorCode.OPEN_MESSAGE, e.subcode, e.data);
    case 'UpdateMsgErr':
      return withData(ErrorCode.UPDATE_MESSAGE, e.subcode, e.data);
    case 'BGPOpen': {
      const n = negotiateHoldTime(config.holdTime, e.holdTime, config.keepaliveTime);
      if (!n.ok) return { code: n.code, subcode: n.subcode };
      return { code: ErrorCode.FSM, subcode: FsmSubcode.UNSPECIFIED };
    }
    default:
      return { code: ErrorCode.FSM, subcode: FsmSubcode.UNSPECIFIED };
  }
}

interface IdleEntry {
  readonly notify?: Notification;
  /** RFC 4271 8.2.2: zeroed by ManualStop, incremented by most failures, kept by a few. */
  readonly counter: 'reset' | 'increment' | 'keep';
  /** "performs peer oscillation damping": this failure counts as a flap. */
  readonly damp: boolean;
  /** Schedule an automatic restart after the idle hold time (when allowAutomaticStart). */
  readonly restart: boolean;
}

/** Every way into Idle: notify, stop every timer, drop the connection, release resources. */
function goIdle(d: Draft, entry: IdleEntry): void {
  if (entry.notify) d.emit({ type: 'send-notification', ...entry.notify });
  for (const t of TIMERS) d.stopTimer(t);
  if (d.from.state === 'Established') d.emit({ type: 'left-established' });
  d.emit({ type: 'drop-connection' });
  d.emit({ type: 'release-resources' });
  if (entry.counter === 'reset') d.connectRetryCounter = 0;
  if (entry.counter === 'increment') d.connectRetryCounter += 1;
  d.negotiated = null;
  const wait = idleHoldSeconds(d.config, d.dampingLevel);
  if (entry.damp) d.dampingLevel = nextDampingLevel(d.config, d.dampingLevel);
  if (entry.restart && d.config.allowAutomaticStart) d.startTimer('idle-hold', wait);
}

/** RFC 4271 8.2.2 Idle, events 1/3/4/5: set up and go to Connect (active) or Active (passive). */
function leaveIdle(d: Draft, passive: boolean): void {
  d.passive = passive;
  d.stopTimer('idle-hold');
  d.emit({ type: 'initialize-resources' });
  d.connectRetryCounter = 0;
  d.startTimer('connect-retry', d.config.connectRetryTime, true);
  if (!passive) d.emit({ type: 'connect' });
}

/** RFC 4271 8.2.2 (OpenSent event 19, Connect/Active event 20): timers from the agreed hold time. */
function applyNegotiated(d: Draft, e: FsmEvent): void {
  const remote = e.type === 'BGPOpen' ? e.holdTime : d.config.holdTime;
  const n = negotiateHoldTime(d.config.holdTime, remote, d.config.keepaliveTime);
  // The table's holdTimeAcceptable guard sends unacceptable hold times elsewhere.
  const agreed = n.ok ? n : { holdTime: d.config.holdTime, keepaliveTime: d.config.keepaliveTime };
  d.negotiated = { holdTime: agreed.holdTime, keepaliveTime: agreed.keepaliveTime };
  if (agreed.holdTime > 0) {
    d.startTimer('keepalive', agreed.keepaliveTime, true);
    d.startTimer('hold', agreed.holdTime);
  } else {
    d.stopTimer('hold');
    d.stopTimer('keepalive');
  }
}

function restartHold(d: Draft): void {
  if (d.negotiated && d.negotiated.holdTime > 0) d.startTimer('hold', d.negotiated.holdTime);
}

const FAIL: IdleEntry = { counter: 'increment', damp: true, restart: true };

/**
 * The actions a table cell names. Each one only emits actions and updates the draft; the
 * table, not the handler, decides the next state.
 */
export const HANDLERS = {
  /** Start events outside Idle, second-connection events, anything RFC 4271 says to ignore. */
  ignore: (_d: Draft, _e: FsmEvent) => {},
  /** Idle refuses every incoming connection (RFC 4271 8.2.2). */
  refuse: (d: Draft) => d.emit({ type: 'drop-connection' }),
  /** ManualStop in Idle: nothing to stop but a pending automatic restart. */
  cancelRestart: (d: Draft) => d.stopTimer('idle-hold'),
  start: (d: Draft) => leaveIdle(d, false),
  startPassive: (d: Draft) => leaveIdle(d, true),
  /** Connect, event 9: give up on this attempt and try again. */
  retryConnect: (d: Draft) => {
    d.emit({ type: 'drop-connection' });
    d.stopTimer('delay-open');
    d.startTimer('connect-retry', d.config.connectRetryTime, true);
    d.emit({ type: 'connect' });
  },
  /** Active, event 9: try an outgoing connection. */
  connect: (d: Draft) => {
    d.startTimer('connect-retry', d.config.connectRetryTime, true);
    d.emit({ type: 'connect' });
  },
  /** Active, event 9, passive: a passive peer never connects, it keeps listening. */
  keepListening: (d: Draft) => d.startTimer('connect-retry', d.config.connectRetryTime, true),
  /** Connect/Active, events 16/17 with DelayOpen: give the peer time to send its OPEN first. */
  delayOpen: (d: Draft) => {
    d.stopTimer('connect-retry');
    d.startTimer('delay-open', d.config.delayOpenTime);
  },
  /** Connect/Active, events 12/16/17: send our OPEN and wait for the peer's under a large hold time. */
  sendOpen: (d: Draft) => {
    d.stopTimer('connect-retry');
    d.stopTimer('delay-open');
    d.emit({ type: 'send-open' });
    d.startTimer('hold', LARGE_HOLD_TIME);
  },
  /** Connect/Active, event 20: the peer's OPEN came while ours was delayed. */
  openDelayed: (d: Draft, e: FsmEvent) => {
    d.stopTimer('connect-retry');
    d.stopTimer('delay-open');
    d.emit({ type: 'send-open' });
    d.emit({ type: 'send-keepalive' });
    applyNegotiated(d, e);
  },
  /** OpenSent, event 19. */
  acceptOpen: (d: Draft, e: FsmEvent) => {
    d.stopTimer('delay-open');
    d.stopTimer('connect-retry');
    d.emit({ type: 'send-keepalive' });
    applyNegotiated(d, e);
  },
  /** Connect, event 18 while DelayOpen runs: fall back to listening. */
  connectFailedWhileDelayed: (d: Draft) => {
    d.stopTimer('delay-open');
    d.emit({ type: 'drop-connection' });
    d.startTimer('connect-retry', d.config.connectRetryTime, true);
  },
  /** OpenSent, event 18: close, listen, and retry on the ConnectRetryTimer. */
  reconnectLater: (d: Draft) => {
    d.stopTimer('hold');
    d.emit({ type: 'drop-connection' });
    d.startTimer('connect-retry', d.config.connectRetryTime, true);
  },
  /** OpenConfirm, event 26. A flapping peer must now stay up dampResetTime to be forgiven. */
  establish: (d: Draft) => {
    restartHold(d);
    if (d.config.dampPeerOscillations && d.dampingLevel > 0)
      d.startTimer('damp-reset', d.config.dampResetTime);
    d.emit({ type: 'established' });
  },
  /** OpenConfirm/Established, event 11: no restart when the agreed hold time is zero. */
  sendKeepalive: (d: Draft) => {
    d.emit({ type: 'send-keepalive' });
    if (d.negotiated && d.negotiated.holdTime > 0)
      d.startTimer('keepalive', d.negotiated.keepaliveTime, true);
  },
  /** Established, event 26. */
  restartHold: (d: Draft) => restartHold(d),
  /** Established, event 27. */
  processUpdate: (d: Draft) => {
    d.emit({ type: 'process-update' });
    restartHold(d);
  },
  /** Established, ROUTE-REFRESH: any message from the peer shows it is alive (RFC 4271 4.4). */
  processRouteRefresh: (d: Draft) => {
    d.emit({ type: 'process-route-refresh' });
    restartHold(d);
  },
  /** Established long enough: the next failure waits the base idle hold time again. */
  forgiveFlaps: (d: Draft) => {
    d.dampingLevel = 0;
  },
  /** Event 2: Cease (Administrative Shutdown by default; none when silent), no automatic restart. */
  manualStop: (d: Draft, e: FsmEvent) =>
    goIdle(d, {
      notify: canNotify(d) && !(e.type === 'ManualStop' && e.silent) ? ceaseFor(e) : undefined,
      counter: 'reset',
      damp: false,
      restart: false,
    }),
  /** Event 8: Cease with the caller's subcode, then restart after the idle hold time. */
  automaticStop: (d: Draft, e: FsmEvent) =>
    goIdle(d, { ...FAIL, notify: canNotify(d) ? ceaseFor(e) : undefined }),
  /** Event 10: RFC 4271 section 6.5. */
  holdTimerExpired: (d: Draft) =>
    goIdle(d, {
      ...FAIL,
      notify: canNotify(d) ? { code: ErrorCode.HOLD_TIMER_EXPIRED, subcode: 0 } : undefined,
    }),
  /** Events 21/22/28 and an unacceptable Hold Time: the NOTIFICATION the check asked for. */
  messageError: (d: Draft, e: FsmEvent) =>
    goIdle(d, { ...FAIL, notify: canNotify(d) ? messageErrorFor(e, d.config) : undefined }),
  /** RFC 4271 section 6.6 with RFC 6608 subcodes. */
  fsmError: (d: Draft, e: FsmEvent) => goIdle(d, { ...FAIL, notify: fsmErrorFor(d.from.state, e) }),
  /**
   * Event 23: Cease/Connection Collision Resolution (RFC 4486). Not a flap, and the other
   * connection carries the session, so no damping and no restart; RFC 4271 8.2.1.2 disposes this FSM.
   */
  collisionDump: (d: Draft, e: FsmEvent) =>
    goIdle(d, {
      notify: canNotify(d) ? ceaseFor(e) : undefined,
      counter: 'increment',
      damp: false,
      restart: false,
    }),
  /** Failures that close without a NOTIFICATION of ours. */
  fail: (d: Draft) => goIdle(d, FAIL),
  /** Established, event 24: counted but not damped (RFC 4271 8.2.2). */
  failUndamped: (d: Draft) => goIdle(d, { counter: 'increment', damp: false, restart: true }),
  /** Event 24 (version negotiation) and Connect event 18: RFC 4271 does not count these. */
  failUncounted: (d: Draft) => goIdle(d, { counter: 'keep', damp: false, restart: true }),
} satisfies Record<string, (d: Draft, e: FsmEvent) => void>;

export type HandlerName = keyof typeof HANDLERS;
