// Over 400 lines on purpose: the Loc-RIB's columns, its path pool and the decision that reads
// them are one hot loop per received prefix; split across modules the columns would have to
// be shared through accessors the JIT does not always inline. What is not on that loop lives
// beside it: the stale marks of graceful restart and route refresh (stale-paths.ts) and the
// views for `show` and add-path (loc-rib-view.ts).
import type { AfiCode, PrefixList } from '../bgp/wire/index.js';
import type { AttrTable } from './attr-table.js';
import { ChangeBatch } from './change-batch.js';
import { BestPathReason, type BestPathReasonText, MED_WORST } from './constants.js';
import { type Candidate, type DecisionOptions, selectBest } from './decision.js';
import { EntryList } from './entry-list.js';
import { grown, nextCapacity } from './grow.js';
import {
  byteLengthOf,
  type EntryView,
  explain,
  type LocRibPaths,
  type RankedPaths,
  rankedPaths,
} from './loc-rib-view.js';
import type { RibPeer } from './peer.js';
import type { RibPrefix } from './prefix-key.js';
import { PrefixTable } from './prefix-table.js';
import type { RouteAdd, RoutePath } from './route-change.js';
import { FRESH, hasLongLivedStale, LONG_LIVED, StalePaths, type StalePool } from './stale-paths.js';
import { ZeroColumn } from './zero-column.js';

const NONE = -1;
const NO_MARKS = new Uint8Array(0);
const REASONS: readonly BestPathReasonText[] = Object.values(BestPathReason);
const reasonIndex = new Map<BestPathReasonText, number>(REASONS.map((r, i) => [r, i]));
/** selState: a prefix waits for the decision process; the reason's index sits below. */
const DIRTY = 0x80;
const REASON_MASK = 0x7f;
if (REASONS.length > REASON_MASK) throw new Error('loc-rib: best-path reasons outgrew their bits');
/** The reason of a lone eligible path, as its index in REASONS. */
const FIRST_REASON = reasonIndex.get(BestPathReason.FIRST)!;

export interface LocRibContext {
  readonly attrs: AttrTable;
  readonly peer: (index: number) => RibPeer;
  readonly options: DecisionOptions;
  readonly defaultLocalPref: number;
  readonly medMissingAsWorst: boolean;
}

/**
 * Loc-RIB of one address family (RFC 4271 section 3.2): per prefix every path received from
 * every peer and from local origination, and the selection last reported (best path, equal-
 * cost paths). Changes mark a prefix dirty; `flush` runs the decision process once per dirty
 * prefix and reports a change only when the selection really differs.
 *
 * The paths are also the Adj-RIBs-In (after import policy), as in bgpd: a path the loop rules
 * deny stays, marked, so it counts as received and is dropped by a withdraw, but it is never
 * a candidate. One prefix table serves every peer, so a received route costs one hash insert;
 * a peer's paths are found by walking the prefixes when its session ends (no per-peer chain).
 *
 * Storage is struct-of-arrays: prefixes in a PrefixTable with per-entry columns, paths in a
 * pool of typed arrays chained per prefix.
 *
 *   entry e:  head[e] ──► path p: peer | attr | pathId | denied | stale | next ──► ... ──► -1
 *             sel*[e]: what was last reported (peer, path id, attribute id held) + reason
 *   pool:     pPeer[p] = NONE marks a free path. A path does not know its prefix: what drops
 *             paths of a peer (a session's end, a sweep of stale ones) walks the entries and
 *             their chains, so no 4 bytes per path are spent for what only those walks need
 *
 * A chain is in arrival order, youngest first: a new path goes to the head, and so does a path
 * whose route changed (an implicit withdraw and a new route, RFC 4271 section 3.1). What
 * "prefer the oldest" compares is the position in the chain, not 4 bytes per path of a clock.
 */
