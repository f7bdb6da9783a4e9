import { maskIpv4, maskWord } from '../address/index.js';
import {
  Afi,
  type AfiCode,
  ATTRS,
  type AttrExportContext,
  exportUnknown,
  type MpReach,
  type MutableAttributes,
  makeAttributes,
  type PathAttributes,
  Safi,
} from '../bgp/wire/index.js';
import { WellKnownCommunity } from './constants.js';
import type { PeerKind, RouteSource, SourceKind } from './peer.js';
import type { RibPrefix } from './prefix-key.js';
import { hasLongLivedStale } from './stale-paths.js';

const IPV6_LENGTH = 16;

/**
 * Everything the exported attributes depend on for one peer. Peers whose targets are equal
 * get identical exports and form an update group.
 */
export interface ExportTarget {
  readonly kind: PeerKind;
  /** Our IPv4 address on the session: the next hop when we are it (next-hop-self). */
  readonly localIpv4?: number;
  /** Our global IPv6 address on the session (16 bytes). */
  readonly localIpv6?: Uint8Array;
  /** Our link-local address when the peer shares the link (16 bytes; RFC 2545 section 3). */
  readonly localIpv6LinkLocal?: Uint8Array;
  /**
   * The peer advertised RFC 8950 extended next hop for IPv4 unicast with IPv6 next hops: IPv4
   * routes go in MP_REACH_NLRI (AFI 1) with an IPv6 next hop, ours being localIpv6 (and
   * localIpv6LinkLocal). Without it an IPv4 route never leaves with an IPv6 next hop.
   */
  readonly extendedNextHop?: boolean;
  /** iBGP: announce ourselves as next hop ("next-hop-self"); eBGP always does unless third-party. */
  readonly nextHopSelf?: boolean;
  /**
   * Keep the route's own next hop, towards eBGP too and before nextHopSelf (FRR's
   * `attribute-unchanged next-hop`, BIRD's `next hop keep`): the peer's `next_hop_unchanged`,
   * or an export policy that must see it (`applyNextHopRule` then decides after the policy).
   * A route without a next hop of its own still gets ours.
   */
  readonly nextHopUnchanged?: boolean;
  /** eBGP: pass on the MED of routes learned from another AS ("attribute-unchanged med"). */
  readonly medUnchanged?: boolean;
  /**
   * Subnets shared with the peer. A next hop inside one is kept towards eBGP (RFC 4271
   * section 5.1.3, "third party" next hop): e.g. the chassis hosting a floating IP.
   */
  readonly sharedSubnets?: readonly RibPrefix[];
  /** The peer agreed to RFC 9494 long-lived graceful restart: it may get LLGR_STALE routes. */
  readonly longLivedGracefulRestart?: boolean;
}

/** What export needs to know about us. */
export interface ExportContext {
  readonly localAs: number;
  /** RFC 4456 CLUSTER_ID, prepended to CLUSTER_LIST when reflecting. */
  readonly clusterId: number;
  /** LOCAL_PREF sent to iBGP peers for routes that have none. */
  readonly defaultLocalPref: number;
}

/**
 * RFC 4271 section 9.2 and RFC 4456 section 6: may a route learned from a `from` peer be
 * sent to a `to` peer? iBGP-learned routes go to iBGP peers only by reflection: from a
 * client to everyone, from a non-client to clients only.
 */
export function mayAdvertise(from: SourceKind, to: PeerKind): boolean {
  return !(from === 'ibgp-nonclient' && to === 'ibgp-nonclient');
}

/** RFC 1997: NO_ADVERTISE stops a route everywhere, NO_EXPORT (and NO_EXPORT_SUBCONFED without confederations) at eBGP. */
export function communitiesAllow(communities: readonly number[] | undefined, to: PeerKind): boolean {
  if (!communities) return true;
  for (const c of communities) {
    if (c === WellKnownCommunity.NO_ADVERTISE) return false;
    if (to === 'ebgp' && (c === WellKnownCommunity.NO_EXPORT || c === WellKnownCommunity.NO_EXPORT_SUBCONFED))
      return false;
  }
  return true;
}

