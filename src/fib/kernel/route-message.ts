// Over 400 lines on purpose: the encoder and the decoder of one message family (rtmsg with its
// attributes) side by side, so each attribute's write and read stay next to each other.
import { AF, type AfNumber } from '../../bgp/transport/index.js';
import { Afi, formatIpv4, formatIpv6, parseIpv4, parseIpv6 } from '../../bgp/wire/index.js';
import { maskIpv4, maskWord, RibPrefix } from '../../rib/index.js';
import {
  NlmFlag,
  NlmsgType,
  RTA_HDRLEN,
  RTMSG_LEN,
  RTNH_LEN,
  Rta,
  RtmFlag,
  Rtn,
  RtScope,
  RtTable,
} from './constants.js';
import { KernelError } from './errors.js';
import { type NlMessage, type NlView, NlWriter, nlAlign } from './nl-buffer.js';

/*
 * RTM_NEWROUTE / RTM_DELROUTE / RTM_GETROUTE: a `struct rtmsg` and its attributes.
 *
 *   rtmsg   0       1        2        3    4       5          6       7       8
 *           +-------+--------+--------+----+-------+----------+-------+-------+-----------+
 *           |family |dst_len |src_len |tos |table  |protocol  |scope  |type   | flags u32 |
 *
 * Attributes go in the order `ip route add P table T metric M via G dev D` sends them:
 * RTA_DST, RTA_TABLE (only when T > 255; rtm_table holds smaller ids, as iproute2 does),
 * RTA_PRIORITY, then RTA_GATEWAY or RTA_VIA and RTA_OIF, or one RTA_MULTIPATH:
 *
 *   RTA_MULTIPATH = rtnexthop { u16 len, u8 flags, u8 hops (weight - 1), i32 ifindex } + RTA_GATEWAY|RTA_VIA, ...
 *   RTA_VIA       = u16 family (host order) + address: an IPv6 gateway for an IPv4 route (RFC 8950, Linux 5.2)
 */

/** One next hop as the kernel holds it. */
export interface KernelNexthop {
  /** Text of the gateway (RFC 5952 for IPv6); absent for a route straight onto a device. */
  readonly gateway?: string;
  /** The gateway's family: INET6 under an IPv4 route is RTA_VIA. */
  readonly gatewayFamily?: AfNumber;
  /** 0 when the kernel is to pick the device (we always name it after resolving). */
  readonly ifindex: number;
  /** rtnh_hops + 1; 1 for a single next hop. */
  readonly weight: number;
  /** RTNH_F_* as the kernel reports them (ONLINK, LINKDOWN...). */
  readonly flags: number;
}

/** A route message, decoded; also what we encode for NEWROUTE. */
export interface KernelRoute {
  readonly prefix: RibPrefix;
  readonly table: number;
  readonly protocol: number;
  /** RT_SCOPE_*. */
  readonly scope: number;
  /** RTN_*. */
  readonly type: number;
  /** rtm_flags (RTM_F_*, RTNH_F_* for a single next hop). */
  readonly flags: number;
  /** RTA_PRIORITY (the metric); 0 when absent. */
  readonly priority: number;
  readonly nexthops: readonly KernelNexthop[];
  /** RTA_NH_ID: the route uses a nexthop object (zebra's way); `nexthops` then is what the kernel expanded. */
  readonly nhId?: number;
}

/** The fields that name one kernel route: what a DELROUTE carries. */
export interface RouteKey {
  readonly prefix: RibPrefix;
  readonly table: number;
  readonly protocol: number;
  readonly priority: number;
}

export function familyOf(prefix: RibPrefix): AfNumber {
  return prefix.afi === Afi.IPV4 ? AF.INET : AF.INET6;
}

export function gatewayFamilyOf(address: string): AfNumber {
  return address.includes(':') ? AF.INET6 : AF.INET;
}

function writeAddressWords(w: NlWriter, p: RibPrefix): void {
  w.be32(p.w0);
  if (p.afi === Afi.IPV6) {
    w.be32(p.w1);
    w.be32(p.w2);
    w.be32(p.w3);
  }
}

function writeAddressText(w: NlWriter, family: AfNumber, text: string): void {
  if (family === AF.INET) {
    w.be32(parseIpv4(text));
    return;
  }
  const words = parseIpv6(text);
  for (let i = 0; i < 4; i++) w.be32(words[i]);
}

function writeRtmsg(
  w: NlWriter,
  family: number,
  dstLen: number,
  table: number,
  protocol: number,
  scope: number,
  type: number,
  flags = 0,
): void {
  w.u8(family);
  w.u8(dstLen);
  w.u8(0); // src_len
  w.u8(0); // tos
  w.u8(table > 0xff ? RtTable.UNSPEC : table);
  w.u8(protocol);
  w.u8(scope);
  w.u8(type);
  w.u32(flags);
}