export class LocRib {
  readonly afi: AfiCode;
  readonly table: PrefixTable;
  private readonly ctx: LocRibContext;
  // Per prefix entry.
  private head: Int32Array;
  /** Peer indexes fit 16 bits (MAX_PEERS): 2 bytes a prefix and 2 a path less than 32-bit ones. */
  private selPeer: Int16Array;
  private selAttr: Int32Array;
  /** See pPathId. */
  private readonly selPathId = new ZeroColumn();
  /** The reported selection's reason (an index in REASONS) in the low bits, DIRTY above. */
  private selState: Uint8Array;
  /** Equal-cost paths beyond the best, as reported: [peer, pathId, attr, ...] (attributes held). */
  private readonly extras = new Map<number, number[]>();
  private readonly dirty = new EntryList();
  // Path pool.
  private pPeer = new Int16Array(64);
  private pAttr = new Int32Array(64);
  /** Path ids (RFC 7911): without add-path all are 0. */
  private readonly pPathId = new ZeroColumn();
  private pNext = new Int32Array(64);
  /** Loop marks (1: denied), made on the first: most tables have none, and then cost nothing. */
  private pDenied = NO_MARKS;
  /** Graceful restart's and route refresh's marks per path, their counts per peer (stale-paths.ts). */
  private readonly stale = new StalePaths(64);
  private pFree = NONE;
  private pEnd = 0;
  // Per peer index: first path, paths held, paths denied.
  /** Where a peer's unfinished drain goes on (a prefix entry). */
  private readonly drainFrom = new Map<number, number>();
  private peerPaths = new Int32Array(8);
  private peerDenied = new Int32Array(8);
  /** Candidate paths held (not denied). */
  paths = 0;
  /** Scratch for building one route object at a time. */
  private readonly one = new ChangeBatch();
  /** Prefixes with a reported selection. */
  selected = 0;
  /** The paths as `show` and add-path read them (loc-rib-view.ts). */
  private readonly view: LocRibPaths;

  constructor(afi: AfiCode, ctx: LocRibContext) {
    this.afi = afi;
    this.ctx = ctx;
    this.table = new PrefixTable(afi, false, (cap) => this.growEntries(cap), 64);
    const cap = this.table.capacity;
    this.head = new Int32Array(cap);
    this.selPeer = new Int16Array(cap);
    this.selAttr = new Int32Array(cap);
    this.selState = new Uint8Array(cap);
    this.view = {
      options: ctx.options,
      find: (words, off, len) => this.table.find(words, off, len),
      prefix: (e) => this.table.prefix(e),
      paths: (e) => {
        const out: number[] = [];
        for (let p = this.head[e]; p !== NONE; p = this.pNext[p]) out.push(p);
        return out;
      },
      denied: (p) => this.isDenied(p),
      eligible: (p) => this.eligible(p),
      staleMark: (p) => this.stale.of(p),
      candidate: (p, age) => this.candidate(p, age),
      route: (p) => this.routePath(this.pPeer[p], this.pPathId.get(p), this.pAttr[p]),
    };
  }

  /** Candidate paths held from one peer (received and not denied). */
  pathsFrom(peer: number): number {
    return peer < this.peerPaths.length ? this.peerPaths[peer] - this.peerDenied[peer] : 0;
  }

  /** Paths held from one peer, denied ones included: its Adj-RIB-In in this family. */
  receivedFrom(peer: number): number {
    return peer < this.peerPaths.length ? this.peerPaths[peer] : 0;
  }

  /** Paths of one peer marked stale and not announced again since. */
  staleFrom(peer: number): number {
    return this.stale.from(peer);
  }

  /** Paths of one peer marked at its BoRR and not announced again since (RFC 7313). */
  refreshStaleFrom(peer: number): number {
    return this.stale.refreshFrom(peer);
  }

