type LogFn = (obj: object | string, msg?: string) => void;

/** The subset of pino the API logs through: `log.warn({peer}, 'text')`. */
export interface Logger {
  readonly debug: LogFn;
  readonly info: LogFn;
  readonly warn: LogFn;
  readonly error: LogFn;
}

const nothing: LogFn = () => {};
export const silentLogger: Logger = { debug: nothing, info: nothing, warn: nothing, error: nothing };
