import { IPV6_GROUPS, MAX_OCTET } from './constants.js';

/*
 * The two scanners every parse in this module runs: char codes in, a u32 word or eight groups
 * out, and a problem code instead of a throw. Nothing is allocated, nothing is sliced: a
 * full OVN load or a configuration parses thousands of addresses, and split + regex + a
 * throw per bad one cost several times this.
 */

/** Why a text is not an address. Negative, so an IPv4 scan returns either a word or one of these. */
export const Problem = {
  EMPTY: -1,
  V4_OCTETS: -2,
  V4_EMPTY_OCTET: -3,
  V4_OCTET_RANGE: -4,
  V4_LEADING_ZERO: -5,
  CHARACTER: -6,
  ZONE: -7,
  V6_GROUP_LONG: -8,
  V6_EMPTY_GROUP: -9,
  V6_GROUP_COUNT: -10,
  V6_TWO_GAPS: -11,
  V6_GAP_EMPTY: -12,
  V6_DOTTED: -13,
} as const;
export type ProblemCode = (typeof Problem)[keyof typeof Problem];

const REASONS: Readonly<Record<ProblemCode, string>> = {
  [Problem.EMPTY]: 'it is empty',
  [Problem.V4_OCTETS]: 'an IPv4 address is four decimal octets separated by dots',
  [Problem.V4_EMPTY_OCTET]: 'an octet is empty',
  [Problem.V4_OCTET_RANGE]: `an octet is above ${MAX_OCTET}`,
  [Problem.V4_LEADING_ZERO]: 'an octet has a leading zero (inet_aton reads it as octal)',
  [Problem.CHARACTER]: 'a character belongs in no address',
  [Problem.ZONE]: 'zone ids (%...) are not supported',
  [Problem.V6_GROUP_LONG]: 'a group has more than 4 hex digits',
  [Problem.V6_EMPTY_GROUP]: "a group is empty (a lone ':' or ':::')",
  [Problem.V6_GROUP_COUNT]: "an IPv6 address is 8 groups, or fewer around one '::'",
  [Problem.V6_TWO_GAPS]: "'::' appears more than once",
  [Problem.V6_GAP_EMPTY]: "8 groups beside a '::', which stands for at least one (RFC 4291 section 2.2)",
  [Problem.V6_DOTTED]: 'the dotted quad at its end is not an IPv4 address',
};

const NOT_IPV4 = /[^0-9.]/;
const NOT_IPV6 = /[^0-9A-Fa-f:.]/;

/** The reason for a problem code, naming the character when one is out of place. */
export function reason(text: string, code: ProblemCode): string {
  if (code !== Problem.CHARACTER) return REASONS[code];
  const bad = (text.includes(':') ? NOT_IPV6 : NOT_IPV4).exec(text)?.[0];
  return bad === undefined ? REASONS[code] : `${JSON.stringify(bad)} belongs in no address`;
}

const DOT = 0x2e;
const COLON = 0x3a;
const PERCENT = 0x25;
const DIGIT_0 = 0x30;
const DIGIT_9 = 0x39;
const LOWER_A = 0x61;
const LOWER_F = 0x66;
const UPPER_A = 0x41;
const UPPER_F = 0x46;
const DECIMAL = 10;
const HEX = 16;
const OCTET_SPAN = 256;
const MAX_OCTET_DIGITS = 3;
const MAX_GROUP_DIGITS = 4;
const LAST_DOT = 3;
const GROUP_MASK = 0xffff;
const HALF_WORD_BITS = 16;

function hexDigit(c: number): number {
  if (c >= DIGIT_0 && c <= DIGIT_9) return c - DIGIT_0;
  if (c >= LOWER_A && c <= LOWER_F) return c - LOWER_A + DECIMAL;
  if (c >= UPPER_A && c <= UPPER_F) return c - UPPER_A + DECIMAL;
  return -1;
}

function strayCharacter(c: number): ProblemCode {
  return c === PERCENT ? Problem.ZONE : Problem.CHARACTER;
}

/**
 * text[from, to) as a dotted quad: the address as a u32 word (>= 0), or a problem code (< 0).
 * Strict unless `leadingZeros`: "010" is octal to inet_aton and decimal to others, so it is
 * refused; OVN's own scanner (ovs_scan "%d") takes it, and so does derivation.
 */
