import { CeaseSubcode, ErrorCode } from '../wire/index.js';
import type { State } from './states.js';

/** Who opened a TCP connection: we did (outgoing) or the peer did (incoming). */
export type ConnectionDirection = 'outgoing' | 'incoming';

export interface CollisionInput {
  /** Our BGP Identifier as an unsigned 32-bit number in host order. */
  readonly localId: number;
  /** The BGP Identifier in the OPEN just received. */
  readonly remoteId: number;
  /** RFC 6286 section 2.3 tie-break when the identifiers are equal. */
  readonly localAs?: number;
  readonly remoteAs?: number;
  /** The connection the OPEN arrived on; the other connection to the peer runs the other way. */
  readonly received: ConnectionDirection;
  /** State of the other connection's FSM. */
  readonly otherState: State;
  /** RFC 4271 6.8 MAY: also resolve against an OpenSent connection (the peer's id is known by configuration). */
  readonly examineOpenSent?: boolean;
  /** RFC 4271 8.1.1 CollisionDetectEstablishedState: resolve against Established by identifiers too. */
  readonly collisionDetectEstablishedState?: boolean;
}

export type CollisionVerdict =
  | { readonly collision: false }
  | {
      readonly collision: true;
      /** `this` is the connection the OPEN arrived on; `other` the one it collided with. */
      readonly close: 'this' | 'other';
      readonly closeDirection: ConnectionDirection;
      /** RFC 4271 6.8 closes with Cease; RFC 4486 names the subcode. Feed OpenCollisionDump to that FSM. */
      readonly code: number;
      readonly subcode: number;
    };

const NO_COLLISION: CollisionVerdict = { collision: false };

const opposite = (d: ConnectionDirection): ConnectionDirection =>
  d === 'outgoing' ? 'incoming' : 'outgoing';

/**
 * RFC 4271 section 6.8: when an OPEN arrives while another connection to the same peer is in
 * OpenConfirm, keep only the connection initiated by the speaker with the higher BGP
 * Identifier (compared as unsigned 32-bit integers). Pure: the caller feeds OpenCollisionDump
 * to the FSM of the connection to close.
 */
export function resolveCollision(input: CollisionInput): CollisionVerdict {
  const { received, otherState } = input;
  const close = (direction: ConnectionDirection): CollisionVerdict => ({
    collision: true,
    close: direction === received ? 'this' : 'other',
    closeDirection: direction,
    code: ErrorCode.CEASE,
    subcode: CeaseSubcode.CONNECTION_COLLISION_RESOLUTION,
  });

  switch (otherState) {
    case 'OpenConfirm':
      break;
    case 'OpenSent':
      if (!input.examineOpenSent) return NO_COLLISION;
      break;
    case 'Established':
      // "Unless allowed via configuration ... causes closing of the newly created connection."
      if (!input.collisionDetectEstablishedState) return close(received);
      break;
    default:
      // "a connection collision cannot be detected with connections that are in Idle,
      // Connect, or Active states."
      return NO_COLLISION;
  }

  const localId = input.localId >>> 0;
  const remoteId = input.remoteId >>> 0;
  let localWins: boolean;
  if (localId !== remoteId) {
    localWins = localId > remoteId;
  } else if (
    input.localAs !== undefined &&
    input.remoteAs !== undefined &&
    input.localAs !== input.remoteAs
  ) {
    // RFC 6286 section 2.3: equal identifiers, so the larger AS number keeps its connection.
    localWins = input.localAs >>> 0 > input.remoteAs >>> 0;
  } else {
    // Nothing tells the two apart (the OPEN check should have refused the identifier): keep
    // the older connection.
    return close(received);
  }
  // The winner keeps the connection it initiated.
  const keep: ConnectionDirection = localWins ? 'outgoing' : 'incoming';
  return close(opposite(keep));
}
