import { type StartTimerAction, type Timer, timerDurationMs } from '../fsm/index.js';
import type { Scheduler, TimerHandle } from './components.js';

/**
 * The real timers behind an FSM's `start-timer` / `stop-timer` actions. Each timer runs at
 * most once at a time; `fire` gets the timer's name when it expires.
 */
export class TimerBank {
  readonly #scheduler: Scheduler;
  readonly #random: () => number;
  readonly #fire: (timer: Timer) => void;
  readonly #handles = new Map<Timer, { handle: TimerHandle; ms: number }>();

  constructor(scheduler: Scheduler, random: () => number, fire: (timer: Timer) => void) {
    this.#scheduler = scheduler;
    this.#random = random;
    this.#fire = fire;
  }

  /** Arms the timer of a start-timer action, with RFC 4271 section 10 jitter when it asks. */
  start(action: StartTimerAction): void {
    this.arm(action.timer, timerDurationMs(action, this.#random));
  }

  /** (Re)arms a timer for `ms`. */
  arm(timer: Timer, ms: number): void {
    this.stop(timer);
    const handle = this.#scheduler.setTimeout(() => {
      if (this.#handles.get(timer)?.handle !== handle) return;
      this.#handles.delete(timer);
      this.#fire(timer);
    }, ms);
    this.#handles.set(timer, { handle, ms });
  }

  /** How long the timer was last armed for, while it runs. */
  durationOf(timer: Timer): number | undefined {
    return this.#handles.get(timer)?.ms;
  }

  stop(timer: Timer): void {
    const h = this.#handles.get(timer);
    if (!h) return;
    this.#scheduler.clearTimeout(h.handle);
    this.#handles.delete(timer);
  }

  stopAll(): void {
    for (const timer of [...this.#handles.keys()]) this.stop(timer);
  }

  running(): Timer[] {
    return [...this.#handles.keys()];
  }
}