function writeKeyAttrs(w: NlWriter, prefix: RibPrefix, table: number, priority: number | undefined): void {
  w.u16(RTA_HDRLEN + (prefix.afi === Afi.IPV4 ? 4 : 16));
  w.u16(Rta.DST);
  writeAddressWords(w, prefix);
  if (table > 0xff) w.attrU32(Rta.TABLE, table);
  if (priority !== undefined) w.attrU32(Rta.PRIORITY, priority);
}

function writeGateway(w: NlWriter, routeFamily: AfNumber, nh: KernelNexthop): void {
  if (nh.gateway === undefined) return;
  const family = nh.gatewayFamily ?? gatewayFamilyOf(nh.gateway);
  if (family === routeFamily) {
    const a = w.attrBegin(Rta.GATEWAY);
    writeAddressText(w, family, nh.gateway);
    w.attrEnd(a);
    return;
  }
  if (routeFamily !== AF.INET)
    throw new KernelError('unencodable', `an IPv6 route cannot have the IPv4 gateway ${nh.gateway}`);
  const a = w.attrBegin(Rta.VIA);
  w.u16(family);
  writeAddressText(w, family, nh.gateway);
  w.attrEnd(a);
}

/**
 * The next-hop attributes of a route: RTA_GATEWAY|RTA_VIA + RTA_OIF for one, RTA_MULTIPATH for
 * more. Routes share few next-hop sets, so the target encodes each set once and copies it.
 */
export function encodeNexthops(routeFamily: AfNumber, nexthops: readonly KernelNexthop[]): Uint8Array {
  const w = new NlWriter(64 + nexthops.length * 32);
  writeNexthops(w, routeFamily, nexthops);
  return w.finish();
}

function writeNexthops(w: NlWriter, routeFamily: AfNumber, nexthops: readonly KernelNexthop[]): void {
  if (nexthops.length === 0) throw new KernelError('unencodable', 'a route needs a next hop');
  if (nexthops.length === 1 && nexthops[0].weight <= 1) {
    const nh = nexthops[0];
    writeGateway(w, routeFamily, nh);
    if (nh.ifindex > 0) w.attrU32(Rta.OIF, nh.ifindex);
    return;
  }
  const mp = w.attrBegin(Rta.MULTIPATH);
  for (const nh of nexthops) {
    if (nh.weight < 1 || nh.weight > 256)
      throw new KernelError('unencodable', `weight ${nh.weight} not in 1..256`);
    const start = w.pos;
    w.u16(0);
    w.u8(nh.flags & 0xff);
    w.u8(nh.weight - 1);
    w.i32(nh.ifindex);
    writeGateway(w, routeFamily, nh);
    // rtnh_len covers the rtnexthop and its attributes (each attribute pads itself).
    w.setU16(start, w.pos - start);
  }
  w.attrEnd(mp);
}

export interface NewRouteOptions {
  /** NLM_F_* beyond REQUEST: CREATE|EXCL to add, CREATE|REPLACE to replace, ACK when answered. */
  readonly flags: number;
  readonly seq: number;
  /** Pre-encoded next-hop attributes (encodeNexthops); encoded from `route.nexthops` when absent. */
  readonly nexthopAttrs?: Uint8Array;
}

/** RTM_NEWROUTE with the route's own scope, type and flags (the codec tests' general form). */
export function writeNewRoute(w: NlWriter, route: KernelRoute, o: NewRouteOptions): void {
  const family = familyOf(route.prefix);
  const start = w.begin(NlmsgType.NEWROUTE, NlmFlag.REQUEST | o.flags, o.seq);
  writeRtmsg(w, family, route.prefix.len, route.table, route.protocol, route.scope, route.type, route.flags);
  writeKeyAttrs(w, route.prefix, route.table, route.priority);
  if (o.nexthopAttrs) w.bytes(o.nexthopAttrs);
  else writeNexthops(w, family, route.nexthops);
  w.end(start);
}

/**
 * RTM_NEWROUTE of a unicast gateway route (scope universe) with pre-encoded next hops: the
 * target's hot path, which builds no object per route.
 */
export function writeUnicastRoute(
  w: NlWriter,
  key: RouteKey,
  nexthopAttrs: Uint8Array,
  flags: number,
  seq: number,
): void {
  const start = w.begin(NlmsgType.NEWROUTE, NlmFlag.REQUEST | flags, seq);
  writeRtmsg(w, familyOf(key.prefix), key.prefix.len, key.table, key.protocol, RtScope.UNIVERSE, Rtn.UNICAST);
  writeKeyAttrs(w, key.prefix, key.table, key.priority);
  w.bytes(nexthopAttrs);
  w.end(start);
}