  /**
   * Adds or replaces the path (peer, pathId) of a prefix; `denied` keeps it out of the
   * decision (a loop). Returns false when nothing changed (a duplicate).
   */
  upsert(
    peer: number,
    words: ArrayLike<number>,
    off: number,
    len: number,
    pathId: number,
    attrId: number,
    denied = false,
  ): boolean {
    const t = this.table;
    const e = t.insert(words, off, len);
    if (t.added) {
      this.head[e] = NONE;
      this.selPeer[e] = NONE;
      this.selState[e] = 0;
    }
    const deny = denied ? 1 : 0;
    for (let p = this.head[e], before = NONE; p !== NONE; before = p, p = this.pNext[p]) {
      if (this.pPeer[p] !== peer || this.pPathId.get(p) !== pathId) continue;
      const prev = this.pAttr[p];
      // Announced again after a graceful restart: fresh, and it may win again (RFC 4724 4.2).
      // Announced again in a route refresh: fresh too, but nothing to decide (RFC 7313 4).
      const wasStale = this.stale.fresh(p, peer);
      if (prev === attrId && this.isDenied(p) === denied) {
        if (!wasStale) return false;
        this.markDirty(e);
        return true;
      }
      this.ctx.attrs.ref(attrId);
      this.pAttr[p] = attrId;
      this.ctx.attrs.unref(prev);
      this.setDenied(p, peer, deny);
      // An implicit withdraw and a new route (RFC 4271 section 3.1): it is young again.
      if (before !== NONE) {
        this.pNext[before] = this.pNext[p];
        this.pNext[p] = this.head[e];
        this.head[e] = p;
      }
      this.markDirty(e);
      return true;
    }
    const p = this.allocatePath();
    this.pPeer[p] = peer;
    this.pAttr[p] = attrId;
    this.pPathId.set(p, pathId, this.pPeer.length);
    if (this.pDenied.length !== 0) this.pDenied[p] = 0;
    this.stale.reset(p);
    this.pNext[p] = this.head[e];
    this.head[e] = p;
    this.ctx.attrs.ref(attrId);
    this.countPath(peer, 1);
    this.setDenied(p, peer, deny);
    this.markDirty(e);
    return true;
  }

  /**
   * Moves a peer's stale paths to long-lived stale (RFC 9494 section 4.2): each takes the
   * attributes `relabel` gives (its own with LLGR_STALE added, held by the caller), or goes when
   * it gives NONE (NO_LLGR). Returns how many were relabelled.
   */
  markLongLivedStale(peer: number, relabel: (attrId: number) => number): number {
    return this.stale.markLongLived(peer, relabel, this.stalePool());
  }

  /** Removes the path (peer, pathId) of a prefix. Returns false when it was not there. */
  remove(peer: number, words: ArrayLike<number>, off: number, len: number, pathId: number): boolean {
    const e = this.table.find(words, off, len);
    if (e < 0) return false;
    for (let p = this.head[e]; p !== NONE; p = this.pNext[p]) {
      if (this.pPeer[p] !== peer || this.pPathId.get(p) !== pathId) continue;
      this.dropPath(p, e);
      return true;
    }
    return false;
  }

  /**
   * Removes up to `budget` paths of a peer (its session ended), walking the prefixes from where
   * the last call stopped, so a full table is unwound in chunks between keepalives. Returns
   * how many it removed.
   */
  drainPeer(peer: number, budget: number): number {
    if (this.receivedFrom(peer) === 0) return 0;
    const t = this.table;
    let removed = 0;
    let e = this.drainFrom.get(peer) ?? 0;
    for (let wrapped = false; removed < budget && this.peerPaths[peer] > 0; e++) {
      if (e >= t.end) {
        if (wrapped) break;
        wrapped = true;
        e = -1;
        continue;
      }
      if (!t.isLive(e)) continue;
      for (let p = this.head[e], after = NONE; p !== NONE && removed < budget; p = after) {
        after = this.pNext[p];
        if (this.pPeer[p] !== peer) continue;
        this.dropPath(p, e);
        removed++;
      }
      // Out of budget: this entry may hold more of the peer's paths (add-path), so go on from it.
      if (removed >= budget) break;
    }
    if (this.peerPaths[peer] > 0) this.drainFrom.set(peer, e);
    else this.drainFrom.delete(peer);
    return removed;
  }

  /**
   * Marks every path of a peer stale (its session ended gracefully, RFC 4724 section 4.2): the
   * paths stay, but lose to any path that is not stale, and `sweepStale` removes those not
   * announced again. Returns how many paths became stale.
   */
  markStale(peer: number): number {
    if (this.receivedFrom(peer) === 0) return 0;
    return this.stale.mark(peer, this.stalePool());
  }

