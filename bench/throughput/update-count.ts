/**
 * Counts the prefixes an UPDATE announces and withdraws without decoding anything else: the
 * counting receiver's whole job, so that it stays much faster than any sender it measures.
 *
 *   UPDATE body (RFC 4271 section 4.3)          MP_REACH_NLRI value (RFC 4760 section 3)
 *   +---------------------------+               +------------------------------------+
 *   | Withdrawn Routes Length 2 |               | AFI 2 | SAFI 1 | NH length 1 | NH  |
 *   | Withdrawn Routes ...      |               | Reserved 1 | NLRI ...              |
 *   | Total Path Attr Length 2  |               +------------------------------------+
 *   | Path Attributes ...       |               MP_UNREACH_NLRI value (section 4):
 *   | NLRI ...                  |               | AFI 2 | SAFI 1 | Withdrawn Routes ...|
 *   +---------------------------+
 *
 * Each prefix is a length octet and ceil(length / 8) address octets (no ADD-PATH here).
 */
import { AttrFlag, AttrType, HEADER_LENGTH } from '../../src/bgp/wire/constants.js';

export interface PrefixCounts {
  announced: number;
  withdrawn: number;
}

const BITS = 8;
const MP_REACH_FIXED = 5; // AFI, SAFI, next-hop length, reserved
const MP_UNREACH_FIXED = 3; // AFI, SAFI

/** Prefixes in [from, to): one length octet plus its address octets each. */
function prefixesIn(m: Uint8Array, from: number, to: number): number {
  let n = 0;
  for (let p = from; p < to; p += 1 + Math.ceil(m[p] / BITS)) n++;
  return n;
}

/** Adds the counts of one whole UPDATE message (header included) to `into`. */
export function countUpdate(m: Uint8Array, into: PrefixCounts): void {
  const end = m.length;
  let p = HEADER_LENGTH;
  const withdrawnLength = (m[p] << 8) | m[p + 1];
  p += 2;
  into.withdrawn += prefixesIn(m, p, Math.min(end, p + withdrawnLength));
  p += withdrawnLength;
  const attrsLength = (m[p] << 8) | m[p + 1];
  p += 2;
  const attrsEnd = Math.min(end, p + attrsLength);
  while (p + 3 <= attrsEnd) {
    const flags = m[p];
    const type = m[p + 1];
    const extended = (flags & AttrFlag.EXTENDED_LENGTH) !== 0;
    const len = extended ? (m[p + 2] << 8) | m[p + 3] : m[p + 2];
    const value = p + (extended ? 4 : 3);
    const valueEnd = Math.min(attrsEnd, value + len);
    if (type === AttrType.MP_REACH_NLRI) {
      const nlri = value + MP_REACH_FIXED + m[value + 3];
      into.announced += prefixesIn(m, nlri, valueEnd);
    } else if (type === AttrType.MP_UNREACH_NLRI) {
      into.withdrawn += prefixesIn(m, value + MP_UNREACH_FIXED, valueEnd);
    }
    p = value + len;
  }
  into.announced += prefixesIn(m, attrsEnd, end);
}
