import { Afi } from './constants.js';
import type { PrefixList } from './prefix-list.js';
import type { Writer } from './writer.js';

/**
 * NLRI: a run of (path id?, length, ceil(length/8) bytes) — RFC 4271 section 4.3,
 * RFC 4760 section 5, RFC 7911 section 3.
 *
 *   +---------------------------+
 *   | Path Identifier (4, opt.) |
 *   | Length (1 octet, bits)    |
 *   | Prefix (variable)         |
 *   +---------------------------+
 *
 * Decoding appends into `out` and returns false when the bytes do not parse (a length over
 * the family's maximum or a prefix that runs past `end`): RFC 7606 section 5.3 makes that a
 * session reset, which the caller decides. No allocation per prefix.
 */
export function decodeNlri(buf: Uint8Array, pos: number, end: number, out: PrefixList): boolean {
  return out.afi === Afi.IPV4 ? decodeIpv4(buf, pos, end, out) : decodeIpv6(buf, pos, end, out);
}

function decodeIpv4(buf: Uint8Array, pos: number, end: number, out: PrefixList): boolean {
  const addPath = out.addPath;
  while (pos < end) {
    let pathId = 0;
    if (addPath) {
      if (end - pos < 5) return false; // RFC 7911: a path id and at least the length octet
      pathId = u32At(buf, pos);
      pos += 4;
    }
    const len = buf[pos++];
    if (len > 32) return false;
    const n = (len + 7) >> 3;
    if (pos + n > end) return false;
    // Unrolled by byte count: the common /24 takes three loads and no loop.
    let w = 0;
    // One and two octets share a branch: a warm-up inside 198.18.0.0/15 has no prefix of one,
    // and a branch it never ran would throw the compiled code away at a table's first /8.
    if (n === 3) w = (buf[pos] << 24) | (buf[pos + 1] << 16) | (buf[pos + 2] << 8);
    else if (n === 4) w = (buf[pos] << 24) | (buf[pos + 1] << 16) | (buf[pos + 2] << 8) | buf[pos + 3];
    else if (n !== 0) w = (buf[pos] << 24) | (n === 2 ? buf[pos + 1] << 16 : 0);
    pos += n;
    const i = out.grow();
    out.lens[i] = len;
    out.words[i] = w >>> 0;
    if (addPath) out.pathIds[i] = pathId;
  }
  return true;
}

function decodeIpv6(buf: Uint8Array, pos: number, end: number, out: PrefixList): boolean {
  const addPath = out.addPath;
  while (pos < end) {
    let pathId = 0;
    if (addPath) {
      if (end - pos < 5) return false; // RFC 7911: a path id and at least the length octet
      pathId = u32At(buf, pos);
      pos += 4;
    }
    const len = buf[pos++];
    if (len > 128) return false;
    const n = (len + 7) >> 3;
    if (pos + n > end) return false;
    const i = out.grow();
    out.lens[i] = len;
    if (addPath) out.pathIds[i] = pathId;
    // Whole words first, then the partial one, then zeros: no test per byte.
    const words = out.words;
    let k = i * 4;
    const last = k + 4;
    for (const full = k + (n >> 2); k < full; k++, pos += 4) {
      words[k] = ((buf[pos] << 24) | (buf[pos + 1] << 16) | (buf[pos + 2] << 8) | buf[pos + 3]) >>> 0;
    }
    const rest = n & 3;
    if (rest !== 0) {
      let w = buf[pos] << 24;
      if (rest > 1) w |= buf[pos + 1] << 16;
      if (rest > 2) w |= buf[pos + 2] << 8;
      words[k++] = w >>> 0;
      pos += rest;
    }
    while (k < last) words[k++] = 0;
  }
  return true;
}

function u32At(buf: Uint8Array, pos: number): number {
  return ((buf[pos] << 24) | (buf[pos + 1] << 16) | (buf[pos + 2] << 8) | buf[pos + 3]) >>> 0;
}

/** Bytes one prefix of `list` takes on the wire. */
export function nlriSize(list: PrefixList, i: number): number {
  return (list.addPath ? 5 : 1) + ((list.lens[i] + 7) >> 3);
}

/** Writes prefix i of `list`. */
export function encodeNlriAt(w: Writer, list: PrefixList, i: number): void {
  const len = list.lens[i];
  const n = (len + 7) >> 3;
  w.ensure(n + 5);
  const b = w.buf;
  let p = w.pos;
  if (list.addPath) {
    const id = list.pathIds[i];
    b[p] = id >>> 24;
    b[p + 1] = id >>> 16;
    b[p + 2] = id >>> 8;
    b[p + 3] = id;
    p += 4;
  }
  b[p++] = len;
  if (list.afi === Afi.IPV4) {
    const v = list.words[i];
    if (n > 0) b[p] = v >>> 24;
    if (n > 1) b[p + 1] = v >>> 16;
    if (n > 2) b[p + 2] = v >>> 8;
    if (n > 3) b[p + 3] = v;
  } else {
    // Whole words, then the partial one (a /48 is one word and two bytes).
    const words = list.words;
    let k = i * 4;
    let at = 0;
    for (; at + 4 <= n; at += 4, k++) {
      const v = words[k];
      b[p + at] = v >>> 24;
      b[p + at + 1] = v >>> 16;
      b[p + at + 2] = v >>> 8;
      b[p + at + 3] = v;
    }
    if (at < n) {
      const v = words[k];
      b[p + at] = v >>> 24;
      if (at + 1 < n) b[p + at + 1] = v >>> 16;
      if (at + 2 < n) b[p + at + 2] = v >>> 8;
    }
  }
  w.pos = p + n;
}

/** Writes prefixes [from, to) of `list`. */
export function encodeNlri(w: Writer, list: PrefixList, from = 0, to = list.count): void {
  for (let i = from; i < to; i++) encodeNlriAt(w, list, i);
}