  /**
   * Removes up to `budget` of a peer's stale paths (End-of-RIB came, or its restart or stale
   * timer ran out), going on from where the last call stopped. Returns how many it removed.
   */
  sweepStale(peer: number, budget: number): number {
    return this.stale.sweep(peer, budget, this.stalePool());
  }

  /**
   * RFC 7313 section 4, the peer's BoRR: every path of the peer is stale until sent again, its
   * preference unchanged (no prefix is decided again). Returns how many paths are marked.
   */
  markRefreshStale(peer: number): number {
    if (this.receivedFrom(peer) === 0) return 0;
    return this.stale.markRefresh(peer, this.stalePool());
  }

  /**
   * RFC 7313 section 4, the peer's EoRR: removes up to `budget` of the paths it did not send
   * again since its BoRR, going on from where the last call stopped. Returns how many it removed.
   */
  sweepRefreshStale(peer: number, budget: number): number {
    return this.stale.sweepRefresh(peer, budget, this.stalePool());
  }

  /** The peer's route refresh is abandoned: its paths lose the refresh mark, nothing else. */
  clearRefreshStale(peer: number): void {
    if (this.stale.refreshFrom(peer) > 0) this.stale.clearRefresh(peer, this.stalePool());
  }

  /** A peer's paths of one prefix, denied ones included: (path id, attribute id) pairs. */
  pathsOf(peer: number, prefix: RibPrefix): { pathId: number; attrId: number }[] {
    const e = this.table.find(prefix.words(), 0, prefix.len);
    const out: { pathId: number; attrId: number }[] = [];
    if (e < 0) return out;
    for (let p = this.head[e]; p !== NONE; p = this.pNext[p])
      if (this.pPeer[p] === peer) out.push({ pathId: this.pPathId.get(p), attrId: this.pAttr[p] });
    return out.sort((a, b) => a.pathId - b.pathId);
  }

  /** Every path of a peer, denied ones included (`show received`, a policy change). */
  forEachPathOf(peer: number, visit: (prefix: RibPrefix, pathId: number, attrId: number) => void): void {
    if (this.receivedFrom(peer) === 0) return;
    const t = this.table;
    for (let e = 0; e < t.end; e++) {
      if (!t.isLive(e)) continue;
      for (let p = this.head[e]; p !== NONE; p = this.pNext[p])
        if (this.pPeer[p] === peer) visit(t.prefix(e), this.pPathId.get(p), this.pAttr[p]);
    }
  }

  /** Prefixes waiting for the decision process. */
  get pending(): number {
    return this.dirty.count;
  }

  /**
   * Runs the decision process on the dirty prefixes, oldest first, at most `budget` of them,
   * and appends the real changes to `out`; every prefix decided goes to `touched` too (add-path
   * peers see more than the best path). Returns how many were decided.
   */
  flush(out: ChangeBatch, touched?: PrefixList, budget = Number.POSITIVE_INFINITY): number {
    const t = this.table;
    const dirty = this.dirty;
    // decide() could mark more entries: read the count and the array afresh each time.
    let k = 0;
    for (; k < dirty.count && k < budget; k++) {
      const e = dirty.items[k];
      this.selState[e] &= REASON_MASK;
      if (touched) appendEntry(touched, t, e);
      this.decide(e, out);
      if (this.head[e] === NONE && this.selPeer[e] === NONE) t.remove(e);
    }
    if (k === dirty.count) dirty.clear();
    else dirty.dropFirst(k);
    return k;
  }

  /** Marks every prefix for a new decision (next-hop verdicts or options changed). */
  markAllDirty(): void {
    const t = this.table;
    for (let e = 0; e < t.end; e++) if (t.isLive(e)) this.markDirty(e);
  }

  /** The reported selection of every prefix, as 'add' changes (for a sink's reconcile or a new peer). */
  forEachSelected(visit: (route: RouteAdd) => void): void {
    const t = this.table;
    for (let e = 0; e < t.end; e++) if (t.isLive(e) && this.selPeer[e] !== NONE) visit(this.selectedRoute(e));
  }

