import type { AfiCode } from '../bgp/wire/index.js';
import type { Scheduler } from '../components/index.js';
import { RoutingDefaults } from './constants.js';
import type { RouteFlow } from './route-flow.js';

/** The marked paths a sweep withdraws: graceful restart's stale ones, or a refresh's. */
export interface SweepTarget {
  /** How many marked paths of the family are left. */
  count(afi: AfiCode): number;
  /** Withdraws at most `budget` of them; returns how many are left. */
  sweep(afi: AfiCode, budget: number): number;
}

/**
 * Withdraws marked paths of the families added, a slice per turn of the event loop, so that
 * keepalives keep flowing while a large table goes.
 */
export class FamilySweep {
  readonly #clock: Scheduler;
  readonly #flow: RouteFlow;
  readonly #target: SweepTarget;
  readonly #families = new Set<AfiCode>();
  #sliceQueued = false;
  #stopped = false;

  constructor(clock: Scheduler, flow: RouteFlow, target: SweepTarget) {
    this.#clock = clock;
    this.#flow = flow;
    this.#target = target;
  }

  get size(): number {
    return this.#families.size;
  }

  has(afi: AfiCode): boolean {
    return this.#families.has(afi);
  }

  families(): AfiCode[] {
    return [...this.#families];
  }

  /** Starts (or goes on) sweeping the family; the first slice runs now. */
  add(afi: AfiCode): void {
    this.#families.add(afi);
    if (!this.#sliceQueued) this.#slice();
  }

  /** Stops sweeping the family; what is left of it is the caller's. */
  delete(afi: AfiCode): boolean {
    return this.#families.delete(afi);
  }

  /** No more slices. */
  stop(): void {
    this.#stopped = true;
    this.#families.clear();
  }

  #slice(): void {
    this.#sliceQueued = false;
    if (this.#stopped) return;
    let budget: number = RoutingDefaults.CLEAR_SLICE_ROUTES;
    for (const afi of [...this.#families]) {
      const before = this.#target.count(afi);
      const left = this.#target.sweep(afi, budget);
      budget -= before - left;
      if (left === 0) this.#families.delete(afi);
      if (budget <= 0) break;
    }
    this.#flow.schedule();
    if (this.#families.size > 0) {
      this.#sliceQueued = true;
      this.#clock.defer(() => this.#slice());
    }
  }
}
