import type { AfiCode, MessageContext, PathAttributes, UpdateMessage } from '../bgp/wire/index.js';
import type { Stat } from './messages.js';

/** Visits routes: the prefix as words[off..] (1 or 4 by family), its length, path id and attributes. */
export type RouteVisitor = (
  afi: AfiCode,
  words: ArrayLike<number>,
  off: number,
  len: number,
  pathId: number,
  attrs: PathAttributes,
) => void;

/** One Established session as BMP describes it; fixed for the session's life. */
export interface MonitoredPeer {
  readonly name: string;
  /** The peer's address (RFC 5952 text) and port, and ours. */
  readonly address: string;
  readonly port: number;
  readonly localAddress: string;
  readonly localPort: number;
  readonly asn: number;
  /** The peer's BGP Identifier as a u32. */
  readonly bgpId: number;
  /** How the session encodes UPDATEs (4-octet AS, add-path): route monitoring encodes the same way. */
  readonly context: MessageContext;
  /** The OPENs as sent and received, whole messages. */
  readonly sentOpen: Uint8Array;
  readonly receivedOpen: Uint8Array;
  /** Unicast families the session carries: an End-of-RIB for each closes a dump. */
  readonly families: readonly AfiCode[];
  /** When the session came up, wall-clock ms. */
  readonly upAt: number;
}

/** What the station reads of one session: its routes before and after import policy, and counters. */
export interface MonitoredSession {
  readonly peer: MonitoredPeer;
  /** Every route the peer sent, before import policy (Adj-RIB-In pre-policy). */
  preRoutes(visit: RouteVisitor): void;
  /** Every route import policy accepted, with the attributes it set (Adj-RIB-In post-policy). */
  postRoutes(visit: RouteVisitor): void;
  /** The post-policy paths held now for one prefix. */
  accepted(afi: AfiCode, words: ArrayLike<number>, off: number, len: number): readonly AcceptedPath[];
  /** Section 4.8 counters and gauges we keep for the session. */
  stats(): Stat[];
}

export interface AcceptedPath {
  readonly pathId: number;
  readonly attrs: PathAttributes;
}

/** How a session ended, as Peer Down tells it (section 4.9). */
export interface SessionEnding {
  /** The NOTIFICATION either way, a whole BGP message, if one was sent or received. */
  readonly notification: { readonly direction: 'sent' | 'received'; readonly bytes: Uint8Array } | null;
  /** The FSM event that ended it, when we closed it without a NOTIFICATION. */
  readonly localEvent?: string;
  /** The peer was removed from the configuration. */
  readonly deconfigured?: boolean;
}

/** What the route pipeline tells the station as it happens. */
export interface BmpEvents {
  up(session: MonitoredSession): void;
  /** One UPDATE, after the RIB applied it (post-policy is read from the Adj-RIB-In then). */
  update(name: string, u: UpdateMessage): void;
  down(name: string, ending: SessionEnding): void;
  /** Import policy ran again over the session's stored routes: the post-policy view is sent again. */
  reimported(name: string): void;
}
