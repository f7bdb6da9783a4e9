import type { PathAttributes } from './attributes/types.js';
import type { PrefixList } from './prefix-list.js';
import type { UpdateContext } from './update-context.js';

/**
 * RFC 4271 section 6.3's semantic NEXT_HOP checks (and their MP_REACH_NLRI counterparts,
 * RFC 4760 / RFC 2545) that depend on the session, not only on the attribute's bytes: the
 * decoder runs them on every UPDATE that announces routes, after the interned checks.
 * Returns the issue kind, or null when the next hop is usable. Allocates nothing.
 */
export function nextHopProblem(
  buf: Uint8Array,
  attrs: PathAttributes,
  ipv4Nlri: boolean,
  mpNlri: PrefixList | null,
  mpStart: number,
  ctx: UpdateContext,
): string | null {
  const own = ctx.localAddress;
  if (ipv4Nlri && attrs.nextHop !== undefined && own?.length === 4 && attrs.nextHop === u32(own, 0)) {
    return 'next-hop-own-address';
  }
  if (mpNlri === null || mpNlri.count === 0 || mpStart < 0) return null;
  // MP_REACH_NLRI: AFI(2) SAFI(1) next-hop length(1) next hop, already length-checked.
  const len = buf[mpStart + 3];
  const at = mpStart + 4;
  if (len === 4) {
    const v = u32(buf, at);
    if (isMartianV4(v)) return 'mp-next-hop-martian';
    return own?.length === 4 && v === u32(own, 0) ? 'next-hop-own-address' : null;
  }
  // 16 octets: one global address; 32: global then link-local (RFC 2545 section 3).
  const second = len === 32 ? at + 16 : -1;
  if (buf[at] === 0xff) return 'mp-next-hop-multicast'; // RFC 4291 section 2.7
  if (isUnspecifiedV6(buf, at)) {
    // Some unnumbered speakers leave the global slot empty and send the link-local beside it.
    return second >= 0 && isLinkLocalV6(buf, second) && ctx.linkLocalSession
      ? null
      : 'mp-next-hop-unspecified';
  }
  if (isLoopbackV6(buf, at)) return 'mp-next-hop-loopback';
  if (isLinkLocalV6(buf, at) && !ctx.linkLocalSession) return 'mp-next-hop-link-local-only';
  if (own?.length === 16 && sameBytes(buf, at, own)) return 'next-hop-own-address';
  return null;
}

/** RFC 4271 section 6.3 / RFC 7606 section 7.3: 0.0.0.0, 255.255.255.255 and 224.0.0.0/4. */
export function isMartianV4(v: number): boolean {
  return v === 0 || v === 0xffffffff || v >>> 28 === 0xe;
}

function u32(b: Uint8Array, p: number): number {
  return ((b[p] << 24) | (b[p + 1] << 16) | (b[p + 2] << 8) | b[p + 3]) >>> 0;
}

function isUnspecifiedV6(b: Uint8Array, p: number): boolean {
  for (let i = 0; i < 16; i++) if (b[p + i] !== 0) return false;
  return true;
}

function isLoopbackV6(b: Uint8Array, p: number): boolean {
  for (let i = 0; i < 15; i++) if (b[p + i] !== 0) return false;
  return b[p + 15] === 1;
}

/** fe80::/10 (RFC 4291 section 2.5.6). */
function isLinkLocalV6(b: Uint8Array, p: number): boolean {
  return b[p] === 0xfe && (b[p + 1] & 0xc0) === 0x80;
}

function sameBytes(b: Uint8Array, p: number, other: Uint8Array): boolean {
  for (let i = 0; i < 16; i++) if (b[p + i] !== other[i]) return false;
  return true;
}
