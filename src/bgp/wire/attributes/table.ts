import { AttrFlag, AttrType, Origin, UpdateSubcode } from '../constants.js';
import type { Writer } from '../writer.js';
import { decodeAsPath, encodeAsPath } from './as-path.js';
import type { Aggregator, PathAttributes, UpdateAction } from './types.js';

/** What decoding an attribute needs to know about the session. */
export interface AttrContext {
  /** RFC 6793: both sides sent the 4-octet AS capability, so AS_PATH/AGGREGATOR use 4-octet ASNs. */
  readonly as4: boolean;
}

type Mutable<T> = { -readonly [K in keyof T]: T[K] };
export type MutableAttributes = Mutable<PathAttributes>;

/**
 * One row per attribute we interpret (BIRD's attribute table, GoBGP's matched pairs).
 * The update decoder's single loop owns flags, duplicates, lengths and missing-mandatory
 * checks; `decode` checks only its own value and returns false when it is malformed.
 */
export interface AttrDescriptor {
  readonly code: number;
  readonly name: string;
  /** The Optional and Transitive bits this attribute must carry (RFC 4271 section 5). */
  readonly flags: number;
  /** RFC 7606 section 7: what a malformed instance costs. MP_REACH/UNREACH reset the session. */
  readonly onMalformed: Exclude<UpdateAction, 'ok'> | 'session-reset';
  /** RFC 4271 section 6.3 subcode for the issue record or the NOTIFICATION. */
  readonly subcode: number;
  decode(buf: Uint8Array, pos: number, end: number, a: MutableAttributes, ctx: AttrContext): boolean;
  has(a: PathAttributes): boolean;
  /** Writes the value (not the attribute header). */
  encode(w: Writer, a: PathAttributes, ctx: AttrContext): void;
}

const WELL_KNOWN = AttrFlag.TRANSITIVE;
const OPTIONAL_TRANSITIVE = AttrFlag.OPTIONAL | AttrFlag.TRANSITIVE;
const OPTIONAL_NON_TRANSITIVE = AttrFlag.OPTIONAL;
const S = UpdateSubcode;

function u32(buf: Uint8Array, p: number): number {
  return ((buf[p] << 24) | (buf[p + 1] << 16) | (buf[p + 2] << 8) | buf[p + 3]) >>> 0;
}

function u32List(buf: Uint8Array, pos: number, end: number): number[] {
  const out = new Array<number>((end - pos) >> 2);
  for (let i = 0; pos < end; pos += 4) out[i++] = u32(buf, pos);
  return out;
}

/** AGGREGATOR is 6 octets from a 2-octet speaker, 8 from a 4-octet one (RFC 6793 section 4.1). */
function decodeAggregator(buf: Uint8Array, pos: number, end: number, asSize: 2 | 4): Aggregator | null {
  if (end - pos !== asSize + 4) return null;
  const as = asSize === 4 ? u32(buf, pos) : (buf[pos] << 8) | buf[pos + 1];
  return { as, address: u32(buf, pos + asSize) };
}

function encodeAggregator(w: Writer, g: Aggregator, asSize: 2 | 4): void {
  if (asSize === 4) w.u32(g.as);
  else w.u16(g.as > 0xffff ? 23456 : g.as);
  w.u32(g.address);
}

/** A non-zero multiple of `unit` bytes (RFC 7606 sections 7.8, 7.10, 7.14; RFC 8092 section 6). */
function isListLength(pos: number, end: number, unit: number): boolean {
  const n = end - pos;
  return n > 0 && n % unit === 0;
}

/** RFC 4271 section 6.3 / RFC 7606 section 7.3: a next hop that can never be valid. */
function isMartianNextHop(v: number): boolean {
  return v === 0 || v === 0xffffffff || v >>> 28 === 0xe;
}

