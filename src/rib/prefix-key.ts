import {
  formatIpv4,
  formatIpv6,
  maskIpv4,
  maskIpv6,
  maskWord,
  type PrefixRules,
  parseIpPrefix,
  parseIpv4,
  parseIpv6,
} from '../address/index.js';
import { Afi, type AfiCode, type Prefix } from '../bgp/wire/index.js';

/**
 * Prefix keys. Inside the RIB a prefix is its address words masked to the length plus the
 * length: IPv4 fits one number (`addr * 64 + len` < 2^38, exact in a double), IPv6 is four
 * u32 words hashed into the open-addressing tables of prefix-table.ts. Text only at the API.
 */

export const IPV4_MAX_LEN = 32;
export const IPV6_MAX_LEN = 128;
/** 2^6 > 32: room for the length below the address in an IPv4 key. */
const IPV4_KEY_LEN_SPAN = 64;

export function maxLength(afi: AfiCode): number {
  return afi === Afi.IPV4 ? IPV4_MAX_LEN : IPV6_MAX_LEN;
}

export function ipv4Key(addr: number, len: number): number {
  return maskIpv4(addr, len) * IPV4_KEY_LEN_SPAN + len;
}

export function ipv4KeyAddress(key: number): number {
  return Math.floor(key / IPV4_KEY_LEN_SPAN);
}

export function ipv4KeyLength(key: number): number {
  return key % IPV4_KEY_LEN_SPAN;
}

/**
 * An IPv6 prefix as a Map key: the masked address as eight 16-bit code units, then the length
 * (nine in all, one per code unit, so two prefixes share a key exactly when they are equal).
 * Opaque, not text: a sink keys a million prefixes with it, and hex digits cost six times as much.
 */
export function ipv6Key(words: ArrayLike<number>, off: number, len: number): string {
  return maskedIpv6Key(
    maskWord(words[off], 0, len),
    maskWord(words[off + 1], 1, len),
    maskWord(words[off + 2], 2, len),
    maskWord(words[off + 3], 3, len),
    len,
  );
}

/** ipv6Key of words already masked to `len` (a RibPrefix's): nothing to copy or mask again. */
function maskedIpv6Key(a: number, b: number, c: number, d: number, len: number): string {
  return String.fromCharCode(
    a >>> 16,
    a & 0xffff,
    b >>> 16,
    b & 0xffff,
    c >>> 16,
    c & 0xffff,
    d >>> 16,
    d & 0xffff,
    len,
  );
}

/** The masked words of a prefix given as text (1 word for IPv4, 4 for IPv6). */
export function prefixWords(p: Prefix): Uint32Array {
  checkLength(p.afi, p.len);
  if (p.afi === Afi.IPV4) return Uint32Array.of(maskIpv4(parseIpv4(p.addr), p.len));
  return maskIpv6(parseIpv6(p.addr), 0, p.len, new Uint32Array(4));
}

/** A number for IPv4, a string for IPv6: usable as a Map key by API code and tests. */
export function prefixKey(p: Prefix): number | string {
  const w = prefixWords(p);
  return p.afi === Afi.IPV4 ? w[0] * IPV4_KEY_LEN_SPAN + p.len : ipv6Key(w, 0, p.len);
}

/** Host bits are irrelevant to a route (RFC 4271 section 4.3): the RIB clears them. */
const RIB_PREFIX_TEXT: PrefixRules = { hostBits: 'clear' };

/** "198.18.0.0/24" or "2001:db8::/32"; host bits are cleared. An AddressError says what is wrong with bad text. */
export function parsePrefix(text: string): RibPrefix {
  const p = parseIpPrefix(text, RIB_PREFIX_TEXT);
  return RibPrefix.fromWords(p.family === 4 ? Afi.IPV4 : Afi.IPV6, p.words, 0, p.len);
}

export function formatPrefix(p: Prefix): string {
  return `${p.addr}/${p.len}`;
}

/** Turns any Prefix into a RibPrefix (masked, words at hand). */
export function toRibPrefix(p: Prefix): RibPrefix {
  if (p instanceof RibPrefix) return p;
  return RibPrefix.fromWords(p.afi, prefixWords(p), 0, p.len);
}

function checkLength(afi: AfiCode, len: number): void {
  if (afi !== Afi.IPV4 && afi !== Afi.IPV6) throw new Error(`unsupported address family ${afi}`);
  if (!Number.isInteger(len) || len < 0 || len > maxLength(afi))
    throw new Error(`prefix length ${len} out of range for ${afi === Afi.IPV4 ? 'IPv4' : 'IPv6'}`);
}

/**
 * A Prefix as the RIB hands it out in route changes: masked words kept as numbers so sinks
 * and the Adj-RIB-Out need no parsing, the address text built only if somebody reads it.
 */
export class RibPrefix implements Prefix {
  readonly afi: AfiCode;
  readonly len: number;
  readonly w0: number;
  readonly w1: number;
  readonly w2: number;
  readonly w3: number;
  private text: string | undefined;
  /** The IPv6 key, built on first use: a sink keys each prefix several times per change. */
  #keyText: string | undefined;

  constructor(afi: AfiCode, len: number, w0: number, w1 = 0, w2 = 0, w3 = 0) {
    this.afi = afi;
    this.len = len;
    this.w0 = w0;
    this.w1 = w1;
    this.w2 = w2;
    this.w3 = w3;
  }

  /** From words[off..] (1 or 4 of them, by family), masked to `len`. */
  static fromWords(afi: AfiCode, words: ArrayLike<number>, off: number, len: number): RibPrefix {
    checkLength(afi, len);
    if (afi === Afi.IPV4) return new RibPrefix(afi, len, maskIpv4(words[off], len));
    return new RibPrefix(
      afi,
      len,
      maskWord(words[off], 0, len),
      maskWord(words[off + 1], 1, len),
      maskWord(words[off + 2], 2, len),
      maskWord(words[off + 3], 3, len),
    );
  }

  get addr(): string {
    this.text ??=
      this.afi === Afi.IPV4 ? formatIpv4(this.w0) : formatIpv6(this.w0, this.w1, this.w2, this.w3);
    return this.text;
  }

  /** The words as a fresh array (1 or 4). */
  words(): Uint32Array {
    return this.afi === Afi.IPV4
      ? Uint32Array.of(this.w0)
      : Uint32Array.of(this.w0, this.w1, this.w2, this.w3);
  }

  key(): number | string {
    if (this.afi === Afi.IPV4) return this.w0 * IPV4_KEY_LEN_SPAN + this.len;
    this.#keyText ??= maskedIpv6Key(this.w0, this.w1, this.w2, this.w3, this.len);
    return this.#keyText;
  }

  equals(o: RibPrefix): boolean {
    return (
      this.afi === o.afi &&
      this.len === o.len &&
      this.w0 === o.w0 &&
      this.w1 === o.w1 &&
      this.w2 === o.w2 &&
      this.w3 === o.w3
    );
  }

  toString(): string {
    return `${this.addr}/${this.len}`;
  }

  toJSON(): Prefix {
    return { afi: this.afi, addr: this.addr, len: this.len };
  }
}
