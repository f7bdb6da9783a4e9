import type {
  FamilyCounts,
  FamilyName,
  MessageCounts,
  NeighborDetail,
  NeighborSummary,
  OvnPathView,
  PathView,
  ReceivedVerdict,
  RibEntryView,
  RibQuery,
} from '../api/index.js';
import type { MessageCounts as SessionCounts } from '../bgp/session/index.js';
import { familyName } from '../bgp/session/index.js';
import {
  Afi,
  type AfiCode,
  AttrType,
  capabilitiesOf,
  effectiveAsPath,
  formatAsPath,
  formatAttribute,
  formatIpv4,
  type OpenMessage,
  Origin,
  originText,
  type PathAttributes,
} from '../bgp/wire/index.js';
import {
  type EntryView,
  IPV4_MAX_LEN,
  IPV6_MAX_LEN,
  nextHopText,
  parsePrefix,
  type Rib,
  type RibPrefix,
  toRibPrefix,
} from '../rib/index.js';
import type { AdvertisedRoutes } from '../routing/index.js';
import { LOCAL_SOURCE_NAME, UNSPECIFIED_NEXT_HOP } from './constants.js';
import type { PeerBinding } from './peer-binding.js';

/*
 * The views `show` prints, built from the RIB and the peers on request: plain JSON data, so
 * `--json` output is exactly what the control socket returned.
 */

const FAMILY_AFI: Readonly<Record<FamilyName, AfiCode>> = {
  'ipv4-unicast': Afi.IPV4,
  'ipv6-unicast': Afi.IPV6,
};
const MS_PER_SECOND = 1000;

/** One path's attributes as `show` prints them. */
export function attributesView(
  attrs: PathAttributes,
  afi: AfiCode,
  from: string,
  flags: { best: boolean; multipath: boolean; reason?: string },
): PathView {
  return {
    from,
    nextHop: nextHopText(attrs, afi) ?? UNSPECIFIED_NEXT_HOP[afi === Afi.IPV4 ? 4 : 6],
    asPath: formatAsPath(effectiveAsPath(attrs)),
    origin: originText(attrs.origin ?? Origin.INCOMPLETE),
    ...(attrs.med !== undefined && { med: attrs.med }),
    ...(attrs.localPref !== undefined && { localPref: attrs.localPref }),
    communities: formatAttribute(AttrType.COMMUNITIES, attrs),
    largeCommunities: formatAttribute(AttrType.LARGE_COMMUNITY, attrs),
    extendedCommunities: formatAttribute(AttrType.EXTENDED_COMMUNITIES, attrs),
    best: flags.best,
    multipath: flags.multipath,
    ...(flags.best && flags.reason !== undefined && { reason: flags.reason }),
  };
}

/** The origin name OVN's paths carry (Rib.origin('ovn')). */
const OVN_ORIGIN = 'ovn';

/** The OVN row behind each prefix the `ovn` origin holds, asked for once per `show rib`. */
export type OvnPaths = () => ReadonlyMap<string, OvnPathView>;

function entryView(e: EntryView, ovnPaths: () => ReadonlyMap<string, OvnPathView> | undefined): RibEntryView {
  const afi = e.prefix.afi;
  const prefix = e.prefix.toString();
  return {
    prefix,
    paths: e.paths.map((p) => {
      // A local path names its origin (static, api, ovn), a learned one its peer.
      const view = attributesView(p.attrs, afi, p.source.id, {
        best: p.best,
        multipath: p.multipath,
        reason: e.reason,
      });
      const ovn = p.source.id === OVN_ORIGIN ? ovnPaths()?.get(prefix) : undefined;
      const marked = p.stale
        ? { ...view, stale: true as const, ...(p.longLivedStale && { longLivedStale: true as const }) }
        : view;
      return ovn ? { ...marked, ovn } : marked;
    }),
  };
}

/**
 * Prefixes of a query, in address order: an exact prefix, the longest prefix covering an
 * address, or (without one) every prefix `has` holds in the family asked for, up to `limit`.
 */
function select(
  query: RibQuery,
  has: (p: RibPrefix) => boolean,
  all: (afi: AfiCode) => RibPrefix[],
): RibPrefix[] {
  const limit = query.limit ?? Number.POSITIVE_INFINITY;
  if (query.prefix !== undefined) {
    if (query.prefix.includes('/')) {
      const p = parsePrefix(query.prefix);
      return has(p) ? [p] : [];
    }
    const afi = query.prefix.includes(':') ? Afi.IPV6 : Afi.IPV4;
    for (let len = afi === Afi.IPV4 ? IPV4_MAX_LEN : IPV6_MAX_LEN; len >= 0; len--) {
      const p = toRibPrefix({ afi, addr: query.prefix, len });
      if (has(p)) return [p];
    }
    return [];
  }
  const out: RibPrefix[] = [];
  for (const afi of [Afi.IPV4, Afi.IPV6] as const) {
    if (query.afi !== undefined && (query.afi === 4 ? Afi.IPV4 : Afi.IPV6) !== afi) continue;
    // A prefix with several paths (ADD-PATH) is listed once: its entry holds every path.
    let last: RibPrefix | undefined;
    for (const p of sortPrefixes(all(afi))) {
      if (last !== undefined && samePrefix(last, p)) continue;
      if (out.length >= limit) return out;
      out.push(p);
      last = p;
    }
  }
  return out;
}

