import type { Config } from './schema.js';

/**
 * Settings this version accepts (so a file written for a later one still loads) but does not
 * act on yet. `run` logs these at start and `check-config` prints them, from this one list, so
 * an operator learns it before relying on the setting.
 */
const NOT_ACTED_ON: readonly { readonly applies: (c: Config) => boolean; readonly warning: string }[] = [
  {
    applies: (c) => c.speaker.gracefulRestart.enabled,
    warning:
      'speaker.graceful_restart is not supported yet: the capability (RFC 4724) is not advertised, ' +
      "restart_time and stale_routes_time are not used, and a restarting peer's routes are withdrawn at once",
  },
];

/** One sentence per setting in `config` the speaker accepts but does not act on yet. */
export function notActedOnWarnings(config: Config): string[] {
  return NOT_ACTED_ON.filter((s) => s.applies(config)).map((s) => s.warning);
}
