import { WellKnownCommunity } from './constants.js';
import { grown } from './grow.js';

/** A path's stale mark. */
export const FRESH = 0;
/** Kept from a session that ended gracefully, during the Restart Time (RFC 4724 4.2). */
export const STALE = 1;
/** Past the Restart Time, kept by long-lived graceful restart (RFC 9494). */
export const LONG_LIVED = 2;

/** The end of a path chain, and what a relabel gives for a path that goes (NO_LLGR). */
const NONE = -1;
/** A column not needed yet: every path is fresh of that kind. */
const UNMARKED = new Uint8Array(0);

/** RFC 9494 section 4.3: a route that carries LLGR_STALE is least preferred. */
export function hasLongLivedStale(attrs: { readonly communities?: readonly number[] }): boolean {
  return attrs.communities?.includes(WellKnownCommunity.LLGR_STALE) ?? false;
}

/** The Loc-RIB's path pool as the stale walks see it, handed to each walk (its columns grow). */
export interface StalePool {
  /** Paths in use are below this index. */
  readonly end: number;
  /** Prefix entries in use are below this index; `live` says which are. */
  readonly entryEnd: number;
  live(entry: number): boolean;
  /** Peer index per path (NONE for a free one). */
  readonly peers: Int16Array;
  /** Attribute id per path: a long-lived stale path takes the relabelled one. */
  readonly attrs: Int32Array;
  /** First path per entry, and the next path of the same entry per path. */
  readonly head: Int32Array;
  readonly next: Int32Array;
  markDirty(entry: number): void;
  /** Unlinks path from entry's chain and frees it (its stale mark goes with it). */
  drop(path: number, entry: number): void;
  ref(attrId: number): void;
  unref(attrId: number): void;
}

/**
 * The stale marks on the Loc-RIB's paths, two kinds side by side, each with its count of marked
 * paths per peer and where a peer's unfinished sweep goes on:
 *
 * - graceful restart's (RFC 4724 4.2, RFC 9494): a path kept from a session that ended stays a
 *   candidate but loses to any fresh one (decision.ts, compareStale);
 * - enhanced route refresh's (RFC 7313 section 4): a path the peer has not sent again since its
 *   BoRR. It keeps its preference: the peer is re-advertising a table it still holds, and a
 *   refresh that sends everything again must change nothing, at our peers or in the sinks.
 *
 * A path can carry both (a BoRR while graceful restart's sweep is still under way): each sweep
 * removes the paths of its own kind whatever the other mark, and a path announced again is
 * fresh of both.
 *
 * Each column is made the first time a path of its kind is marked: a RIB whose peers never
 * restart nor refresh keeps no byte per path for them (2 MiB at a full table).
 */
export class StalePaths {
  /** Graceful restart's mark per path: FRESH, STALE or LONG_LIVED (empty until the first mark). */
  private marks: Uint8Array = UNMARKED;
  private perPeer = new Int32Array(8);
  /** Where a peer's unfinished sweep of stale paths goes on (a prefix entry). */
  private readonly sweepFrom = new Map<number, number>();
  /** Enhanced route refresh's mark per path: 1 from the peer's BoRR until announced again (empty until the first). */
  private refresh: Uint8Array = UNMARKED;
  private refreshPerPeer = new Int32Array(8);
  private readonly refreshSweepFrom = new Map<number, number>();
  /** Paths the pool has room for: the size of a column when it is made. */
  private capacity: number;

  constructor(capacity: number) {
    this.capacity = capacity;
  }

  /** The mark of path p. */
  of(p: number): number {
    return this.marks === UNMARKED ? FRESH : this.marks[p];
  }

  /** Paths of one peer marked stale and not announced again since. */
  from(peer: number): number {
    return peer < this.perPeer.length ? this.perPeer[peer] : 0;
  }

  /** Sets path p's mark, keeping its peer's count in step; true when it changed. */
  set(p: number, peer: number, mark: number): boolean {
    const was = this.of(p);
    if (was === mark) return false;
    if (this.marks === UNMARKED) this.marks = new Uint8Array(this.capacity);
    this.marks[p] = mark;
    if ((was === FRESH) !== (mark === FRESH)) this.perPeer[peer] += mark === FRESH ? -1 : 1;
    return true;
  }

  /** Paths of one peer marked at its BoRR and not announced again since. */
  refreshFrom(peer: number): number {
    return peer < this.refreshPerPeer.length ? this.refreshPerPeer[peer] : 0;
  }

  /** Whether path p waits to be sent again in the peer's route refresh. */
  refreshOf(p: number): boolean {
    return this.refresh !== UNMARKED && this.refresh[p] !== 0;
  }

  /**
   * Path p was announced again, or goes: fresh of both kinds, the counts in step. True when
   * graceful restart's mark changed (the only one the decision reads).
   */
  fresh(p: number, peer: number): boolean {
    if (this.refreshOf(p)) {
      this.refresh[p] = 0;
      this.refreshPerPeer[peer]--;
    }
    return this.set(p, peer, FRESH);
  }

  /** A new path starts fresh. */
  reset(p: number): void {
    if (this.marks !== UNMARKED) this.marks[p] = FRESH;
    if (this.refresh !== UNMARKED) this.refresh[p] = 0;
  }

