import type { OvnPathView, OvnStatsView, OvnView } from '../api/index.js';
import type { Logger } from '../components/index.js';
import { formatPrefix, type OvnConfig, type OvsdbRemote } from '../config/index.js';
import {
  type Advertisement,
  type AdvertisementDiff,
  localSystemId,
  type OvnDeriveConfig,
  OvnWatcher,
  type OvnWatcherStatus,
} from '../ovn/index.js';

/** Asking the local OVS for our chassis name again: doubling from the first to the last. */
const SYSTEM_ID_RETRY = { FIRST_MS: 1000, MAX_MS: 30_000 } as const;
const MS_PER_SECOND = 1000;

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
export function deriveConfig(c: OvnConfig, chassis: string | undefined = c.chassis): OvnDeriveConfig {
  const r = c.routes;
  const select = r.tenantNetworks.select;
  return {
    mode: c.mode,
    ...(chassis !== undefined && { localChassis: chassis }),
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
  #watcher: OvnWatcher | undefined;
  /** Local mode without ovn.chassis: the lookup of our chassis name, retried until it answers. */
  #lookup: { timer: ReturnType<typeof setTimeout> | undefined; error?: string } | undefined;
  #closed = false;
  readonly #refused = new Set<string>();
  /** The first diff of a new watcher is the whole set: it replaces what the origin holds. */
  #first = true;
  #ready: () => void = () => {};
  /** Resolves once the first derivation is in the origin (a graceful restart waits for it). */
  readonly ready: Promise<void> = new Promise((resolve) => {
    this.#ready = resolve;
  });

  constructor(config: OvnConfig, origin: LocalOrigin, log: Logger) {
    this.#config = config;
    this.#origin = origin;
    this.#log = log;
  }

  start(): void {
    if (this.#config.mode === 'local' && this.#config.chassis === undefined) {
      this.#lookup = { timer: undefined };
      void this.#lookUpChassis(SYSTEM_ID_RETRY.FIRST_MS);
      return;
    }
    this.#watch(this.#config.chassis);
  }

  #watch(chassis: string | undefined): void {
    const c = this.#config;
    const tls = c.ssl;
    this.#watcher = new OvnWatcher(
      {
        config: deriveConfig(c, chassis),
        nb: { remotes: remotes(c.nb), ...(tls && { tls }) },
        sb: { remotes: remotes(c.sb), ...(tls && { tls }) },
        coalesceMs: c.coalesceMs,
        holdTimeMs: c.holdTime * MS_PER_SECOND,
        onChange: (diff) => this.#apply(diff),
      },
      { logger: this.#log },
    );
    this.#watcher.start();
    this.#log.info(
      { nb: remotes(c.nb), sb: remotes(c.sb), mode: c.mode, ...(chassis !== undefined && { chassis }) },
      'watching OVN',
    );
  }

  /** Our chassis from the local Open_vSwitch row; OVS may start after us, so keep asking. */
  async #lookUpChassis(retryMs: number): Promise<void> {
    const lookup = this.#lookup!;
    try {
      const chassis = await localSystemId(this.#config.ovs, { logger: this.#log });
      if (this.#closed) return;
      this.#lookup = undefined;
      this.#watch(chassis);
    } catch (error) {
      if (this.#closed) return;
      const message = String(error);
      if (lookup.error !== message)
        this.#log.warn({ ovs: this.#config.ovs, error: message }, 'cannot read our chassis name; retrying');
      lookup.error = message;
      const next = Math.min(retryMs * 2, SYSTEM_ID_RETRY.MAX_MS);
      lookup.timer = setTimeout(() => void this.#lookUpChassis(next), retryMs);
      lookup.timer.unref();
    }
  }

  /** Stops watching; the routes stay in the origin until `withdrawAll` (a reload keeps them). */
  async close(): Promise<void> {
    this.#closed = true;
    clearTimeout(this.#lookup?.timer);
    await this.#watcher?.close();
  }

  view(): OvnView {
    const s = this.#watcher?.status;
    if (!s) return { ...this.#waiting(), routes: [], problems: [], counts: {} };
    const counts: Record<string, number> = {};
    for (const [k, n] of Object.entries(s.counts)) counts[KIND_NAMES[k as Advertisement['kind']]] = n;
    return {
      mode: `${this.#config.mode} (${s.state})`,
      nb: `${s.nb.state} (${'remote' in s.nb ? s.nb.remote : remotes(this.#config.nb).join(',')})`,
      sb: `${s.sb.state} (${'remote' in s.sb ? s.sb.remote : remotes(this.#config.sb).join(',')})`,
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

  /** Each advertised prefix with the OVN row it came from, for `show rib`. */
  paths(): Map<string, OvnPathView> {
    const out = new Map<string, OvnPathView>();
    for (const a of this.#watcher?.status.advertisements ?? [])
      out.set(a.prefix, { kind: KIND_NAMES[a.kind], origin: a.origin, why: a.why });
    return out;
  }

  /** Before the watcher runs: local mode still asking OVS for our chassis name. */
  #waiting(): Pick<OvnView, 'mode' | 'nb' | 'sb'> {
    const why = this.#lookup?.error ? `: ${this.#lookup.error}` : '';
    return {
      mode: `${this.#config.mode} (reading our chassis name from ${this.#config.ovs}${why})`,
      nb: `not started (${remotes(this.#config.nb).join(',')})`,
      sb: `not started (${remotes(this.#config.sb).join(',')})`,
    };
  }

  stats(): OvnStatsView {
    const s: OvnWatcherStatus | undefined = this.#watcher?.status;
    if (!s) return { connected: { nb: false, sb: false }, routes: {}, problems: {}, lastDerivationMs: 0 };
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
      queueMicrotask(this.#ready);
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
