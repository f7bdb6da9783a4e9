import {
  EXT_COMMUNITY_EXPECTED,
  PolicyError,
  parseExtCommunity,
  parseExtCommunityPattern,
  translateAsPathRegex,
} from '../policy/index.js';
import {
  AS_TRANS,
  ASDOT_HALF_BITS,
  ASDOT_HALF_MAX,
  COMMUNITY_HALF_BITS,
  COMMUNITY_HALF_MAX,
  LARGE_COMMUNITY_FIELDS,
  MAX_ASN,
  MIN_ASN,
  NAME_PATTERN,
  NAME_RULE,
  U32_MAX,
  WELL_KNOWN_COMMUNITIES,
} from './constants.js';
import { type Decoder, scalar, text } from './decoders.js';
import type { LargeCommunity } from './schema.js';

/* Decoders for BGP values: names, AS numbers, communities, AS-path regular expressions, MED actions. */

export const name: Decoder<string> = text({ expected: `a name (${NAME_RULE})`, pattern: NAME_PATTERN });

const ASPLAIN = /^(0|[1-9][0-9]*)$/;
const ASDOT = /^(0|[1-9][0-9]*)\.(0|[1-9][0-9]*)$/;

/** RFC 5396: asplain "65000" or asdot "1.10"; undefined when it is neither or out of range. */
function parseAsText(t: string): number | undefined {
  if (ASPLAIN.test(t)) return Number(t);
  const dot = ASDOT.exec(t);
  if (!dot) return undefined;
  const [high, low] = [Number(dot[1]), Number(dot[2])];
  if (high > ASDOT_HALF_MAX || low > ASDOT_HALF_MAX) return undefined;
  return high * 2 ** ASDOT_HALF_BITS + low;
}

/**
 * An AS number: 65000, "65000" or asdot "1.10" (quoted: unquoted, YAML reads 1.10 as the
 * number 1.1). 0 is reserved (RFC 7607) and AS_TRANS only stands in for 4-octet ASNs (RFC 6793).
 */
export const asn: Decoder<number> = scalar(`an AS number ${MIN_ASN}..${MAX_ASN}`, (v, bad) => {
  if (typeof v === 'number' && !Number.isInteger(v) && Number.isFinite(v)) {
    return bad(
      `expected an AS number ${MIN_ASN}..${MAX_ASN}, got ${v} (an asdot AS number must be quoted, e.g. "1.10")`,
    );
  }
  const n = typeof v === 'number' ? v : typeof v === 'string' ? parseAsText(v) : undefined;
  if (n === undefined || !Number.isInteger(n) || n < MIN_ASN || n > MAX_ASN) return bad();
  if (n === AS_TRANS) {
    return bad(
      `${AS_TRANS} is AS_TRANS, which only stands in for 4-octet AS numbers (RFC 6793) and cannot be configured`,
    );
  }
  return n;
});

const COMMUNITY = /^(0|[1-9][0-9]{0,4}):(0|[1-9][0-9]{0,4})$/;
const COMMUNITY_PATTERN = /^(\*|0|[1-9][0-9]{0,4}):(\*|0|[1-9][0-9]{0,4})$/;
const U32_TEXT = /^(0|[1-9][0-9]{0,9})$/;

function wellKnown(t: string): number | undefined {
  const key = t.toLowerCase().replace(/_/g, '-');
  return Object.hasOwn(WELL_KNOWN_COMMUNITIES, key) ? WELL_KNOWN_COMMUNITIES[key] : undefined;
}

/** RFC 1997 community as a 32-bit number; undefined if `v` is not one. */
export function parseCommunity(v: unknown): number | undefined {
  if (typeof v === 'number') return Number.isInteger(v) && v >= 0 && v <= U32_MAX ? v : undefined;
  if (typeof v !== 'string') return undefined;
  const known = wellKnown(v);
  if (known !== undefined) return known;
  if (U32_TEXT.test(v) && Number(v) <= U32_MAX) return Number(v);
  const m = COMMUNITY.exec(v);
  if (!m) return undefined;
  const [high, low] = [Number(m[1]), Number(m[2])];
  if (high > COMMUNITY_HALF_MAX || low > COMMUNITY_HALF_MAX) return undefined;
  return high * 2 ** COMMUNITY_HALF_BITS + low;
}

const WELL_KNOWN_NAMES = Object.keys(WELL_KNOWN_COMMUNITIES).join(', ');
const COMMUNITY_EXPECTED = `a community "AS:VALUE" (each 0..65535) or a well-known name (${WELL_KNOWN_NAMES})`;

