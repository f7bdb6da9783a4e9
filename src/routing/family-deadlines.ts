import type { AfiCode } from '../bgp/wire/index.js';
import type { Scheduler, TimerHandle } from '../components/index.js';

/**
 * A deadline per address family behind one timer, armed for the earliest: graceful restart's
 * phases and route refresh's wait for an EoRR each keep one per family and act on those due.
 */
export class FamilyDeadlines {
  readonly #clock: Scheduler;
  /** Called with the families whose deadline has passed; the one timer is re-armed after. */
  readonly #due: (families: readonly AfiCode[]) => void;
  readonly #at = new Map<AfiCode, number>();
  #timer: TimerHandle | null = null;
  #stopped = false;

  constructor(clock: Scheduler, due: (families: readonly AfiCode[]) => void) {
    this.#clock = clock;
    this.#due = due;
  }

  get size(): number {
    return this.#at.size;
  }

  has(afi: AfiCode): boolean {
    return this.#at.has(afi);
  }

  families(): AfiCode[] {
    return [...this.#at.keys()];
  }

  /** The earliest deadline (the clock's milliseconds), or now when none is set. */
  earliest(): number {
    return this.#at.size > 0 ? Math.min(...this.#at.values()) : this.#clock.now();
  }

  /** Sets a family's deadline; `rearm` once the changes are made. */
  set(afi: AfiCode, at: number): void {
    this.#at.set(afi, at);
  }

  /** Drops a family's deadline; `rearm` once the changes are made. */
  delete(afi: AfiCode): boolean {
    return this.#at.delete(afi);
  }

  /** Arms the one timer for the earliest deadline, or none when none is set. */
  rearm(): void {
    this.#stopTimer();
    if (this.#stopped || this.#at.size === 0) return;
    this.#timer = this.#clock.setTimeout(
      () => {
        this.#timer = null;
        this.#fire();
      },
      Math.max(0, this.earliest() - this.#clock.now()),
    );
  }

  /** No deadline and no timer from now on. */
  stop(): void {
    this.#stopped = true;
    this.#stopTimer();
    this.#at.clear();
  }

  #fire(): void {
    const now = this.#clock.now();
    const due: AfiCode[] = [];
    for (const [afi, at] of this.#at) if (at <= now) due.push(afi);
    this.#due(due);
    this.rearm();
  }

  #stopTimer(): void {
    if (this.#timer !== null) this.#clock.clearTimeout(this.#timer);
    this.#timer = null;
  }
}
