import { AcceptAll, PolicyChain, RejectAll } from './chain.js';
import type { Policy } from './policy.js';
import type { RouteFilter } from './results.js';

export interface PeerPolicyInput {
  /** How logs name the peer: its configured name or address. */
  readonly id: string;
  readonly ebgp: boolean;
  readonly import?: readonly Policy[];
  readonly export?: readonly Policy[];
}

export interface PeerPolicies {
  readonly import: RouteFilter;
  readonly export: RouteFilter;
  /** Lines to log once when the peer is set up: why it receives or sends nothing. */
  readonly warnings: readonly string[];
}

export type Direction = 'import' | 'export';

/** The log line for an eBGP peer left without policy in one direction. */
export function rfc8212Reason(id: string, direction: Direction): string {
  return direction === 'import'
    ? `RFC 8212: no import policy configured for eBGP peer ${id}: rejecting all routes`
    : `RFC 8212: no export policy configured for eBGP peer ${id}: advertising no routes`;
}

/**
 * The filters a peer's routes go through. RFC 8212 section 2: an eBGP session with no import
 * policy accepts no routes and one with no export policy advertises none; the filter carries
 * the reason so every rejection, and the log, say why. iBGP sessions accept everything unless
 * configured otherwise.
 */
export function effectivePolicy(peer: PeerPolicyInput): PeerPolicies {
  const warnings: string[] = [];
  const pick = (direction: Direction, policies: readonly Policy[] | undefined): RouteFilter => {
    const name = `${direction} policy of peer ${peer.id}`;
    if (policies && policies.length === 1) return policies[0];
    if (policies && policies.length > 1) return new PolicyChain(name, policies);
    if (!peer.ebgp) return new AcceptAll(name);
    const reason = rfc8212Reason(peer.id, direction);
    warnings.push(reason);
    return new RejectAll(name, reason);
  };
  return { import: pick('import', peer.import), export: pick('export', peer.export), warnings };
}
