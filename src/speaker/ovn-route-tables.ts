import type { Clock, Logger } from '../components/index.js';
import type { OvnRouteTableConfig, OvnRouteTablesConfig } from '../config/index.js';
import type { RouteTableState } from '../control/index.js';
import { KernelTableReader, KernelTarget } from '../fib/kernel/index.js';
import { RouterTables } from '../ovn/index.js';
import { PolicyChain } from '../policy/index.js';
import type { Rib } from '../rib/index.js';
import {
  connectedNetworks,
  type InterfaceTable,
  LocalOrigin,
  type RouteFlow,
  RouteTableOrigin,
} from '../routing/index.js';
import type { Forwarding } from './forwarding.js';
import type { CompiledPolicies } from './policies.js';

const MS_PER_SECOND = 1000;

export interface OvnRouteTablesComponents {
  readonly rib: Rib;
  readonly flow: RouteFlow;
  readonly forwarding: Forwarding;
  readonly clock: Clock;
  readonly log: Logger;
  /** Our interfaces' addresses (os.networkInterfaces). */
  readonly interfaces: () => InterfaceTable;
}

/** The parts that follow one table while its number is known. */
interface Running {
  readonly table: number;
  readonly reader: KernelTableReader;
  readonly sink: string | undefined;
}

/**
 * OVN 25.03's route exchange on a chassis, built from `ovn_route_tables`: per router (or
 * table) a reader of the kernel table ovn-controller fills, whose routes a RouteTableOrigin
 * advertises, and, when `learn` names policies, a kernel sink writing the routes learned from
 * peers into that same table (protocol bgp) for ovn-controller to turn into Learned_Route
 * rows. A router named rather than numbered is looked up in the Southbound, and followed
 * anew if its table number changes.
 */
export class OvnRouteTables {
  readonly #config: OvnRouteTablesConfig;
  readonly #c: OvnRouteTablesComponents;
  readonly #policies: CompiledPolicies;
  readonly #origin: LocalOrigin;
  readonly #origins = new Map<string, RouteTableOrigin>();
  readonly #running = new Map<string, Running>();
  readonly #lookup: RouterTables | undefined;
  #closed = false;
  /** This host's connected networks, read at most once a second (a burst of routes asks many times). */
  #networks: { readonly at: number; readonly set: ReadonlySet<string> } | undefined;

  constructor(
    config: OvnRouteTablesConfig,
    policies: CompiledPolicies,
    origin: LocalOrigin,
    components: OvnRouteTablesComponents,
  ) {
    this.#config = config;
    this.#policies = policies;
    this.#c = components;
    this.#origin = origin;
    for (const t of config.tables)
      this.#origins.set(
        t.name,
        new RouteTableOrigin(
          {
            name: t.name,
            preference: config.preference,
            localMetric: config.localMetric,
            prepend: config.prepend,
            holdTimeMs: config.holdTime * MS_PER_SECOND,
            communities: config.communities,
            largeCommunities: config.largeCommunities,
            connected: (prefix) => this.#connected().has(prefix),
          },
          origin,
          components.clock,
        ),
      );
    const byRouter = config.tables.filter((t) => t.router !== undefined);
    this.#lookup =
      byRouter.length > 0 && config.sb
        ? new RouterTables(
            {
              remotes: config.sb.map((r) => r.text),
              onChange: (router, table) => {
                for (const t of byRouter) if (t.router === router) void this.#follow(t, table);
              },
            },
            { clock: components.clock, logger: components.log },
          )
        : undefined;
  }

  #connected(): ReadonlySet<string> {
    const now = this.#c.clock.now();
    if (!this.#networks || now - this.#networks.at > MS_PER_SECOND)
      this.#networks = { at: now, set: connectedNetworks(this.#c.interfaces()) };
    return this.#networks.set;
  }

  /** The routes of every table are one LocalOrigin's: `ovn-table` in the RIB. */
  static origin(rib: Rib, flow: RouteFlow): LocalOrigin {
    return new LocalOrigin(rib, rib.origin('ovn-table'), flow);
  }

  start(): void {
    for (const t of this.#config.tables) if (t.table !== undefined) void this.#follow(t, t.table);
    this.#lookup?.start();
    this.#c.log.info(
      { tables: this.#config.tables.map((t) => t.name), preference: this.#config.preference },
      'following the OVN route tables',
    );
  }

  status(): RouteTableState[] {
    return this.#config.tables.map((t) => {
      const r = this.#running.get(t.name);
      return {
        name: t.name,
        table: r?.table,
        reader: r?.reader.status(),
        routes: this.#origins.get(t.name)?.view() ?? [],
        sink: r?.sink,
      };
    });
  }

  /** Where routers are looked up, for `show ovn`. */
  get southbound(): string | undefined {
    return this.#lookup?.remote;
  }

  /**
   * Stops following; the routes leave the RIB (`keepRoutes`: they stay, for a reload that
   * follows the same tables again and must not withdraw what stays).
   */
  async close(opts: { readonly keepRoutes?: boolean } = {}): Promise<void> {
    this.#closed = true;
    await this.#lookup?.close();
    await Promise.all([...this.#running.keys()].map((name) => this.#stop(name)));
    if (!opts.keepRoutes) for (const o of this.#origins.values()) o.withdrawAll();
  }

  /** Follows table `table` for `t` (undefined: the router went; its routes leave after the hold time). */
  async #follow(t: OvnRouteTableConfig, table: number | undefined): Promise<void> {
    const have = this.#running.get(t.name);
    if (this.#closed || have?.table === table) return;
    if (have) await this.#stop(t.name);
    const origin = this.#origins.get(t.name)!;
    if (table === undefined) {
      this.#c.log.warn({ router: t.router }, 'router not in the Southbound: its table is not followed');
      origin.replaceAll([]);
      return;
    }
    const reader = new KernelTableReader(
      { table, protocols: [this.#config.protocol] },
      {
        sync: (routes) =>
          origin.replaceAll(routes.map((r) => ({ prefix: r.prefix.toString(), metrics: r.metrics }))),
        change: (changes) => {
          for (const c of changes) origin.set(c.prefix.toString(), c.metrics);
        },
      },
      { clock: this.#c.clock, logger: this.#c.log },
    );
    const sink = t.learn.length > 0 ? `ovn-table ${t.name}` : undefined;
    this.#running.set(t.name, { table, reader, sink });
    this.#c.log.info({ name: t.name, table }, 'following an OVN route table');
    if (sink) {
      const c = this.#config;
      // The same mark rules as the kernel sink's: only routes with our protocol in this table are ever touched.
      const target = new KernelTarget(
        { table, metric: c.learnMetric, protocol: c.learnProtocol, onStop: c.onStop, name: sink },
        { logger: this.#c.log, clock: this.#c.clock },
      );
      target.start();
      const install = new PolicyChain(
        `learn ${t.name}`,
        t.learn.map((n) => this.#policies.get(n)!),
      );
      this.#c.forwarding.add(sink, target, { install, learnedOnly: true }, { table, learn: t.learn });
    }
    try {
      await reader.start();
    } catch (error) {
      this.#c.log.error({ name: t.name, table, error: String(error) }, 'cannot read the OVN route table');
    }
  }

  async #stop(name: string): Promise<void> {
    const r = this.#running.get(name);
    if (!r) return;
    this.#running.delete(name);
    await r.reader.close();
    if (r.sink) await this.#c.forwarding.remove(r.sink);
  }
}
