import { ErrorCode, MessageType, type MessageTypeCode, OpenSubcode } from '../wire/index.js';
import type { Timer } from './actions.js';

/**
 * Inputs to the FSM, named as RFC 4271 section 8.1 names them. Timer expiries are events too:
 * the FSM is time-free and the shell turns its timers into these.
 *
 * Not modelled as separate events:
 * - Event 6/7 (AutomaticStart_with_DampPeerOscillations[_and_PassiveTcpEstablishment]): damping
 *   is the `dampPeerOscillations` setting, so events 3/5 cover them.
 * - Event 15 (Tcp_CR_Invalid): the shell refuses such a connection before any FSM sees it.
 * - Event 20 (BGPOpen with DelayOpenTimer running): the FSM knows whether its DelayOpenTimer runs,
 *   so the shell always sends BGPOpen and the table tells the two apart.
 */
export type FsmEvent =
  /** Event 1. */
  | { readonly type: 'ManualStart' }
  /**
   * Event 2. Sends Cease with `subcode` (default Administrative Shutdown; Peer De-configured and
   * Administrative Reset also fit) and, for subcodes 2 and 4, the RFC 9003 `message`.
   */
  | {
      readonly type: 'ManualStop';
      readonly subcode?: number;
      readonly message?: string;
      readonly data?: Uint8Array;
      /** No NOTIFICATION at all (a stop for a graceful restart, RFC 4724): the connection just closes. */
      readonly silent?: boolean;
    }
  /** Event 3. */
  | { readonly type: 'AutomaticStart' }
  /** Event 4. */
  | { readonly type: 'ManualStart_with_PassiveTcpEstablishment' }
  /** Event 5. */
  | { readonly type: 'AutomaticStart_with_PassiveTcpEstablishment' }
  /** Event 8: implementation logic stops the session, e.g. Cease/1 with RFC 4486 data on max-prefix. */
  | { readonly type: 'AutomaticStop'; readonly subcode: number; readonly data?: Uint8Array }
  /** Event 9. */
  | { readonly type: 'ConnectRetryTimer_Expires' }
  /** Event 10. */
  | { readonly type: 'HoldTimer_Expires' }
  /** Event 11. */
  | { readonly type: 'KeepaliveTimer_Expires' }
  /** Event 12. */
  | { readonly type: 'DelayOpenTimer_Expires' }
  /** Event 13. */
  | { readonly type: 'IdleHoldTimer_Expires' }
  /** Event 14: a TCP connection request (SYN) from the peer arrived. */
  | { readonly type: 'TcpConnection_Valid' }
  /** Event 16: our outgoing TCP connection completed. */
  | { readonly type: 'Tcp_CR_Acked' }
  /** Event 17: the peer's incoming TCP connection completed. */
  | { readonly type: 'TcpConnectionConfirmed' }
  /** Event 18: the TCP connection failed or was closed by the peer. */
  | { readonly type: 'TcpConnectionFails' }
  /** Events 19 and 20: a valid OPEN arrived; `holdTime` is the peer's Hold Time field. */
  | { readonly type: 'BGPOpen'; readonly holdTime: number }
  /** Event 21: header check failed; the Message Header Error subcode (and data) to send. */
  | { readonly type: 'BGPHeaderErr'; readonly subcode: number; readonly data?: Uint8Array }
  /** Event 22: OPEN check failed; the OPEN Message Error subcode (and data) to send. */
  | { readonly type: 'BGPOpenMsgErr'; readonly subcode: number; readonly data?: Uint8Array }
  /** Event 23: connection collision resolution (see `resolveCollision`) chose this connection to close. */
  | { readonly type: 'OpenCollisionDump' }
  /** Event 24: NOTIFICATION with OPEN Message Error / Unsupported Version Number arrived. */
  | { readonly type: 'NotifMsgVerErr' }
  /** Event 25: any other NOTIFICATION arrived. */
  | { readonly type: 'NotifMsg' }
  /** Event 26. */
  | { readonly type: 'KeepAliveMsg' }
  /** Event 27: a valid UPDATE arrived. */
  | { readonly type: 'UpdateMsg' }
  /** Event 28: an UPDATE failed the section 6.3 checks with a session reset; the UPDATE Message Error subcode (and data). */
  | { readonly type: 'UpdateMsgErr'; readonly subcode: number; readonly data?: Uint8Array }
  /** A ROUTE-REFRESH arrived (RFC 2918; no RFC 4271 event number). */
  | { readonly type: 'RouteRefreshMsg' }
  /** The session stayed Established for dampResetTime: forgive its past flaps (no RFC 4271 number). */
  | { readonly type: 'DampResetTimer_Expires' };