/** A community for a route: stored as its 32-bit value. */
export const community: Decoder<number> = scalar(COMMUNITY_EXPECTED, (v, bad) => parseCommunity(v) ?? bad());

/** A community for a policy, kept as written (the policy compiler reads the same syntax). */
export const communityText: Decoder<string> = scalar(COMMUNITY_EXPECTED, (v, bad) =>
  parseCommunity(v) === undefined ? bad() : String(v),
);

/** As communityText, where either half may be `*` ("65000:*"): match lists and `remove`. */
export const communityPattern: Decoder<string> = scalar(
  `${COMMUNITY_EXPECTED}, either half may be *`,
  (v, bad) => {
    if (parseCommunity(v) !== undefined) return String(v);
    if (typeof v !== 'string') return bad();
    const m = COMMUNITY_PATTERN.exec(v);
    const halvesOk = m?.slice(1).every((h) => h === '*' || Number(h) <= COMMUNITY_HALF_MAX);
    return m && halvesOk ? v : bad();
  },
);

const LARGE_FIELD = /^(0|[1-9][0-9]{0,9})$/;
const LARGE_EXPECTED = 'a large community "GLOBAL:LOCAL1:LOCAL2" (each 0..4294967295, RFC 8092)';

function largeFields(v: unknown, wildcard: boolean): string[] | undefined {
  if (typeof v !== 'string') return undefined;
  const fields = v.split(':');
  if (fields.length !== LARGE_COMMUNITY_FIELDS) return undefined;
  const ok = fields.every((f) => (wildcard && f === '*') || (LARGE_FIELD.test(f) && Number(f) <= U32_MAX));
  return ok ? fields : undefined;
}

export const largeCommunity: Decoder<LargeCommunity> = scalar(LARGE_EXPECTED, (v, bad) => {
  const f = largeFields(v, false);
  return f ? [Number(f[0]), Number(f[1]), Number(f[2])] : bad();
});

export const largeCommunityText: Decoder<string> = scalar(LARGE_EXPECTED, (v, bad) =>
  largeFields(v, false) ? (v as string) : bad(),
);

export const largeCommunityPattern: Decoder<string> = scalar(
  `${LARGE_EXPECTED}, any field may be *`,
  (v, bad) => (largeFields(v, true) ? (v as string) : bad()),
);

/** An extended community checked by the policy compiler's own parser, whose reason is kept. */
function extCommunityDecoder(expected: string, parse: (t: string, path: string) => unknown): Decoder<string> {
  return scalar(expected, (v, bad) => {
    if (typeof v !== 'string') return bad();
    try {
      parse(v, 'value');
      return v;
    } catch (e) {
      if (!(e instanceof PolicyError)) throw e;
      return bad(e.message.slice('value: '.length));
    }
  });
}

/** An extended community for a policy's `set`/`add`, kept as written. */
export const extCommunityText: Decoder<string> = extCommunityDecoder(
  EXT_COMMUNITY_EXPECTED,
  parseExtCommunity,
);

/** As extCommunityText, with `*` where the syntax allows it: match lists and `remove`. */
export const extCommunityPattern: Decoder<string> = extCommunityDecoder(
  `${EXT_COMMUNITY_EXPECTED}, the local administrator or hex value may be *`,
  parseExtCommunityPattern,
);

/** FRR's AS-path regex, translated as the policy engine does (`_` matches a delimiter). */
export const asPathRegex: Decoder<string> = scalar('an AS-path regular expression (FRR syntax)', (v, bad) => {
  if (typeof v !== 'string' || v === '') return bad();
  try {
    new RegExp(translateAsPathRegex(v));
    return v;
  } catch (e) {
    return bad(`${JSON.stringify(v)} is not a valid regular expression: ${(e as Error).message}`);
  }
});

/** Policy `set.med`: a value, or "+n" / "-n" to adjust the received one. */
export const medAction: Decoder<number | string> = scalar(
  'a MED 0..4294967295, or "+N" / "-N" to adjust it',
  (v, bad) => {
    if (typeof v === 'number') return Number.isInteger(v) && v >= 0 && v <= U32_MAX ? v : bad();
    if (typeof v !== 'string' || !/^[+-](0|[1-9][0-9]{0,9})$/.test(v) || Number(v.slice(1)) > U32_MAX) {
      return bad();
    }
    return v;
  },
);
