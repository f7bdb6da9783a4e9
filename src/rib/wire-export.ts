import {
  Afi,
  type AfiCode,
  ATTR_BY_CODE,
  AttrFlag,
  AttrType,
  beginAttribute,
  endAttribute,
  Safi,
  WellKnownCommunity,
  type WireAttributes,
  type Writer,
  writeMpReach,
} from '../bgp/wire/index.js';
import { type ExportContext, type ExportTarget, exportNextHop } from './export-rules.js';
import type { RouteSource } from './peer.js';

/** What writeWireExport did. */
export const WireExport = {
  /** The export's attributes are in the writer. */
  WRITTEN: 0,
  /** The route is not sent to the target (NO_EXPORT, NO_ADVERTISE, LLGR_STALE, no next hop). */
  NOT_SENT: 1,
  /** Outside what this path covers: build the export as an object (exportAttributes). */
  UNSUPPORTED: 2,
} as const;
export type WireExportResult = (typeof WireExport)[keyof typeof WireExport];

const AS_SET = 1;
const AS_SEQUENCE = 2;
const MAX_SEGMENT_ASNS = 255;
const ORIGIN_IGP = 0;

/** Types the byte path takes; any other in the set sends it down the object path. */
const COVERED = new Uint8Array(256);
for (const t of [
  AttrType.ORIGIN,
  AttrType.AS_PATH,
  AttrType.NEXT_HOP,
  AttrType.MULTI_EXIT_DISC,
  AttrType.LOCAL_PREF,
  AttrType.ATOMIC_AGGREGATE,
  AttrType.AGGREGATOR,
  AttrType.COMMUNITIES,
  AttrType.LARGE_COMMUNITY,
  AttrType.MP_REACH_NLRI,
])
  COVERED[t] = 1;

/**
 * Where each covered attribute's value lies in the set's bytes for one write: start and end,
 * -1 when absent. Written order is the canonical one (the attribute table's), whatever the
 * received order was.
 */
const START = new Int32Array(256);
const END = new Int32Array(256);
const WRITE_ORDER = [
  AttrType.ATOMIC_AGGREGATE,
  AttrType.AGGREGATOR,
  AttrType.COMMUNITIES,
  AttrType.LARGE_COMMUNITY,
] as const;

/**
 * The export of a received IPv4 or IPv6 route towards an eBGP peer, written from the received
 * set's bytes as encodeUpdate would write exportAttributes' object for it (4-octet ASNs, canonical
 * order): our AS prepended to AS_PATH, our next hop, MED only from inside the AS (or with
 * `medUnchanged`), LOCAL_PREF dropped, the rest copied. Building that object decoded the
 * received set's paths and lists and made about 2 KB of garbage per set, most of the cost of
 * sending a full table. Sets with anything else (AS4_PATH, confederation segments, extended
 * communities, unknown or discarded attributes), IPv4 routes with an IPv6 next hop and iBGP
 * targets are UNSUPPORTED: the object path handles them. `w` gets the UPDATE body (empty
 * withdrawn routes, the attributes, no NLRI) when the answer is WRITTEN.
 */
