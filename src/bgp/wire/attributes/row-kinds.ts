import { formatIpv4 } from '../../../address/index.js';
import { AS_TRANS, AttrFlag, UpdateSubcode } from '../constants.js';
import type { AttrContext } from '../update-context.js';
import type { Writer } from '../writer.js';
import { decodeAsPath, encodeAsPath, formatAsPath, isValidAsPath } from './as-path.js';
import type { AttrDescriptor } from './descriptor.js';
import type { Aggregator, PathAttributes } from './types.js';

/*
 * The kinds of row the attribute table is made of: a 4-octet scalar, a list of 4-octet words,
 * a list of fixed-size byte units, an aggregator, a path. Each kind owns the codec and the
 * RFC 7606 verdict of its shape; the table gives each row its export rule and its text.
 */

export const WELL_KNOWN = AttrFlag.TRANSITIVE;
export const OPTIONAL_TRANSITIVE = AttrFlag.OPTIONAL | AttrFlag.TRANSITIVE;
export const OPTIONAL_NON_TRANSITIVE = AttrFlag.OPTIONAL;
const S = UpdateSubcode;

/** What a table row adds to a kind: how it goes to a peer and how `show` prints it. */
export type RowLife = Pick<AttrDescriptor, 'export' | 'format' | 'leavingAs'>;

export function u32(buf: Uint8Array, p: number): number {
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

/** "65001 198.18.0.1": the aggregating AS and its BGP Identifier. */
export function formatAggregator(g: Aggregator | undefined): readonly string[] {
  return g ? [`${g.as} ${formatIpv4(g.address)}`] : [];
}

/** A non-zero multiple of `unit` bytes (RFC 7606 sections 7.8, 7.10, 7.14; RFC 8092 section 6). */
function isListLength(pos: number, end: number, unit: number): boolean {
  const n = end - pos;
  return n > 0 && n % unit === 0;
}

const asSizeOf = (ctx: AttrContext): 2 | 4 => (ctx.as4 ? 4 : 2);
const isFour = (_buf: Uint8Array, pos: number, end: number) => end - pos === 4;

/** A row for a 4-octet scalar attribute. */
export function u32Attr(
  code: number,
  name: string,
  field: 'med' | 'localPref' | 'originatorId',
  flags: number,
  subcode: number,
  lazy: boolean,
  life: RowLife,
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
    ...life,
  };
}

/** A row for a list of u32 values (communities, cluster list, large communities). */
export function u32ListAttr(
  code: number,
  name: string,
  field: 'communities' | 'clusterList' | 'largeCommunities',
  flags: number,
  unit: number,
  life: RowLife,
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
    ...life,
  };
}

/** A row for opaque fixed-unit lists kept as bytes (extended communities). */
export function bytesListAttr(
  code: number,
  name: string,
  field: 'extCommunities' | 'ipv6ExtCommunities',
  unit: number,
  life: RowLife,
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
    ...life,
  };
}

export function aggregatorAttr(
  code: number,
  name: string,
  field: 'aggregator' | 'as4Aggregator',
  four: boolean,
  life: RowLife,
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
    ...life,
  };
}

export function pathAttr(
  code: number,
  name: string,
  field: 'asPath' | 'as4Path',
  four: boolean,
  life: Omit<RowLife, 'format'>,
): AttrDescriptor {
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
    format: (a: PathAttributes) => (a[field] ? [formatAsPath(a[field])] : []),
    ...life,
  };
}
