import { AF } from '../../bgp/transport/index.js';
import { IncompleteError, Reader, type Writer } from '../../bgp/wire/index.js';
import {
  addressBytes,
  addressText,
  familyOfAddress,
  readRoutePrefix,
  writeRoutePrefix,
  type ZapiPrefix,
} from './address.js';
import { NexthopType, ZapiMessage, ZapiNexthopFlag, ZapiSafi } from './constants.js';
import type { ZapiDialect } from './dialect.js';
import { ZapiError } from './errors.js';
import { writeFrame } from './header.js';

/*
 * ZEBRA_ROUTE_ADD / ZEBRA_ROUTE_DELETE body (lib/zclient.c zapi_route_encode/decode), the same
 * in FRR 8.4 and 10.3 (bgpd's frames of both are byte-for-byte alike but for the type number):
 *
 *   u8 type | u16 instance | u32 flags | u32 message | u8 safi | u8 family | u8 len | PSIZE bytes
 *   [NEXTHOP]  u16 count, then per next hop:
 *                u32 vrf_id | u8 type | u8 flags | gate (4|16 for the IPV4 and IPV6 types) | u32 ifindex
 *                (IFINDEX: u32 ifindex only; BLACKHOLE: u8 bh_type only)
 *                [flag LABEL] u8 n, n x u32 (host order)   [flag WEIGHT] u32 weight
 *   [DISTANCE] u8 | [METRIC] u32 | [TAG] u32 | [MTU] u32 | [TABLEID] u32
 *
 * The other optional parts (SRCPFX, NHG, BACKUP_NEXTHOPS, SRTE, OPAQUE; EVPN, SEG6 next hops)
 * are never sent by this client; the decoder, which exists for tests and captures, refuses them.
 */

export type NexthopTypeCode = (typeof NexthopType)[keyof typeof NexthopType];

export interface ZapiNexthop {
  readonly type: NexthopTypeCode;
  readonly vrfId: number;
  /** ZAPI_NEXTHOP_FLAG_* other than LABEL/WEIGHT, which follow from `labels`/`weight`. */
  readonly flags: number;
  /** The gateway for IPV4*, IPV6* types. */
  readonly gate?: string;
  /** 0 = let zebra resolve the gateway (what bgpd sends for single-hop eBGP). */
  readonly ifindex: number;
  readonly blackhole?: number;
  readonly labels?: readonly number[];
  readonly weight?: number;
}

export interface ZapiRoute {
  /**
   * ZEBRA_ROUTE_* of the owner, in the dialect's numbering (BGP is 9 in 8.4, 10 in 10.3); with
   * `instance` it is the key zebra flushes on disconnect.
   */
  readonly type: number;
  readonly instance: number;
  /** ZEBRA_FLAG_*. */
  readonly flags: number;
  readonly safi: number;
  readonly prefix: ZapiPrefix;
  /** Empty in a ROUTE_DELETE (zebra needs only type, instance, flags, safi and prefix). */
  readonly nexthops: readonly ZapiNexthop[];
  readonly distance?: number;
  readonly metric?: number;
  readonly tag?: number;
  readonly mtu?: number;
  readonly tableId?: number;
}

const UNSUPPORTED_MESSAGE =
  ZapiMessage.SRCPFX | ZapiMessage.NHG | ZapiMessage.BACKUP_NEXTHOPS | ZapiMessage.SRTE | ZapiMessage.OPAQUE;
const UNSUPPORTED_NH_FLAGS =
  ZapiNexthopFlag.HAS_BACKUP | ZapiNexthopFlag.SEG6 | ZapiNexthopFlag.SEG6LOCAL | ZapiNexthopFlag.EVPN;
/** zapi_route_decode refuses more than MULTIPATH_NUM next hops; this is the u16 field's own limit. */
const MAX_NEXTHOPS = 0xffff;
/** lib/mpls.h MPLS_MAX_LABELS. */
const MAX_LABELS = 16;

/** The `message` bits a route implies (the encoder never takes them from the caller). */
export function routeMessageBits(r: ZapiRoute): number {
  let m = 0;
  if (r.nexthops.length > 0) m |= ZapiMessage.NEXTHOP;
  if (r.distance !== undefined) m |= ZapiMessage.DISTANCE;
  if (r.metric !== undefined) m |= ZapiMessage.METRIC;
  if (r.tag !== undefined) m |= ZapiMessage.TAG;
  if (r.mtu !== undefined) m |= ZapiMessage.MTU;
  if (r.tableId !== undefined) m |= ZapiMessage.TABLEID;
  return m;
}