/** The empty set makeAttributes fills out to its one shape. */
const NO_ATTRIBUTES: PathAttributes = {};

/**
 * The attributes a route of family `afi` is sent with to a peer described by `target`, or
 * null when it must not be sent. A new object; intern it (ExportInterner) so equal exports
 * share one. Which routes may go is decided here (RFC 4271 9.2, RFC 4456 6, RFC 1997, RFC
 * 9494), and the next hop (RFC 4271 5.1.3); what each attribute becomes is its row's rule in
 * the attribute table (`ATTRS[i].export`): AS_PATH, LOCAL_PREF, MED, reflection, extended
 * communities. Unknown optional transitive attributes pass with Partial set (RFC 4271 5).
 */
export function exportAttributes(
  attrs: PathAttributes,
  afi: AfiCode,
  source: RouteSource,
  target: ExportTarget,
  ctx: ExportContext,
): PathAttributes | null {
  const to = target.kind;
  if (!mayAdvertise(source.kind, to)) return null;
  if (!communitiesAllow(attrs.communities, to)) return null;
  // RFC 9494 section 4.5: a long-lived stale route goes only to peers that know what it is.
  if (!target.longLivedGracefulRestart && hasLongLivedStale(attrs)) return null;
  const ebgp = to === 'ebgp';
  const nextHop = exportNextHop(attrs, afi, target);
  if (nextHop === null) return null;
  const x: AttrExportContext = {
    ebgp,
    fromEbgp: source.kind === 'ebgp',
    // RFC 4456 section 8: an iBGP-learned route sent on to an iBGP peer is reflected.
    reflecting: !ebgp && source.kind !== 'ebgp' && source.kind !== 'local',
    medUnchanged: target.medUnchanged === true,
    localAs: ctx.localAs,
    clusterId: ctx.clusterId,
    defaultLocalPref: ctx.defaultLocalPref,
    sourceRouterId: source.routerId,
    nextHop,
  };
  // Every field present from the start (makeAttributes' shape): the rows fill it without
  // changing its hidden class, so the encoder, the interner and the per-peer checks read every
  // exported set through one shape instead of one per combination of attributes.
  const out: MutableAttributes = makeAttributes(NO_ATTRIBUTES);
  for (const row of ATTRS) row.export(attrs, x, out);
  const unknown = exportUnknown(attrs.unknown);
  if (unknown) out.unknown = unknown;
  return out;
}

/**
 * The attributes of a route that left its update group with its own next hop kept
 * (`nextHopUnchanged`, for an export policy that must see it), given the next hop `target`'s
 * rule chooses instead: `attrs` itself when that is the one it carries, null when the route
 * cannot be sent (no address of ours to offer). Exactly the next hop exportAttributes gives
 * the route for `target`: keeping first and choosing later loses nothing, because the kept
 * next hop is the one the rule reads (`currentNextHop`), and one that is our own address is
 * ours either way.
 */
export function applyNextHopRule(
  attrs: PathAttributes,
  afi: AfiCode,
  target: ExportTarget,
): PathAttributes | null {
  const nh = exportNextHop(attrs, afi, target);
  if (nh === null) return null;
  if (typeof nh === 'number') {
    if (attrs.nextHop === nh && attrs.mpReach === undefined) return attrs;
    return makeAttributes({ ...makeAttributes(attrs), nextHop: nh, mpReach: undefined });
  }
  const mp = attrs.mpReach;
  if (
    attrs.nextHop === undefined &&
    mp !== undefined &&
    mp.afi === nh.afi &&
    sameBytes(mp.nextHop, nh.nextHop)
  )
    return attrs;
  // makeAttributes first: a spread alone would drop a wire-backed set's lazily decoded fields.
  return makeAttributes({ ...makeAttributes(attrs), nextHop: undefined, mpReach: nh });
}

/**
 * A number for NEXT_HOP (IPv4), an MpReach for IPv6 (and for IPv4 with an IPv6 next hop,
 * RFC 8950), or null when we have no address to offer.
 */
