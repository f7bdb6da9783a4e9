import type { Clock, Logger, TimerHandle } from '../components/index.js';
import { formatPrefix, type OvnConfig, type OvsdbRemote } from '../config/index.js';
import {
  type AdvertisementDiff,
  localSystemId,
  type OvnDeriveConfig,
  OvnWatcher,
  type OvnWatcherStatus,
} from '../ovn/index.js';
import { MS_PER_SECOND } from './constants.js';
import type { LocalOrigin } from './local-origin.js';

/** Asking the local OVS for our chassis name again: doubling from the first to the last. */
const SYSTEM_ID_RETRY = { FIRST_MS: 1000, MAX_MS: 30_000 } as const;

/** What the OVN origin takes from the speaker. */
export interface OvnPublishingComponents {
  readonly log: Logger;
  /** The watcher's timers and the chassis-name lookup's retry. */
  readonly clock: Clock;
}

/** The configuration's ovn section as derivation takes it. */
export function deriveConfig(c: OvnConfig, chassis: string | undefined = c.chassis): OvnDeriveConfig {
  const r = c.routes;
  const select = r.tenantNetworks.select;
  return {
    source: c.source,
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
      nat: r.nat,
      lb: r.lb,
      connected: r.connected,
      static: r.static,
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
  readonly #clock: Clock;
  #watcher: OvnWatcher | undefined;
  /** Local mode without ovn.chassis: the lookup of our chassis name, retried until it answers. */
  #lookup: { timer: TimerHandle | undefined; error?: string } | undefined;
  #closed = false;
  readonly #refused = new Set<string>();
  /** The first diff of a new watcher is the whole set: it replaces what the origin holds. */
  #first = true;
  #ready: () => void = () => {};
  /** Resolves once the first derivation is in the origin (a graceful restart waits for it). */
  readonly ready: Promise<void> = new Promise((resolve) => {
    this.#ready = resolve;
  });

  constructor(config: OvnConfig, origin: LocalOrigin, components: OvnPublishingComponents) {
    this.#config = config;
    this.#origin = origin;
    this.#log = components.log;
    this.#clock = components.clock;
  }

  get config(): OvnConfig {
    return this.#config;
  }

  /** The watcher's status; undefined before it runs (local mode still asking OVS for our chassis name). */
  get status(): OvnWatcherStatus | undefined {
    return this.#watcher?.status;
  }

  /** Why the last lookup of our chassis name failed, while it is being retried. */
  get chassisLookupError(): string | undefined {
    return this.#lookup?.error;
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
      { logger: this.#log, clock: this.#clock },
    );
    this.#watcher.start();
    this.#log.info(
      {
        nb: remotes(c.nb),
        sb: remotes(c.sb),
        mode: c.mode,
        source: c.source,
        ...(chassis !== undefined && { chassis }),
      },
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
      lookup.timer = this.#clock.setTimeout(() => void this.#lookUpChassis(next), retryMs);
    }
  }

  /** Stops watching; the routes stay in the origin until `withdrawAll` (a reload keeps them). */
  async close(): Promise<void> {
    this.#closed = true;
    const timer = this.#lookup?.timer;
    if (timer !== undefined) this.#clock.clearTimeout(timer);
    await this.#watcher?.close();
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
