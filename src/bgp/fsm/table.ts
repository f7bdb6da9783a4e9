import type { FsmEvent, FsmEventType } from './events.js';
import type { HandlerName } from './handlers.js';
import type { FsmState, State } from './states.js';
import { negotiateHoldTime } from './timers.js';

/**
 * The RFC 4271 section 8.2.2 state machine as one constant table, FSM[state][event] = what to
 * do and where to go (the shape of FRR's bgp_fsm.c). Where the RFC's next state depends on a
 * setting or a running timer, the cell names a guard and holds both outcomes, so the next
 * state of every transition is still read off the table.
 */

/** Conditions a cell may branch on; each reads the state before the event and the event itself. */
export const GUARDS = {
  /** The DelayOpen setting (RFC 4271 8.1.1 group 4). */
  delayOpen: (s: FsmState) => s.config.delayOpen,
  /** The DelayOpenTimer runs: a TCP connection is up and our OPEN is held back (event 20 vs 19). */
  delayOpenRunning: (s: FsmState) => s.timers['delay-open'],
  /** An automatic restart is pending in Idle. */
  idleHoldRunning: (s: FsmState) => s.timers['idle-hold'],
  /** PassiveTcpEstablishment of the last start. */
  passive: (s: FsmState) => s.passive,
  /** RFC 4271 section 4.2: the peer's Hold Time is 0 or at least 3. */
  holdTimeAcceptable: (s: FsmState, e: FsmEvent) =>
    e.type === 'BGPOpen' && negotiateHoldTime(s.config.holdTime, e.holdTime, s.config.keepaliveTime).ok,
} as const satisfies Record<string, (s: FsmState, e: FsmEvent) => boolean>;

export type GuardName = keyof typeof GUARDS;

export interface Transition {
  readonly do: HandlerName;
  readonly next: State;
}
export interface Branch {
  readonly if: GuardName;
  readonly then: Cell;
  readonly else: Cell;
}
export type Cell = Transition | Branch;

const go = (handler: HandlerName, next: State): Transition => ({ do: handler, next });
const when = (guard: GuardName, then: Cell, otherwise: Cell): Branch => ({
  if: guard,
  then,
  else: otherwise,
});

const stay = (state: State) => go('ignore', state);
const toIdle = (handler: HandlerName) => go(handler, 'Idle');

/** Start events are ignored outside Idle (RFC 4271 8.2.2: "Events 1, 3-7 are ignored"). */
const ignoreStarts = (state: State) => ({
  ManualStart: stay(state),
  AutomaticStart: stay(state),
  ManualStart_with_PassiveTcpEstablishment: stay(state),
  AutomaticStart_with_PassiveTcpEstablishment: stay(state),
});

/** Connect and Active share most of their rows; these are the cells they have in common. */
const waitingForConnection = (state: 'Connect' | 'Active') => ({
  ...ignoreStarts(state),
  ManualStop: toIdle('manualStop'),
  AutomaticStop: toIdle('fail'),
  HoldTimer_Expires: toIdle('fail'),
  KeepaliveTimer_Expires: toIdle('fail'),
  DelayOpenTimer_Expires: go('sendOpen', 'OpenSent'),
  IdleHoldTimer_Expires: toIdle('fail'),
  TcpConnection_Valid: stay(state),
  Tcp_CR_Acked: when('delayOpen', go('delayOpen', state), go('sendOpen', 'OpenSent')),
  TcpConnectionConfirmed: when('delayOpen', go('delayOpen', state), go('sendOpen', 'OpenSent')),
  BGPOpen: when(
    'delayOpenRunning',
    when('holdTimeAcceptable', go('openDelayed', 'OpenConfirm'), toIdle('messageError')),
    toIdle('fail'),
  ),
  BGPHeaderErr: toIdle('messageError'),
  BGPOpenMsgErr: toIdle('messageError'),
  OpenCollisionDump: toIdle('fail'),
  NotifMsgVerErr: when('delayOpenRunning', toIdle('failUncounted'), toIdle('fail')),
  NotifMsg: toIdle('fail'),
  KeepAliveMsg: toIdle('fail'),
  UpdateMsg: toIdle('fail'),
  UpdateMsgErr: toIdle('fail'),
  RouteRefreshMsg: toIdle('fail'),
  DampResetTimer_Expires: stay(state),
});