  /**
   * Marks every fresh path of a peer stale (its session ended gracefully): the paths stay, but
   * lose to any path that is not stale. Returns how many paths became stale.
   */
  mark(peer: number, pool: StalePool): number {
    if (this.marks === UNMARKED) this.marks = new Uint8Array(this.capacity);
    let marked = 0;
    for (let e = 0; e < pool.entryEnd; e++) {
      if (!pool.live(e)) continue;
      for (let p = pool.head[e]; p !== NONE; p = pool.next[p]) {
        // Paths long-lived stale already stay so (a session lost again before they were refreshed).
        if (pool.peers[p] !== peer || this.marks[p] !== FRESH) continue;
        this.set(p, peer, STALE);
        marked++;
        // The decision can change only where another path competes.
        if (pool.head[e] !== p || pool.next[p] !== NONE) pool.markDirty(e);
      }
    }
    this.sweepFrom.delete(peer);
    return marked;
  }

  /**
   * Removes up to `budget` of a peer's stale paths (End-of-RIB came, or its restart or stale
   * timer ran out), going on from where the last call stopped. Returns how many it removed.
   */
  sweep(peer: number, budget: number, pool: StalePool): number {
    if (this.from(peer) === 0) return 0;
    return sweepMarked(peer, budget, pool, this.marks, this.perPeer, this.sweepFrom);
  }

  /**
   * RFC 7313 section 4, the peer's BoRR: every path of the peer is stale until it is sent again
   * (a path stale for a restart too keeps that mark). Nothing is decided again: the mark does
   * not take part in the decision. Returns how many paths were marked.
   */
  markRefresh(peer: number, pool: StalePool): number {
    if (this.refresh === UNMARKED) this.refresh = new Uint8Array(this.capacity);
    let marked = 0;
    for (let p = 0; p < pool.end; p++) {
      if (pool.peers[p] !== peer) continue;
      marked++;
      if (this.refresh[p] !== 0) continue;
      this.refresh[p] = 1;
      this.refreshPerPeer[peer]++;
    }
    this.refreshSweepFrom.delete(peer);
    return marked;
  }

  /**
   * RFC 7313 section 4, the peer's EoRR (or our wait for it ran out): removes up to `budget` of
   * the paths it did not send again, going on from where the last call stopped. Returns how
   * many it removed.
   */
  sweepRefresh(peer: number, budget: number, pool: StalePool): number {
    if (this.refreshFrom(peer) === 0) return 0;
    return sweepMarked(peer, budget, pool, this.refresh, this.refreshPerPeer, this.refreshSweepFrom);
  }

  /** The peer's refresh is abandoned (its session ended): its paths lose the refresh mark. */
  clearRefresh(peer: number, pool: StalePool): void {
    for (let p = 0; p < pool.end && this.refreshFrom(peer) > 0; p++) {
      if (pool.peers[p] !== peer || this.refresh[p] === 0) continue;
      this.refresh[p] = 0;
      this.refreshPerPeer[peer]--;
    }
    this.refreshSweepFrom.delete(peer);
  }

  /**
   * Moves a peer's stale paths to long-lived stale (RFC 9494 section 4.2): each takes the
   * attributes `relabel` gives (its own with LLGR_STALE added, held by the caller), or goes when
   * it gives NONE (NO_LLGR). Returns how many were relabelled.
   */
  markLongLived(peer: number, relabel: (attrId: number) => number, pool: StalePool): number {
    if (this.from(peer) === 0) return 0;
    let marked = 0;
    for (let e = 0; e < pool.entryEnd; e++) {
      if (!pool.live(e)) continue;
      for (let p = pool.head[e], after = NONE; p !== NONE; p = after) {
        after = pool.next[p];
        if (pool.peers[p] !== peer || this.marks[p] !== STALE) continue;
        const next = relabel(pool.attrs[p]);
        if (next === NONE) {
          pool.drop(p, e);
          continue;
        }
        pool.ref(next);
        pool.unref(pool.attrs[p]);
        pool.attrs[p] = next;
        this.marks[p] = LONG_LIVED;
        marked++;
        pool.markDirty(e);
      }
    }
    return marked;
  }

  grow(capacity: number): void {
    this.capacity = capacity;
    if (this.marks !== UNMARKED) this.marks = grown(this.marks, capacity);
    if (this.refresh !== UNMARKED) this.refresh = grown(this.refresh, capacity);
  }

  growPeers(capacity: number): void {
    this.perPeer = grown(this.perPeer, capacity);
    this.refreshPerPeer = grown(this.refreshPerPeer, capacity);
  }

  get byteLength(): number {
    return this.marks.byteLength + this.refresh.byteLength;
  }
}

/**
 * Drops up to `budget` of a peer's paths whose mark in `marks` is set, walking the prefix
 * entries from where the last call stopped (`from`) and wrapping round once; `counts` falls as
 * `pool.drop` clears the marks. Returns how many it removed.
 */
function sweepMarked(
  peer: number,
  budget: number,
  pool: StalePool,
  marks: Uint8Array,
  counts: Int32Array,
  from: Map<number, number>,
): number {
  let removed = 0;
  let e = from.get(peer) ?? 0;
  for (let wrapped = false; removed < budget && counts[peer] > 0; e++) {
    if (e >= pool.entryEnd) {
      if (wrapped) break;
      wrapped = true;
      e = -1;
      continue;
    }
    if (!pool.live(e)) continue;
    for (let p = pool.head[e], after = NONE; p !== NONE && removed < budget; p = after) {
      after = pool.next[p];
      if (pool.peers[p] !== peer || marks[p] === 0) continue;
      pool.drop(p, e);
      removed++;
    }
    // Out of budget: this entry may hold more of the peer's paths (add-path), so go on from it.
    if (removed >= budget) break;
  }
  if (counts[peer] > 0) from.set(peer, e);
  else from.delete(peer);
  return removed;
}
