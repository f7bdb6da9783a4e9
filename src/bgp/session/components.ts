/*
 * The narrow components the session shell takes, so tests can pass fakes: a scheduler for the
 * FSM timers (tests never sleep), a yield point for chunked work, a random source for RFC 4271
 * jitter, and a pino-compatible logger.
 */

export type TimerHandle = unknown;

export interface Scheduler {
  now(): number;
  setTimeout(fn: () => void, ms: number): TimerHandle;
  clearTimeout(handle: TimerHandle): void;
  /** Runs `fn` after pending I/O: where long work yields to the event loop. */
  defer(fn: () => void): void;
}

export const systemScheduler: Scheduler = {
  now: () => performance.now(),
  setTimeout: (fn, ms) => {
    const t = setTimeout(fn, ms);
    // Session timers never keep a process alive on their own; sockets do.
    t.unref();
    return t;
  },
  clearTimeout: (handle) => clearTimeout(handle as ReturnType<typeof setTimeout>),
  defer: (fn) => {
    setImmediate(fn);
  },
};

type LogFn = (obj: object | string, msg?: string) => void;

/** The subset of pino the shell logs through: `log.info({peer}, 'text')`. */
export interface Logger {
  readonly debug: LogFn;
  readonly info: LogFn;
  readonly warn: LogFn;
  readonly error: LogFn;
  /** pino's child loggers; used when present so every line names its peer. */
  readonly child?: (bindings: Record<string, unknown>) => Logger;
}

const nothing: LogFn = () => {};
export const silentLogger: Logger = { debug: nothing, info: nothing, warn: nothing, error: nothing };

export function childLogger(log: Logger, bindings: Record<string, unknown>): Logger {
  return log.child ? log.child(bindings) : log;
}
