import { HIDDEN } from './problem.js';
import type { Config } from './schema.js';

/** The configuration with every password replaced, for logs and `show config`. */
export function redactConfig(config: Config): Config {
  return {
    ...config,
    peers: config.peers.map((p) =>
      p.auth.type === 'md5' ? { ...p, auth: { ...p.auth, password: HIDDEN } } : p,
    ),
  };
}
