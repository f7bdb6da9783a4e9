import type { Logger } from '../../components/index.js';
import type { Clock } from '../../ovsdb/index.js';
import { OVN_NB_DEFAULTS } from './constants.js';
import { OvnNbError } from './errors.js';

/**
 * The target's own reconcile, run on a timer until it succeeds: at once when asked to, then
 * with a delay doubling from `repairNextMs` to `repairMaxMs`. Each failure cause is logged once
 * until a run succeeds. `work` goes through the target's queue, so it never overlaps a call
 * of the driver's.
 */
export class RepairLoop {
  /** Runs that succeeded. */
  runs = 0;
  readonly #work: () => Promise<void>;
  readonly #clock: Clock;
  readonly #log: Logger;
  #timer: unknown;
  #delayMs: number = OVN_NB_DEFAULTS.repairFirstMs;
  #stopped = false;
  readonly #logged = new Set<string>();

  constructor(work: () => Promise<void>, clock: Clock, log: Logger) {
    this.#work = work;
    this.#clock = clock;
    this.#log = log;
  }

  /** Runs after the current delay; `now` runs it at once (a reconnect, the router appearing). */
  schedule(now = false): void {
    if (this.#stopped) return;
    if (this.#timer !== undefined) {
      if (!now) return;
      this.#clock.clearTimeout(this.#timer);
    }
    const delay = now ? OVN_NB_DEFAULTS.repairFirstMs : this.#delayMs;
    this.#timer = this.#clock.setTimeout(() => {
      this.#timer = undefined;
      this.#work().then(
        () => this.#succeeded(),
        (err: unknown) => this.#failed(err),
      );
    }, delay);
  }

  stop(): void {
    this.#stopped = true;
    if (this.#timer !== undefined) this.#clock.clearTimeout(this.#timer);
    this.#timer = undefined;
  }

  #succeeded(): void {
    this.runs++;
    this.#delayMs = OVN_NB_DEFAULTS.repairFirstMs;
    if (this.#logged.size > 0) this.#log.info({ sink: 'ovn-nb' }, 'ovn-nb: our rows are back in line');
    this.#logged.clear();
  }

  #failed(err: unknown): void {
    if (this.#stopped) return;
    const kind = err instanceof OvnNbError ? err.kind : 'rejected';
    if (!this.#logged.has(kind)) {
      this.#logged.add(kind);
      this.#log.warn(
        { sink: 'ovn-nb', error: (err as Error).message },
        'ovn-nb: reconciling our rows failed; retrying with back-off',
      );
    }
    this.#delayMs = Math.min(
      Math.max(OVN_NB_DEFAULTS.repairNextMs, this.#delayMs * 2),
      OVN_NB_DEFAULTS.repairMaxMs,
    );
    this.schedule();
  }
}