  /**
   * Appends the reported selections of entries from `from` on to `out`, at most `budget` of
   * them; returns the entry to continue from, or -1 when the table is done.
   */
  collectSelected(from: number, budget: number, out: ChangeBatch): number {
    const t = this.table;
    let e = from;
    for (; e < t.end && budget > 0; e++) {
      if (!t.isLive(e) || this.selPeer[e] === NONE) continue;
      this.pushSelected(e, out);
      budget--;
    }
    return e < t.end ? e : -1;
  }

  /** The reported selection of one prefix. */
  selection(prefix: RibPrefix): RouteAdd | undefined {
    const e = this.table.find(prefix.words(), 0, prefix.len);
    return e >= 0 && this.selPeer[e] !== NONE ? this.selectedRoute(e) : undefined;
  }

  /**
   * The eligible paths of a prefix in decision order, best first (the decision process run
   * again on what is left after each pick), and the multipath set; undefined when none.
   */
  rankedPaths(words: ArrayLike<number>, off: number, len: number): RankedPaths | undefined {
    return rankedPaths(this.view, words, off, len);
  }

  /** Every path of a prefix with the decision explained, for `show`. */
  explain(prefix: RibPrefix): EntryView | undefined {
    return explain(this.view, prefix);
  }

  get byteLength(): number {
    return byteLengthOf([
      this.table,
      this.head,
      this.selPeer,
      this.selAttr,
      this.selPathId,
      this.selState,
      this.dirty,
      this.pPeer,
      this.pAttr,
      this.pPathId,
      this.pNext,
      this.pDenied,
      this.stale,
    ]);
  }

  /** The pool as graceful restart's walks see it, for one call (the columns grow). */
  private stalePool(): StalePool {
    return {
      end: this.pEnd,
      peers: this.pPeer,
      attrs: this.pAttr,
      entryEnd: this.table.end,
      live: (e) => this.table.isLive(e),
      head: this.head,
      next: this.pNext,
      markDirty: (e) => this.markDirty(e),
      drop: (p, e) => this.dropPath(p, e),
      ref: (id) => this.ctx.attrs.ref(id),
      unref: (id) => this.ctx.attrs.unref(id),
    };
  }

  private decide(e: number, out: ChangeBatch): void {
    let eligibleCount = 0;
    let only = NONE;
    for (let p = this.head[e]; p !== NONE; p = this.pNext[p]) {
      if (!this.eligible(p)) continue;
      eligibleCount++;
      only = p;
    }
    if (eligibleCount === 0) {
      if (this.selPeer[e] !== NONE) {
        const t = this.table;
        out.pushWithdraw(
          this.afi,
          t.words,
          e * t.wordsPerPrefix,
          t.lens[e],
          this.ctx.peer(this.selPeer[e]).source,
        );
        this.clearSelection(e);
      }
      return;
    }
    if (eligibleCount === 1) {
      this.select(e, only, null, FIRST_REASON, out);
      return;
    }
    const paths: number[] = [];
    const candidates: Candidate[] = [];
    for (let p = this.head[e], age = 0; p !== NONE; p = this.pNext[p], age++) {
      if (!this.eligible(p)) continue;
      paths.push(p);
      candidates.push(this.candidate(p, age));
    }
    const sel = selectBest(candidates, this.ctx.options)!;
    const extras = sel.multipath.length > 1 ? sel.multipath.slice(1).map((i) => paths[i]) : null;
    this.select(e, paths[sel.best], extras, reasonIndex.get(sel.reason)!, out);
  }