export const FSM: Readonly<Record<State, Readonly<Record<FsmEventType, Cell>>>> = {
  Idle: {
    ManualStart: go('start', 'Connect'),
    ManualStop: go('cancelRestart', 'Idle'),
    AutomaticStart: when('idleHoldRunning', stay('Idle'), go('start', 'Connect')),
    ManualStart_with_PassiveTcpEstablishment: go('startPassive', 'Active'),
    AutomaticStart_with_PassiveTcpEstablishment: when(
      'idleHoldRunning',
      stay('Idle'),
      go('startPassive', 'Active'),
    ),
    AutomaticStop: stay('Idle'),
    ConnectRetryTimer_Expires: stay('Idle'),
    HoldTimer_Expires: stay('Idle'),
    KeepaliveTimer_Expires: stay('Idle'),
    DelayOpenTimer_Expires: stay('Idle'),
    IdleHoldTimer_Expires: when(
      'idleHoldRunning',
      when('passive', go('startPassive', 'Active'), go('start', 'Connect')),
      stay('Idle'),
    ),
    TcpConnection_Valid: go('refuse', 'Idle'),
    Tcp_CR_Acked: go('refuse', 'Idle'),
    TcpConnectionConfirmed: go('refuse', 'Idle'),
    TcpConnectionFails: stay('Idle'),
    BGPOpen: stay('Idle'),
    BGPHeaderErr: stay('Idle'),
    BGPOpenMsgErr: stay('Idle'),
    OpenCollisionDump: stay('Idle'),
    NotifMsgVerErr: stay('Idle'),
    NotifMsg: stay('Idle'),
    KeepAliveMsg: stay('Idle'),
    UpdateMsg: stay('Idle'),
    UpdateMsgErr: stay('Idle'),
    RouteRefreshMsg: stay('Idle'),
    DampResetTimer_Expires: stay('Idle'),
  },

  Connect: {
    ...waitingForConnection('Connect'),
    ConnectRetryTimer_Expires: go('retryConnect', 'Connect'),
    TcpConnectionFails: when(
      'delayOpenRunning',
      go('connectFailedWhileDelayed', 'Active'),
      toIdle('failUncounted'),
    ),
  },

  Active: {
    ...waitingForConnection('Active'),
    ConnectRetryTimer_Expires: when('passive', go('keepListening', 'Active'), go('connect', 'Connect')),
    TcpConnectionFails: toIdle('fail'),
  },

  OpenSent: {
    ...ignoreStarts('OpenSent'),
    ManualStop: toIdle('manualStop'),
    AutomaticStop: toIdle('automaticStop'),
    ConnectRetryTimer_Expires: toIdle('fsmError'),
    HoldTimer_Expires: toIdle('holdTimerExpired'),
    KeepaliveTimer_Expires: toIdle('fsmError'),
    DelayOpenTimer_Expires: toIdle('fsmError'),
    IdleHoldTimer_Expires: toIdle('fsmError'),
    // A second connection is tracked by collision detection, not by this FSM (RFC 4271 8.2.2).
    TcpConnection_Valid: stay('OpenSent'),
    Tcp_CR_Acked: stay('OpenSent'),
    TcpConnectionConfirmed: stay('OpenSent'),
    TcpConnectionFails: go('reconnectLater', 'Active'),
    BGPOpen: when('holdTimeAcceptable', go('acceptOpen', 'OpenConfirm'), toIdle('messageError')),
    BGPHeaderErr: toIdle('messageError'),
    BGPOpenMsgErr: toIdle('messageError'),
    OpenCollisionDump: toIdle('collisionDump'),
    NotifMsgVerErr: toIdle('failUncounted'),
    // RFC 4271 lists event 25 under "FSM error" here, but a NOTIFICATION is never answered
    // with one (section 6.4): the peer has already closed.
    NotifMsg: toIdle('fail'),
    KeepAliveMsg: toIdle('fsmError'),
    UpdateMsg: toIdle('fsmError'),
    UpdateMsgErr: toIdle('fsmError'),
    RouteRefreshMsg: toIdle('fsmError'),
    DampResetTimer_Expires: stay('OpenSent'),
  },

  OpenConfirm: {
    ...ignoreStarts('OpenConfirm'),
    ManualStop: toIdle('manualStop'),
    AutomaticStop: toIdle('automaticStop'),
    ConnectRetryTimer_Expires: toIdle('fsmError'),
    HoldTimer_Expires: toIdle('holdTimerExpired'),
    KeepaliveTimer_Expires: go('sendKeepalive', 'OpenConfirm'),
    DelayOpenTimer_Expires: toIdle('fsmError'),
    IdleHoldTimer_Expires: toIdle('fsmError'),
    TcpConnection_Valid: stay('OpenConfirm'),
    Tcp_CR_Acked: stay('OpenConfirm'),
    TcpConnectionConfirmed: stay('OpenConfirm'),
    TcpConnectionFails: toIdle('fail'),
    // A second OPEN on this connection. Collisions between two connections reach the loser as
    // OpenCollisionDump; RFC 6608 names an OPEN here an unexpected message.
    BGPOpen: toIdle('fsmError'),
    BGPHeaderErr: toIdle('messageError'),
    BGPOpenMsgErr: toIdle('messageError'),
    OpenCollisionDump: toIdle('collisionDump'),
    NotifMsgVerErr: toIdle('failUncounted'),
    NotifMsg: toIdle('fail'),
    KeepAliveMsg: go('establish', 'Established'),
    UpdateMsg: toIdle('fsmError'),
    UpdateMsgErr: toIdle('fsmError'),
    RouteRefreshMsg: toIdle('fsmError'),
    DampResetTimer_Expires: stay('OpenConfirm'),
  },

  Established: {
    ...ignoreStarts('Established'),
    ManualStop: toIdle('manualStop'),
    AutomaticStop: toIdle('automaticStop'),
    ConnectRetryTimer_Expires: toIdle('fsmError'),
    HoldTimer_Expires: toIdle('holdTimerExpired'),
    KeepaliveTimer_Expires: go('sendKeepalive', 'Established'),
    DelayOpenTimer_Expires: toIdle('fsmError'),
    IdleHoldTimer_Expires: toIdle('fsmError'),
    TcpConnection_Valid: stay('Established'),
    Tcp_CR_Acked: stay('Established'),
    TcpConnectionConfirmed: stay('Established'),
    // Damped although RFC 4271 does not say so here: a session that keeps dropping from
    // Established is exactly the oscillation DampPeerOscillations exists for (8.1.1).
    TcpConnectionFails: toIdle('fail'),
    BGPOpen: toIdle('fsmError'),
    // Section 6.1 wins over the FSM error the 8.2.2 list gives: a bad header is a header error.
    BGPHeaderErr: toIdle('messageError'),
    BGPOpenMsgErr: toIdle('fsmError'),
    OpenCollisionDump: toIdle('collisionDump'),
    NotifMsgVerErr: toIdle('failUndamped'),
    NotifMsg: toIdle('fail'),
    KeepAliveMsg: go('restartHold', 'Established'),
    UpdateMsg: go('processUpdate', 'Established'),
    UpdateMsgErr: toIdle('messageError'),
    RouteRefreshMsg: go('processRouteRefresh', 'Established'),
    DampResetTimer_Expires: go('forgiveFlaps', 'Established'),
  },
};

/** Follows a cell's guards to the transition that applies to this state and event. */
export function resolveCell(cell: Cell, s: FsmState, e: FsmEvent): Transition {
  let c = cell;
  while ('if' in c) c = GUARDS[c.if](s, e) ? c.then : c.else;
  return c;
}
