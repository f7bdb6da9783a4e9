/**
 * How often a route of ours may be put back after somebody else removed or replaced it: at
 * most `limit` times in any `windowMs`. Past that we stop, once, and leave the prefix to
 * whoever keeps taking it, so two programs never fight over a route; the next apply or
 * reconcile of that prefix starts it afresh.
 */
export type RepairVerdict = 'repair' | 'give-up' | 'given-up';

export class RepairBudget {
  readonly #limit: number;
  readonly #windowMs: number;
  readonly #book = new Map<number | string, { times: number[]; gaveUp: boolean }>();
  /** Repairs granted and prefixes given up on, since start: for status(). */
  granted = 0;
  gaveUp = 0;

  constructor(limit: number, windowMs: number) {
    this.#limit = limit;
    this.#windowMs = windowMs;
  }

  take(key: number | string, now: number): RepairVerdict {
    let entry = this.#book.get(key);
    if (!entry) {
      entry = { times: [], gaveUp: false };
      this.#book.set(key, entry);
    }
    if (entry.gaveUp) return 'given-up';
    entry.times = entry.times.filter((t) => now - t < this.#windowMs);
    if (entry.times.length >= this.#limit) {
      entry.gaveUp = true;
      this.gaveUp++;
      return 'give-up';
    }
    entry.times.push(now);
    this.granted++;
    return 'repair';
  }

  /** We installed the prefix anew (apply): its history no longer counts. */
  reset(key: number | string): void {
    if (this.#book.size > 0) this.#book.delete(key);
  }

  clear(): void {
    this.#book.clear();
  }
}
