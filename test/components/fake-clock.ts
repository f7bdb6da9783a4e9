/**
 * A Scheduler whose time moves only when a test says so (`advance`); deferred work and promise
 * callbacks run on the real event loop between the timers that fall due. No test sleeps.
 */
import type { Scheduler, TimerHandle, TimerOptions } from '../../src/components/index.js';

interface Timer {
  readonly at: number;
  readonly seq: number;
  readonly fn: () => void;
  readonly keepAlive: boolean;
}

export class FakeClock implements Scheduler {
  #now: number;
  #seq = 0;
  readonly #timers = new Set<Timer>();

  constructor(now = 1_000_000) {
    this.#now = now;
  }

  now(): number {
    return this.#now;
  }

  setTimeout(fn: () => void, ms: number, options?: TimerOptions): TimerHandle {
    const t = {
      at: this.#now + Math.max(0, ms),
      seq: this.#seq++,
      fn,
      keepAlive: options?.keepAlive === true,
    };
    this.#timers.add(t);
    return t;
  }

  clearTimeout(handle: TimerHandle): void {
    this.#timers.delete(handle as Timer);
  }

  defer(fn: () => void): void {
    setImmediate(fn);
  }

  /** Timers waiting, and how many of them would keep the process alive. */
  get pending(): { readonly timers: number; readonly keepAlive: number } {
    let keepAlive = 0;
    for (const t of this.#timers) if (t.keepAlive) keepAlive++;
    return { timers: this.#timers.size, keepAlive };
  }

  /** Moves time `ms` forward, firing due timers in time order with the event loop run between them. */
  async advance(ms: number): Promise<void> {
    const end = this.#now + ms;
    for (;;) {
      await turns();
      let due: Timer | undefined;
      for (const t of this.#timers)
        if (t.at <= end && (!due || t.at < due.at || (t.at === due.at && t.seq < due.seq))) due = t;
      if (!due) break;
      this.#timers.delete(due);
      this.#now = due.at;
      due.fn();
    }
    this.#now = end;
    await turns();
  }
}

/** Lets pending immediates and promise callbacks run. */
export async function turns(rounds = 5): Promise<void> {
  for (let i = 0; i < rounds; i++) await new Promise<void>((r) => setImmediate(r));
}
