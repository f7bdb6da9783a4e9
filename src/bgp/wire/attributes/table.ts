import { AS_TRANS, AttrFlag, AttrType, Origin, UpdateSubcode } from '../constants.js';
import { isMartianV4 } from '../next-hop-checks.js';
import type { AttrContext } from '../update-context.js';
import type { Writer } from '../writer.js';
import { decodeAsPath, encodeAsPath, isValidAsPath } from './as-path.js';
import type { Aggregator, MutableAttributes, PathAttributes, UpdateAction } from './types.js';

/**
 * One row per attribute we interpret (BIRD's attribute table, GoBGP's matched pairs).
 * The update decoder's single loop owns flags, duplicates, lengths and missing-mandatory
 * checks; `decode` checks only its own value and returns false when it is malformed.
 */
export interface AttrDescriptor {
  readonly code: number;
  readonly name: string;
  /** The field of PathAttributes it fills. */
  readonly field: keyof PathAttributes;
  /** The Optional and Transitive bits this attribute must carry (RFC 4271 section 5). */
  readonly flags: number;
  /**
   * RFC 7606 section 7: what a malformed instance costs. Only MP_REACH/UNREACH reset the
   * session (7.11), and the decoder's loop checks those itself: they have no row.
   */
  readonly onMalformed: Exclude<UpdateAction, 'ok'>;
  /** RFC 4271 section 6.3 subcode for the issue record or the NOTIFICATION. */
  readonly subcode: number;
  /**
   * Scalars are decoded as soon as an attribute set is first seen; lists and paths only when
   * somebody reads them (most are never read before the next hop decides the route).
   */
  readonly lazy: boolean;
  /** True when the value is well-formed. Allocates nothing. */
  check(buf: Uint8Array, pos: number, end: number, ctx: AttrContext): boolean;
  /** Sets the field from a value that `check` accepted. */
  decode(buf: Uint8Array, pos: number, end: number, a: MutableAttributes, ctx: AttrContext): void;
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
function decodeAggregator(buf: Uint8Array, pos: number, asSize: 2 | 4): Aggregator {
  const as = asSize === 4 ? u32(buf, pos) : (buf[pos] << 8) | buf[pos + 1];
  return { as, address: u32(buf, pos + asSize) };
}

function encodeAggregator(w: Writer, g: Aggregator, asSize: 2 | 4): void {
  if (asSize === 4) w.u32(g.as);
  else w.u16(g.as > 0xffff ? AS_TRANS : g.as);
  w.u32(g.address);
}

/** A non-zero multiple of `unit` bytes (RFC 7606 sections 7.8, 7.10, 7.14; RFC 8092 section 6). */
function isListLength(pos: number, end: number, unit: number): boolean {
  const n = end - pos;
  return n > 0 && n % unit === 0;
}

const asSizeOf = (ctx: AttrContext): 2 | 4 => (ctx.as4 ? 4 : 2);
const isFour = (_buf: Uint8Array, pos: number, end: number) => end - pos === 4;

/** A row for a 4-octet scalar attribute. */
function u32Attr(
  code: number,
  name: string,
  field: 'med' | 'localPref' | 'originatorId',
  flags: number,
  subcode: number,
  lazy = false,
): AttrDescriptor {
  return {
    code,
    name,
    field,
    flags,
    onMalformed: 'treat-as-withdraw', // RFC 7606 sections 7.4, 7.5, 7.9
    subcode,
    lazy,
    check: isFour,
    decode(buf, pos, _end, a) {
      a[field] = u32(buf, pos);
    },
    has: (a) => a[field] !== undefined,
    encode: (w, a) => void w.u32(a[field]!),
  };
}

/** A row for a list of u32 values (communities, cluster list, large communities). */
function u32ListAttr(
  code: number,
  name: string,
  field: 'communities' | 'clusterList' | 'largeCommunities',
  flags: number,
  unit: number,
): AttrDescriptor {
  return {
    code,
    name,
    field,
    flags,
    onMalformed: 'treat-as-withdraw', // RFC 7606 sections 7.8, 7.10; RFC 8092 section 6
    subcode: S.OPTIONAL_ATTRIBUTE_ERROR,
    lazy: true,
    check: (_buf, pos, end) => isListLength(pos, end, unit),
    decode(buf, pos, end, a) {
      a[field] = u32List(buf, pos, end);
    },
    has: (a) => a[field] !== undefined,
    encode(w, a) {
      for (const c of a[field]!) w.u32(c);
    },
  };
}

/** A row for opaque fixed-unit lists kept as bytes (extended communities). */
function bytesListAttr(
  code: number,
  name: string,
  field: 'extCommunities' | 'ipv6ExtCommunities',
  unit: number,
): AttrDescriptor {
  return {
    code,
    name,
    field,
    flags: OPTIONAL_TRANSITIVE,
    onMalformed: 'treat-as-withdraw', // RFC 7606 section 7.14, RFC 5701
    subcode: S.OPTIONAL_ATTRIBUTE_ERROR,
    lazy: true,
    check: (_buf, pos, end) => isListLength(pos, end, unit),
    decode(buf, pos, end, a) {
      a[field] = buf.slice(pos, end);
    },
    has: (a) => a[field] !== undefined,
    encode: (w, a) => void w.bytes(a[field]!),
  };
}

function aggregatorAttr(
  code: number,
  name: string,
  field: 'aggregator' | 'as4Aggregator',
  four: boolean,
): AttrDescriptor {
  const size = (ctx: AttrContext) => (four ? 4 : asSizeOf(ctx));
  return {
    code,
    name,
    field,
    flags: OPTIONAL_TRANSITIVE,
    onMalformed: 'attribute-discard', // RFC 7606 section 7.7, RFC 6793 section 6
    subcode: S.OPTIONAL_ATTRIBUTE_ERROR,
    lazy: true,
    check: (_buf, pos, end, ctx) => end - pos === size(ctx) + 4,
    decode(buf, pos, _end, a, ctx) {
      a[field] = decodeAggregator(buf, pos, size(ctx));
    },
    has: (a) => a[field] !== undefined,
    encode: (w, a, ctx) => encodeAggregator(w, a[field]!, size(ctx)),
  };
}

function pathAttr(code: number, name: string, field: 'asPath' | 'as4Path', four: boolean): AttrDescriptor {
  const size = (ctx: AttrContext) => (four ? 4 : asSizeOf(ctx));
  return {
    code,
    name,
    field,
    flags: four ? OPTIONAL_TRANSITIVE : WELL_KNOWN,
    // RFC 7606 section 7.2; AS4_PATH: RFC 6793 section 6 discards and keeps the route.
    onMalformed: four ? 'attribute-discard' : 'treat-as-withdraw',
    subcode: S.MALFORMED_AS_PATH,
    lazy: true,
    check: (buf, pos, end, ctx) => isValidAsPath(buf, pos, end, size(ctx)),
    decode(buf, pos, end, a, ctx) {
      a[field] = decodeAsPath(buf, pos, end, size(ctx));
    },
    has: (a) => a[field] !== undefined,
    encode: (w, a, ctx) => encodeAsPath(w, a[field]!, size(ctx)),
  };
}

export const ATTRS: readonly AttrDescriptor[] = [
  {
    code: AttrType.ORIGIN,
    name: 'ORIGIN',
    field: 'origin',
    flags: WELL_KNOWN,
    onMalformed: 'treat-as-withdraw', // RFC 7606 section 7.1
    subcode: S.INVALID_ORIGIN_ATTRIBUTE,
    lazy: false,
    check: (buf, pos, end) => end - pos === 1 && buf[pos] <= Origin.INCOMPLETE,
    decode(buf, pos, _end, a) {
      a.origin = buf[pos];
    },
    has: (a) => a.origin !== undefined,
    encode: (w, a) => void w.u8(a.origin!),
  },
  pathAttr(AttrType.AS_PATH, 'AS_PATH', 'asPath', false),
  {
    code: AttrType.NEXT_HOP,
    name: 'NEXT_HOP',
    field: 'nextHop',
    flags: WELL_KNOWN,
    onMalformed: 'treat-as-withdraw', // RFC 7606 section 7.3
    subcode: S.INVALID_NEXT_HOP_ATTRIBUTE,
    lazy: false,
    check: (buf, pos, end) => end - pos === 4 && !isMartianV4(u32(buf, pos)),
    decode(buf, pos, _end, a) {
      a.nextHop = u32(buf, pos);
    },
    has: (a) => a.nextHop !== undefined,
    encode: (w, a) => void w.u32(a.nextHop!),
  },
  u32Attr(
    AttrType.MULTI_EXIT_DISC,
    'MULTI_EXIT_DISC',
    'med',
    OPTIONAL_NON_TRANSITIVE,
    S.ATTRIBUTE_LENGTH_ERROR,
  ),
  // From an eBGP peer LOCAL_PREF is discarded by the caller (RFC 7606 section 7.5), as are
  // ORIGINATOR_ID and CLUSTER_LIST (7.9, 7.10).
  u32Attr(AttrType.LOCAL_PREF, 'LOCAL_PREF', 'localPref', WELL_KNOWN, S.ATTRIBUTE_LENGTH_ERROR),
  {
    code: AttrType.ATOMIC_AGGREGATE,
    name: 'ATOMIC_AGGREGATE',
    field: 'atomicAggregate',
    flags: WELL_KNOWN,
    onMalformed: 'attribute-discard', // RFC 7606 section 7.6
    subcode: S.ATTRIBUTE_LENGTH_ERROR,
    lazy: true, // WireAttributes reads it from its presence bits
    check: (_buf, pos, end) => end === pos,
    decode(_buf, _pos, _end, a) {
      a.atomicAggregate = true;
    },
    has: (a) => a.atomicAggregate === true,
    encode: () => {},
  },
  aggregatorAttr(AttrType.AGGREGATOR, 'AGGREGATOR', 'aggregator', false),
  u32ListAttr(AttrType.COMMUNITIES, 'COMMUNITIES', 'communities', OPTIONAL_TRANSITIVE, 4),
  u32Attr(
    AttrType.ORIGINATOR_ID,
    'ORIGINATOR_ID',
    'originatorId',
    OPTIONAL_NON_TRANSITIVE,
    S.OPTIONAL_ATTRIBUTE_ERROR,
    true, // read by the decision process only in its last steps
  ),
  u32ListAttr(AttrType.CLUSTER_LIST, 'CLUSTER_LIST', 'clusterList', OPTIONAL_NON_TRANSITIVE, 4),
  bytesListAttr(AttrType.EXTENDED_COMMUNITIES, 'EXTENDED_COMMUNITIES', 'extCommunities', 8),
  pathAttr(AttrType.AS4_PATH, 'AS4_PATH', 'as4Path', true),
  aggregatorAttr(AttrType.AS4_AGGREGATOR, 'AS4_AGGREGATOR', 'as4Aggregator', true),
  bytesListAttr(AttrType.IPV6_EXTENDED_COMMUNITIES, 'IPV6_EXTENDED_COMMUNITIES', 'ipv6ExtCommunities', 20),
  u32ListAttr(AttrType.LARGE_COMMUNITY, 'LARGE_COMMUNITY', 'largeCommunities', OPTIONAL_TRANSITIVE, 12),
];

/** Descriptors by type code; undefined for attributes we do not interpret. */
export const ATTR_BY_CODE: readonly (AttrDescriptor | undefined)[] = (() => {
  const t = new Array<AttrDescriptor | undefined>(256).fill(undefined);
  for (const d of ATTRS) t[d.code] = d;
  return t;
})();
