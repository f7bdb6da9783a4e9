import type { Scheduler, TimerHandle } from '../../components/index.js';
import { type StartTimerAction, type Timer, timerDurationMs } from '../fsm/index.js';

interface Armed {
  handle: TimerHandle;
  readonly ms: number;
  /** When it expires (scheduler time); later than the handle's own time after a re-arm. */
  due: number;
}

/**
 * The real timers behind an FSM's `start-timer` / `stop-timer` actions. Each timer runs at
 * most once at a time; `fire` gets the timer's name when it expires.
 */
export class TimerBank {
  readonly #scheduler: Scheduler;
  readonly #random: () => number;
  readonly #fire: (timer: Timer) => void;
  readonly #handles = new Map<Timer, Armed>();

  constructor(scheduler: Scheduler, random: () => number, fire: (timer: Timer) => void) {
    this.#scheduler = scheduler;
    this.#random = random;
    this.#fire = fire;
  }

  /** Arms the timer of a start-timer action, with RFC 4271 section 10 jitter when it asks. */
  start(action: StartTimerAction): void {
    this.arm(action.timer, timerDurationMs(action, this.#random));
  }

  /**
   * (Re)arms a timer for `ms`. Re-arming a running timer for the same duration (the hold
   * timer, at every message) only moves its deadline: when the old callback comes it waits
   * out the rest, instead of a clearTimeout and a setTimeout per message.
   */
  arm(timer: Timer, ms: number): void {
    const due = this.#scheduler.now() + ms;
    const running = this.#handles.get(timer);
    if (running && running.ms === ms && due >= running.due) {
      running.due = due;
      return;
    }
    this.stop(timer);
    const entry: Armed = { handle: undefined, ms, due };
    const expire = () => {
      if (this.#handles.get(timer) !== entry) return;
      const left = entry.due - this.#scheduler.now();
      if (left > 0) {
        entry.handle = this.#scheduler.setTimeout(expire, left);
        return;
      }
      this.#handles.delete(timer);
      this.#fire(timer);
    };
    entry.handle = this.#scheduler.setTimeout(expire, ms);
    this.#handles.set(timer, entry);
  }

  /** Milliseconds until the timer expires, while it runs. */
  leftMs(timer: Timer): number | undefined {
    const h = this.#handles.get(timer);
    return h === undefined ? undefined : Math.max(0, h.due - this.#scheduler.now());
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
