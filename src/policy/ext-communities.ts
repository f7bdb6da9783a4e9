import { tryParseIpv4 } from '../address/index.js';
import { extHi, extLo } from '../bgp/wire/index.js';
import { EXT_COMMUNITY_BYTES, ExtCommunitySubType, ExtCommunityType, U32_MAX } from './constants.js';
import { PolicyError } from './errors.js';
import type { ExtCommunityListModel } from './model.js';

/*
 * Extended communities (RFC 4360) in policy: the text forms operators write, and patterns
 * compiled to two 32-bit words and masks so matching reads the attribute's bytes in place.
 *
 *   octet  0      1        2 ........................... 7
 *        +------+--------+--------------------------------+
 *        | type | sub-   |  value (6 octets)              |
 *        |      | type   |                                |
 *        +------+--------+--------------------------------+
 *        |<-------- hi word -------->|<---- lo word ----->|   (hi holds value octets 0-1)
 *
 * Two-octet AS specific (type 0x00): AS(2) local(4); IPv4 address specific (0x01): address(4)
 * local(2); four-octet AS specific (0x02, RFC 5668): AS(4) local(2). Route target is sub-type
 * 0x02, route origin ("soo") 0x03, in all three (RFC 7153 sections 5.2.1-5.2.3).
 */

/** Matches an extended community (hi, lo) when (hi & hiMask) === hi and (lo & loMask) === lo of the pattern. */
export interface ExtCommunityPattern {
  readonly hi: number;
  readonly lo: number;
  readonly hiMask: number;
  readonly loMask: number;
}

const WILDCARD = '*';
const U16_MAX = 0xffff;
const HALF_BITS = 16;
const TYPE_SHIFT = 24;
const SUBTYPE_SHIFT = 16;
const HEX_VALUE_DIGITS = 12;
/** Suffix that forces the four-octet AS form for a small AS, as Junos and GoBGP's "L" spelling. */
const FOUR_OCTET_SUFFIX = 'L';

const KEYWORD = /^(rt|soo)[: ](.+)$/i;
const RAW = /^0x([0-9a-f]{2})([0-9a-f]{2}|\*\*):([0-9a-f]{12}|\*)$/i;
const DIGITS = /^(0|[1-9][0-9]{0,9})$/;
const ASDOT = /^(0|[1-9][0-9]{0,4})\.(0|[1-9][0-9]{0,4})$/;

export const EXT_COMMUNITY_EXPECTED =
  'an extended community: rt:ASN:N, rt:IPV4:N, soo:ASN:N, soo:IPV4:N ("rt 65000:1" too), ' +
  'or 0xTTSS:VVVVVVVVVVVV (type, sub-type and 6 value octets in hex)';

const SUBTYPES: Readonly<Record<string, number>> = {
  rt: ExtCommunitySubType.ROUTE_TARGET,
  soo: ExtCommunitySubType.ROUTE_ORIGIN,
};

function word(type: number, subtype: number, high16: number): number {
  return ((type << TYPE_SHIFT) | (subtype << SUBTYPE_SHIFT) | high16) >>> 0;
}

/** An AS as asplain or asdot, with the four-octet form forced by a trailing L. */
function asNumber(text: string): { asn: number; fourOctet: boolean } | undefined {
  const forced = text.endsWith(FOUR_OCTET_SUFFIX);
  const t = forced ? text.slice(0, -1) : text;
  if (DIGITS.test(t)) {
    const asn = Number(t);
    return asn <= U32_MAX ? { asn, fourOctet: forced || asn > U16_MAX } : undefined;
  }
  const dot = ASDOT.exec(t);
  if (!dot || Number(dot[1]) > U16_MAX || Number(dot[2]) > U16_MAX) return undefined;
  return { asn: Number(dot[1]) * 2 ** HALF_BITS + Number(dot[2]), fourOctet: true };
}