  /** Records the selection (reason: an index in REASONS) and reports it unless it is what was reported already. */
  private select(
    e: number,
    best: number,
    extraPaths: number[] | null,
    reason: number,
    out: ChangeBatch,
  ): void {
    const attrs = this.ctx.attrs;
    const peer = this.pPeer[best];
    const attr = this.pAttr[best];
    const pathId = this.pPathId.get(best);
    let extras: number[] | null = null;
    if (extraPaths) {
      extras = [];
      for (const p of extraPaths) extras.push(this.pPeer[p], this.pPathId.get(p), this.pAttr[p]);
    }
    const was = this.selPeer[e] !== NONE;
    if (
      was &&
      this.selPeer[e] === peer &&
      this.selPathId.get(e) === pathId &&
      this.selAttr[e] === attr &&
      sameTriples(this.extrasOf(e), extras)
    ) {
      this.selState[e] = (this.selState[e] & DIRTY) | reason;
      return;
    }
    attrs.ref(attr);
    if (extras) for (let i = 2; i < extras.length; i += 3) attrs.ref(extras[i]);
    this.clearSelection(e);
    this.selPeer[e] = peer;
    this.selPathId.set(e, pathId, this.head.length);
    this.selAttr[e] = attr;
    this.selState[e] = (this.selState[e] & DIRTY) | reason;
    if (extras) this.extras.set(e, extras);
    this.selected++;
    this.pushSelected(e, out);
  }

  /** The equal-cost paths reported with entry e's best, as (peer, path id, attr) triples; null when none. */
  private extrasOf(e: number): number[] | null {
    // Mostly empty (no multipath): skip the lookup.
    return this.extras.size === 0 ? null : (this.extras.get(e) ?? null);
  }

  /** The reported selection of entry e as a change in `out`. */
  private pushSelected(e: number, out: ChangeBatch): void {
    const t = this.table;
    const extras = this.extrasOf(e);
    let multipath: RoutePath[] | null = null;
    if (extras) {
      multipath = [this.routePath(this.selPeer[e], this.selPathId.get(e), this.selAttr[e])];
      for (let i = 0; i < extras.length; i += 3)
        multipath.push(this.routePath(extras[i], extras[i + 1], extras[i + 2]));
    }
    out.pushAdd(
      this.afi,
      t.words,
      e * t.wordsPerPrefix,
      t.lens[e],
      this.ctx.attrs.get(this.selAttr[e]),
      this.ctx.peer(this.selPeer[e]).source,
      this.selPathId.get(e),
      REASONS[this.selState[e] & REASON_MASK],
      multipath,
    );
  }

  private clearSelection(e: number): void {
    if (this.selPeer[e] === NONE) return;
    const attrs = this.ctx.attrs;
    attrs.unref(this.selAttr[e]);
    const old = this.extrasOf(e);
    if (old) {
      for (let i = 2; i < old.length; i += 3) attrs.unref(old[i]);
      this.extras.delete(e);
    }
    this.selPeer[e] = NONE;
    this.selected--;
  }

  /** The reported selection of entry e as a RouteAdd (the API, sinks' reconcile, a joining peer). */
  private selectedRoute(e: number): RouteAdd {
    const one = this.one;
    one.reset();
    this.pushSelected(e, one);
    const route = one.change(0) as RouteAdd;
    one.reset(); // holds no attribute set alive
    return route;
  }

  private routePath(peer: number, pathId: number, attr: number): RoutePath {
    return { attrs: this.ctx.attrs.get(attr), source: this.ctx.peer(peer).source, pathId };
  }

  private eligible(p: number): boolean {
    return !this.isDenied(p) && this.ctx.attrs.nextHopUsable(this.pAttr[p], this.afi);
  }

  /** Path p as the decision sees it; `age`: its position in the chain (0: the youngest). */
  private candidate(p: number, age: number): Candidate {
    const { attrs, defaultLocalPref, medMissingAsWorst } = this.ctx;
    const id = this.pAttr[p];
    const peer = this.ctx.peer(this.pPeer[p]);
    return {
      weight: peer.weight,
      localPref: attrs.hasLocalPref(id) ? attrs.localPrefOf(id) : defaultLocalPref,
      local: peer.local,
      originPreference: peer.originPreference,
      asPathLength: attrs.asPathLength[id],
      origin: attrs.origin[id],
      med: attrs.hasMed(id) ? attrs.med[id] : medMissingAsWorst ? MED_WORST : 0,
      neighborAs: attrs.neighborAs[id],
      ebgp: peer.ebgp,
      igpMetric: 0,
      arrival: -age,
      routerId: attrs.hasOriginatorId(id) ? attrs.originatorIdOf(id) : peer.source.routerId,
      clusterListLength: attrs.clusterListLength[id],
      peerAddress: peer.addressKey,
      peerAs: peer.source.asn,
      pathId: this.pPathId.get(p),
      attrs: attrs.get(id),
      stale: this.stale.of(p) !== FRESH,
      // RFC 9494 section 4.3: least preferred, whoever marked it (a peer may pass one on).
      longLivedStale: this.stale.of(p) === LONG_LIVED || hasLongLivedStale(attrs.get(id)),
    };
  }

