import {
  ErrorCode,
  HEADER_LENGTH,
  HeaderSubcode,
  MARKER_LENGTH,
  MessageType,
  ROUTE_REFRESH_LENGTH,
  RouteRefreshSubcode,
  RouteRefreshSubtype,
} from './constants.js';
import { BgpError } from './errors.js';
import type { Reader } from './reader.js';
import { Writer } from './writer.js';

/*
 * RFC 2918 section 3, with RFC 7313 section 3 naming the reserved octet:
 *   | AFI (2) | Message Subtype (1) | SAFI (1) |
 */

export type RouteRefreshSubtypeCode = (typeof RouteRefreshSubtype)[keyof typeof RouteRefreshSubtype];

export interface RouteRefreshMessage {
  readonly type: 'route-refresh';
  readonly afi: number;
  /**
   * 0 normal, 1 BoRR, 2 EoRR (RouteRefreshSubtype). Any other value is kept as received:
   * RFC 7313 section 5 says such a message MUST be ignored, which is the session's job
   * (see isKnownRouteRefreshSubtype).
   */
  readonly subtype: number;
  readonly safi: number;
}

export interface RouteRefreshContext {
  /**
   * Whether Enhanced Route Refresh was negotiated (pass the `Negotiated` object). It only picks
   * the error for a body too short to hold a Message Subtype; defaults to true.
   */
  readonly enhancedRouteRefresh?: boolean;
}

const MARKER_OCTET = 0xff;
/** AFI(2) then the Message Subtype octet. */
const SUBTYPE_OFFSET = 2;
/** RFC 2918 section 3: SAFI value read for an ignored message that lacks one. */
const MISSING_SAFI = 0;

export function isKnownRouteRefreshSubtype(subtype: number): subtype is RouteRefreshSubtypeCode {
  return (
    subtype === RouteRefreshSubtype.NORMAL ||
    subtype === RouteRefreshSubtype.BORR ||
    subtype === RouteRefreshSubtype.EORR
  );
}

/**
 * Decodes a ROUTE-REFRESH body, which must be exactly 4 octets. When it is not:
 * - subtype 1 or 2 (BoRR/EoRR): RFC 7313 section 5, ROUTE-REFRESH Message Error / Invalid
 *   Message Length (7/1), the Data field being the complete ROUTE-REFRESH message;
 * - subtype 0: RFC 7313 leaves the RFC 2918 request alone and RFC 2918 defines no length error;
 *   we answer as RFC 4271 section 6.1 does for the other types: Bad Message Length (1/2) with
 *   the erroneous Length field as data (we never advertise RFC 5291 ORF, the only extension
 *   that lengthens this message);
 * - any other subtype: RFC 7313 section 5 says the message MUST be ignored, whatever its
 *   length, so it is returned (extra octets dropped, a missing SAFI read as 0) for the session
 *   to ignore;
 * - no subtype octet at all (under 3 octets): 7/1 if Enhanced Route Refresh was negotiated,
 *   else 1/2.
 */
export function decodeRouteRefresh(r: Reader, ctx: RouteRefreshContext = {}): RouteRefreshMessage {
  const bodyLength = r.remaining;
  if (bodyLength === ROUTE_REFRESH_LENGTH) {
    return { type: 'route-refresh', afi: r.u16(), subtype: r.u8(), safi: r.u8() };
  }
  const detail = `ROUTE-REFRESH body is ${bodyLength} octet(s), expected ${ROUTE_REFRESH_LENGTH}`;
  if (bodyLength > SUBTYPE_OFFSET) {
    const subtype = r.buf[r.pos + SUBTYPE_OFFSET];
    if (!isKnownRouteRefreshSubtype(subtype)) {
      const afi = r.u16();
      r.skip(1);
      return { type: 'route-refresh', afi, subtype, safi: r.remaining > 0 ? r.u8() : MISSING_SAFI };
    }
    if (subtype === RouteRefreshSubtype.NORMAL) throw badLength(bodyLength, detail);
    throw invalidLength(r, detail);
  }
  if (ctx.enhancedRouteRefresh ?? true) throw invalidLength(r, detail);
  throw badLength(bodyLength, detail);
}

function invalidLength(r: Reader, detail: string): BgpError {
  return new BgpError(
    'route-refresh-invalid-length',
    ErrorCode.ROUTE_REFRESH_MESSAGE,
    RouteRefreshSubcode.INVALID_MESSAGE_LENGTH,
    wholeMessage(r),
    detail,
  );
}

function badLength(bodyLength: number, detail: string): BgpError {
  const data = new Writer(2).u16(HEADER_LENGTH + bodyLength).finish();
  return new BgpError(
    'route-refresh-bad-length',
    ErrorCode.MESSAGE_HEADER,
    HeaderSubcode.BAD_MESSAGE_LENGTH,
    data,
    detail,
  );
}

/**
 * Rebuilds the received message from its body: the header already passed its checks, so its
 * marker was all ones, its length 19 + body and its type ROUTE-REFRESH.
 */
function wholeMessage(r: Reader): Uint8Array {
  const body = r.bytes(r.remaining);
  const w = new Writer(HEADER_LENGTH + body.length);
  w.fill(MARKER_OCTET, MARKER_LENGTH)
    .u16(HEADER_LENGTH + body.length)
    .u8(MessageType.ROUTE_REFRESH);
  return w.bytes(body).finish();
}

export function encodeRouteRefresh(w: Writer, m: RouteRefreshMessage): void {
  w.u16(m.afi).u8(m.subtype).u8(m.safi);
}
