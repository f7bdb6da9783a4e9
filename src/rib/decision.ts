import { effectiveAsPath, type PathAttributes } from '../bgp/wire/index.js';
import { BestPathReason, type BestPathReasonText, RibDefaults } from './constants.js';

/**
 * One path as the decision process sees it: every value already effective (defaults applied
 * for a missing LOCAL_PREF or MED, ORIGINATOR_ID or the peer's router id), so comparators are
 * plain number comparisons.
 */
export interface Candidate {
  /** FRR "weight": per peer, 32768 for locally originated routes. Higher wins. */
  readonly weight: number;
  readonly localPref: number;
  /** Originated here (OVN-derived, configured). */
  readonly local: boolean;
  /** ORIGIN_PREFERENCE of a local origin, LEARNED_PREFERENCE for a path from a peer; lower wins. */
  readonly originPreference: number;
  readonly asPathLength: number;
  readonly origin: number;
  readonly med: number;
  /** RFC 4271 9.1.2.2 (c) neighborAS: MEDs compare only within one. */
  readonly neighborAs: number;
  readonly ebgp: boolean;
  /** Cost to the next hop; always 0 here (no IGP), the slot keeps the RFC's order. */
  readonly igpMetric: number;
  /** Arrival order (smaller is older). */
  readonly arrival: number;
  /** ORIGINATOR_ID when present, else the peer's BGP Identifier (RFC 4456 section 9). */
  readonly routerId: number;
  readonly clusterListLength: number;
  /** Sortable peer address (see addressKey). */
  readonly peerAddress: string;
  /** The AS of the peer it came from (eBGP multipath needs the same one). */
  readonly peerAs: number;
  /** RFC 7911 path id (0 without add-path): last tie-break between paths of one peer. */
  readonly pathId: number;
  /** For the iBGP multipath rule (identical AS_PATH). */
  readonly attrs: PathAttributes;
  /** Kept from a peer's graceful restart and not announced again yet (RFC 4724). */
  readonly stale?: boolean;
  /** Kept past the Restart Time by long-lived graceful restart, or received with LLGR_STALE (RFC 9494). */
  readonly longLivedStale?: boolean;
}

export interface DecisionOptions {
  /** Compare MED between routes from different neighbor ASes ("bgp always-compare-med"). */
  readonly alwaysCompareMed: boolean;
  /**
   * Prefer the older of two eBGP paths before comparing router ids (RFC 5004). Off by default
   * so the result never depends on arrival order; FRR does this unless "bgp bestpath
   * compare-routerid" is set.
   */
  readonly preferOldestExternal: boolean;
  /** Paths installed when the best is eBGP-learned or local ("maximum-paths"), best included. */
  readonly maxPaths: number;
  /** Paths installed for iBGP-best prefixes ("maximum-paths ibgp"), best included. */
  readonly maxPathsIbgp: number;
  /** eBGP multipath across different neighbor ASes ("bgp bestpath as-path multipath-relax"). */
  readonly multipathRelax: boolean;
}

export const DEFAULT_DECISION: DecisionOptions = Object.freeze({
  alwaysCompareMed: false,
  preferOldestExternal: false,
  maxPaths: RibDefaults.MAX_PATHS,
  maxPathsIbgp: RibDefaults.MAX_PATHS,
  multipathRelax: false,
});

/** Negative when `a` is preferred, positive when `b` is, 0 when this step cannot tell. */
export type Comparator = (a: Candidate, b: Candidate, o: DecisionOptions) => number;

const sign = (x: number) => (x < 0 ? -1 : x > 0 ? 1 : 0);

/**
 * Before anything else: a path announced on a live session over one kept stale from a
 * session that ended gracefully (RFC 4724 leaves this open; the stale path is only a stand-in
 * until the peer is back, so any fresh path is the better guess, and LLGR (RFC 9494) makes
 * stale paths least preferred the same way).
 */
export const compareStale: Comparator = (a, b) => sign(staleRank(a) - staleRank(b));