const samePrefix = (a: RibPrefix, b: RibPrefix) =>
  a.len === b.len && a.w0 === b.w0 && a.w1 === b.w1 && a.w2 === b.w2 && a.w3 === b.w3;

function sortPrefixes(list: RibPrefix[]): RibPrefix[] {
  return list.sort((a, b) => a.w0 - b.w0 || a.w1 - b.w1 || a.w2 - b.w2 || a.w3 - b.w3 || a.len - b.len);
}

/** `show rib`: every path of the prefixes asked for, the best one with the step that chose it. */
export function ribView(rib: Rib, query: RibQuery, ovnPaths?: OvnPaths): RibEntryView[] {
  let ovn: ReadonlyMap<string, OvnPathView> | undefined;
  const lazyOvn = () => (ovn ??= ovnPaths?.());
  const has = (p: RibPrefix) => rib.lookup(p) !== undefined;
  const all = (afi: AfiCode) => {
    const t = rib.locRib(afi).table;
    const out: RibPrefix[] = [];
    for (let e = 0; e < t.end; e++) if (t.isLive(e)) out.push(t.prefix(e));
    return out;
  };
  return select(query, has, all).flatMap((p) => {
    const e = rib.lookup(p);
    return e ? [entryView(e, lazyOvn)] : [];
  });
}

function storeView(
  store: AdvertisedRoutes,
  query: RibQuery,
  from: string,
  best: (p: RibPrefix, attrs: PathAttributes) => boolean,
): RibEntryView[] {
  const has = (p: RibPrefix) => store.lookup(p).length > 0;
  const all = (afi: AfiCode) => store.entries(afi).map((e) => store.prefixOf(afi, e));
  return select(query, has, all).map((p) => ({
    prefix: p.toString(),
    paths: store
      .lookup(p)
      .map((r) => attributesView(r.attrs, p.afi, from, { best: best(p, r.attrs), multipath: false })),
  }));
}

/** `show advertised PEER`: what the peer has from us, as it was sent (after export policy). */
export function advertisedView(binding: PeerBinding, query: RibQuery): RibEntryView[] {
  const s = binding.session;
  if (!s) return [];
  return storeView(s.exporter.advertised, query, LOCAL_SOURCE_NAME, () => true);
}

/**
 * `show received PEER`: every path the peer sent, before import policy, once per prefix with
 * each of its paths (several with ADD-PATH), each with its verdict: accepted (a candidate in
 * the Loc-RIB, as `show summary` counts them), rejected by the import policy, or kept out by
 * a loop rule. Only an accepted path can be best: the one the Loc-RIB selected.
 */
export function receivedView(binding: PeerBinding, rib: Rib, query: RibQuery): RibEntryView[] {
  const s = binding.session;
  if (!s) return [];
  const store = s.importer.store;
  const addPath = s.info.negotiated.addPath.length > 0;
  // Without an import policy the RIB's Adj-RIB-In is what the peer sent.
  const adj = rib.adjRibIn(s.ribPeer);
  const sent = (p: RibPrefix) => (store ? store.lookup(p) : adj.lookup(p));
  const has = (p: RibPrefix) => sent(p).length > 0;
  const all = (afi: AfiCode) => {
    if (store) return store.entries(afi).map((e) => store.prefixOf(afi, e));
    const out: RibPrefix[] = [];
    for (const r of adj.entries()) if (r.prefix.afi === afi) out.push(r.prefix);
    return out;
  };
  return select(query, has, all).map((p) => {
    const inRib = new Map(rib.peerPaths(s.ribPeer, p).map((r) => [r.pathId, r.denied]));
    const best = rib.best(p);
    const bestId = best?.source.id === binding.name ? best.best.pathId : undefined;
    return {
      prefix: p.toString(),
      paths: sent(p).map((r) => {
        const verdict: ReceivedVerdict = !inRib.has(r.pathId)
          ? 'policy-rejected'
          : (inRib.get(r.pathId) ?? 'accepted');
        const view = attributesView(r.attrs, p.afi, binding.name, {
          best: verdict === 'accepted' && r.pathId === bestId,
          multipath: false,
        });
        return { ...view, ...(addPath && { pathId: r.pathId }), verdict };
      }),
    };
  });
}

function counts(c: SessionCounts): MessageCounts {
  return {
    open: c.open,
    update: c.update,
    notification: c.notification,
    keepalive: c.keepalive,
    routeRefresh: c.routeRefresh,
  };
}