/**
 * RTM_DELROUTE as `ip route del P proto X metric M table T` sends it: scope NOWHERE (IPv4) and
 * type UNSPEC match any route, while protocol and priority make the kernel delete only a route of
 * ours (IPv4 fib_table_delete and IPv6 ip6_route_del both skip a route of another protocol).
 */
export function writeDelRoute(w: NlWriter, key: RouteKey, flags: number, seq: number): void {
  const start = w.begin(NlmsgType.DELROUTE, NlmFlag.REQUEST | flags, seq);
  const family = familyOf(key.prefix);
  // iproute2 sends IPv6 deletes with scope UNIVERSE (IPv6 has no route scopes to match).
  const scope = family === AF.INET ? RtScope.NOWHERE : RtScope.UNIVERSE;
  writeRtmsg(w, family, key.prefix.len, key.table, key.protocol, scope, Rtn.UNSPEC);
  writeKeyAttrs(w, key.prefix, key.table, key.priority);
  w.end(start);
}

/**
 * RTM_GETROUTE for one address: with FIB_MATCH the kernel answers with the FIB entry the lookup
 * hits (its prefix, protocol and next hops), as `ip route get fibmatch A` shows.
 */
export function writeGetRoute(
  w: NlWriter,
  address: string,
  o: { readonly seq: number; readonly fibMatch: boolean },
): void {
  const family = gatewayFamilyOf(address);
  const start = w.begin(NlmsgType.GETROUTE, NlmFlag.REQUEST, o.seq);
  writeRtmsg(
    w,
    family,
    family === AF.INET ? 32 : 128,
    0,
    0,
    0,
    0,
    (o.fibMatch ? RtmFlag.FIB_MATCH : 0) | (family === AF.INET ? RtmFlag.LOOKUP_TABLE : 0),
  );
  const a = w.attrBegin(Rta.DST);
  writeAddressText(w, family, address);
  w.attrEnd(a);
  w.end(start);
}

/**
 * A dump of one family's routes, as `ip route show table T proto P` asks: the table in
 * RTA_TABLE (rtm_table 0), the protocol in rtm_protocol (0: any). With NETLINK_GET_STRICT_CHK
 * the kernel itself keeps only those (ip_valid_fib_dump_req); without it, it sends every
 * table, so the caller filters again.
 */
export function writeDumpRoutes(
  w: NlWriter,
  family: AfNumber,
  filter: { readonly table: number; readonly protocol: number },
  seq: number,
): void {
  const start = w.begin(NlmsgType.GETROUTE, NlmFlag.REQUEST | NlmFlag.DUMP, seq);
  writeRtmsg(w, family, 0, RtTable.UNSPEC, filter.protocol, 0, 0);
  w.attrU32(Rta.TABLE, filter.table);
  w.end(start);
}

function readAddress(v: NlView, family: number, start: number, end: number, what: string): string {
  if (family === AF.INET) {
    v.need(start, 4, end, what);
    return formatIpv4(v.be32(start));
  }
  if (family === AF.INET6) {
    v.need(start, 16, end, what);
    return formatIpv6(v.be32(start), v.be32(start + 4), v.be32(start + 8), v.be32(start + 12));
  }
  throw new KernelError('malformed', `${what}: address family ${family}`);
}

/** A gateway attribute read in place: family and text, or nothing. */
interface GatewayCell {
  gateway: string | undefined;
  gatewayFamily: AfNumber | undefined;
}

/** Reads RTA_GATEWAY or RTA_VIA at `off` (an attribute header) into `into`; other types are skipped. */
function readGatewayAttr(
  v: NlView,
  family: AfNumber,
  type: number,
  s: number,
  e: number,
  into: GatewayCell,
): void {
  if (type === Rta.GATEWAY) {
    into.gateway = readAddress(v, family, s, e, 'RTA_GATEWAY');
    into.gatewayFamily = family;
  } else if (type === Rta.VIA) {
    v.need(s, 2, e, 'RTA_VIA');
    const viaFamily = v.u16(s);
    into.gateway = readAddress(v, viaFamily, s + 2, e, 'RTA_VIA');
    into.gatewayFamily = viaFamily as AfNumber;
  }
}

function nexthop(cell: GatewayCell, ifindex: number, weight: number, flags: number): KernelNexthop {
  if (cell.gateway === undefined) return { ifindex, weight, flags };
  return { gateway: cell.gateway, gatewayFamily: cell.gatewayFamily, ifindex, weight, flags };
}

