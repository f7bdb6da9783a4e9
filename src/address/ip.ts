import { IPV4_BYTES, IPV6_BYTES, IPV6_WORDS, type IpFamily, V4_MAPPED_PREFIX } from './constants.js';
import { AddressError } from './errors.js';
import { groups, type ProblemCode, reason, scanIpv4, scanIpv6 } from './scan.js';
import { formatIpv4, formatIpv6 } from './words.js';

/*
 * Addresses as bytes in network order, the form sockets, next hops and the kernel take. The
 * family follows from the text: a ':' makes it IPv6.
 */

/** An IP address: 4 or 16 bytes, most significant first. */
export interface IpAddress {
  readonly family: IpFamily;
  readonly bytes: Uint8Array;
}

const BYTE_BITS = 8;
const OCTET_MASK = 255;

function familyOf(text: string): IpFamily {
  return text.includes(':') ? 6 : 4;
}

/** The bytes of IPv4 or IPv6 text, or a problem code. */
function scan(text: string, leadingZeros: boolean): IpAddress | ProblemCode {
  if (familyOf(text) === 4) {
    const v = scanIpv4(text, 0, text.length, leadingZeros);
    if (v < 0) return v as ProblemCode;
    return { family: 4, bytes: wordBytes(v) };
  }
  const code = scanIpv6(text, leadingZeros);
  if (code !== 0) return code;
  const bytes = new Uint8Array(IPV6_BYTES);
  for (let i = 0; i < groups.length; i++) {
    bytes[2 * i] = groups[i] >>> BYTE_BITS;
    bytes[2 * i + 1] = groups[i] & OCTET_MASK;
  }
  return { family: 6, bytes };
}

/** An IPv4 or IPv6 address (no zone id, no length), or undefined. */
export function tryParseIp(text: string, leadingZeros = false): IpAddress | undefined {
  const ip = scan(text, leadingZeros);
  return typeof ip === 'number' ? undefined : ip;
}

/** Why `text` is not an IPv4 or IPv6 address, or undefined when it is one. */
export function ipProblem(text: string): string | undefined {
  const ip = scan(text, false);
  return typeof ip === 'number' ? reason(text, ip) : undefined;
}

/** An IPv4 or IPv6 address; an AddressError says what is wrong with anything else. */
export function parseIp(text: string): IpAddress {
  const ip = scan(text, false);
  if (typeof ip !== 'number') return ip;
  throw new AddressError(
    'invalid-address',
    text,
    `not an IP address: ${JSON.stringify(text)} (${reason(text, ip)})`,
  );
}

/** 4 or 16 bytes of an address given as text (an AddressError when it is none). */
export function addressBytes(text: string): Uint8Array {
  return parseIp(text).bytes;
}

export function isV4Mapped(ip: IpAddress): boolean {
  return ip.family === 6 && V4_MAPPED_PREFIX.every((b, i) => ip.bytes[i] === b);
}

/** ::ffff:a.b.c.d for an IPv4 address; IPv6 addresses come back unchanged. */
export function toV4Mapped(ip: IpAddress): IpAddress {
  if (ip.family === 6) return ip;
  const bytes = new Uint8Array(IPV6_BYTES);
  bytes.set(V4_MAPPED_PREFIX, 0);
  bytes.set(ip.bytes, V4_MAPPED_PREFIX.length);
  return { family: 6, bytes };
}

/** a.b.c.d for ::ffff:a.b.c.d; everything else unchanged. */
export function unmapV4(ip: IpAddress): IpAddress {
  return isV4Mapped(ip) ? { family: 4, bytes: ip.bytes.slice(V4_MAPPED_PREFIX.length) } : ip;
}

/** Dotted quad, or RFC 5952 text (formatIpv6). */
export function formatIp(ip: IpAddress): string {
  return formatAddress(ip.bytes);
}

/** Text of 4 or 16 address bytes. */
export function formatAddress(bytes: Uint8Array): string {
  if (bytes.length === IPV4_BYTES) return formatIpv4(bytesWord(bytes, 0));
  return formatIpv6(bytesWord(bytes, 0), bytesWord(bytes, 4), bytesWord(bytes, 8), bytesWord(bytes, 12));
}

/**
 * The one spelling of an address in reports and peer tables: ::ffff:a.b.c.d becomes a.b.c.d
 * (what a dual-stack socket reports for an IPv4 peer), IPv6 becomes RFC 5952 text.
 */
export function normalizeAddress(text: string): string {
  return formatIp(unmapV4(parseIp(text)));
}

// --- bytes <-> words ---------------------------------------------------------------------

/** The u32 word of bytes[at..at+4), most significant first. */
export function bytesWord(bytes: ArrayLike<number>, at: number): number {
  return ((bytes[at] << 24) | (bytes[at + 1] << 16) | (bytes[at + 2] << 8) | bytes[at + 3]) >>> 0;
}

/** The 4 bytes of a u32 word. */
function wordBytes(word: number): Uint8Array {
  const out = new Uint8Array(IPV4_BYTES);
  writeWord(out, 0, word);
  return out;
}

/** Writes a u32 word as 4 bytes at out[at..at+4). */
function writeWord(out: Uint8Array, at: number, word: number): void {
  out[at] = word >>> 24;
  out[at + 1] = (word >>> 16) & OCTET_MASK;
  out[at + 2] = (word >>> 8) & OCTET_MASK;
  out[at + 3] = word & OCTET_MASK;
}

/** The words of 4 or 16 address bytes (1 or 4 of them), fresh. */
export function bytesToWords(bytes: Uint8Array): Uint32Array {
  const out = new Uint32Array(bytes.length === IPV4_BYTES ? 1 : IPV6_WORDS);
  for (let i = 0; i < out.length; i++) out[i] = bytesWord(bytes, 4 * i);
  return out;
}

/** The bytes of an address held as `count` words at words[off..] (1 for IPv4, 4 for IPv6). */
export function wordsToBytes(words: ArrayLike<number>, off: number, count: 1 | 4): Uint8Array {
  const out = new Uint8Array(count * IPV4_BYTES);
  for (let i = 0; i < count; i++) writeWord(out, 4 * i, words[off + i]);
  return out;
}
