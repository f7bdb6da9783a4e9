import type { Config } from './schema.js';

/**
 * Settings this version accepts (so a file written for a later one still loads) but does not
 * act on yet, or not in the combination given. `run` logs these at start and `check-config`
 * prints them, from this one list, so an operator learns it before relying on the setting.
 */
const NOT_ACTED_ON: readonly {
  readonly applies: (c: Config) => boolean;
  readonly warning: (c: Config) => string;
}[] = [
  {
    // RFC 9494 section 3: the long-lived capability goes only beside graceful restart's.
    applies: (c) => !c.speaker.gracefulRestart.enabled && longLivedPeers(c).length > 0,
    warning: (c) =>
      `peers[].long_lived_stale_time is not used without speaker.graceful_restart (peers ${longLivedPeers(c).join(', ')}): ` +
      'long-lived graceful restart (RFC 9494) is not offered and their routes are withdrawn at once',
  },
  {
    // A dynamic neighbour is forgotten when its session ends, routes and all.
    applies: (c) => c.peerTemplates.some((t) => t.longLivedStaleTime !== undefined),
    warning: (c) =>
      `peer_templates.NAME.long_lived_stale_time keeps no routes of a dynamic neighbour (templates ${c.peerTemplates
        .filter((t) => t.longLivedStaleTime !== undefined)
        .map((t) => t.name)
        .join(
          ', ',
        )}): it is forgotten, its routes withdrawn, when its session ends; only the time offered to it applies`,
  },
];

function longLivedPeers(c: Config): string[] {
  return c.peers.filter((p) => p.longLivedStaleTime !== undefined).map((p) => p.name);
}

/** One sentence per setting in `config` the speaker accepts but does not act on yet. */
export function notActedOnWarnings(config: Config): string[] {
  return NOT_ACTED_ON.filter((s) => s.applies(config)).map((s) => s.warning(config));
}