export const ATTRS: readonly AttrDescriptor[] = [
  {
    code: AttrType.ORIGIN,
    name: 'ORIGIN',
    flags: WELL_KNOWN,
    onMalformed: 'treat-as-withdraw', // RFC 7606 section 7.1
    subcode: S.INVALID_ORIGIN_ATTRIBUTE,
    decode(buf, pos, end, a) {
      if (end - pos !== 1 || buf[pos] > Origin.INCOMPLETE) return false;
      a.origin = buf[pos];
      return true;
    },
    has: (a) => a.origin !== undefined,
    encode: (w, a) => void w.u8(a.origin!),
  },
  {
    code: AttrType.AS_PATH,
    name: 'AS_PATH',
    flags: WELL_KNOWN,
    onMalformed: 'treat-as-withdraw', // RFC 7606 section 7.2
    subcode: S.MALFORMED_AS_PATH,
    decode(buf, pos, end, a, ctx) {
      const path = decodeAsPath(buf, pos, end, ctx.as4 ? 4 : 2);
      if (!path) return false;
      a.asPath = path;
      return true;
    },
    has: (a) => a.asPath !== undefined,
    encode: (w, a, ctx) => encodeAsPath(w, a.asPath!, ctx.as4 ? 4 : 2),
  },
  {
    code: AttrType.NEXT_HOP,
    name: 'NEXT_HOP',
    flags: WELL_KNOWN,
    onMalformed: 'treat-as-withdraw', // RFC 7606 section 7.3
    subcode: S.INVALID_NEXT_HOP_ATTRIBUTE,
    decode(buf, pos, end, a) {
      if (end - pos !== 4) return false;
      const v = u32(buf, pos);
      if (isMartianNextHop(v)) return false;
      a.nextHop = v;
      return true;
    },
    has: (a) => a.nextHop !== undefined,
    encode: (w, a) => void w.u32(a.nextHop!),
  },
  {
    code: AttrType.MULTI_EXIT_DISC,
    name: 'MULTI_EXIT_DISC',
    flags: OPTIONAL_NON_TRANSITIVE,
    onMalformed: 'treat-as-withdraw', // RFC 7606 section 7.4
    subcode: S.ATTRIBUTE_LENGTH_ERROR,
    decode(buf, pos, end, a) {
      if (end - pos !== 4) return false;
      a.med = u32(buf, pos);
      return true;
    },
    has: (a) => a.med !== undefined,
    encode: (w, a) => void w.u32(a.med!),
  },
  {
    code: AttrType.LOCAL_PREF,
    name: 'LOCAL_PREF',
    flags: WELL_KNOWN,
    onMalformed: 'treat-as-withdraw', // RFC 7606 section 7.5 (from an eBGP peer: discarded by the caller)
    subcode: S.ATTRIBUTE_LENGTH_ERROR,
    decode(buf, pos, end, a) {
      if (end - pos !== 4) return false;
      a.localPref = u32(buf, pos);
      return true;
    },
    has: (a) => a.localPref !== undefined,
    encode: (w, a) => void w.u32(a.localPref!),
  },
  {
    code: AttrType.ATOMIC_AGGREGATE,
    name: 'ATOMIC_AGGREGATE',
    flags: WELL_KNOWN,
    onMalformed: 'attribute-discard', // RFC 7606 section 7.6
    subcode: S.ATTRIBUTE_LENGTH_ERROR,
    decode(_buf, pos, end, a) {
      if (end !== pos) return false;
      a.atomicAggregate = true;
      return true;
    },
    has: (a) => a.atomicAggregate === true,
    encode: () => {},
  },
  {
    code: AttrType.AGGREGATOR,
    name: 'AGGREGATOR',
    flags: OPTIONAL_TRANSITIVE,
    onMalformed: 'attribute-discard', // RFC 7606 section 7.7
    subcode: S.OPTIONAL_ATTRIBUTE_ERROR,
    decode(buf, pos, end, a, ctx) {
      const g = decodeAggregator(buf, pos, end, ctx.as4 ? 4 : 2);
      if (!g) return false;
      a.aggregator = g;
      return true;
    },
    has: (a) => a.aggregator !== undefined,
    encode: (w, a, ctx) => encodeAggregator(w, a.aggregator!, ctx.as4 ? 4 : 2),
  },
  {
    code: AttrType.COMMUNITIES,
    name: 'COMMUNITIES',
    flags: OPTIONAL_TRANSITIVE,
    onMalformed: 'treat-as-withdraw', // RFC 7606 section 7.8
    subcode: S.OPTIONAL_ATTRIBUTE_ERROR,
    decode(buf, pos, end, a) {
      if (!isListLength(pos, end, 4)) return false;
      a.communities = u32List(buf, pos, end);
      return true;
    },
    has: (a) => a.communities !== undefined,
    encode(w, a) {
      for (const c of a.communities!) w.u32(c);
    },
  },
  {
    code: AttrType.ORIGINATOR_ID,
    name: 'ORIGINATOR_ID',
    flags: OPTIONAL_NON_TRANSITIVE,
    onMalformed: 'treat-as-withdraw', // RFC 7606 section 7.9
    subcode: S.OPTIONAL_ATTRIBUTE_ERROR,
    decode(buf, pos, end, a) {
      if (end - pos !== 4) return false;
      a.originatorId = u32(buf, pos);
      return true;
    },
    has: (a) => a.originatorId !== undefined,
    encode: (w, a) => void w.u32(a.originatorId!),
  },
  {
    code: AttrType.CLUSTER_LIST,
    name: 'CLUSTER_LIST',
    flags: OPTIONAL_NON_TRANSITIVE,
    onMalformed: 'treat-as-withdraw', // RFC 7606 section 7.10
    subcode: S.OPTIONAL_ATTRIBUTE_ERROR,
    decode(buf, pos, end, a) {
      if (!isListLength(pos, end, 4)) return false;
      a.clusterList = u32List(buf, pos, end);
      return true;
    },
    has: (a) => a.clusterList !== undefined,
    encode(w, a) {
      for (const c of a.clusterList!) w.u32(c);
    },
  },
  {
    code: AttrType.EXTENDED_COMMUNITIES,
    name: 'EXTENDED_COMMUNITIES',
    flags: OPTIONAL_TRANSITIVE,
    onMalformed: 'treat-as-withdraw', // RFC 7606 section 7.14
    subcode: S.OPTIONAL_ATTRIBUTE_ERROR,
    decode(buf, pos, end, a) {
      if (!isListLength(pos, end, 8)) return false;
      a.extCommunities = buf.slice(pos, end);
      return true;
    },
    has: (a) => a.extCommunities !== undefined,
    encode: (w, a) => void w.bytes(a.extCommunities!),
  },
  {
    code: AttrType.AS4_PATH,
    name: 'AS4_PATH',
    flags: OPTIONAL_TRANSITIVE,
    // RFC 6793 section 6 (and RFC 7606 section 7.2's reference to it): discard, keep the route.
    onMalformed: 'attribute-discard',
    subcode: S.MALFORMED_AS_PATH,
    decode(buf, pos, end, a) {
      const path = decodeAsPath(buf, pos, end, 4);
      if (!path) return false;
      a.as4Path = path;
      return true;
    },
    has: (a) => a.as4Path !== undefined,
    encode: (w, a) => encodeAsPath(w, a.as4Path!, 4),
  },
  {
    code: AttrType.AS4_AGGREGATOR,
    name: 'AS4_AGGREGATOR',
    flags: OPTIONAL_TRANSITIVE,
    onMalformed: 'attribute-discard', // RFC 6793 section 6
    subcode: S.OPTIONAL_ATTRIBUTE_ERROR,
    decode(buf, pos, end, a) {
      const g = decodeAggregator(buf, pos, end, 4);
      if (!g) return false;
      a.as4Aggregator = g;
      return true;
    },
    has: (a) => a.as4Aggregator !== undefined,
    encode: (w, a) => encodeAggregator(w, a.as4Aggregator!, 4),
  },
  {
    code: AttrType.IPV6_EXTENDED_COMMUNITIES,
    name: 'IPV6_EXTENDED_COMMUNITIES',
    flags: OPTIONAL_TRANSITIVE,
    onMalformed: 'treat-as-withdraw', // RFC 7606 section 7.15 (as for extended communities)
    subcode: S.OPTIONAL_ATTRIBUTE_ERROR,
    decode(buf, pos, end, a) {
      if (!isListLength(pos, end, 20)) return false;
      a.ipv6ExtCommunities = buf.slice(pos, end);
      return true;
    },
    has: (a) => a.ipv6ExtCommunities !== undefined,
    encode: (w, a) => void w.bytes(a.ipv6ExtCommunities!),
  },
  {
    code: AttrType.LARGE_COMMUNITY,
    name: 'LARGE_COMMUNITY',
    flags: OPTIONAL_TRANSITIVE,
    onMalformed: 'treat-as-withdraw', // RFC 8092 section 6
    subcode: S.OPTIONAL_ATTRIBUTE_ERROR,
    decode(buf, pos, end, a) {
      if (!isListLength(pos, end, 12)) return false;
      a.largeCommunities = u32List(buf, pos, end);
      return true;
    },
    has: (a) => a.largeCommunities !== undefined,
    encode(w, a) {
      for (const c of a.largeCommunities!) w.u32(c);
    },
  },
];

/** Descriptors by type code; undefined for attributes we do not interpret. */
export const ATTR_BY_CODE: readonly (AttrDescriptor | undefined)[] = (() => {
  const t = new Array<AttrDescriptor | undefined>(256).fill(undefined);
  for (const d of ATTRS) t[d.code] = d;
  return t;
})();
