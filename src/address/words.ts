import { IPV6_GROUPS, IPV6_WORDS, type IpFamily, V4_MAPPED_WORD2 } from './constants.js';
import { AddressError } from './errors.js';
import { groups, type ProblemCode, reason, scanIpv4, scanIpv6 } from './scan.js';

/*
 * Addresses as u32 words, most significant first: one for IPv4, four for IPv6. This is the
 * column form of PrefixList and RibPrefix, so decoding, keying and matching never see text.
 */

const HALF_WORD_BITS = 16;
const GROUP_MASK = 0xffff;
const OCTET_MASK = 255;
const HEX = 16;

function invalid(family: 'IPv4' | 'IPv6', text: string, code: ProblemCode): AddressError {
  return new AddressError(
    'invalid-address',
    text,
    `not an ${family} address: ${JSON.stringify(text)} (${reason(text, code)})`,
  );
}

/** A dotted quad as a u32 word, or undefined. `leadingZeros` takes "010" as ten (OVN's spelling). */
export function tryParseIpv4(text: string, leadingZeros = false): number | undefined {
  const v = scanIpv4(text, 0, text.length, leadingZeros);
  return v < 0 ? undefined : v;
}

/** A dotted quad as a u32 word; an AddressError says what is wrong with anything else. */
export function parseIpv4(text: string): number {
  const v = scanIpv4(text, 0, text.length, false);
  if (v < 0) throw invalid('IPv4', text, v as ProblemCode);
  return v;
}

export function formatIpv4(word: number): string {
  return `${word >>> 24}.${(word >>> 16) & OCTET_MASK}.${(word >>> 8) & OCTET_MASK}.${word & OCTET_MASK}`;
}

/** Writes the four words of IPv6 text at out[off..off+4), or returns why it is none (out untouched). */
export function scanIpv6Words(
  text: string,
  out: Uint32Array,
  off: number,
  leadingZeros: boolean,
): 0 | ProblemCode {
  const code = scanIpv6(text, leadingZeros);
  if (code === 0) packGroups(out, off);
  return code;
}

/** IPv6 text as four fresh words; an AddressError says what is wrong with anything else. */
export function parseIpv6(text: string): Uint32Array {
  const out = new Uint32Array(IPV6_WORDS);
  const code = scanIpv6Words(text, out, 0, false);
  if (code !== 0) throw invalid('IPv6', text, code);
  return out;
}

function packGroups(out: Uint32Array, off: number): void {
  for (let i = 0; i < IPV6_WORDS; i++) {
    out[off + i] = ((groups[2 * i] << HALF_WORD_BITS) | groups[2 * i + 1]) >>> 0;
  }
}

/** The groups of the address being formatted: filled once, read by both passes. */
const formatGroups = new Uint16Array(IPV6_GROUPS);

/**
 * RFC 5952 text of an IPv6 address: lower-case hex without leading zeros (4.1, 4.3), the longest
 * run of two or more zero groups as '::', the first of equal runs (4.2.1-4.2.3), and an
 * IPv4-mapped address as ::ffff:a.b.c.d (section 5).
 */
export function formatIpv6(w0: number, w1: number, w2: number, w3: number): string {
  if (w0 === 0 && w1 === 0 && w2 === V4_MAPPED_WORD2) return `::ffff:${formatIpv4(w3)}`;
  const g = formatGroups;
  g[0] = w0 >>> HALF_WORD_BITS;
  g[1] = w0 & GROUP_MASK;
  g[2] = w1 >>> HALF_WORD_BITS;
  g[3] = w1 & GROUP_MASK;
  g[4] = w2 >>> HALF_WORD_BITS;
  g[5] = w2 & GROUP_MASK;
  g[6] = w3 >>> HALF_WORD_BITS;
  g[7] = w3 & GROUP_MASK;
  let bestAt = -1;
  let bestLength = 1; // 4.2.2: one zero group alone is not shortened
  let runAt = -1;
  for (let i = 0; i < IPV6_GROUPS; i++) {
    if (g[i] !== 0) {
      runAt = -1;
      continue;
    }
    if (runAt < 0) runAt = i;
    if (i - runAt + 1 > bestLength) {
      bestAt = runAt;
      bestLength = i - runAt + 1;
    }
  }
  let out = '';
  for (let i = 0; i < IPV6_GROUPS; i++) {
    if (i === bestAt) {
      out += '::';
      i += bestLength - 1;
      continue;
    }
    if (i > 0 && i !== bestAt + bestLength) out += ':';
    out += g[i].toString(HEX);
  }
  return out;
}

/** Text of the address at words[off..] (1 word for IPv4, 4 for IPv6). */
export function formatWords(family: IpFamily, words: ArrayLike<number>, off = 0): string {
  return family === 4
    ? formatIpv4(words[off])
    : formatIpv6(words[off], words[off + 1], words[off + 2], words[off + 3]);
}