export function scanIpv4(text: string, from: number, to: number, leadingZeros: boolean): number {
  let value = 0;
  let octet = 0;
  let digits = 0;
  let dots = 0;
  for (let i = from; i < to; i++) {
    const c = text.charCodeAt(i);
    if (c === DOT) {
      if (digits === 0) return Problem.V4_EMPTY_OCTET;
      if (++dots > LAST_DOT) return Problem.V4_OCTETS;
      value = value * OCTET_SPAN + octet;
      octet = 0;
      digits = 0;
    } else if (c >= DIGIT_0 && c <= DIGIT_9) {
      if (digits > 0 && octet === 0 && !leadingZeros) return Problem.V4_LEADING_ZERO;
      octet = octet * DECIMAL + (c - DIGIT_0);
      if (++digits > MAX_OCTET_DIGITS || octet > MAX_OCTET) return Problem.V4_OCTET_RANGE;
    } else return strayCharacter(c);
  }
  if (digits === 0) return from === to ? Problem.EMPTY : Problem.V4_EMPTY_OCTET;
  if (dots !== LAST_DOT) return Problem.V4_OCTETS;
  return value * OCTET_SPAN + octet;
}

/** The eight 16-bit groups of the last successful scanIpv6; read them before the next scan. */
export const groups = new Uint16Array(IPV6_GROUPS);

/**
 * IPv6 text (RFC 4291 section 2.2: hex groups, one '::', an optional dotted quad as the last
 * 32 bits) into `groups`. Returns 0, or a problem code.
 */
export function scanIpv6(text: string, leadingZeros: boolean): 0 | ProblemCode {
  const n = text.length;
  if (n === 0) return Problem.EMPTY;
  let count = 0;
  let gap = -1;
  let i = 0;
  if (text.charCodeAt(0) === COLON) {
    if (n < 2 || text.charCodeAt(1) !== COLON) return Problem.V6_EMPTY_GROUP;
    gap = 0;
    i = 2;
  }
  while (i < n) {
    const start = i;
    let value = 0;
    for (; i < n; i++) {
      const d = hexDigit(text.charCodeAt(i));
      if (d < 0) break;
      value = value * HEX + d;
    }
    if (i < n && text.charCodeAt(i) === DOT) {
      // The dotted quad stands for the last two groups and ends the address.
      if (count > IPV6_GROUPS - 2) return Problem.V6_GROUP_COUNT;
      const v4 = scanIpv4(text, start, n, leadingZeros);
      if (v4 < 0) return v4 === Problem.ZONE ? Problem.ZONE : Problem.V6_DOTTED;
      groups[count++] = v4 >>> HALF_WORD_BITS;
      groups[count++] = v4 & GROUP_MASK;
      break;
    }
    const digits = i - start;
    if (digits === 0)
      return i < n && text.charCodeAt(i) !== COLON
        ? strayCharacter(text.charCodeAt(i))
        : Problem.V6_EMPTY_GROUP;
    if (digits > MAX_GROUP_DIGITS) return Problem.V6_GROUP_LONG;
    if (count === IPV6_GROUPS) return Problem.V6_GROUP_COUNT;
    groups[count++] = value;
    if (i === n) break;
    const c = text.charCodeAt(i);
    if (c !== COLON) return strayCharacter(c);
    if (++i === n) return Problem.V6_EMPTY_GROUP;
    if (text.charCodeAt(i) === COLON) {
      if (gap >= 0) return Problem.V6_TWO_GAPS;
      gap = count;
      i++;
    }
  }
  if (gap < 0) return count === IPV6_GROUPS ? 0 : Problem.V6_GROUP_COUNT;
  if (count === IPV6_GROUPS) return Problem.V6_GAP_EMPTY;
  // The groups after '::' move to the end; the ones it stands for are zero.
  const tail = count - gap;
  for (let k = tail - 1; k >= 0; k--) groups[IPV6_GROUPS - tail + k] = groups[gap + k];
  groups.fill(0, gap, IPV6_GROUPS - tail);
  return 0;
}