function parseKeyword(
  keyword: string,
  rest: string,
  fail: (why: string) => PolicyError,
): ExtCommunityPattern {
  const subtype = SUBTYPES[keyword.toLowerCase()];
  const colon = rest.lastIndexOf(':');
  if (colon <= 0) throw fail(`expected ${keyword}:GLOBAL:LOCAL`);
  const global = rest.slice(0, colon);
  const localText = rest.slice(colon + 1);
  const anyLocal = localText === WILDCARD;
  if (!anyLocal && !DIGITS.test(localText))
    throw fail(`local administrator ${localText} is not a number or *`);
  const local = anyLocal ? 0 : Number(localText);
  const address = tryParseIpv4(global);
  const as = address === undefined ? asNumber(global) : undefined;
  if (address === undefined && as === undefined)
    throw fail(`global administrator ${global} is neither an AS number nor an IPv4 address`);
  // Two-octet AS specific carries a 4-octet local administrator; the other two a 2-octet one.
  const twoOctet = as !== undefined && !as.fourOctet;
  const localMax = twoOctet ? U32_MAX : U16_MAX;
  if (local > localMax) {
    const form = twoOctet
      ? 'with a two-octet AS'
      : address !== undefined
        ? 'with an IPv4 address'
        : 'with a four-octet AS';
    throw fail(`local administrator ${local} is more than ${localMax} ${form}`);
  }
  if (twoOctet) {
    return {
      hi: word(ExtCommunityType.TRANSITIVE_TWO_OCTET_AS, subtype, as.asn),
      lo: local >>> 0,
      hiMask: U32_MAX,
      loMask: anyLocal ? 0 : U32_MAX,
    };
  }
  const global32 = address ?? as!.asn;
  const type =
    address !== undefined
      ? ExtCommunityType.TRANSITIVE_IPV4_ADDRESS
      : ExtCommunityType.TRANSITIVE_FOUR_OCTET_AS;
  return {
    hi: word(type, subtype, global32 >>> HALF_BITS),
    lo: (((global32 & U16_MAX) << HALF_BITS) | local) >>> 0,
    hiMask: U32_MAX,
    loMask: anyLocal ? (U16_MAX << HALF_BITS) >>> 0 : U32_MAX,
  };
}

function parseRaw(m: RegExpExecArray): ExtCommunityPattern {
  const type = Number.parseInt(m[1], 16);
  const anySubtype = m[2] === '**';
  const subtype = anySubtype ? 0 : Number.parseInt(m[2], 16);
  const anyValue = m[3] === WILDCARD;
  const value = anyValue ? '0'.repeat(HEX_VALUE_DIGITS) : m[3];
  const high16 = Number.parseInt(value.slice(0, 4), 16);
  const hiMask =
    ((0xff << TYPE_SHIFT) | (anySubtype ? 0 : 0xff << SUBTYPE_SHIFT) | (anyValue ? 0 : U16_MAX)) >>> 0;
  return {
    hi: word(type, subtype, high16),
    lo: Number.parseInt(value.slice(4), 16) >>> 0,
    hiMask,
    loMask: anyValue ? 0 : U32_MAX,
  };
}

/**
 * An extended community or a pattern: "rt:65000:1", "rt:198.18.0.1:7", "rt:4200000000:7",
 * "soo:..." (FRR's "rt 65000:1" spelling too; local administrator may be `*`), or any type as
 * "0xTTSS:VVVVVVVVVVVV" in hex, where SS may be `**` and the value `*`.
 */
export function parseExtCommunityPattern(text: string, path: string): ExtCommunityPattern {
  const fail = (why: string) =>
    new PolicyError('invalid-extended-community', path, `${JSON.stringify(text)}: ${why}`);
  if (typeof text !== 'string') throw fail(`expected ${EXT_COMMUNITY_EXPECTED}`);
  const raw = RAW.exec(text);
  if (raw) return parseRaw(raw);
  const kw = KEYWORD.exec(text);
  if (kw) return parseKeyword(kw[1], kw[2], fail);
  throw fail(`expected ${EXT_COMMUNITY_EXPECTED}`);
}

/** One extended community, no wildcards: what `set` and `add` take. */
export function parseExtCommunity(text: string, path = 'extended community'): ExtCommunityPattern {
  const p = parseExtCommunityPattern(text, path);
  if (p.hiMask !== U32_MAX || p.loMask !== U32_MAX)
    throw new PolicyError('invalid-extended-community', path, `a wildcard cannot be set: ${text}`);
  return p;
}

export function extCommunityMatches(p: ExtCommunityPattern, hi: number, lo: number): boolean {
  return (hi & p.hiMask) >>> 0 === p.hi && (lo & p.loMask) >>> 0 === p.lo;
}

function hasExt(b: Uint8Array | undefined, p: ExtCommunityPattern): boolean {
  if (!b) return false;
  for (let at = 0; at + EXT_COMMUNITY_BYTES <= b.length; at += EXT_COMMUNITY_BYTES)
    if (extCommunityMatches(p, extHi(b, at), extLo(b, at))) return true;
  return false;
}

