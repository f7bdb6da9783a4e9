import type { OvnPathView, ReceivedVerdict, RibEntryView, RibQuery } from '../api/index.js';
import { Afi, type AfiCode, type PathAttributes } from '../bgp/wire/index.js';
import {
  type EntryView,
  IPV4_MAX_LEN,
  IPV6_MAX_LEN,
  parsePrefix,
  type Rib,
  type RibPrefix,
  toRibPrefix,
} from '../rib/index.js';
import type { AdvertisedRoutes, Neighbor } from '../routing/index.js';
import { LOCAL_SOURCE_NAME, OVN_ORIGIN } from './constants.js';
import { attributesView } from './path-view.js';

/*
 * The views `show rib`, `show advertised` and `show received` print, built from the RIB and
 * the neighbours on request: plain JSON data, so `--json` output is exactly what the control
 * socket returned.
 */

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
export function advertisedView(neighbor: Neighbor, query: RibQuery): RibEntryView[] {
  const s = neighbor.session;
  if (!s) return [];
  return storeView(s.exporter.advertised, query, LOCAL_SOURCE_NAME, () => true);
}

/**
 * `show received PEER`: every path the peer sent, before import policy, once per prefix with
 * each of its paths (several with ADD-PATH), each with its verdict: accepted (a candidate in
 * the Loc-RIB, as `show summary` counts them), rejected by the import policy, or kept out by
 * a loop rule. Only an accepted path can be best: the one the Loc-RIB selected.
 */
export function receivedView(neighbor: Neighbor, rib: Rib, query: RibQuery): RibEntryView[] {
  const s = neighbor.session;
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
    const bestId = best?.source.id === neighbor.name ? best.best.pathId : undefined;
    return {
      prefix: p.toString(),
      paths: sent(p).map((r) => {
        const verdict: ReceivedVerdict = !inRib.has(r.pathId)
          ? 'policy-rejected'
          : (inRib.get(r.pathId) ?? 'accepted');
        const view = attributesView(r.attrs, p.afi, neighbor.name, {
          best: verdict === 'accepted' && r.pathId === bestId,
          multipath: false,
        });
        return { ...view, ...(addPath && { pathId: r.pathId }), verdict };
      }),
    };
  });
}
