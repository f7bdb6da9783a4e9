import { KindedError } from '../../components/index.js';
import { describeError } from './constants.js';

/**
 * Why a session is reset, one kind per check that can fail: the codec's, by message, then the
 * session's own. Logs and tests match on these; a new check adds its kind here.
 */
export type BgpErrorKind =
  // Message header (RFC 4271 section 6.1).
  | 'header-marker'
  | 'header-length'
  | 'header-type'
  | 'message-truncated'
  // OPEN (RFC 4271 section 6.2, RFC 5492, RFC 6286, RFC 9072).
  | 'open-too-short'
  | 'open-truncated'
  | 'open-unsupported-version'
  | 'open-unacceptable-hold-time'
  | 'open-bad-bgp-identifier'
  | 'open-bad-peer-as'
  | 'open-malformed-optional-parameters'
  | 'open-unsupported-optional-parameter'
  | 'open-malformed-capability'
  | 'open-no-common-family'
  // UPDATE (RFC 4271 section 6.3, RFC 4760, RFC 7606: what still resets the session).
  | 'update-too-short'
  | 'withdrawn-length-overrun'
  | 'attribute-length-overrun'
  | 'withdrawn-malformed'
  | 'nlri-malformed'
  | 'too-many-attributes'
  | 'unrecognized-well-known-attribute'
  | 'mp-attribute-repeated'
  | 'mp-reach-flags'
  | 'mp-reach-malformed'
  | 'mp-reach-next-hop-length'
  | 'mp-reach-nlri-malformed'
  | 'mp-unreach-flags'
  | 'mp-unreach-malformed'
  | 'mp-unreach-nlri-malformed'
  // NOTIFICATION (RFC 4271 section 6.1) and ROUTE-REFRESH (RFC 7313 section 5).
  | 'notification-too-short'
  | 'route-refresh-invalid-length'
  | 'route-refresh-bad-length'
  // The session's own limits: a peer that does not stop sending (Cease, Out of Resources).
  | 'read-buffer-full';

/**
 * A protocol error that resets the session: the NOTIFICATION (code, subcode, data) to send.
 * `kind` is a stable string for logs and tests. Only this is ever thrown by the decoders;
 * softer RFC 7606 outcomes come back as values.
 */
export class BgpError extends KindedError<BgpErrorKind> {
  readonly code: number;
  readonly subcode: number;
  readonly data: Uint8Array;
  constructor(kind: BgpErrorKind, code: number, subcode: number, data: Uint8Array = EMPTY, detail?: string) {
    super(kind, `${kind}: ${describeError(code, subcode)}${detail ? `: ${detail}` : ''}`);
    this.code = code;
    this.subcode = subcode;
    this.data = data;
  }
}

/**
 * Thrown by a Reader when bytes run out. The framer turns it into "wait for more";
 * inside a framed message it means the message lied about its lengths, and the caller
 * converts it to the BgpError its RFC section asks for.
 */
export class IncompleteError extends KindedError<'incomplete'> {
  readonly needed: number;
  constructor(needed: number) {
    super('incomplete', `incomplete: ${needed} more byte(s) needed`);
    this.needed = needed;
  }
}

export const EMPTY = new Uint8Array(0);
