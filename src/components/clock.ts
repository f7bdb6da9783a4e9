/*
 * Time as every shell takes it, so tests run any of them on a fake clock: nothing that takes
 * components calls Date.now, new Date or a bare setTimeout.
 */

export type TimerHandle = unknown;

/** How a timer weighs on the process's lifetime. */
export interface TimerOptions {
  /**
   * The pending timer alone keeps the process alive (default false): for a wait that stands in
   * for a handle that does not, such as a request in flight on a socket left unref'd so that an
   * idle one never holds the process.
   */
  readonly keepAlive?: boolean;
}

/** Milliseconds and one-shot timers. */
export interface Clock {
  now(): number;
  setTimeout(fn: () => void, ms: number, options?: TimerOptions): TimerHandle;
  clearTimeout(handle: TimerHandle): void;
}

/** A clock that can also yield: where long work gives way to pending I/O. */
export interface Scheduler extends Clock {
  /** Runs `fn` after pending I/O. */
  defer(fn: () => void): void;
}

function systemTimer(fn: () => void, ms: number, options?: TimerOptions): TimerHandle {
  const t = setTimeout(fn, ms);
  // A timer does not keep the process alive on its own unless asked to; sockets and servers do.
  if (options?.keepAlive !== true) t.unref();
  return t;
}

const clearTimer = (handle: TimerHandle) => clearTimeout(handle as ReturnType<typeof setTimeout>);

/** Wall-clock milliseconds since the epoch: for times shown to an operator (last change, last error). */
export const systemClock: Clock = {
  now: () => Date.now(),
  setTimeout: systemTimer,
  clearTimeout: clearTimer,
};

/** Monotonic milliseconds: for protocol timers, which a wall-clock step must not fire or stall. */
export const systemScheduler: Scheduler = {
  now: () => performance.now(),
  setTimeout: systemTimer,
  clearTimeout: clearTimer,
  defer: (fn) => {
    setImmediate(fn);
  },
};
