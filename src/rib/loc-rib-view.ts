import type { BestPathReasonText } from './constants.js';
import { type Candidate, type DecisionOptions, selectBest } from './decision.js';
import type { RibPrefix } from './prefix-key.js';
import type { RoutePath } from './route-change.js';
import { FRESH, LONG_LIVED } from './stale-paths.js';

/*
 * The Loc-RIB seen from outside the decision: every path of a prefix with the decision
 * explained (`show`), the eligible paths ranked (add-path export), and the memory it holds.
 * Functions over the paths the LocRib hands them; none of them changes it.
 */

/** One path of a prefix, for `show`. */
export interface PathView extends RoutePath {
  /** Next hop usable (the only per-path eligibility test left after import). */
  readonly eligible: boolean;
  /** Kept from a session that ended gracefully, not announced again yet (RFC 4724). */
  readonly stale: boolean;
  /** Past the Restart Time, kept by long-lived graceful restart (RFC 9494). */
  readonly longLivedStale: boolean;
  readonly best: boolean;
  readonly multipath: boolean;
}

/** A prefix's eligible paths for add-path export. */
export interface RankedPaths {
  /** In decision order, best first. */
  readonly paths: readonly RoutePath[];
  /** The equal-cost set, best first ([best] without multipath). */
  readonly multipath: readonly RoutePath[];
}

export interface EntryView {
  readonly prefix: RibPrefix;
  readonly paths: readonly PathView[];
  /** The step that chose the best path; undefined when no path is eligible. */
  readonly reason?: BestPathReasonText;
}

/** What the views read of a LocRib: a prefix entry's paths, each as the decision sees it. */
export interface LocRibPaths {
  readonly options: DecisionOptions;
  /** The entry of a prefix, or -1. */
  find(words: ArrayLike<number>, off: number, len: number): number;
  prefix(entry: number): RibPrefix;
  /** The paths of an entry, denied ones included, in chain order: the youngest first. */
  paths(entry: number): number[];
  denied(path: number): boolean;
  eligible(path: number): boolean;
  /** FRESH, STALE or LONG_LIVED (stale-paths.ts). */
  staleMark(path: number): number;
  /** A path as the decision sees it; `age`: its index in `paths` (0: the youngest). */
  candidate(path: number, age: number): Candidate;
  route(path: number): RoutePath;
}

/**
 * The eligible paths of a prefix in decision order, best first (the decision process run
 * again on what is left after each pick), and the multipath set; undefined when none.
 */
export function rankedPaths(
  rib: LocRibPaths,
  words: ArrayLike<number>,
  off: number,
  len: number,
): RankedPaths | undefined {
  const e = rib.find(words, off, len);
  if (e < 0) return undefined;
  const chain = rib.paths(e);
  const eligible = chain.filter((p) => rib.eligible(p));
  if (eligible.length === 0) return undefined;
  const candidates = eligible.map((p) => rib.candidate(p, chain.indexOf(p)));
  const path = (p: number) => rib.route(p);
  const first = selectBest(candidates, rib.options)!;
  const multipath = first.multipath.map((i) => path(eligible[i]));
  const ranked: RoutePath[] = [path(eligible[first.best])];
  let left = candidates.map((_, i) => i).filter((i) => i !== first.best);
  while (left.length > 0) {
    const sel = selectBest(
      left.map((i) => candidates[i]),
      rib.options,
    )!;
    const pick = left[sel.best];
    ranked.push(path(eligible[pick]));
    left = left.filter((i) => i !== pick);
  }
  return { paths: ranked, multipath };
}

/** Every path of a prefix with the decision explained, for `show`. */
export function explain(rib: LocRibPaths, prefix: RibPrefix): EntryView | undefined {
  const e = rib.find(prefix.words(), 0, prefix.len);
  if (e < 0) return undefined;
  const chain = rib.paths(e);
  // Oldest first: a stable order for operators.
  const all = chain.filter((p) => !rib.denied(p)).reverse();
  if (all.length === 0) return undefined;
  const eligible = all.filter((p) => rib.eligible(p));
  const sel = selectBest(
    eligible.map((p) => rib.candidate(p, chain.indexOf(p))),
    rib.options,
  );
  const bestPath = sel ? eligible[sel.best] : -1;
  const multi = new Set(sel ? sel.multipath.map((i) => eligible[i]) : []);
  const paths = all.map(
    (p): PathView => ({
      ...rib.route(p),
      eligible: rib.eligible(p),
      stale: rib.staleMark(p) !== FRESH,
      longLivedStale: rib.staleMark(p) === LONG_LIVED,
      best: p === bestPath,
      multipath: multi.has(p),
    }),
  );
  return { prefix: rib.prefix(e), paths, reason: sel?.reason };
}

/** Bytes held by a store's columns. */
export function byteLengthOf(columns: readonly { readonly byteLength: number }[]): number {
  let n = 0;
  for (const c of columns) n += c.byteLength;
  return n;
}