function hasGate(type: number): boolean {
  return (
    type === NexthopType.IPV4 ||
    type === NexthopType.IPV4_IFINDEX ||
    type === NexthopType.IPV6 ||
    type === NexthopType.IPV6_IFINDEX
  );
}

function gateFamily(type: number): typeof AF.INET | typeof AF.INET6 {
  return type === NexthopType.IPV4 || type === NexthopType.IPV4_IFINDEX ? AF.INET : AF.INET6;
}

const hostLittleEndian = new Uint8Array(Uint16Array.of(1).buffer)[0] === 1;

function writeHostU32(w: Writer, v: number): void {
  if (hostLittleEndian)
    w.u8(v)
      .u8(v >>> 8)
      .u8(v >>> 16)
      .u8(v >>> 24);
  else w.u32(v);
}

/** `v` as 4 bytes in host byte order, as zebra writes an enum with stream_put(&v, sizeof(v)). */
export function hostU32Bytes(v: number): Uint8Array {
  return new Uint8Array(Uint32Array.of(v).buffer);
}

/** A u32 in host byte order: zebra copies some values raw (labels, the notify enum, table_id). */
export function readHostU32(r: Reader): number {
  const b = r.bytes(4);
  return hostLittleEndian
    ? (b[0] | (b[1] << 8) | (b[2] << 16) | (b[3] << 24)) >>> 0
    : ((b[0] << 24) | (b[1] << 16) | (b[2] << 8) | b[3]) >>> 0;
}

function writeNexthop(w: Writer, nh: ZapiNexthop): void {
  if (nh.flags & (ZapiNexthopFlag.LABEL | ZapiNexthopFlag.WEIGHT | UNSUPPORTED_NH_FLAGS))
    throw new ZapiError('unencodable', `next hop flags 0x${nh.flags.toString(16)} not supported`);
  let flags = nh.flags;
  if (nh.labels !== undefined && nh.labels.length > 0) flags |= ZapiNexthopFlag.LABEL;
  if (nh.weight !== undefined) flags |= ZapiNexthopFlag.WEIGHT;
  w.u32(nh.vrfId).u8(nh.type).u8(flags);
  if (nh.type === NexthopType.BLACKHOLE) {
    w.u8(nh.blackhole ?? 0);
  } else if (nh.type === NexthopType.IFINDEX) {
    w.u32(nh.ifindex);
  } else if (hasGate(nh.type)) {
    if (nh.gate === undefined || familyOfAddress(nh.gate) !== gateFamily(nh.type))
      throw new ZapiError(
        'unencodable',
        `next hop type ${nh.type} needs a gateway of its family, got ${nh.gate}`,
      );
    w.bytes(addressBytes(nh.gate, gateFamily(nh.type))).u32(nh.ifindex);
  } else {
    throw new ZapiError('unencodable', `next hop type ${nh.type} unknown`);
  }
  if (flags & ZapiNexthopFlag.LABEL) {
    const labels = nh.labels ?? [];
    if (labels.length > MAX_LABELS)
      throw new ZapiError('unencodable', `${labels.length} labels > ${MAX_LABELS}`);
    w.u8(labels.length);
    for (const l of labels) writeHostU32(w, l);
  }
  if (flags & ZapiNexthopFlag.WEIGHT) w.u32(nh.weight ?? 0);
}

function writeRouteBody(w: Writer, r: ZapiRoute): void {
  if (r.nexthops.length > MAX_NEXTHOPS) throw new ZapiError('unencodable', `${r.nexthops.length} next hops`);
  const message = routeMessageBits(r);
  w.u8(r.type).u16(r.instance).u32(r.flags).u32(message).u8(r.safi);
  writeRoutePrefix(w, r.prefix);
  if (message & ZapiMessage.NEXTHOP) {
    w.u16(r.nexthops.length);
    for (const nh of r.nexthops) writeNexthop(w, nh);
  }
  if (r.distance !== undefined) w.u8(r.distance);
  if (r.metric !== undefined) w.u32(r.metric);
  if (r.tag !== undefined) w.u32(r.tag);
  if (r.mtu !== undefined) w.u32(r.mtu);
  if (r.tableId !== undefined) w.u32(r.tableId);
}

/** Appends a ROUTE_ADD frame. zebra refuses an add without next hops (zread_route_add). */
export function writeRouteAdd(w: Writer, d: ZapiDialect, r: ZapiRoute): void {
  if (r.nexthops.length === 0) throw new ZapiError('unencodable', 'ROUTE_ADD without next hops');
  writeFrame(w, d.command.ROUTE_ADD, (b) => writeRouteBody(b, r));
}

