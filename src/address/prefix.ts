import { IPV4_BITS, IPV6_BITS, IPV6_WORDS, type IpFamily, U32_MAX, WORD_BITS } from './constants.js';
import { AddressError, type AddressErrorKind } from './errors.js';
import { type ProblemCode, reason, scanIpv4 } from './scan.js';
import { formatWords, scanIpv6Words } from './words.js';

/*
 * Prefixes: "addr/len" in and out, and the masking the RIB keys, policy lists and export
 * rules run per prefix (on numbers, allocating nothing).
 */

/** A prefix as words (1 for IPv4, 4 for IPv6, most significant first) and a length. */
export interface IpPrefix {
  readonly family: IpFamily;
  readonly words: Uint32Array;
  readonly len: number;
}

/** What a caller wants done with bits past the length. */
export type HostBits =
  /** Cleared: RFC 4271 section 4.3 calls them irrelevant (the RIB, an NB row's ip_prefix). */
  | 'clear'
  /** Kept as written: an interface address such as 198.18.64.1/24. */
  | 'keep'
  /** An error: a configured prefix or prefix-list entry must name its network. */
  | 'refuse';

export interface PrefixRules {
  readonly hostBits: HostBits;
  /** An address without "/len" is its host prefix (/32, /128); else it is an error. */
  readonly bareAddress?: boolean;
  /** "010" is ten, in octets and in the length (how OVN's own scanner reads them). */
  readonly leadingZeros?: boolean;
}

export function addressBits(family: IpFamily): number {
  return family === 4 ? IPV4_BITS : IPV6_BITS;
}

/** The top `len` bits of a u32 word set (len clamped to 0..32). */
export function wordMask(len: number): number {
  if (len <= 0) return 0;
  if (len >= WORD_BITS) return U32_MAX;
  return (U32_MAX << (WORD_BITS - len)) >>> 0;
}

/** An IPv4 word masked to `len`: the network address. */
export function maskIpv4(word: number, len: number): number {
  if (len <= 0) return 0;
  if (len >= WORD_BITS) return word >>> 0;
  return (word & (U32_MAX << (WORD_BITS - len))) >>> 0;
}

/** Word `i` (0-3, most significant first) of an IPv6 address masked to `len`. */
export function maskWord(word: number, i: number, len: number): number {
  return maskIpv4(word, len - WORD_BITS * i);
}

/** Copies four words from `src[off..off+4)` into `out`, masked to `len`. */
export function maskIpv6(src: ArrayLike<number>, off: number, len: number, out: Uint32Array): Uint32Array {
  for (let i = 0; i < IPV6_WORDS; i++) out[i] = maskWord(src[off + i], i, len);
  return out;
}

/** Whether any bit past `len` is set in the words. */
function hasHostBits(words: Uint32Array, len: number): boolean {
  for (let i = 0; i < words.length; i++) if (maskWord(words[i], i, len) !== words[i]) return true;
  return false;
}

/** The prefix with its host bits cleared (the same object when none are set). */
export function networkOf(p: IpPrefix): IpPrefix {
  if (!hasHostBits(p.words, p.len)) return p;
  const words = new Uint32Array(p.words.length);
  for (let i = 0; i < words.length; i++) words[i] = maskWord(p.words[i], i, p.len);
  return { family: p.family, words, len: p.len };
}

/** True when `inner` lies inside `outer`: same family, not shorter, same bits up to outer's length. */
export function prefixContains(outer: IpPrefix, inner: IpPrefix): boolean {
  if (outer.family !== inner.family || inner.len < outer.len) return false;
  for (let i = 0; i < outer.words.length; i++) {
    if (maskWord(inner.words[i], i, outer.len) !== maskWord(outer.words[i], i, outer.len)) return false;
  }
  return true;
}

/** "198.18.0.0/15", "2001:db8::/32": the address as it is held (RFC 5952), then the length. */
export function formatIpPrefix(p: IpPrefix): string {
  return `${formatWords(p.family, p.words)}/${p.len}`;
}

interface Fault {
  readonly kind: AddressErrorKind;
  readonly why: string;
}

const DIGIT_0 = 0x30;
const DIGIT_9 = 0x39;
const MAX_LENGTH_DIGITS = 3;

/** The decimal length text[from..], or -1 when it is not 1 to 3 digits (no leading zero unless allowed). */
function scanLength(text: string, from: number, leadingZeros: boolean): number {
  const digits = text.length - from;
  if (digits < 1 || digits > MAX_LENGTH_DIGITS) return -1;
  if (digits > 1 && text.charCodeAt(from) === DIGIT_0 && !leadingZeros) return -1;
  let len = 0;
  for (let i = from; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (c < DIGIT_0 || c > DIGIT_9) return -1;
    len = len * 10 + (c - DIGIT_0);
  }
  return len;
}

function scanPrefix(text: string, rules: PrefixRules): IpPrefix | Fault {
  const leadingZeros = rules.leadingZeros ?? false;
  const slash = text.indexOf('/');
  if (slash < 0 && !rules.bareAddress) return { kind: 'missing-length', why: 'no "/len"' };
  const end = slash < 0 ? text.length : slash;
  const family: IpFamily = text.lastIndexOf(':', end) >= 0 ? 6 : 4;
  const bits = addressBits(family);
  const len = slash < 0 ? bits : scanLength(text, slash + 1, leadingZeros);
  if (len < 0) return { kind: 'invalid-length', why: 'the length is not a decimal number' };
  let words: Uint32Array;
  if (family === 4) {
    const v = scanIpv4(text, 0, end, leadingZeros);
    if (v < 0)
      return {
        kind: 'invalid-address',
        why: `not an IPv4 address: ${reason(text.slice(0, end), v as ProblemCode)}`,
      };
    words = Uint32Array.of(v);
  } else {
    words = new Uint32Array(IPV6_WORDS);
    const addr = slash < 0 ? text : text.slice(0, slash);
    const code = scanIpv6Words(addr, words, 0, leadingZeros);
    if (code !== 0) return { kind: 'invalid-address', why: `not an IPv6 address: ${reason(addr, code)}` };
  }
  if (len > bits)
    return {
      kind: 'length-out-of-range',
      why: `length out of range: IPv${family} prefixes are at most /${bits}`,
    };
  const p: IpPrefix = { family, words, len };
  if (rules.hostBits === 'keep' || !hasHostBits(words, len)) return p;
  if (rules.hostBits === 'clear') return networkOf(p);
  return {
    kind: 'host-bits-set',
    why: `bits are set past the length (the network is ${formatIpPrefix(networkOf(p))})`,
  };
}

/** "addr/len" under `rules`, or undefined. */
export function tryParseIpPrefix(text: string, rules: PrefixRules): IpPrefix | undefined {
  const p = scanPrefix(text, rules);
  return 'why' in p ? undefined : p;
}

/** "addr/len" under `rules`; an AddressError, whose kind says which part is wrong, for anything else. */
export function parseIpPrefix(text: string, rules: PrefixRules): IpPrefix {
  const p = scanPrefix(text, rules);
  if (!('why' in p)) return p;
  throw new AddressError(p.kind, text, `not a prefix: ${JSON.stringify(text)} (${p.why})`);
}
