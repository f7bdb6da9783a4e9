import type { Config, PeerConfig } from '../config/index.js';
import { compilePolicies, effectivePolicy, type PeerPolicies, type Policy } from '../policy/index.js';

/** Every policy of a configuration, compiled once and shared by the peers that name it. */
export type CompiledPolicies = ReadonlyMap<string, Policy>;

/**
 * Compiles the configuration's policies. The configuration was checked against the same
 * compiler when it was loaded, so this does not fail for a configuration that loaded.
 */
export function compileConfigPolicies(config: Config): CompiledPolicies {
  return compilePolicies(config.policy, { localAs: config.speaker.localAs });
}

/**
 * A peer's import and export filters: its chains of named policies, or the RFC 8212 default
 * (an eBGP peer without policy gets and gives nothing) with the warning to log.
 */
export function peerPolicies(peer: PeerConfig, compiled: CompiledPolicies): PeerPolicies {
  const pick = (names: readonly string[]) => names.map((n) => compiled.get(n)!);
  return effectivePolicy({
    id: peer.name,
    ebgp: peer.type === 'ebgp',
    import: peer.import.length > 0 ? pick(peer.import) : undefined,
    export: peer.export.length > 0 ? pick(peer.export) : undefined,
  });
}