export type FsmEventType = FsmEvent['type'];

/** RFC 4271 section 8.1 event numbers for logs and management; null for our own events. */
export const RFC_EVENT_NUMBER: Readonly<Record<FsmEventType, number | null>> = {
  ManualStart: 1,
  ManualStop: 2,
  AutomaticStart: 3,
  ManualStart_with_PassiveTcpEstablishment: 4,
  AutomaticStart_with_PassiveTcpEstablishment: 5,
  AutomaticStop: 8,
  ConnectRetryTimer_Expires: 9,
  HoldTimer_Expires: 10,
  KeepaliveTimer_Expires: 11,
  DelayOpenTimer_Expires: 12,
  IdleHoldTimer_Expires: 13,
  TcpConnection_Valid: 14,
  Tcp_CR_Acked: 16,
  TcpConnectionConfirmed: 17,
  TcpConnectionFails: 18,
  BGPOpen: 19,
  BGPHeaderErr: 21,
  BGPOpenMsgErr: 22,
  OpenCollisionDump: 23,
  NotifMsgVerErr: 24,
  NotifMsg: 25,
  KeepAliveMsg: 26,
  UpdateMsg: 27,
  UpdateMsgErr: 28,
  RouteRefreshMsg: null,
  DampResetTimer_Expires: null,
};

/** Every event type, in RFC order; derived from a Record so a new event cannot be forgotten. */
export const EVENT_TYPES = Object.keys(RFC_EVENT_NUMBER) as readonly FsmEventType[];

/** The event the shell feeds when a timer fires. */
export const TIMER_EXPIRY_EVENT: Readonly<Record<Timer, FsmEventType>> = {
  'connect-retry': 'ConnectRetryTimer_Expires',
  hold: 'HoldTimer_Expires',
  keepalive: 'KeepaliveTimer_Expires',
  'delay-open': 'DelayOpenTimer_Expires',
  'idle-hold': 'IdleHoldTimer_Expires',
  'damp-reset': 'DampResetTimer_Expires',
};

/** The timer whose expiry an event reports, if any. */
export const EXPIRED_TIMER: Readonly<Partial<Record<FsmEventType, Timer>>> = Object.fromEntries(
  Object.entries(TIMER_EXPIRY_EVENT).map(([timer, event]) => [event, timer]),
);

/** The BGP message type behind a message event: the RFC 6608 Data octet of an FSM error. */
export const EVENT_MESSAGE_TYPE: Readonly<Partial<Record<FsmEventType, MessageTypeCode>>> = {
  BGPOpen: MessageType.OPEN,
  BGPOpenMsgErr: MessageType.OPEN,
  NotifMsgVerErr: MessageType.NOTIFICATION,
  NotifMsg: MessageType.NOTIFICATION,
  KeepAliveMsg: MessageType.KEEPALIVE,
  UpdateMsg: MessageType.UPDATE,
  UpdateMsgErr: MessageType.UPDATE,
  RouteRefreshMsg: MessageType.ROUTE_REFRESH,
};

/** Classifies a received NOTIFICATION into event 24 or 25 (RFC 4271 section 8.1.5). */
export function notificationEvent(code: number, subcode: number): FsmEvent {
  return code === ErrorCode.OPEN_MESSAGE && subcode === OpenSubcode.UNSUPPORTED_VERSION_NUMBER
    ? { type: 'NotifMsgVerErr' }
    : { type: 'NotifMsg' };
}