/** Appends a ROUTE_DELETE frame: only the key fields, as zread_route_del needs. */
export function writeRouteDelete(
  w: Writer,
  d: ZapiDialect,
  r: Pick<ZapiRoute, 'type' | 'instance' | 'flags' | 'safi' | 'prefix'>,
): void {
  const key: ZapiRoute = {
    type: r.type,
    instance: r.instance,
    flags: r.flags,
    safi: r.safi,
    prefix: r.prefix,
    nexthops: [],
  };
  writeFrame(w, d.command.ROUTE_DELETE, (b) => writeRouteBody(b, key));
}

function readNexthop(r: Reader): ZapiNexthop {
  const vrfId = r.u32();
  const type = r.u8();
  const flags = r.u8();
  if (flags & UNSUPPORTED_NH_FLAGS)
    throw new ZapiError('malformed', `next hop flags 0x${flags.toString(16)} not supported`);
  let gate: string | undefined;
  let ifindex = 0;
  let blackhole: number | undefined;
  if (type === NexthopType.BLACKHOLE) blackhole = r.u8();
  else if (type === NexthopType.IFINDEX) ifindex = r.u32();
  else if (hasGate(type)) {
    gate = addressText(r.bytes(gateFamily(type) === AF.INET ? 4 : 16));
    ifindex = r.u32();
  } else throw new ZapiError('malformed', `next hop type ${type} unknown`);
  let labels: number[] | undefined;
  if (flags & ZapiNexthopFlag.LABEL) {
    const n = r.u8();
    if (n > MAX_LABELS) throw new ZapiError('malformed', `${n} labels > ${MAX_LABELS}`);
    labels = [];
    for (let i = 0; i < n; i++) labels.push(readHostU32(r));
  }
  const weight = flags & ZapiNexthopFlag.WEIGHT ? r.u32() : undefined;
  const own = flags & ~(ZapiNexthopFlag.LABEL | ZapiNexthopFlag.WEIGHT);
  return {
    type: type as NexthopTypeCode,
    vrfId,
    flags: own,
    ifindex,
    ...(gate !== undefined && { gate }),
    ...(blackhole !== undefined && { blackhole }),
    ...(labels !== undefined && labels.length > 0 && { labels }),
    ...(weight !== undefined && { weight }),
  };
}

/** Decodes a ROUTE_ADD/ROUTE_DELETE body (captures and tests; zebra never sends these to us). */
export function decodeRoute(body: Uint8Array): ZapiRoute {
  const r = new Reader(body);
  try {
    const type = r.u8();
    const instance = r.u16();
    const flags = r.u32();
    const message = r.u32();
    if (message & UNSUPPORTED_MESSAGE)
      throw new ZapiError(
        'malformed',
        `route message bits 0x${(message & UNSUPPORTED_MESSAGE).toString(16)} not supported`,
      );
    const safi = r.u8();
    if (safi !== ZapiSafi.UNICAST && safi !== ZapiSafi.MULTICAST)
      throw new ZapiError('malformed', `SAFI ${safi}`);
    const prefix = readRoutePrefix(r);
    const nexthops: ZapiNexthop[] = [];
    if (message & ZapiMessage.NEXTHOP) {
      const n = r.u16();
      for (let i = 0; i < n; i++) nexthops.push(readNexthop(r));
    }
    const distance = message & ZapiMessage.DISTANCE ? r.u8() : undefined;
    const metric = message & ZapiMessage.METRIC ? r.u32() : undefined;
    const tag = message & ZapiMessage.TAG ? r.u32() : undefined;
    const mtu = message & ZapiMessage.MTU ? r.u32() : undefined;
    const tableId = message & ZapiMessage.TABLEID ? r.u32() : undefined;
    if (r.remaining !== 0) throw new ZapiError('malformed', `${r.remaining} byte(s) after the route body`);
    return {
      type,
      instance,
      flags,
      safi,
      prefix,
      nexthops,
      ...(distance !== undefined && { distance }),
      ...(metric !== undefined && { metric }),
      ...(tag !== undefined && { tag }),
      ...(mtu !== undefined && { mtu }),
      ...(tableId !== undefined && { tableId }),
    };
  } catch (err) {
    throw asMalformed(err, 'route');
  }
}

/** A complete frame whose body ends early is malformed (the framer already waited for all of it). */
export function asMalformed(err: unknown, what: string): unknown {
  if (err instanceof IncompleteError)
    return new ZapiError('malformed', `${what} body truncated (${err.needed} more byte(s) needed)`);
  return err;
}