export function exportNextHop(
  attrs: PathAttributes,
  afi: AfiCode,
  target: ExportTarget,
): number | MpReach | null {
  let current = currentNextHop(attrs, afi);
  // Our own address is ours whatever the route says: global and link-local on a shared link.
  if (current !== undefined && isOurs(current, target)) current = undefined;
  const ebgp = target.kind === 'ebgp';
  let keep = current !== undefined && (target.nextHopUnchanged || !(ebgp || target.nextHopSelf));
  // RFC 4271 section 5.1.3: a next hop on a subnet shared with the external peer may stay.
  if (current !== undefined && ebgp && inSharedSubnet(current, target.sharedSubnets)) keep = true;
  if (afi === Afi.IPV4) {
    if (keep && typeof current === 'number') return current;
    if (target.extendedNextHop) {
      // RFC 8950 section 4: the IPv6 next hop (global, or global and link-local) in MP_REACH_NLRI.
      if (keep && current instanceof Uint8Array) return mpReach(afi, current);
      if (target.localIpv6) return mpReach(afi, ourIpv6NextHop(target, target.localIpv6));
    }
    return target.localIpv4 ?? null;
  }
  if (keep && current instanceof Uint8Array) return mpReach(afi, current);
  if (!target.localIpv6) return null;
  return mpReach(afi, ourIpv6NextHop(target, target.localIpv6));
}

/** Our global address, followed by our link-local one when the peer shares the link (RFC 2545 section 3). */
function ourIpv6NextHop(target: ExportTarget, global: Uint8Array): Uint8Array {
  if (!target.localIpv6LinkLocal) return global;
  const both = new Uint8Array(IPV6_LENGTH * 2);
  both.set(global);
  both.set(target.localIpv6LinkLocal, IPV6_LENGTH);
  return both;
}

/** The route's next hop: a u32 for IPv4 NEXT_HOP (or a 4-byte MP next hop), the 16-byte global IPv6 one. */
function currentNextHop(attrs: PathAttributes, afi: AfiCode): number | Uint8Array | undefined {
  const mp = attrs.mpReach;
  if (mp && mp.afi === afi) {
    const nh = mp.nextHop;
    if (nh.length === 4) return ((nh[0] << 24) | (nh[1] << 16) | (nh[2] << 8) | nh[3]) >>> 0;
    if (nh.length >= IPV6_LENGTH) return nh.slice(0, IPV6_LENGTH);
    return undefined;
  }
  if (afi === Afi.IPV4 && attrs.nextHop !== undefined && attrs.nextHop !== 0) return attrs.nextHop;
  return undefined;
}

function isOurs(nh: number | Uint8Array, target: ExportTarget): boolean {
  if (typeof nh === 'number') return nh === target.localIpv4;
  return target.localIpv6 !== undefined && sameBytes(nh, target.localIpv6);
}

function sameBytes(a: Uint8Array, b: Uint8Array): boolean {
  if (a.length !== b.length) return false;
  for (let i = 0; i < a.length; i++) if (a[i] !== b[i]) return false;
  return true;
}

function mpReach(afi: AfiCode, nextHop: Uint8Array): MpReach {
  return { afi, safi: Safi.UNICAST, nextHop, reserved: 0 };
}

/** Is the next hop (of its own family: an IPv4 route may have an IPv6 one) on one of the subnets? */
function inSharedSubnet(nh: number | Uint8Array, subnets: readonly RibPrefix[] | undefined): boolean {
  if (!subnets) return false;
  const afi = typeof nh === 'number' ? Afi.IPV4 : Afi.IPV6;
  for (const s of subnets) {
    if (s.afi !== afi) continue;
    if (typeof nh === 'number') {
      if (maskIpv4(nh, s.len) === s.w0) return true;
      continue;
    }
    const w = (i: number) =>
      ((nh[i * 4] << 24) | (nh[i * 4 + 1] << 16) | (nh[i * 4 + 2] << 8) | nh[i * 4 + 3]) >>> 0;
    if (
      maskWord(w(0), 0, s.len) === s.w0 &&
      maskWord(w(1), 1, s.len) === s.w1 &&
      maskWord(w(2), 2, s.len) === s.w2 &&
      maskWord(w(3), 3, s.len) === s.w3
    )
      return true;
  }
  return false;
}
