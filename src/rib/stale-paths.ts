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

/** RFC 9494 section 4.3: a route that carries LLGR_STALE is least preferred. */
export function hasLongLivedStale(attrs: { readonly communities?: readonly number[] }): boolean {
  return attrs.communities?.includes(WellKnownCommunity.LLGR_STALE) ?? false;
}

/** The Loc-RIB's path pool as the stale walks see it, handed to each walk (its columns grow). */
export interface StalePool {
  /** Paths in use are below this index. */
  readonly end: number;
  /** Peer index per path (NONE for a free one). */
  readonly peers: Int32Array;
  /** Attribute id per path: a long-lived stale path takes the relabelled one. */
  readonly attrs: Int32Array;
  /** Prefix entry per path. */
  readonly entries: Int32Array;
  /** First path per entry, and the next path of the same entry per path. */
  readonly head: Int32Array;
  readonly next: Int32Array;
  markDirty(entry: number): void;
  /** Unlinks and frees a path (its stale mark goes with it). */
  drop(path: number): void;
  ref(attrId: number): void;
  unref(attrId: number): void;
}

/**
 * Graceful restart's marks on the Loc-RIB's paths (RFC 4724 4.2, RFC 9494): one mark per path,
 * the count of marked paths per peer, and where a peer's unfinished sweep goes on. A stale path
 * stays a candidate but loses to any fresh one; announced again it is fresh.
 */
export class StalePaths {
  /** The mark per path: FRESH, STALE or LONG_LIVED. */
  private marks: Uint8Array;
  private perPeer = new Int32Array(8);
  /** Where a peer's unfinished sweep of stale paths goes on in the pool. */
  private readonly sweepFrom = new Map<number, number>();

  constructor(capacity: number) {
    this.marks = new Uint8Array(capacity);
  }

  /** The mark of path p. */
  of(p: number): number {
    return this.marks[p];
  }

  /** Paths of one peer marked stale and not announced again since. */
  from(peer: number): number {
    return peer < this.perPeer.length ? this.perPeer[peer] : 0;
  }

  /** Sets path p's mark, keeping its peer's count in step; true when it changed. */
  set(p: number, peer: number, mark: number): boolean {
    const was = this.marks[p];
    if (was === mark) return false;
    this.marks[p] = mark;
    if ((was === FRESH) !== (mark === FRESH)) this.perPeer[peer] += mark === FRESH ? -1 : 1;
    return true;
  }

  /** A new path starts fresh. */
  reset(p: number): void {
    this.marks[p] = FRESH;
  }

  /**
   * Marks every fresh path of a peer stale (its session ended gracefully): the paths stay, but
   * lose to any path that is not stale. Returns how many paths became stale.
   */
  mark(peer: number, pool: StalePool): number {
    let marked = 0;
    for (let p = 0; p < pool.end; p++) {
      // Paths long-lived stale already stay so (a session lost again before they were refreshed).
      if (pool.peers[p] !== peer || this.marks[p] !== FRESH) continue;
      this.set(p, peer, STALE);
      marked++;
      // The decision can change only where another path competes.
      const e = pool.entries[p];
      if (pool.head[e] !== p || pool.next[p] !== NONE) pool.markDirty(e);
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
    let removed = 0;
    let p = this.sweepFrom.get(peer) ?? 0;
    for (let wrapped = false; removed < budget && this.perPeer[peer] > 0; p++) {
      if (p >= pool.end) {
        if (wrapped) break;
        wrapped = true;
        p = -1;
        continue;
      }
      if (pool.peers[p] !== peer || this.marks[p] === FRESH) continue;
      pool.drop(p);
      removed++;
    }
    if (this.perPeer[peer] > 0) this.sweepFrom.set(peer, p);
    else this.sweepFrom.delete(peer);
    return removed;
  }

  /**
   * Moves a peer's stale paths to long-lived stale (RFC 9494 section 4.2): each takes the
   * attributes `relabel` gives (its own with LLGR_STALE added, held by the caller), or goes when
   * it gives NONE (NO_LLGR). Returns how many were relabelled.
   */
  markLongLived(peer: number, relabel: (attrId: number) => number, pool: StalePool): number {
    if (this.from(peer) === 0) return 0;
    let marked = 0;
    for (let p = 0; p < pool.end; p++) {
      if (pool.peers[p] !== peer || this.marks[p] !== STALE) continue;
      const next = relabel(pool.attrs[p]);
      if (next === NONE) {
        pool.drop(p);
        continue;
      }
      pool.ref(next);
      pool.unref(pool.attrs[p]);
      pool.attrs[p] = next;
      this.marks[p] = LONG_LIVED;
      marked++;
      pool.markDirty(pool.entries[p]);
    }
    return marked;
  }

  grow(capacity: number): void {
    this.marks = grown(this.marks, capacity);
  }

  growPeers(capacity: number): void {
    this.perPeer = grown(this.perPeer, capacity);
  }

  get byteLength(): number {
    return this.marks.byteLength;
  }
}
