/**
 * The liveness of the event loop, from a timer that should fire every `tickMs`: how late each
 * turn came is how long the loop was busy. A turn later than the bound is a stall, remembered
 * for a window so a probe that asks after the loop turned again still hears of it.
 */
import type { LoopReport } from '../api/index.js';
import type { Clock, TimerHandle } from '../components/index.js';

/** Lags seen, newest last, kept while the window may still report them. Pure: times are given. */
export class LagLog {
  /** [ended at, lag] pairs; only lags past `floorMs` are kept (the rest is noise). */
  readonly #lags: [number, number][] = [];
  readonly #floorMs: number;

  constructor(floorMs: number) {
    this.#floorMs = floorMs;
  }

  /** A turn came `lagMs` late, ending at `now`. */
  record(now: number, lagMs: number, windowMs: number): void {
    this.#prune(now, windowMs);
    if (lagMs > this.#floorMs) this.#lags.push([now, lagMs]);
  }

  /** The worst lag that ended within the window, and how long ago it ended; 0 when none. */
  report(now: number, windowMs: number): LoopReport {
    this.#prune(now, windowMs);
    let worst: [number, number] | undefined;
    for (const l of this.#lags) if (!worst || l[1] >= worst[1]) worst = l;
    return worst ? { worstLagMs: worst[1], agoMs: now - worst[0] } : { worstLagMs: 0, agoMs: 0 };
  }

  #prune(now: number, windowMs: number): void {
    let drop = 0;
    while (drop < this.#lags.length && now - this.#lags[drop]![0] > windowMs) drop++;
    if (drop > 0) this.#lags.splice(0, drop);
  }
}

export interface LoopWatchInit {
  /** How often the timer should fire. */
  readonly tickMs: number;
  /** The window a stall stays reported; read at each tick and report (a reload may change it). */
  readonly windowMs: () => number;
}

/** The timer and its log; runs from start() to stop() without keeping the process alive. */
export class LoopWatch {
  readonly #clock: Clock;
  readonly #init: LoopWatchInit;
  readonly #log: LagLog;
  #timer: TimerHandle | undefined;
  #due = 0;

  constructor(clock: Clock, init: LoopWatchInit) {
    this.#clock = clock;
    this.#init = init;
    this.#log = new LagLog(init.tickMs);
  }

  start(): void {
    if (this.#timer !== undefined) return;
    this.#arm();
  }

  stop(): void {
    this.#clock.clearTimeout(this.#timer);
    this.#timer = undefined;
  }

  report(): LoopReport {
    return this.#log.report(this.#clock.now(), this.#init.windowMs());
  }

  #arm(): void {
    this.#due = this.#clock.now() + this.#init.tickMs;
    this.#timer = this.#clock.setTimeout(() => this.#tick(), this.#init.tickMs);
  }

  #tick(): void {
    const now = this.#clock.now();
    this.#log.record(now, Math.max(0, now - this.#due), this.#init.windowMs());
    this.#arm();
  }
}
