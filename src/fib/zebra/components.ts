/* The narrow components the zebra shell takes, so tests can pass their own clock and logger. */

export type TimerHandle = unknown;

export interface Clock {
  now(): number;
  setTimeout(fn: () => void, ms: number): TimerHandle;
  clearTimeout(handle: TimerHandle): void;
}

export const systemClock: Clock = {
  now: () => Date.now(),
  setTimeout: (fn, ms) => {
    const t = setTimeout(fn, ms);
    // A reconnect timer must never keep the process alive on its own.
    t.unref();
    return t;
  },
  clearTimeout: (handle) => clearTimeout(handle as ReturnType<typeof setTimeout>),
};

type LogFn = (obj: object | string, msg?: string) => void;

/** The subset of pino the client logs through: `log.warn({socket}, 'text')`. */
export interface Logger {
  readonly debug: LogFn;
  readonly info: LogFn;
  readonly warn: LogFn;
  readonly error: LogFn;
}

const nothing: LogFn = () => {};
export const silentLogger: Logger = { debug: nothing, info: nothing, warn: nothing, error: nothing };

export interface ZebraComponents {
  readonly clock?: Clock;
  readonly logger?: Logger;
  /** Uniform in [0, 1): the reconnect jitter. */
  readonly random?: () => number;
}