export function writeWireExport(
  w: Writer,
  a: WireAttributes,
  afi: AfiCode,
  source: RouteSource,
  target: ExportTarget,
  ctx: ExportContext,
): WireExportResult {
  if (target.kind !== 'ebgp' || !a.as4 || a.hasUndecoded) return WireExport.UNSUPPORTED;
  if (a.sent !== a.present || a.issues.length > 0) return WireExport.UNSUPPORTED;
  if (!locate(a)) return WireExport.UNSUPPORTED;
  // An IPv4 route's set without MP_REACH_NLRI; an IPv6 route's with its own family's.
  const reach = a.mpReach;
  if (
    afi === Afi.IPV4
      ? START[AttrType.MP_REACH_NLRI] >= 0
      : reach?.afi !== Afi.IPV6 || reach.safi !== Safi.UNICAST
  )
    return WireExport.UNSUPPORTED;
  const raw = a.raw;
  const communities = START[AttrType.COMMUNITIES];
  if (communities >= 0 && !communitiesLetGo(raw, communities, END[AttrType.COMMUNITIES], target))
    return WireExport.NOT_SENT;
  const nextHop = exportNextHop(a, afi, target);
  if (nextHop === null) return WireExport.NOT_SENT;
  // An IPv4 route with an IPv6 next hop (RFC 8950) keeps the object path.
  if (afi === Afi.IPV4 && typeof nextHop !== 'number') return WireExport.UNSUPPORTED;
  const path = START[AttrType.AS_PATH];
  if (path >= 0 && !plainPath(raw, path, END[AttrType.AS_PATH])) return WireExport.UNSUPPORTED;

  w.reset();
  w.u16(0); // no withdrawn routes
  const attrsAt = w.mark();
  w.u16(0);
  // MP_REACH_NLRI first (RFC 7606 section 5.1), with our next hop and no NLRI yet.
  if (typeof nextHop !== 'number') writeMpReach(w, nextHop, null, AttrFlag.OPTIONAL);
  // ORIGIN: always there (IGP for a set without one, RFC 4271 section 5.1.1).
  let at = begin(w, AttrType.ORIGIN);
  w.u8(START[AttrType.ORIGIN] >= 0 ? raw[START[AttrType.ORIGIN]] : ORIGIN_IGP);
  endAttribute(w, at);
  // AS_PATH: our AS leftmost, in the leading AS_SEQUENCE while it has room (prependAs).
  at = begin(w, AttrType.AS_PATH);
  prependOurAs(w, raw, path, END[AttrType.AS_PATH], ctx.localAs);
  endAttribute(w, at);
  if (typeof nextHop === 'number') {
    at = begin(w, AttrType.NEXT_HOP);
    w.u32(nextHop);
    endAttribute(w, at);
  }
  // RFC 4271 section 5.1.4: a MED learned from another AS is not passed to a third one.
  const med = START[AttrType.MULTI_EXIT_DISC];
  if (med >= 0 && (source.kind !== 'ebgp' || target.medUnchanged === true))
    copy(w, raw, AttrType.MULTI_EXIT_DISC);
  // LOCAL_PREF stays inside the AS (section 5.1.5).
  for (const type of WRITE_ORDER) if (START[type] >= 0) copy(w, raw, type);
  w.patch16(attrsAt, w.pos - attrsAt - 2);
  return WireExport.WRITTEN;
}

/** Fills START/END for the set's attributes; false when one is not covered or comes twice. */
function locate(a: WireAttributes): boolean {
  START.fill(-1, 0, AttrType.LARGE_COMMUNITY + 1);
  const raw = a.raw;
  const stop = a.rawEnd;
  for (let pos = a.rawStart; pos < stop; ) {
    const flags = raw[pos];
    const type = raw[pos + 1];
    const ext = (flags & AttrFlag.EXTENDED_LENGTH) !== 0;
    const s = pos + (ext ? 4 : 3);
    const e = s + (ext ? (raw[pos + 2] << 8) | raw[pos + 3] : raw[pos + 2]);
    if (COVERED[type] === 0 || START[type] >= 0) return false;
    START[type] = s;
    END[type] = e;
    pos = e;
  }
  return true;
}

/** RFC 1997 at an eBGP peer, and RFC 9494 section 4.5 for a peer without long-lived graceful restart. */
function communitiesLetGo(raw: Uint8Array, s: number, e: number, target: ExportTarget): boolean {
  for (let p = s; p + 4 <= e; p += 4) {
    const c = ((raw[p] << 24) | (raw[p + 1] << 16) | (raw[p + 2] << 8) | raw[p + 3]) >>> 0;
    if (
      c === WellKnownCommunity.NO_ADVERTISE ||
      c === WellKnownCommunity.NO_EXPORT ||
      c === WellKnownCommunity.NO_EXPORT_SUBCONFED
    )
      return false;
    if (c === WellKnownCommunity.LLGR_STALE && !target.longLivedGracefulRestart) return false;
  }
  return true;
}

/** Only AS_SEQUENCE and AS_SET segments (confederation ones must go, which the object path does). */
function plainPath(raw: Uint8Array, s: number, e: number): boolean {
  for (let p = s; p < e; p += 2 + raw[p + 1] * 4)
    if (raw[p] !== AS_SEQUENCE && raw[p] !== AS_SET) return false;
  return true;
}

function prependOurAs(w: Writer, raw: Uint8Array, s: number, e: number, localAs: number): void {
  if (s >= 0 && s < e && raw[s] === AS_SEQUENCE && raw[s + 1] < MAX_SEGMENT_ASNS) {
    w.u8(AS_SEQUENCE)
      .u8(raw[s + 1] + 1)
      .u32(localAs);
    w.range(raw, s + 2, e);
    return;
  }
  w.u8(AS_SEQUENCE).u8(1).u32(localAs);
  if (s >= 0) w.range(raw, s, e);
}

function copy(w: Writer, raw: Uint8Array, type: number): void {
  const at = begin(w, type);
  w.range(raw, START[type], END[type]);
  endAttribute(w, at);
}

/** The attribute's header with the table's flags (encodeCanonical's). */
function begin(w: Writer, type: number): number {
  return beginAttribute(w, type, ATTR_BY_CODE[type]!.flags);
}
