import type { OvnStatsView, OvnView } from '../api/index.js';
import type { Logger } from '../components/index.js';
import { formatPrefix, type OvnConfig, type OvsdbRemote } from '../config/index.js';
import {
  type Advertisement,
  type AdvertisementDiff,
  type OvnDeriveConfig,
  OvnWatcher,
  type OvnWatcherStatus,
} from '../ovn/index.js';
import type { LocalOrigin } from '../routing/index.js';

/** The route kinds as `show ovn` names them. */
const KIND_NAMES: Readonly<Record<Advertisement['kind'], string>> = {
  floatingIps: 'floating-ip',
  tenantNetworks: 'tenant-network',
  loadBalancerVips: 'lb-vip',
  providerPorts: 'provider-port',
  podSubnets: 'pod-subnet',
  serviceVips: 'service-vip',
};

/** The configuration's ovn section as derivation takes it. */
export function deriveConfig(c: OvnConfig): OvnDeriveConfig {
  const r = c.routes;
  const select = r.tenantNetworks.select;
  return {
    mode: c.mode,
    ...(c.chassis !== undefined && { localChassis: c.chassis }),
    localNextHop: c.localNextHop,
    chassisNextHops: Object.fromEntries(c.chassisNextHops),
    kinds: {
      floatingIps: r.floatingIps,
      tenantNetworks: {
        ...r.tenantNetworks,
        select:
          select.kind === 'all'
            ? 'all'
            : select.kind === 'marker'
              ? { marker: select.marker }
              : { prefixes: select.prefixes.map(formatPrefix) },
      },
      loadBalancerVips: r.loadBalancerVips,
      providerPorts: r.providerPorts,
      podSubnets: r.podSubnets,
      serviceVips: r.serviceVips,
    },
  };
}

const remotes = (list: readonly OvsdbRemote[]) => list.map((r) => r.text);

/**
 * OVN as an origin of routes: the watcher's diffs become the `ovn` origin's paths in the RIB.
 * A diff's announce of a prefix already held replaces its path (a gateway failover is one
 * UPDATE at the peers); a route that cannot be originated is logged once and skipped.
 */
export class OvnPublishing {
  readonly #config: OvnConfig;
  readonly #origin: LocalOrigin;
  readonly #log: Logger;
  readonly #watcher: OvnWatcher;
  readonly #refused = new Set<string>();
  /** The first diff of a new watcher is the whole set: it replaces what the origin holds. */
  #first = true;

  constructor(config: OvnConfig, origin: LocalOrigin, log: Logger) {
    this.#config = config;
    this.#origin = origin;
    this.#log = log;
    this.#watcher = new OvnWatcher(
      {
        config: deriveConfig(config),
        nb: { remotes: remotes(config.nb) },
        sb: { remotes: remotes(config.sb) },
        coalesceMs: config.coalesceMs,
        holdTimeMs: config.holdTime * 1000,
        onChange: (diff) => this.#apply(diff),
      },
      { logger: log },
    );
  }

  start(): void {
    this.#watcher.start();
    this.#log.info(
      { nb: remotes(this.#config.nb), sb: remotes(this.#config.sb), mode: this.#config.mode },
      'watching OVN',
    );
  }

  /** Stops watching; the routes stay in the origin until `withdrawAll` (a reload keeps them). */
  async close(): Promise<void> {
    await this.#watcher.close();
  }

  view(): OvnView {
    const s: OvnWatcherStatus = this.#watcher.status;
    const counts: Record<string, number> = {};
    for (const [k, n] of Object.entries(s.counts)) counts[KIND_NAMES[k as Advertisement['kind']]] = n;
    return {
      mode: `${this.#config.mode} (${s.state})`,
      nb: `${s.nb.state} (${remotes(this.#config.nb).join(',')})`,
      sb: `${s.sb.state} (${remotes(this.#config.sb).join(',')})`,
      routes: s.advertisements.map((a) => ({
        prefix: a.prefix,
        nextHop: a.nextHop,
        kind: KIND_NAMES[a.kind],
        origin: a.origin,
        why: a.why,
      })),
      problems: s.problems.map((p) => ({ kind: p.kind, origin: p.origin, message: p.message })),
      counts,
      lastDerivationMs: s.lastDerivationMs,
    };
  }

  stats(): OvnStatsView {
    const s: OvnWatcherStatus = this.#watcher.status;
    const routes: Record<string, number> = {};
    for (const [k, n] of Object.entries(s.counts)) routes[KIND_NAMES[k as Advertisement['kind']]] = n;
    const problems: Record<string, number> = {};
    for (const p of s.problems) problems[p.kind] = (problems[p.kind] ?? 0) + 1;
    return {
      connected: { nb: s.nb.state === 'synced', sb: s.sb.state === 'synced' },
      routes,
      problems,
      lastDerivationMs: s.lastDerivationMs,
      ...(s.lastChangeMs !== undefined && { lastChangeMs: s.lastChangeMs }),
    };
  }

  #apply(diff: AdvertisementDiff): void {
    if (this.#first) {
      this.#first = false;
      const keep = new Set(diff.announce.map((a) => a.prefix));
      for (const p of [...this.#origin.prefixes()]) if (!keep.has(p)) this.#origin.withdraw(p);
    }
    for (const a of diff.withdraw) this.#origin.withdraw(a.prefix);
    for (const a of diff.announce) {
      try {
        this.#origin.announce(a);
      } catch (error) {
        if (this.#refused.has(a.prefix)) continue;
        this.#refused.add(a.prefix);
        this.#log.warn({ prefix: a.prefix, error: String(error) }, 'OVN route not originated');
      }
    }
  }
}
