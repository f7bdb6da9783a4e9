/** A later turn of the event loop: timers and I/O run before it (between slices of long work). */
export const nextTurn = (): Promise<void> => new Promise((resolve) => setImmediate(resolve));

/**
 * Counts the iterations of a long loop in async code and hands out a promise of the next turn
 * every `every` of them: `const p = pace.tick(); if (p) await p;` keeps each turn short
 * without a microtask per iteration.
 */
export class Pacer {
  readonly #every: number;
  #n = 0;

  constructor(every: number) {
    this.#every = every;
  }

  tick(): Promise<void> | undefined {
    return ++this.#n % this.#every === 0 ? nextTurn() : undefined;
  }
}