/** Fresh 0, stale 1, long-lived stale 2 (RFC 9494 section 4.3: least preferred of all). */
function staleRank(c: Candidate): number {
  return c.longLivedStale ? 2 : c.stale ? 1 : 0;
}
/** Step 0: higher weight (FRR; local routes carry 32768). */
export const compareWeight: Comparator = (a, b) => sign(b.weight - a.weight);
/** RFC 4271 9.1.1: higher degree of preference, LOCAL_PREF. */
export const compareLocalPref: Comparator = (a, b) => sign(b.localPref - a.localPref);
/** FRR: a locally originated route over a learned one. */
export const compareLocalRoute: Comparator = (a, b) => (a.local === b.local ? 0 : a.local ? -1 : 1);
/** Between two local origins: the lower preference (`static` before `api` before `ovn`). */
export const compareOriginPreference: Comparator = (a, b) => sign(a.originPreference - b.originPreference);
/** RFC 4271 9.1.2.2 (a): shorter AS_PATH (a set counts 1, confederation segments 0). */
export const compareAsPath: Comparator = (a, b) => sign(a.asPathLength - b.asPathLength);
/** RFC 4271 9.1.2.2 (b): lower ORIGIN (IGP < EGP < INCOMPLETE). */
export const compareOrigin: Comparator = (a, b) => sign(a.origin - b.origin);
/**
 * RFC 4271 9.1.2.2 (c): lower MED, only between routes from the same neighbor AS unless
 * always-compare-med. Not transitive across ASes: selectBest applies it group-wise.
 */
export const compareMed: Comparator = (a, b, o) =>
  o.alwaysCompareMed || a.neighborAs === b.neighborAs ? sign(a.med - b.med) : 0;
/** RFC 4271 9.1.2.2 (d): eBGP-learned over iBGP-learned. */
export const comparePeerType: Comparator = (a, b) => (a.ebgp === b.ebgp ? 0 : a.ebgp ? -1 : 1);
/** RFC 4271 9.1.2.2 (e): lower interior cost to the next hop. */
export const compareIgpMetric: Comparator = (a, b) => sign(a.igpMetric - b.igpMetric);
/** RFC 5004 (optional): the older of two eBGP paths. */
export const compareAge: Comparator = (a, b, o) =>
  o.preferOldestExternal && a.ebgp && b.ebgp ? sign(a.arrival - b.arrival) : 0;
/** RFC 4271 9.1.2.2 (f) with RFC 4456 section 9: lower ORIGINATOR_ID or BGP Identifier. */
export const compareRouterId: Comparator = (a, b) => sign(a.routerId - b.routerId);
/** RFC 4456 section 9: shorter CLUSTER_LIST. */
export const compareClusterLength: Comparator = (a, b) => sign(a.clusterListLength - b.clusterListLength);
/** RFC 4271 9.1.2.2 (g): lower peer address. */
export const compareNeighborAddress: Comparator = (a, b) =>
  a.peerAddress < b.peerAddress ? -1 : a.peerAddress > b.peerAddress ? 1 : 0;
/** Nothing else differs (add-path paths of one peer): lower path id, so the result is still unique. */
export const comparePathId: Comparator = (a, b) => sign(a.pathId - b.pathId);

export interface DecisionStep {
  readonly reason: BestPathReasonText;
  readonly compare: Comparator;
  /** Steps up to and including IGP metric decide whether two paths are equal-cost (multipath). */
  readonly multipath: boolean;
  /** Not a total order: remove losers within each group first (RFC 4271 9.1.2.2 c). */
  readonly groupwise: boolean;
}

const step = (reason: BestPathReasonText, compare: Comparator, multipath: boolean, groupwise = false) =>
  Object.freeze({ reason, compare, multipath, groupwise });

/** The decision process in order, as FRR's bgp_path_info_cmp runs it. */
export const DECISION_STEPS: readonly DecisionStep[] = Object.freeze([
  step(BestPathReason.STALE, compareStale, true),
  step(BestPathReason.WEIGHT, compareWeight, true),
  step(BestPathReason.LOCAL_PREF, compareLocalPref, true),
  step(BestPathReason.LOCAL_ROUTE, compareLocalRoute, true),
  step(BestPathReason.ORIGIN_PREFERENCE, compareOriginPreference, true),
  step(BestPathReason.AS_PATH, compareAsPath, true),
  step(BestPathReason.ORIGIN, compareOrigin, true),
  step(BestPathReason.MED, compareMed, true, true),
  step(BestPathReason.PEER_TYPE, comparePeerType, true),
  step(BestPathReason.IGP_METRIC, compareIgpMetric, true),
  step(BestPathReason.OLDER, compareAge, false),
  step(BestPathReason.ROUTER_ID, compareRouterId, false),
  step(BestPathReason.CLUSTER_LENGTH, compareClusterLength, false),
  step(BestPathReason.NEIGHBOR_IP, compareNeighborAddress, false),
  step(BestPathReason.NOTHING_LEFT, comparePathId, false),
]);

