import { HIDDEN } from './problem.js';
import type { Config, PeerAuth } from './schema.js';

/** The configuration with every password replaced, for logs and `show config`. */
export function redactConfig(config: Config): Config {
  const hide = <T extends { readonly auth: PeerAuth }>(p: T): T =>
    p.auth.type === 'md5' ? { ...p, auth: { ...p.auth, password: HIDDEN } } : p;
  return { ...config, peers: config.peers.map(hide), peerTemplates: config.peerTemplates.map(hide) };
}
