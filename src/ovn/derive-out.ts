import type { HopResult } from './derive-nexthop.js';
import type { Advertisement, OvnDeriveConfig, OvnOrigin, OvnProblem, OvnRouteKind } from './types.js';

/* What one unit of derivation gives: its routes and its problems, deduplicated by prefix. */

export interface UnitResult {
  readonly ads: readonly Advertisement[];
  readonly problems: readonly OvnProblem[];
}

export class Out {
  readonly ads: Advertisement[] = [];
  readonly problems: OvnProblem[] = [];
  /** Prefixes given, once there are many (a load balancer of 1,000 VIPs); a few are searched. */
  #seen: Set<string> | undefined;
  readonly #cfg: OvnDeriveConfig;

  constructor(cfg: OvnDeriveConfig) {
    this.#cfg = cfg;
  }

  route(kind: OvnRouteKind, prefix: string, hop: HopResult, origin: OvnOrigin): void {
    if (!hop.ok) {
      if (hop.problem) this.problem(hop.problem, origin, `${prefix}: ${hop.message}`);
      return;
    }
    // The same prefix twice from one object (a VIP on the router and on its switch) is one route.
    if (this.#seen ? this.#seen.has(prefix) : this.ads.some((a) => a.prefix === prefix)) return;
    if (this.#seen) this.#seen.add(prefix);
    else if (this.ads.length >= 16) this.#seen = new Set([...this.ads.map((a) => a.prefix), prefix]);
    const k = this.#cfg.kinds[kind];
    this.ads.push({
      prefix,
      nextHop: hop.nextHop,
      kind,
      origin,
      why: hop.why,
      communities: k.communities,
      largeCommunities: k.largeCommunities,
    });
  }

  problem(kind: string, origin: OvnOrigin, message: string): void {
    this.problems.push({ kind, origin, message });
  }
}