/** One neighbor's line of `show summary`. */
export function neighborSummary(b: PeerBinding, now: number): NeighborSummary {
  const { config, peer } = b;
  const prefixes: Partial<Record<FamilyName, FamilyCounts>> = {};
  for (const f of config.families) prefixes[f] = b.counts(FAMILY_AFI[f]);
  return {
    name: config.name,
    address: config.peerIp,
    remoteAs: config.remoteAs,
    state: peer.state,
    stateSeconds: Math.max(0, Math.floor((now - b.stateSince) / MS_PER_SECOND)),
    adminDown: b.stoppedBy !== null && b.stoppedBy !== 'max-prefix',
    prefixes,
    messages: { sent: counts(peer.stats.sent), received: counts(peer.stats.received) },
  };
}

function capabilities(b: PeerBinding): string[] {
  const n = b.session?.info.negotiated;
  if (!n) return [];
  const out: string[] = [];
  if (n.families.length > 0) out.push('multiprotocol');
  if (n.routeRefresh) out.push('route-refresh');
  if (n.enhancedRouteRefresh) out.push('enhanced-route-refresh');
  if (n.as4) out.push('four-octet-as');
  if (n.addPath.length > 0) out.push('add-path');
  if (n.extendedNextHop.length > 0) out.push('extended-next-hop');
  if (n.extendedMessage) out.push('extended-message');
  if (n.gracefulRestart) out.push('graceful-restart');
  if (n.longLivedGracefulRestart) out.push('long-lived-graceful-restart');
  if (n.fqdn) out.push('fqdn');
  return out;
}

/** The capabilities each side's OPEN carried, each name once, in the order sent. */
function openCapabilities(b: PeerBinding): Pick<NeighborDetail, 'localCapabilities' | 'remoteCapabilities'> {
  const info = b.session?.info;
  if (!info) return {};
  const names = (open: OpenMessage) => [
    ...new Set(capabilitiesOf(open).map((c) => (c.name === 'raw' ? `code ${c.code}` : c.name))),
  ];
  return { localCapabilities: names(info.localOpen), remoteCapabilities: names(info.remoteOpen) };
}

/** RFC 4724 on `show neighbors`: the peer's capability and the routes kept across its restart. */
function gracefulRestartView(b: PeerBinding, now: number): Pick<NeighborDetail, 'gracefulRestart'> {
  const gr = b.session?.info.negotiated.gracefulRestart;
  const stale = b.staleRoutes;
  if (!gr && !stale) return {};
  return {
    gracefulRestart: {
      ...(gr && {
        peerRestartTime: gr.restartTime,
        peerRestarting: gr.restartState,
        notification: gr.notificationExchanged,
        forwarding: gr.families.filter((f) => f.forwardingState).map((f) => familyName(f.afi, f.safi)),
      }),
      ...(stale && {
        stale: {
          phase: stale.phase,
          'ipv4-unicast': stale.stale.ipv4,
          'ipv6-unicast': stale.stale.ipv6,
          secondsLeft: Math.max(0, Math.ceil((stale.deadline - now) / MS_PER_SECOND)),
        },
      }),
    },
  };
}

/** `show neighbors`: one neighbor in full. */
export function neighborDetail(b: PeerBinding, now: number, localAs: number): NeighborDetail {
  const s = b.session;
  const n = s?.info.negotiated;
  const last = b.lastNotification;
  const idleHoldLeft = b.peer.idleHoldLeftMs;
  const localAddress = s?.info.connection.local.address ?? b.config.localAddress;
  const families = (n?.families ?? [])
    .map((f) => familyName(f.afi, f.safi))
    .filter((f): f is FamilyName => f in FAMILY_AFI);
  return {
    ...neighborSummary(b, now),
    localAs,
    ...(localAddress !== undefined && { localAddress }),
    ebgp: b.config.type === 'ebgp',
    ...(n && { remoteRouterId: formatIpv4(n.remoteBgpId) }),
    ...(s && { holdTime: s.info.holdTime, keepaliveTime: s.info.keepaliveTime }),
    families,
    capabilities: capabilities(b),
    ...openCapabilities(b),
    establishedTransitions: b.establishedTransitions,
    ...gracefulRestartView(b, now),
    idleHoldTime: b.config.idleHoldTime,
    maxIdleHoldTime: b.config.maxIdleHoldTime,
    ...(idleHoldLeft !== undefined && { reconnectIn: Math.ceil(idleHoldLeft / MS_PER_SECOND) }),
    ...(last && {
      lastNotification: {
        direction: last.event.direction,
        code: last.event.code,
        subcode: last.event.subcode,
        description: last.description,
        ...(last.event.message !== null && { message: last.event.message }),
        at: last.at.toISOString(),
      },
    }),
    ...(b.lastError !== undefined && { lastError: b.lastError }),
  };
}

/** Loc-RIB prefix counts per family, for `show summary`. */
export function ribCounts(rib: Rib): Record<FamilyName, number> {
  return { 'ipv4-unicast': rib.locRib(Afi.IPV4).selected, 'ipv6-unicast': rib.locRib(Afi.IPV6).selected };
}
