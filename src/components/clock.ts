/*
 * Time as every shell takes it, so tests run any of them on a fake clock: nothing that takes
 * components calls Date.now, new Date or a bare setTimeout.
 */

export type TimerHandle = unknown;

/** Milliseconds and one-shot timers. */
export interface Clock {
  now(): number;
  setTimeout(fn: () => void, ms: number): TimerHandle;
  clearTimeout(handle: TimerHandle): void;
}

/** A clock that can also yield: where long work gives way to pending I/O. */
export interface Scheduler extends Clock {
  /** Runs `fn` after pending I/O. */
  defer(fn: () => void): void;
}

function unrefTimer(fn: () => void, ms: number): TimerHandle {
  const t = setTimeout(fn, ms);
  // A timer never keeps the process alive on its own; sockets and servers do.
  t.unref();
  return t;
}

const clearTimer = (handle: TimerHandle) => clearTimeout(handle as ReturnType<typeof setTimeout>);

/** Wall-clock milliseconds since the epoch: for times shown to an operator (last change, last error). */
export const systemClock: Clock = { now: () => Date.now(), setTimeout: unrefTimer, clearTimeout: clearTimer };

/** Monotonic milliseconds: for protocol timers, which a wall-clock step must not fire or stall. */
export const systemScheduler: Scheduler = {
  now: () => performance.now(),
  setTimeout: unrefTimer,
  clearTimeout: clearTimer,
  defer: (fn) => {
    setImmediate(fn);
  },
};
