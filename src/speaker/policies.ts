import type { Config, MaxPrefixes, PeerConfig } from '../config/index.js';
import {
  compilePolicies,
  effectivePolicy,
  type MaxPrefixConfig,
  type PeerPolicies,
  type Policy,
} from '../policy/index.js';

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

/** The configuration's max-prefix setting as the guard takes it (restart_after 0: stay down). */
export function maxPrefixConfig(m: MaxPrefixes): MaxPrefixConfig {
  return {
    limit: m.limit,
    warningOnly: m.warningOnly,
    warningThresholdPercent: m.warningThreshold,
    ...(m.restartAfter > 0 && { restartAfterSeconds: m.restartAfter }),
  };
}