interface ListEntry {
  readonly permit: boolean;
  readonly patterns: readonly ExtCommunityPattern[];
}

/**
 * FRR's `bgp extcommunity-list standard`: the first entry all of whose extended communities
 * the route carries decides; no such entry means no match.
 */
export class CompiledExtCommunityList {
  readonly name: string;
  private readonly entries: readonly ListEntry[];

  constructor(name: string, entries: readonly ListEntry[]) {
    this.name = name;
    this.entries = entries;
  }

  matches(b: Uint8Array | undefined): boolean {
    for (const entry of this.entries) {
      let all = true;
      for (const p of entry.patterns) {
        if (!hasExt(b, p)) {
          all = false;
          break;
        }
      }
      if (all) return entry.permit;
    }
    return false;
  }

  /** FRR `set extcommunity-list NAME delete` counterpart: the first entry naming it decides. */
  deletes(hi: number, lo: number): boolean {
    for (const entry of this.entries) {
      if (entry.patterns.some((p) => extCommunityMatches(p, hi, lo))) return entry.permit;
    }
    return false;
  }
}

export function compileExtCommunityList(
  model: ExtCommunityListModel,
  path = `extendedCommunityLists[${model?.name}]`,
): CompiledExtCommunityList {
  if (!model || typeof model.name !== 'string' || model.name === '')
    throw new PolicyError('invalid-value', path, 'a list needs a name');
  if (!Array.isArray(model.entries))
    throw new PolicyError('invalid-value', `${path}.entries`, 'expected a list');
  const entries = model.entries.map((e, i) => {
    const at = `${path}.entries[${i}]`;
    if (e?.action !== 'permit' && e?.action !== 'deny')
      throw new PolicyError(
        'invalid-value',
        `${at}.action`,
        `expected one of permit, deny, got ${String(e?.action)}`,
      );
    if (!Array.isArray(e.communities) || e.communities.length === 0)
      throw new PolicyError('invalid-value', `${at}.communities`, 'expected at least one extended community');
    return {
      permit: e.action === 'permit',
      patterns: e.communities.map((c: string, k: number) =>
        parseExtCommunityPattern(c, `${at}.communities[${k}]`),
      ),
    };
  });
  return new CompiledExtCommunityList(model.name, entries);
}

/** Extended community changes of a set clause, parsed. */
export interface ExtCommunityOps {
  readonly set: readonly ExtCommunityPattern[] | null;
  readonly remove: readonly ExtCommunityPattern[];
  readonly deleteList: CompiledExtCommunityList | null;
  readonly add: readonly ExtCommunityPattern[];
}

/**
 * The EXTENDED_COMMUNITIES value after the changes, in the order of the community changes:
 * set, remove, delete_list, add (missing ones only). Undefined when none is left.
 */
export function applyExtCommunities(
  ops: ExtCommunityOps,
  current: Uint8Array | undefined,
): Uint8Array | undefined {
  const words: number[] = [];
  const keep = (hi: number, lo: number) => {
    if (ops.remove.some((p) => extCommunityMatches(p, hi, lo))) return;
    if (ops.deleteList?.deletes(hi, lo)) return;
    words.push(hi, lo);
  };
  if (ops.set !== null) for (const v of ops.set) keep(v.hi, v.lo);
  else if (current)
    for (let at = 0; at + EXT_COMMUNITY_BYTES <= current.length; at += EXT_COMMUNITY_BYTES)
      keep(extHi(current, at), extLo(current, at));
  for (const v of ops.add) {
    let present = false;
    for (let i = 0; i < words.length && !present; i += 2)
      present = words[i] === v.hi && words[i + 1] === v.lo;
    if (!present) words.push(v.hi, v.lo);
  }
  return fromWords(words);
}

function fromWords(words: readonly number[]): Uint8Array | undefined {
  if (words.length === 0) return undefined;
  const out = new Uint8Array(words.length * 4);
  const view = new DataView(out.buffer);
  for (let i = 0; i < words.length; i++) view.setUint32(i * 4, words[i]);
  return out;
}

/** The EXTENDED_COMMUNITIES value of checked texts (a static route's), undefined for none. */
export function encodeExtCommunities(
  texts: readonly string[],
  path = 'extended communities',
): Uint8Array | undefined {
  return fromWords(
    texts.flatMap((t, i) => {
      const p = parseExtCommunity(t, `${path}[${i}]`);
      return [p.hi, p.lo];
    }),
  );
}
