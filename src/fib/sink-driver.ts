import type { Logger } from '../components/index.js';
import type { RouteFilter } from '../policy/index.js';
import type { ChangeBatch, RibPrefix } from '../rib/index.js';
import type { RouteConsumer } from '../routing/index.js';
import { type FibChange, type FibRoute, type FibTarget, fibChangeAt, NextHopMemo } from './route.js';

/** Back-off after a failed apply or reconcile: doubling from the first to the last, with jitter. */
export const SinkRetry = { FIRST_MS: 200, MAX_MS: 30_000, JITTER: 0.2 } as const;

export interface SinkDriverComponents {
  readonly log: Logger;
  /** Every best path as 'add' changes, a slice at a time (RouteFlow.replay). */
  readonly replay: (into: (slice: ChangeBatch) => void) => Promise<void>;
  readonly setTimer: (fn: () => void, ms: number) => unknown;
  readonly clearTimer: (handle: unknown) => void;
  readonly now: () => number;
  readonly random?: () => number;
}

export interface SinkDriverInit {
  /** Which best paths are installed (import policy applied to the Loc-RIB's best); all when absent. */
  readonly install?: RouteFilter;
  /** Changes handed to the target in one apply, at most. */
  readonly maxBatch?: number;
  /**
   * Only paths learned from BGP peers are installed; a prefix whose best path is one of our own
   * origins (static, api, ovn, ovn-table) is not. What OVN's route table gets: our own routes
   * there would come back to OVN as routes it learned.
   */
  readonly learnedOnly?: boolean;
}

export type SinkState = 'starting' | 'syncing' | 'in-sync' | 'retrying' | 'closed';

export interface SinkStatus {
  readonly name: string;
  readonly state: SinkState;
  /** Changes waiting for the target (coalesced per prefix). */
  readonly pending: number;
  readonly applied: number;
  readonly failures: number;
  readonly lastError?: string;
  /** Milliseconds since the epoch of the last successful apply or reconcile. */
  readonly lastSuccessAt?: number;
}

/**
 * Drives one forwarding plane from the Loc-RIB: a RouteConsumer that turns best-path changes
 * into FibChanges, coalesced per prefix while the target is busy (only the newest change of
 * a prefix is ever sent), applied one batch at a time, retried with back-off when the target
 * fails, and logged once per cause. On start, and whenever the target says it lost its
 * state, every best path is replayed and the target reconciled to exactly that set. A slow
 * or failed target never stalls BGP: accept() only records.
 */
export class SinkDriver implements RouteConsumer {
  readonly name: string;
  readonly #target: FibTarget;
  readonly #c: SinkDriverComponents;
  readonly #install: RouteFilter | undefined;
  readonly #learnedOnly: boolean;
  readonly #maxBatch: number;
  /** Newest wanted change per prefix, in arrival order. */
  #pending = new Map<number | string, FibChange>();
  #state: SinkState = 'starting';
  #busy = false;
  #retryTimer: unknown = null;
  #retryMs: number = SinkRetry.FIRST_MS;
  #needsSync = true;
  #started = false;
  #applied = 0;
  #failures = 0;
  #lastError: string | undefined;
  #lastSuccessAt: number | undefined;
  readonly #loggedCauses = new Set<string>();
  /** Next hops of the attribute set of the previous change: consecutive prefixes mostly share one. */
  readonly #memo = new NextHopMemo();

  constructor(target: FibTarget, init: SinkDriverInit, components: SinkDriverComponents) {
    this.name = target.name;
    this.#target = target;
    this.#c = components;
    this.#install = init.install;
    this.#learnedOnly = init.learnedOnly === true;
    this.#maxBatch = init.maxBatch ?? 65_536;
  }

