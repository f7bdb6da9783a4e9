import type { ConnectionDirection, FsmEventType, State } from '../fsm/index.js';
import type { Endpoint } from '../transport/index.js';
import type {
  MessageContext,
  Negotiated,
  OpenMessage,
  RouteRefreshMessage,
  UpdateMessage,
} from '../wire/index.js';

/* What a peer tells the layers above (the RIB, the control socket, logs). */

/** One TCP connection of a peer: which way it was opened and its two ends. */
export interface ConnectionInfo {
  readonly direction: ConnectionDirection;
  readonly local: Endpoint;
  readonly remote: Endpoint;
}

/** What the layers above get when a session comes up. */
export interface EstablishedInfo {
  /** Capabilities and values both ends agreed on (RFC 4271 4.2, RFC 5492). */
  readonly negotiated: Negotiated;
  /** How to encode and decode UPDATEs on this session (4-octet AS, ADD-PATH, size limit). */
  readonly context: MessageContext;
  /** Hold and keepalive time in use, in seconds (0: neither). */
  readonly holdTime: number;
  readonly keepaliveTime: number;
  readonly connection: ConnectionInfo;
  /** The OPEN we sent on this connection, and the peer's. */
  readonly localOpen: OpenMessage;
  readonly remoteOpen: OpenMessage;
}

export interface StateChange {
  readonly from: State;
  readonly to: State;
  /** Why, in words: "hold timer expired", "NOTIFICATION received: CEASE/...", ... */
  readonly reason: string;
}

export interface NotificationEvent {
  readonly direction: 'sent' | 'received';
  readonly code: number;
  readonly subcode: number;
  readonly data: Uint8Array;
  /** The RFC 9003 Shutdown Communication of a Cease/2 or Cease/4, if any. */
  readonly message: string | null;
  /** "CEASE/ADMINISTRATIVE_SHUTDOWN (6/2): "maintenance"" */
  readonly text: string;
}

/** How an Established session ended. */
export interface SessionEnd {
  /** The FSM event that ended it (TcpConnectionFails, HoldTimer_Expires, NotifMsg, ManualStop, ...). */
  readonly event: FsmEventType;
  /** The NOTIFICATION that ended it, either way; null when the connection just went. */
  readonly notification: NotificationEvent | null;
  /** RFC 4724 / RFC 8538: the peer's routes are kept, stale, instead of withdrawn. */
  readonly graceful: boolean;
}

/** Which way each of the two connections was opened (both may run the same way, e.g. a restarted peer). */
export interface CollisionEvent {
  readonly keep: ConnectionDirection;
  readonly close: ConnectionDirection;
  readonly localId: number;
  readonly remoteId: number;
}

export interface Family {
  readonly afi: number;
  readonly safi: number;
}

export type PeerEvents = {
  /** The peer's state (its most advanced connection) changed. */
  readonly state: [change: StateChange];
  readonly established: [info: EstablishedInfo];
  /**
   * The Established session ended; the routes learned over it are gone (RFC 4271 8.2.2), or,
   * when `end.graceful`, kept stale for the peer's restart (RFC 4724 section 4.2).
   */
  readonly down: [reason: string, end: SessionEnd];
  /** One UPDATE (RFC 7606 outcome in `action`). A returned promise pauses reading until it settles. */
  readonly update: [update: UpdateMessage];
  /** RFC 4724 End-of-RIB for a family; may push back like `update`. */
  readonly 'end-of-rib': [family: Family];
  /** The peer asks for our routes again (RFC 2918), or marks an RFC 7313 refresh (BoRR/EoRR). */
  readonly 'route-refresh': [message: RouteRefreshMessage];
  readonly notification: [n: NotificationEvent];
  /** A TCP connection to or from the peer came up. */
  readonly connection: [connection: ConnectionInfo];
  /** RFC 4271 6.8 resolved a collision between two connections. */
  readonly collision: [collision: CollisionEvent];
};
