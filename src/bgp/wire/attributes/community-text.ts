import { ExtCommunitySubType, ExtCommunityType, wellKnownCommunityName } from '../constants.js';

/*
 * Communities as text, the forms `show` prints and policies are written in: RFC 1997 "AS:value"
 * (well-known ones by name), RFC 8092 "global:local1:local2", and RFC 4360 extended communities
 * as rt/soo keywords where they apply, else type, sub-type and value in hex.
 *
 *   extended community, octet  0      1        2 ........................... 7
 *                            +------+--------+--------------------------------+
 *                            | type | sub-   |  value (6 octets)              |
 *                            |      | type   |                                |
 *                            +------+--------+--------------------------------+
 *                            |<-------- hi word -------->|<---- lo word ----->|
 */

const HALF_BITS = 16;
const U16_MAX = 0xffff;
const TYPE_SHIFT = 24;
const SUBTYPE_SHIFT = 16;
/** Suffix that marks the four-octet AS form of a small AS, as Junos and GoBGP's "L" spelling. */
const FOUR_OCTET_SUFFIX = 'L';
const KEYWORDS: Readonly<Record<number, string>> = {
  [ExtCommunitySubType.ROUTE_TARGET]: 'rt',
  [ExtCommunitySubType.ROUTE_ORIGIN]: 'soo',
};

/** "65000:100", or the well-known name (RFC 1997 section 3: AS number, value). */
export function formatCommunity(c: number): string {
  return wellKnownCommunityName[c] ?? `${c >>> HALF_BITS}:${c & U16_MAX}`;
}

/** RFC 8092 section 3: "global:local1:local2". */
export function formatLargeCommunity(global: number, local1: number, local2: number): string {
  return `${global}:${local1}:${local2}`;
}

/** The high word of the extended community at `at` in an EXTENDED_COMMUNITIES value. */
export function extHi(b: Uint8Array, at: number): number {
  return ((b[at] << 24) | (b[at + 1] << 16) | (b[at + 2] << 8) | b[at + 3]) >>> 0;
}

export function extLo(b: Uint8Array, at: number): number {
  return extHi(b, at + 4);
}

function hex(n: number, digits: number): string {
  return n.toString(16).padStart(digits, '0');
}

/**
 * rt/soo where they apply (RFC 7153 sections 5.2.1-5.2.3: two-octet AS, IPv4 address and
 * four-octet AS specific), else "0xTTSS:VVVVVVVVVVVV"; policies read every form back.
 */
export function formatExtCommunity(hi: number, lo: number): string {
  const type = hi >>> TYPE_SHIFT;
  const subtype = (hi >>> SUBTYPE_SHIFT) & 0xff;
  const keyword = KEYWORDS[subtype];
  const high16 = hi & U16_MAX;
  if (keyword !== undefined) {
    if (type === ExtCommunityType.TRANSITIVE_TWO_OCTET_AS) return `${keyword}:${high16}:${lo >>> 0}`;
    const global32 = (high16 * 2 ** HALF_BITS + (lo >>> HALF_BITS)) >>> 0;
    const local = lo & U16_MAX;
    if (type === ExtCommunityType.TRANSITIVE_IPV4_ADDRESS) {
      const a = [global32 >>> 24, (global32 >>> 16) & 0xff, (global32 >>> 8) & 0xff, global32 & 0xff];
      return `${keyword}:${a.join('.')}:${local}`;
    }
    if (type === ExtCommunityType.TRANSITIVE_FOUR_OCTET_AS) {
      const suffix = global32 <= U16_MAX ? FOUR_OCTET_SUFFIX : '';
      return `${keyword}:${global32}${suffix}:${local}`;
    }
  }
  return `0x${hex(type, 2)}${hex(subtype, 2)}:${hex(high16, 4)}${hex(lo >>> 0, 8)}`;
}
