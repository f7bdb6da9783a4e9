type LogFn = (obj: object | string, msg?: string) => void;

/** The subset of pino every shell logs through: `log.warn({peer}, 'text')`. */
export interface Logger {
  readonly debug: LogFn;
  readonly info: LogFn;
  readonly warn: LogFn;
  readonly error: LogFn;
  /** pino's child loggers; used when present so every line names its peer, remote or sink. */
  readonly child?: (bindings: Record<string, unknown>) => Logger;
}

const nothing: LogFn = () => {};
export const silentLogger: Logger = { debug: nothing, info: nothing, warn: nothing, error: nothing };

export function childLogger(log: Logger, bindings: Record<string, unknown>): Logger {
  return log.child ? log.child(bindings) : log;
}
