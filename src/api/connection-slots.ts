/**
 * How many control connections are served at once. A slot is taken when a connection is
 * accepted and given back exactly once, however the connection ends (closed by either side,
 * destroyed on error, dropped at shutdown): a count that leaked one slot per odd ending would
 * in time refuse every client while the speaker runs on.
 */

export interface Slot {
  /** Gives the slot back; calling it again does nothing. */
  release(): void;
}

export class ConnectionSlots {
  readonly #max: number;
  #used = 0;

  constructor(max: number) {
    if (!Number.isInteger(max) || max < 1)
      throw new RangeError(`maxConnections: expected an integer >= 1, got ${max}`);
    this.#max = max;
  }

  get max(): number {
    return this.#max;
  }

  /** Slots held now. */
  get used(): number {
    return this.#used;
  }

  /** A slot, or undefined when all are held: the caller refuses the connection. */
  take(): Slot | undefined {
    if (this.#used >= this.#max) return undefined;
    this.#used += 1;
    let held = true;
    return {
      release: () => {
        if (!held) return;
        held = false;
        this.#used -= 1;
      },
    };
  }
}