  private isDenied(p: number): boolean {
    return this.pDenied.length !== 0 && this.pDenied[p] !== 0;
  }

  private markDirty(e: number): void {
    if (this.selState[e] & DIRTY) return;
    this.selState[e] |= DIRTY;
    this.dirty.push(e);
  }

  /** Unlinks a path from its prefix and its peer and frees it; its prefix is decided again. */
  private dropPath(p: number, e: number): void {
    const peer = this.pPeer[p];
    if (this.head[e] === p) this.head[e] = this.pNext[p];
    else {
      let q = this.head[e];
      while (this.pNext[q] !== p) q = this.pNext[q];
      this.pNext[q] = this.pNext[p];
    }
    this.setDenied(p, peer, 0);
    this.stale.fresh(p, peer);
    this.countPath(peer, -1);
    this.ctx.attrs.unref(this.pAttr[p]);
    this.freePath(p);
    this.markDirty(e);
  }

  /** Sets a path's denied mark, keeping the counts of candidates in step. */
  private setDenied(p: number, peer: number, deny: number): void {
    if (this.isDenied(p) === (deny !== 0)) return;
    if (this.pDenied.length === 0) this.pDenied = new Uint8Array(this.pPeer.length);
    this.pDenied[p] = deny;
    const delta = deny ? 1 : -1;
    this.peerDenied[peer] += delta;
    this.paths -= delta;
  }

  private countPath(peer: number, delta: number): void {
    this.ensurePeer(peer);
    this.peerPaths[peer] += delta;
    this.paths += delta;
  }

  private ensurePeer(peer: number): void {
    if (peer < this.peerPaths.length) return;
    const cap = Math.max(peer + 1, this.peerPaths.length * 2);
    this.peerPaths = grown(this.peerPaths, cap);
    this.peerDenied = grown(this.peerDenied, cap);
    this.stale.growPeers(cap);
  }

  private allocatePath(): number {
    if (this.pFree !== NONE) {
      const p = this.pFree;
      this.pFree = this.pNext[p];
      return p;
    }
    if (this.pEnd === this.pPeer.length) this.growPaths(nextCapacity(this.pPeer.length));
    return this.pEnd++;
  }

  private freePath(p: number): void {
    this.pPeer[p] = NONE;
    this.pNext[p] = this.pFree;
    this.pFree = p;
  }

  private growPaths(cap: number): void {
    this.pPeer = grown(this.pPeer, cap);
    this.pAttr = grown(this.pAttr, cap);
    this.pNext = grown(this.pNext, cap);
    this.pPathId.grow(cap);
    if (this.pDenied.length !== 0) this.pDenied = grown(this.pDenied, cap);
    this.stale.grow(cap);
  }

  private growEntries(cap: number): void {
    this.head = grown(this.head, cap);
    this.selPeer = grown(this.selPeer, cap);
    this.selAttr = grown(this.selAttr, cap);
    this.selPathId.grow(cap);
    this.selState = grown(this.selState, cap);
  }
}

function sameTriples(a: number[] | null, b: number[] | null): boolean {
  if (a === null || b === null) return a === b;
  if (a.length !== b.length) return false;
  for (let i = 0; i < a.length; i++) if (a[i] !== b[i]) return false;
  return true;
}

/** Appends entry e's prefix to a list (no path id). */
function appendEntry(list: PrefixList, t: PrefixTable, e: number): void {
  const i = list.grow();
  list.lens[i] = t.lens[e];
  const wpp = t.wordsPerPrefix;
  for (let w = 0; w < wpp; w++) list.words[i * wpp + w] = t.words[e * wpp + w];
}
