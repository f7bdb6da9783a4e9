/* The narrow components the OVSDB shells take, so tests can pass fakes (no real timers). */

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
    // Timers of a client must never keep a process alive on their own.
    t.unref?.();
    return t;
  },
  clearTimeout: (handle) => clearTimeout(handle as ReturnType<typeof setTimeout>),
};

type LogFn = (obj: object | string, msg?: string) => void;

/** The subset of pino the client logs through: `log.warn({remote}, 'text')`. */
export interface Logger {
  readonly info: LogFn;
  readonly warn: LogFn;
  readonly error: LogFn;
  readonly debug: LogFn;
}

const nothing: LogFn = () => {};
export const silentLogger: Logger = { info: nothing, warn: nothing, error: nothing, debug: nothing };

/** The byte stream a connection runs over: what net.Socket and tls.TLSSocket offer. */
export interface Channel {
  write(data: string): boolean;
  destroy(error?: Error): void;
  on(event: 'data', listener: (chunk: Buffer) => void): unknown;
  on(event: 'error', listener: (error: Error) => void): unknown;
  on(event: 'close', listener: () => void): unknown;
}
