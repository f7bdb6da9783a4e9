/**
 * The OVN → speaker → router lab of the ovn-frr interop tests. Real OVN (NB and SB
 * ovsdb-server, ovn-northd; the NB optionally a 3-member RAFT cluster) runs in a temp dir and
 * is reached over unix sockets, which cross namespaces. Each speaker runs as its own process
 * (`ovn-bgp-speaker run`) in its own namespace; the router (FRR 8.4 or GoBGP 3.10) runs in
 * another, behind a bridge that stands for the provider network the chassis are on:
 *
 *   ol-<id>-s1  up0 198.18.100.201/24 ─┐                ┌ chassis (not running, addresses only):
 *   ol-<id>-s2  up0 198.18.100.202/24 ─┼─ br0 198.18.100.1/24   gw1 .11  hv1 .12  hv2 .13
 *                                      │  ol-<id>-r: FRR or GoBGP, AS 65001
 *
 * Chassis next hops are on the bridge's subnet, so the speaker passes them on unchanged as
 * third-party next hops (RFC 4271 5.1.3) and FRR finds them connected. Every process is
 * recorded by PID and stopped by PID; `destroy()` (and a last-resort exit hook) stops them and
 * deletes the namespaces, also after a failed start.
 */
import { execFileSync } from 'node:child_process';
import { chmodSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { buildTopology } from '../../../frr-interop/capture/ovn-snapshot.js';
import {
  createNamespace,
  createVeth,
  deleteNamespace,
  FrrDaemon,
  GobgpDaemon,
  isRunning,
  type ProcessRecord,
  type ReceivedRoute,
  run,
  stopProcesses,
} from '../../../frr-interop/lab/index.js';
import { eventually as pollUntil } from '../../speaker/lab-speaker.js';
import {
  type ClusterHandle,
  NB_SCHEMA,
  nbctl,
  OvsdbLab,
  SB_SCHEMA,
  type ServerHandle,
  sbctl,
} from '../../support/ovsdb-lab.js';
import { Capture, type CapturedUpdate } from './bgp-capture.js';
import { removeLabLeftovers } from './leftovers.js';
import { ROUTER_AS, SPEAKER_AS, SpeakerProcess } from './ovn-speaker.js';

export { SpeakerProcess } from './ovn-speaker.js';
/** The provider network: the router's bridge, the speakers, the chassis' tunnel addresses. */
export const ROUTER_ADDRESS = { ipv4: '198.18.100.1', ipv6: '2001:db8:100::1' } as const;
export const speakerAddress = (i: number) => ({
  ipv4: `198.18.100.${200 + i}`,
  ipv6: `2001:db8:100::${200 + i}`,
});

/** Chassis of the sample topology (frr-interop/capture/ovn-snapshot.ts) and their next hops. */
export const CHASSIS = {
  gw1: { ipv4: '198.18.100.11', ipv6: '2001:db8:100::11' },
  hv1: { ipv4: '198.18.100.12', ipv6: '2001:db8:100::12' },
  hv2: { ipv4: '198.18.100.13', ipv6: '2001:db8:100::13' },
  nodeA: { ipv4: '198.18.100.21' },
} as const;

/**
 * What the sample topology advertises in central mode with the default kinds, and where.
 * (Tenant networks are off by default; `show ovn` names the OVN row of each.)
 */
export const TOPOLOGY_ROUTES: Readonly<Record<string, string>> = {
  '198.18.64.100/32': CHASSIS.hv1.ipv4, // distributed FIP of vm1 (hv1)
  '2001:db8:64::100/128': CHASSIS.hv1.ipv6, // its IPv6 twin
  '198.18.64.101/32': CHASSIS.gw1.ipv4, // centralized FIP: cr-lrp-public on gw1
  '198.18.64.200/32': CHASSIS.gw1.ipv4, // lb1 on router1, via its gateway
  '2001:db8:64::200/128': CHASSIS.gw1.ipv6, // lb2 on tenant3, behind router1
  '198.18.64.50/32': CHASSIS.hv2.ipv4, // pvm1 on the provider switch, bound to hv2
  '2001:db8:64::50/128': CHASSIS.hv2.ipv6,
  '198.18.64.110/32': CHASSIS.gw1.ipv4, // FIP on gateway router gr1 (options:chassis=gw1)
  '198.18.65.10/32': CHASSIS.nodeA.ipv4, // ovn-kubernetes service VIP on GR_node-a
  '198.19.8.0/24': CHASSIS.nodeA.ipv4, // ovn-kubernetes pod subnet of node-a
};

const START_MS = 30_000;
/** Bound on OVN changes showing at the router. */
const FLOW_MS = 20_000;
const POLL_MS = 100;

/** Polls `probe` until it gives something other than undefined; bounded, names `what` on timeout. */
export function eventually<T>(
  probe: () => Promise<T | undefined> | T | undefined,
  what: string,
  timeoutMs = 20_000,
  intervalMs = POLL_MS,
): Promise<T> {
  return pollUntil(probe, what, timeoutMs, intervalMs);
}

/** Every (prefix, next hop) of `want` is in `table`. */
export const holds = (table: ReadonlyMap<string, string>, want: Readonly<Record<string, string>>): boolean =>
  Object.entries(want).every(([p, nh]) => table.get(p) === nh);

export interface OvnFrrLabOptions {
  /** 1-8 lowercase letters or digits: namespaces are `ol-<id>-r`, `ol-<id>-s<i>`. */
  readonly id: string;
  readonly router?: 'frr' | 'gobgp';
  readonly speakers?: number;
  /** The NB as a 3-member RAFT cluster (SB stays standalone). */
  readonly nbCluster?: boolean;
}

/** Every lab still alive in this process, for the last-resort exit hook. */
const liveLabs = new Set<OvnFrrLab>();
process.once('exit', () => {
  for (const lab of liveLabs) lab.killNow();
});

export class OvnFrrLab {
  readonly id: string;
  readonly dir: string;
  readonly prefix: string;
  readonly routerNs: string;
  readonly ovsdb: OvsdbLab;
  readonly router: FrrDaemon | GobgpDaemon;
  readonly speakerCount: number;
  /** What clients (speakers, ovn-nbctl, northd) connect to. */
  nb = '';
  sb = '';
  nbServer: ServerHandle | undefined;
  sbServer: ServerHandle | undefined;
  cluster: ClusterHandle | undefined;
  readonly #procs = new Map<number, ProcessRecord>();
  readonly #speakers: SpeakerProcess[] = [];
  readonly #namespaces: string[];

  private constructor(opts: OvnFrrLabOptions) {
    if (!/^[a-z0-9]{1,8}$/.test(opts.id))
      throw new Error(`lab id ${JSON.stringify(opts.id)}: 1-8 of [a-z0-9]`);
    this.id = opts.id;
    this.prefix = `ol-${opts.id}-`;
    this.dir = mkdtempSync(join(tmpdir(), this.prefix));
    // FRR runs as user frr and must reach its own directory below this one.
    chmodSync(this.dir, 0o755);
    this.routerNs = `${this.prefix}r`;
    this.speakerCount = opts.speakers ?? 1;
    this.#namespaces = [
      this.routerNs,
      ...Array.from({ length: this.speakerCount }, (_, i) => this.speakerNs(i + 1)),
    ];
    this.ovsdb = OvsdbLab.create(`${this.prefix}ovn-`);
    const tracker = {
      started: (r: ProcessRecord) => this.#procs.set(r.pid, r),
      stopped: (r: ProcessRecord) => this.#procs.delete(r.pid),
    };
    const spec = {
      routerId: ROUTER_ADDRESS.ipv4,
      as: ROUTER_AS,
      neighbors: Array.from({ length: this.speakerCount }, (_, i) => ({
        address: speakerAddress(i + 1).ipv4,
        remoteAs: SPEAKER_AS,
        families: ['ipv4', 'ipv6'] as const,
      })),
    };
    const ctx = { ns: this.routerNs, tracker };
    this.router =
      opts.router === 'gobgp'
        ? new GobgpDaemon({ ...ctx, name: 'gobgp', dir: join(this.dir, 'gobgp') }, spec)
        : new FrrDaemon({ ...ctx, name: 'frr', dir: join(this.dir, 'frr') }, spec);
    liveLabs.add(this);
  }

  /** Builds namespaces, the bridge, OVN with the sample topology, and the router. Nothing on failure. */
  static async create(opts: OvnFrrLabOptions): Promise<OvnFrrLab> {
    await removeLabLeftovers(`ol-${opts.id}-`);
    const lab = new OvnFrrLab(opts);
    // Both halves run to their end either way, so that nothing starts after the teardown.
    const results = await Promise.allSettled([
      lab.#network().then(() => lab.router.start()),
      lab.#startOvn(opts.nbCluster ?? false),
    ]);
    const failed = results.find((r): r is PromiseRejectedResult => r.status === 'rejected');
    if (failed) {
      await lab.destroy().catch(() => undefined);
      throw failed.reason;
    }
    return lab;
  }

  speakerNs(i: number): string {
    return `${this.prefix}s${i}`;
  }

  get frr(): FrrDaemon {
    if (!(this.router instanceof FrrDaemon)) throw new Error('this lab runs GoBGP');
    return this.router;
  }

  async #network(): Promise<void> {
    await Promise.all(this.#namespaces.map(createNamespace));
    const r = this.routerNs;
    await run(['ip', '-n', r, '-batch', '-'], {
      input: [
        'link add br0 type bridge',
        `address add ${ROUTER_ADDRESS.ipv4}/24 dev br0`,
        `address add ${ROUTER_ADDRESS.ipv6}/64 dev br0 nodad`,
        'link set br0 up',
        '',
      ].join('\n'),
    });
    for (let i = 1; i <= this.speakerCount; i++) {
      const a = speakerAddress(i);
      await createVeth(
        { ns: this.speakerNs(i), ifname: 'up0', ipv4: `${a.ipv4}/24`, ipv6: `${a.ipv6}/64` },
        { ns: r, ifname: `p${i}` },
      );
      await run(['ip', '-n', r, 'link', 'set', `p${i}`, 'master', 'br0']);
    }
  }

  async #startOvn(cluster: boolean): Promise<void> {
    const o = this.ovsdb;
    if (cluster) {
      this.cluster = await o.startCluster('nb', NB_SCHEMA, 'OVN_Northbound');
      this.nb = this.cluster.members.map((m) => m.unix).join(',');
    } else {
      this.nbServer = await o.startServer('nb', await o.createDb('nb', NB_SCHEMA));
      this.nb = this.nbServer.unix;
    }
    this.sbServer = await o.startServer('sb', await o.createDb('sb', SB_SCHEMA));
    this.sb = this.sbServer.unix;
    await nbctl(this.nb, 'init');
    await sbctl(this.sb, 'init');
    await o.startNorthd(this.nb, this.sb);
    await buildTopology(this.nb, this.sb);
    // IPv6 next hops for the other chassis too, so every IPv6 route has one wherever it moves.
    for (const name of ['gw1', 'hv2'] as const)
      await this.sbctl(
        'set',
        'Chassis',
        name,
        `other_config:ovn-bgp-speaker-nexthop-ipv6=${CHASSIS[name].ipv6}`,
      );
  }

  nbctl(...args: string[]): Promise<string> {
    return nbctl(this.nb, ...args);
  }

  sbctl(...args: string[]): Promise<string> {
    return sbctl(this.sb, ...args);
  }

  /**
   * Starts speaker `i` with this `ovn` section (nb and sb filled in) and waits until its
   * session with the router is Established.
   */
  async startSpeaker(i: number, ovn: Record<string, unknown> = {}): Promise<SpeakerProcess> {
    const s = SpeakerProcess.spawn(
      {
        index: i,
        ns: this.speakerNs(i),
        dir: this.dir,
        address: speakerAddress(i),
        routerAddress: ROUTER_ADDRESS.ipv4,
        ovn: { nb: this.nb, sb: this.sb, coalesce_ms: 10, ...ovn },
      },
      (r) => this.#procs.set(r.pid, r),
    );
    this.#speakers.push(s);
    await eventually(
      async () => {
        if (!s.running) throw new Error(`speaker s${i} exited: ${s.logTail()}`);
        const sum = await s.summary();
        return sum.neighbors.every((n) => n.state === 'Established') ? true : undefined;
      },
      `speaker s${i} Established with the router`,
      START_MS,
      200,
    );
    return s;
  }

  /** Stops every speaker still running (SIGTERM, as an operator does). */
  async stopSpeakers(): Promise<void> {
    await Promise.all(this.#speakers.splice(0).map((s) => s.stop()));
  }

  /** Routes the router holds from speaker `i` (all speakers when undefined), per family. */
  async routes(family: 'ipv4' | 'ipv6', from?: number): Promise<ReceivedRoute[]> {
    const all = await this.router.routes(family);
    if (from === undefined) return all;
    const addr = speakerAddress(from).ipv4;
    return all.filter((r) => r.from === addr);
  }

  /** Both families: prefix → next hops of the router's best path (its only path with one speaker). */
  async table(from?: number): Promise<Map<string, string>> {
    const out = new Map<string, string>();
    for (const f of ['ipv4', 'ipv6'] as const)
      for (const r of await this.routes(f, from))
        if (r.best || from !== undefined)
          out.set(r.prefix, r.nextHops.filter((h) => !h.startsWith('fe80'))[0] ?? '');
    return out;
  }

  /** Both families: prefix → the next hops of every path the router has (from any speaker). */
  async pathNextHops(): Promise<Map<string, Set<string>>> {
    const out = new Map<string, Set<string>>();
    for (const f of ['ipv4', 'ipv6'] as const)
      for (const r of await this.routes(f)) {
        const set = out.get(r.prefix) ?? new Set<string>();
        for (const h of r.nextHops) if (!h.startsWith('fe80')) set.add(h);
        out.set(r.prefix, set);
      }
    return out;
  }

  /**
   * Waits (bounded) until the router holds every (prefix, next hop) of `want` (from speaker
   * `from`, or as best paths); returns the router's whole table then.
   */
  waitRoutes(
    want: Readonly<Record<string, string>>,
    what: string,
    opts: { readonly from?: number; readonly timeoutMs?: number } = {},
  ): Promise<Map<string, string>> {
    return eventually(
      async () => {
        const t = await this.table(opts.from);
        return holds(t, want) ? t : undefined;
      },
      what,
      opts.timeoutMs ?? FLOW_MS,
      Object.keys(want).length > 100 ? 250 : POLL_MS,
    );
  }

  /** Waits (bounded) until the router holds none of `prefixes`; returns its table then. */
  waitGone(
    prefixes: readonly string[],
    what: string,
    opts: { readonly from?: number; readonly timeoutMs?: number } = {},
  ): Promise<Map<string, string>> {
    return eventually(
      async () => {
        const t = await this.table(opts.from);
        return prefixes.some((p) => t.has(p)) ? undefined : t;
      },
      what,
      opts.timeoutMs ?? FLOW_MS,
      prefixes.length > 100 ? 250 : POLL_MS,
    );
  }

  /** FRR's best next hop for one prefix right now, or 'none' (one quick vtysh call). */
  async frrNextHop(prefix: string): Promise<string> {
    const family = prefix.includes(':') ? 'ipv6' : 'ipv4';
    let text: string;
    try {
      text = await this.frr.vtysh([`show bgp ${family} unicast ${prefix} json`]);
    } catch (e) {
      if (/not in table/i.test(String(e))) return 'none';
      throw e;
    }
    const doc = JSON.parse(text) as {
      paths?: { bestpath?: { overall?: boolean }; nexthops?: { ip: string }[] }[];
    };
    const best = doc.paths?.find((p) => p.bestpath?.overall) ?? doc.paths?.[0];
    return best?.nexthops?.[0]?.ip ?? 'none';
  }

  /** FRR's UPDATE counter for the session with speaker `i` (`show bgp neighbors json`). */
  async updatesReceived(i: number): Promise<number> {
    const addr = speakerAddress(i).ipv4;
    const doc = JSON.parse(await this.frr.vtysh([`show bgp neighbors ${addr} json`])) as Record<
      string,
      { messageStats?: { updatesRecv?: number } }
    >;
    const n = doc[addr]?.messageStats?.updatesRecv;
    if (typeof n !== 'number') throw new Error(`no updatesRecv for ${addr}`);
    return n;
  }

  /**
   * A capture of the BGP traffic on the router's bridge; its `stop()` gives the UPDATEs the
   * router received (those it sends back to the speakers are left out).
   */
  async capture(name: string): Promise<{ stop(): Promise<CapturedUpdate[]> }> {
    const c = await Capture.start(this.routerNs, 'br0', join(this.dir, `${name}.pcap`), (r) =>
      this.#procs.set(r.pid, r),
    );
    return {
      stop: async () => (await c.stop()).filter((u) => u.dst === ROUTER_ADDRESS.ipv4),
    };
  }

  /** Stops every process this lab started, by PID, deletes its namespaces and its files. */
  async destroy(): Promise<void> {
    const errors: unknown[] = [];
    try {
      await this.router.stop();
    } catch (e) {
      errors.push(e);
    }
    await stopProcesses([...this.#procs.values()]).catch((e) => errors.push(e));
    this.#procs.clear();
    await this.ovsdb.close().catch((e) => errors.push(e));
    for (const ns of this.#namespaces) await deleteNamespace(ns).catch((e) => errors.push(e));
    rmSync(this.dir, { recursive: true, force: true });
    liveLabs.delete(this);
    if (errors.length > 0) throw new AggregateError(errors, `lab ${this.id}: teardown had errors`);
  }

  /** Synchronous last resort (process exit without destroy): SIGKILL our PIDs, delete namespaces. */
  killNow(): void {
    for (const r of [...this.#procs.values(), ...this.router.processes()]) {
      try {
        if (isRunning(r)) process.kill(r.pid, 'SIGKILL');
      } catch {
        // gone already
      }
    }
    for (const ns of this.#namespaces) {
      try {
        execFileSync('ip', ['netns', 'del', ns], { stdio: 'ignore', timeout: 5000 });
      } catch {
        // not there
      }
    }
    this.ovsdb.killNow();
    rmSync(this.dir, { recursive: true, force: true });
    liveLabs.delete(this);
  }
}