  status(): SinkStatus {
    return {
      name: this.name,
      state: this.#state,
      pending: this.#pending.size,
      applied: this.#applied,
      failures: this.#failures,
      ...(this.#lastError !== undefined && { lastError: this.#lastError }),
      ...(this.#lastSuccessAt !== undefined && { lastSuccessAt: this.#lastSuccessAt }),
    };
  }

  /** Replays every best path and reconciles the target to it, then follows the changes. */
  start(): void {
    this.#started = true;
    this.#needsSync = true;
    this.#run();
  }

  /** The target lost what we installed (zebra restarted): replay and reconcile again. */
  resync(): void {
    this.#needsSync = true;
    this.#run();
  }

  accept(changes: ChangeBatch): void {
    if (this.#state === 'closed' || changes.count === 0) return;
    for (let i = 0; i < changes.count; i++) this.#want(this.#fib(changes, i));
    this.#memo.clear();
    this.#run();
  }

  async close(): Promise<void> {
    this.#state = 'closed';
    if (this.#retryTimer !== null) this.#c.clearTimer(this.#retryTimer);
    this.#retryTimer = null;
    this.#pending.clear();
    await this.#target.close();
  }

  #fib(batch: ChangeBatch, i: number): FibChange {
    const change = fibChangeAt(batch, i, this.#memo);
    if (change.kind === 'withdraw') return change;
    const p = change.route.prefix;
    if (this.#learnedOnly && batch.sources[i]?.kind === 'local') return { kind: 'withdraw', prefix: p };
    if (!this.#install) return change;
    const verdict = this.#install.evaluate(p.afi, p.words(), 0, p.len, batch.attrs[i]!);
    return verdict.accept ? change : { kind: 'withdraw', prefix: p };
  }

  #want(change: FibChange): void {
    const key = prefixOf(change).key();
    // Re-inserting moves the prefix to the end: its newest change goes after older ones.
    this.#pending.delete(key);
    this.#pending.set(key, change);
  }

  #run(): void {
    if (!this.#started || this.#busy || this.#retryTimer !== null || this.#state === 'closed') return;
    if (!this.#needsSync && this.#pending.size === 0) return;
    this.#busy = true;
    const work = this.#needsSync ? this.#sync() : this.#applyPending();
    work.then(
      () => this.#succeeded(),
      (error: unknown) => this.#failed(error),
    );
  }

  async #sync(): Promise<void> {
    this.#state = 'syncing';
    this.#needsSync = false;
    const all: FibRoute[] = [];
    await this.#c.replay((slice) => {
      for (let i = 0; i < slice.count; i++) {
        const c = this.#fib(slice, i);
        if (c.kind === 'add') all.push(c.route);
      }
      this.#memo.clear();
    });
    // A change that arrived during the replay is applied after the reconcile, so nothing
    // newer is lost: what the replay collected already holds it or an older state.
    try {
      await this.#target.reconcile(all);
    } catch (error) {
      this.#needsSync = true;
      throw error;
    }
    this.#applied += all.length;
  }

  async #applyPending(): Promise<void> {
    const batch = this.#takeBatch();
    try {
      await this.#target.apply(batch);
    } catch (error) {
      // Put back what no newer change replaced while the batch was out.
      const newer = this.#pending;
      this.#pending = new Map();
      for (const c of batch) this.#pending.set(prefixOf(c).key(), c);
      for (const [k, c] of newer) {
        this.#pending.delete(k);
        this.#pending.set(k, c);
      }
      throw error;
    }
    this.#applied += batch.length;
  }

  /** The oldest pending changes, at most maxBatch; all of them (the usual case) without re-keying any. */
  #takeBatch(): FibChange[] {
    const pending = this.#pending;
    if (pending.size <= this.#maxBatch) {
      this.#pending = new Map();
      return [...pending.values()];
    }
    const batch: FibChange[] = [];
    for (const [key, c] of pending) {
      batch.push(c);
      pending.delete(key);
      if (batch.length >= this.#maxBatch) break;
    }
    return batch;
  }

  #succeeded(): void {
    this.#busy = false;
    if (this.#state === 'closed') return;
    this.#retryMs = SinkRetry.FIRST_MS;
    this.#lastSuccessAt = this.#c.now();
    if (this.#lastError !== undefined) {
      this.#c.log.info({ sink: this.name }, 'route sink recovered');
      this.#loggedCauses.clear();
    }
    this.#lastError = undefined;
    this.#state = this.#pending.size === 0 && !this.#needsSync ? 'in-sync' : this.#state;
    this.#run();
  }

  #failed(error: unknown): void {
    this.#busy = false;
    if (this.#state === 'closed') return;
    this.#failures++;
    const cause = error instanceof Error ? error.message : String(error);
    this.#lastError = cause;
    this.#state = 'retrying';
    if (!this.#loggedCauses.has(cause)) {
      this.#loggedCauses.add(cause);
      this.#c.log.warn({ sink: this.name, error: cause }, 'route sink failed: retrying with back-off');
    }
    const jitter = 1 + SinkRetry.JITTER * (2 * (this.#c.random ?? Math.random)() - 1);
    const wait = Math.round(this.#retryMs * jitter);
    this.#retryMs = Math.min(this.#retryMs * 2, SinkRetry.MAX_MS);
    this.#retryTimer = this.#c.setTimer(() => {
      this.#retryTimer = null;
      this.#run();
    }, wait);
  }
}

function prefixOf(c: FibChange): RibPrefix {
  return c.kind === 'add' ? c.route.prefix : c.prefix;
}