/** The attribute loop of forEachAttr, inline: a dump decodes a million of these. */
function attrLength(v: NlView, off: number, to: number, what: string): number {
  const len = v.u16(off);
  if (len < RTA_HDRLEN || off + len > to)
    throw new KernelError('malformed', `${what}: attribute length ${len} at ${off} past ${to}`);
  return len;
}

function readMultipath(v: NlView, family: AfNumber, start: number, end: number): KernelNexthop[] {
  const out: KernelNexthop[] = [];
  let off = start;
  while (off + RTNH_LEN <= end) {
    const len = v.u16(off);
    if (len < RTNH_LEN || off + len > end)
      throw new KernelError('malformed', `rtnexthop length ${len} at ${off} past ${end}`);
    const cell: GatewayCell = { gateway: undefined, gatewayFamily: undefined };
    for (let a = off + RTNH_LEN; a + RTA_HDRLEN <= off + len; ) {
      const alen = attrLength(v, a, off + len, 'rtnexthop');
      readGatewayAttr(v, family, v.u16(a + 2) & 0x3fff, a + RTA_HDRLEN, a + alen, cell);
      a += nlAlign(alen);
    }
    out.push(nexthop(cell, v.i32(off + 4), v.u8(off + 3) + 1, v.u8(off + 2)));
    off += nlAlign(len);
  }
  return out;
}

/** A NEWROUTE/DELROUTE body (a dump entry, a notification, a lookup answer). */
export function decodeRoute(v: NlView, m: NlMessage): KernelRoute {
  v.need(m.body, RTMSG_LEN, m.end, 'rtmsg');
  const b = m.body;
  const family = v.u8(b);
  if (family !== AF.INET && family !== AF.INET6) throw new KernelError('malformed', `rtmsg family ${family}`);
  const v4 = family === AF.INET;
  const dstLen = v.u8(b + 1);
  if (dstLen > (v4 ? 32 : 128))
    throw new KernelError('malformed', `rtm_dst_len ${dstLen} for family ${family}`);
  let table = v.u8(b + 4);
  let priority = 0;
  let oif = 0;
  let nhId: number | undefined;
  let multipath: KernelNexthop[] | undefined;
  let w0 = 0;
  let w1 = 0;
  let w2 = 0;
  let w3 = 0;
  const single: GatewayCell = { gateway: undefined, gatewayFamily: undefined };
  for (let off = b + RTMSG_LEN; off + RTA_HDRLEN <= m.end; ) {
    const len = attrLength(v, off, m.end, 'route attributes');
    const s = off + RTA_HDRLEN;
    const e = off + len;
    switch (v.u16(off + 2) & 0x3fff) {
      case Rta.DST:
        v.need(s, v4 ? 4 : 16, e, 'RTA_DST');
        w0 = v.be32(s);
        if (!v4) {
          w1 = v.be32(s + 4);
          w2 = v.be32(s + 8);
          w3 = v.be32(s + 12);
        }
        break;
      case Rta.TABLE:
        v.need(s, 4, e, 'RTA_TABLE');
        table = v.u32(s);
        break;
      case Rta.PRIORITY:
        v.need(s, 4, e, 'RTA_PRIORITY');
        priority = v.u32(s);
        break;
      case Rta.OIF:
        v.need(s, 4, e, 'RTA_OIF');
        oif = v.u32(s);
        break;
      case Rta.NH_ID:
        v.need(s, 4, e, 'RTA_NH_ID');
        nhId = v.u32(s);
        break;
      case Rta.MULTIPATH:
        multipath = readMultipath(v, family, s, e);
        break;
      case Rta.GATEWAY:
      case Rta.VIA:
        readGatewayAttr(v, family, v.u16(off + 2) & 0x3fff, s, e, single);
        break;
    }
    off += nlAlign(len);
  }
  const flags = v.u32(b + 8);
  const nexthops: KernelNexthop[] =
    multipath ?? (single.gateway !== undefined || oif > 0 ? [nexthop(single, oif, 1, flags & 0xff)] : []);
  const prefix = v4
    ? new RibPrefix(Afi.IPV4, dstLen, maskIpv4(w0, dstLen))
    : new RibPrefix(
        Afi.IPV6,
        dstLen,
        maskWord(w0, 0, dstLen),
        maskWord(w1, 1, dstLen),
        maskWord(w2, 2, dstLen),
        maskWord(w3, 3, dstLen),
      );
  const route: KernelRoute = {
    prefix,
    table,
    protocol: v.u8(b + 5),
    scope: v.u8(b + 6),
    type: v.u8(b + 7),
    flags,
    priority,
    nexthops,
  };
  return nhId === undefined ? route : { ...route, nhId };
}