export interface PairResult {
  /** Negative: `a` is better. Zero only for the same path. */
  readonly order: number;
  readonly reason: BestPathReasonText;
}

/** Two paths step by step, as FRR compares a pair; the reason names the deciding step. */
export function comparePaths(a: Candidate, b: Candidate, o: DecisionOptions = DEFAULT_DECISION): PairResult {
  for (const s of DECISION_STEPS) {
    const order = s.compare(a, b, o);
    if (order !== 0) return { order, reason: s.reason };
  }
  return { order: 0, reason: BestPathReason.NOTHING_LEFT };
}

export interface Selection {
  /** Index of the best path in the candidates given. */
  readonly best: number;
  readonly reason: BestPathReasonText;
  /** Indexes of the equal-cost paths to install, best first; [best] without multipath. */
  readonly multipath: readonly number[];
}

/**
 * The best of `candidates` (all eligible) by RFC 4271 9.1.2.2 read as elimination: each step
 * keeps only the paths it prefers, MED removing the losers within each neighbor-AS group
 * before the next step looks. The outcome does not depend on the candidates' order, which a
 * pairwise scan with a per-AS MED cannot promise. The reason is the step that left one path.
 */
export function selectBest(
  candidates: readonly Candidate[],
  o: DecisionOptions = DEFAULT_DECISION,
): Selection | null {
  const n = candidates.length;
  if (n === 0) return null;
  if (n === 1) return { best: 0, reason: BestPathReason.FIRST, multipath: [0] };
  let remaining: number[] = [];
  for (let i = 0; i < n; i++) remaining.push(i);
  let reason: BestPathReasonText = BestPathReason.NOTHING_LEFT;
  for (const s of DECISION_STEPS) {
    remaining = s.groupwise
      ? eliminateGroupwise(candidates, remaining, s.compare, o)
      : keepBest(candidates, remaining, s.compare, o);
    if (remaining.length === 1) {
      reason = s.reason;
      break;
    }
  }
  const best = remaining[0];
  return { best, reason, multipath: multipathSet(candidates, best, o) };
}

function keepBest(c: readonly Candidate[], ids: number[], cmp: Comparator, o: DecisionOptions): number[] {
  let top = ids[0];
  for (let k = 1; k < ids.length; k++) if (cmp(c[ids[k]], c[top], o) < 0) top = ids[k];
  return ids.filter((i) => cmp(c[i], c[top], o) === 0);
}

/** Removes every path that some remaining path of its group beats. */
function eliminateGroupwise(
  c: readonly Candidate[],
  ids: number[],
  cmp: Comparator,
  o: DecisionOptions,
): number[] {
  return ids.filter((m) => !ids.some((k) => cmp(c[k], c[m], o) < 0));
}

/**
 * The paths equal to the best through the IGP metric step, and (FRR's rules) from the same
 * peer AS for eBGP or with an identical AS_PATH otherwise, unless multipath-relax. Best first,
 * the others in decision order, at most maxPaths (maxPathsIbgp when the best is iBGP-learned;
 * local originations of one prefix, e.g. one per next hop, count as maxPaths).
 */
export function multipathSet(
  c: readonly Candidate[],
  best: number,
  o: DecisionOptions = DEFAULT_DECISION,
): number[] {
  const b = c[best];
  const limit = b.ebgp || b.local ? o.maxPaths : o.maxPathsIbgp;
  if (limit <= 1 || c.length === 1) return [best];
  const equal: number[] = [];
  for (let i = 0; i < c.length; i++) {
    if (i === best) continue;
    const x = c[i];
    if (!DECISION_STEPS.every((s) => !s.multipath || s.compare(b, x, o) === 0)) continue;
    if (!o.multipathRelax) {
      if (b.ebgp ? x.peerAs !== b.peerAs : !sameAsPath(b.attrs, x.attrs)) continue;
    }
    equal.push(i);
  }
  equal.sort((i, j) => comparePaths(c[i], c[j], o).order);
  return [best, ...equal.slice(0, limit - 1)];
}

function sameAsPath(a: PathAttributes, b: PathAttributes): boolean {
  if (a === b) return true;
  const pa = effectiveAsPath(a);
  const pb = effectiveAsPath(b);
  if (pa.length !== pb.length) return false;
  for (let i = 0; i < pa.length; i++) {
    const sa = pa[i];
    const sb = pb[i];
    if (sa.type !== sb.type || sa.asns.length !== sb.asns.length) return false;
    for (let k = 0; k < sa.asns.length; k++) if (sa.asns[k] !== sb.asns[k]) return false;
  }
  return true;
}
