/**
 * A central speaker across a routed hop from the fabric, as a leaf-spine fabric places it: the
 * speaker and FRR are in different subnets joined by a router namespace, so the session is
 * eBGP multihop and its subnet holds none of the chassis. The chassis (OVN's sample topology,
 * moved to 198.18.140.0/23) sit behind an underlay router on FRR's other side; FRR reaches
 * them by a route to their subnet and must install each OVN route via its chassis, resolved
 * recursively. A second FRR (the source) is a directly connected eBGP peer of the speaker
 * whose routes the speaker passes on to the fabric.
 *
 *   mh-<id>-g  source FRR 8.4, AS 65002
 *   up0 198.18.162.2/24 ── g0 198.18.162.1/24
 *                          mh-<id>-s  our speaker, AS 65320
 *                          up0 198.18.160.2/24 ── s0 198.18.160.1/24
 *                                                 mh-<id>-x  router
 *                                                 f0 198.18.161.1/24 ── up0 198.18.161.2/24
 *                                                                       mh-<id>-f  fabric FRR, AS 65001
 *                                                                       u0 198.18.163.2/24 ── f0 198.18.163.1/24
 *                                                                                             mh-<id>-u  underlay
 *                                                                                             ch0 198.18.140.1/23 (the chassis)
 *
 * (IPv6 alike: 2001:db8:16X::/64 on each link, 2001:db8:140::/64 for the chassis.) OVN (NB and
 * SB ovsdb-server, ovn-northd) runs in a temp dir and is reached over unix sockets. Every
 * process is recorded by PID and stopped by PID; `destroy()` (and a last-resort exit hook)
 * stops them and deletes the namespaces, also after a failed start.
 */
import { execFileSync } from 'node:child_process';
import { chmodSync, existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { stringify } from 'yaml';
import { buildTopology } from '../../../frr-interop/capture/ovn-snapshot.js';
import {
  createNamespace,
  createVeth,
  type DaemonRoot,
  deleteNamespace,
  FrrDaemon,
  isRunning,
  type ProcessRecord,
  run,
  spawnDetached,
  stopProcesses,
} from '../../../frr-interop/lab/index.js';
import { callControl, type SummaryView } from '../../../src/api/index.js';
import { NB_SCHEMA, nbctl, OvsdbLab, SB_SCHEMA, sbctl } from '../../support/ovsdb-lab.js';
import { removeLabLeftovers } from './leftovers.js';
import { eventually, TOPOLOGY_ROUTES } from './ovn-frr-lab.js';

export const SPEAKER_AS = 65320;
export const FABRIC_AS = 65001;
export const SOURCE_AS = 65002;
export const SPEAKER = { ipv4: '198.18.160.2', ipv6: '2001:db8:160::2' } as const;
export const FABRIC = { ipv4: '198.18.161.2', ipv6: '2001:db8:161::2' } as const;
/** The router between the speaker and the fabric, as the fabric sees it. */
export const HOP = { ipv4: '198.18.161.1', ipv6: '2001:db8:161::1' } as const;
/** The underlay router towards the chassis, as the fabric sees it. */
export const UNDERLAY = { ipv4: '198.18.163.1', ipv6: '2001:db8:163::1' } as const;
export const SOURCE = { ipv4: '198.18.162.2', ipv6: '2001:db8:162::2' } as const;
export const CHASSIS_SUBNETS = { ipv4: '198.18.140.0/23', ipv6: '2001:db8:140::/64' } as const;
/** What the source announces. */
export const LEARNED = { ipv4: '198.18.190.0/24', ipv6: '2001:db8:190::/48' } as const;

/** The sample topology's chassis, moved onto 198.18.140.0/23 (Encap IP, IPv6 from other_config). */
export const CHASSIS = {
  gw1: { ipv4: '198.18.140.11', ipv6: '2001:db8:140::11' },
  hv1: { ipv4: '198.18.140.12', ipv6: '2001:db8:140::12' },
  hv2: { ipv4: '198.18.140.13', ipv6: '2001:db8:140::13' },
  'node-a-6f2c': { ipv4: '198.18.141.21' },
} as const;
const MOVED: Readonly<Record<string, string>> = {
  '198.18.100.11': CHASSIS.gw1.ipv4,
  '198.18.100.12': CHASSIS.hv1.ipv4,
  '198.18.100.13': CHASSIS.hv2.ipv4,
  '198.18.100.21': CHASSIS['node-a-6f2c'].ipv4,
  '2001:db8:100::11': CHASSIS.gw1.ipv6,
  '2001:db8:100::12': CHASSIS.hv1.ipv6,
  '2001:db8:100::13': CHASSIS.hv2.ipv6,
};
/** The routes of the sample topology in central mode, via the moved chassis. */
export const OVN_ROUTES: Readonly<Record<string, string>> = Object.fromEntries(
  Object.entries(TOPOLOGY_ROUTES).map(([prefix, nh]) => [prefix, MOVED[nh] ?? `unmapped ${nh}`]),
);

const REPO = resolve(import.meta.dirname, '../../..');
const MAIN = join(REPO, 'src/cli/main.ts');
const START_MS = 30_000;
const CONTROL_MS = 5000;

export interface OvnMultihopLabOptions {
  /** 1-6 lowercase letters or digits: namespaces are `mh-<id>-…`. */
  readonly id: string;
  /** Where the fabric FRR runs from (the trixie root: FRR 10.3); the host's FRR 8.4 without. */
  readonly fabricRoot?: DaemonRoot;
}

/** The speaker's file, as an operator writes it; `fabric` is the fabric peer's extra keys. */
export interface SpeakerFile {
  readonly fabricExport: readonly string[];
  readonly fabric?: Record<string, unknown>;
}

/** Every lab still alive in this process, for the last-resort exit hook. */
const liveLabs = new Set<OvnMultihopLab>();
process.once('exit', () => {
  for (const lab of liveLabs) lab.killNow();
});

export class OvnMultihopLab {
  readonly id: string;
  readonly prefix: string;
  readonly dir: string;
  readonly ovsdb: OvsdbLab;
  readonly fabric: FrrDaemon;
  readonly source: FrrDaemon;
  nb = '';
  sb = '';
  readonly socket: string;
  readonly #config: string;
  readonly #log: string;
  #speaker: ProcessRecord | undefined;
  readonly #procs = new Map<number, ProcessRecord>();
  readonly #namespaces: string[];
  readonly #root: DaemonRoot | undefined;

  private constructor(opts: OvnMultihopLabOptions) {
    if (!/^[a-z0-9]{1,6}$/.test(opts.id))
      throw new Error(`lab id ${JSON.stringify(opts.id)}: 1-6 of [a-z0-9]`);
    this.id = opts.id;
    this.prefix = `mh-${opts.id}-`;
    this.dir = mkdtempSync(join(tmpdir(), this.prefix));
    // FRR runs as user frr and must reach its own directory below this one.
    chmodSync(this.dir, 0o755);
    this.socket = join(this.dir, 'speaker.sock');
    this.#config = join(this.dir, 'speaker.yaml');
    this.#log = join(this.dir, 'speaker.log');
    this.#namespaces = ['s', 'x', 'f', 'u', 'g'].map((n) => this.ns(n));
    this.#root = opts.fabricRoot;
    this.ovsdb = OvsdbLab.create(`${this.prefix}ovn-`);
    const tracker = {
      started: (r: ProcessRecord) => this.#procs.set(r.pid, r),
      stopped: (r: ProcessRecord) => this.#procs.delete(r.pid),
    };
    const peer = (address: string) => ({
      address,
      remoteAs: SPEAKER_AS,
      families: ['ipv4', 'ipv6'] as const,
    });
    this.fabric = new FrrDaemon(
      { name: 'fabric', ns: this.ns('f'), dir: join(this.dir, 'fabric'), tracker, root: opts.fabricRoot },
      {
        routerId: FABRIC.ipv4,
        as: FABRIC_AS,
        neighbors: [{ ...peer(SPEAKER.ipv4), localAddress: FABRIC.ipv4 }],
        // The speaker is a routed hop away: FRR's `neighbor X ebgp-multihop`.
        extraConfig: ['router bgp 65001', ` neighbor ${SPEAKER.ipv4} ebgp-multihop 2`, 'exit'],
      },
    );
    this.source = new FrrDaemon(
      { name: 'source', ns: this.ns('g'), dir: join(this.dir, 'source'), tracker },
      {
        routerId: SOURCE.ipv4,
        as: SOURCE_AS,
        neighbors: [peer('198.18.162.1')],
        originate: { ipv4: [LEARNED.ipv4], ipv6: [LEARNED.ipv6] },
      },
    );
    liveLabs.add(this);
  }

  /** Builds the namespaces and links, OVN with the sample topology, and both FRRs. Nothing on failure. */
  static async create(opts: OvnMultihopLabOptions): Promise<OvnMultihopLab> {
    await removeLabLeftovers(`mh-${opts.id}-`, opts.fabricRoot);
    const lab = new OvnMultihopLab(opts);
    const results = await Promise.allSettled([
      lab.#network().then(() => Promise.all([lab.fabric.start(), lab.source.start()])),
      lab.#startOvn(),
    ]);
    const failed = results.find((r): r is PromiseRejectedResult => r.status === 'rejected');
    if (failed) {
      await lab.destroy().catch(() => undefined);
      throw failed.reason;
    }
    return lab;
  }

  ns(name: string): string {
    return `${this.prefix}${name}`;
  }

  async #network(): Promise<void> {
    await Promise.all(this.#namespaces.map(createNamespace));
    const [s, x, f, u, g] = ['s', 'x', 'f', 'u', 'g'].map((n) => this.ns(n)) as [
      string,
      string,
      string,
      string,
      string,
    ];
    const link = (a: string, aIf: string, b: string, bIf: string, net: number) =>
      createVeth(
        { ns: a, ifname: aIf, ipv4: `198.18.${net}.2/24`, ipv6: `2001:db8:${net}::2/64` },
        { ns: b, ifname: bIf, ipv4: `198.18.${net}.1/24`, ipv6: `2001:db8:${net}::1/64` },
      );
    await link(s, 'up0', x, 's0', 160);
    await link(f, 'up0', x, 'f0', 161);
    await link(g, 'up0', s, 'g0', 162);
    await link(f, 'u0', u, 'f0', 163);
    const batch = (ns: string, lines: string[]) =>
      run(['ip', '-n', ns, '-batch', '-'], { input: `${lines.join('\n')}\n` });
    await batch(u, [
      'link add ch0 type bridge',
      `address add 198.18.140.1/23 dev ch0`,
      `address add 2001:db8:140::1/64 dev ch0 nodad`,
      'link set ch0 up',
    ]);
    // The speaker reaches the fabric through the router; the fabric reaches the speaker and its
    // source through the router, and the chassis through the underlay: kernel routes its zebra
    // reads, so BGP next hops there resolve recursively.
    await batch(s, [
      'route add 198.18.161.0/24 via 198.18.160.1',
      'route add 2001:db8:161::/64 via 2001:db8:160::1',
    ]);
    await batch(f, [
      'route add 198.18.160.0/24 via 198.18.161.1',
      'route add 2001:db8:160::/64 via 2001:db8:161::1',
      'route add 198.18.162.0/24 via 198.18.161.1',
      'route add 2001:db8:162::/64 via 2001:db8:161::1',
      `route add ${CHASSIS_SUBNETS.ipv4} via ${UNDERLAY.ipv4}`,
      `route add ${CHASSIS_SUBNETS.ipv6} via ${UNDERLAY.ipv6}`,
    ]);
    await batch(x, [
      'route add 198.18.162.0/24 via 198.18.160.2',
      'route add 2001:db8:162::/64 via 2001:db8:160::2',
    ]);
  }

  async #startOvn(): Promise<void> {
    const o = this.ovsdb;
    this.nb = (await o.startServer('nb', await o.createDb('nb', NB_SCHEMA))).unix;
    this.sb = (await o.startServer('sb', await o.createDb('sb', SB_SCHEMA))).unix;
    await nbctl(this.nb, 'init');
    await sbctl(this.sb, 'init');
    await o.startNorthd(this.nb, this.sb);
    await buildTopology(this.nb, this.sb);
    // The chassis' tunnel addresses on 198.18.140.0/23, their IPv6 next hops beside them.
    for (const [name, at] of Object.entries(CHASSIS)) {
      const encap = (
        await this.sbctl('--bare', '--columns=_uuid', 'find', 'Encap', `chassis_name=${name}`)
      ).trim();
      if (!/^[0-9a-f-]{36}$/.test(encap)) throw new Error(`no Encap row for chassis ${name}: ${encap}`);
      await this.sbctl('set', 'Encap', encap, `ip=${at.ipv4}`);
      if ('ipv6' in at)
        await this.sbctl('set', 'Chassis', name, `other_config:ovn-bgp-speaker-nexthop-ipv6=${at.ipv6}`);
    }
  }

  nbctl(...args: string[]): Promise<string> {
    return nbctl(this.nb, ...args);
  }

  sbctl(...args: string[]): Promise<string> {
    return sbctl(this.sb, ...args);
  }

  #writeConfig(file: SpeakerFile): void {
    const doc = {
      speaker: {
        name: 'central',
        local_as: SPEAKER_AS,
        router_id: SPEAKER.ipv4,
        listen: { address: '::', port: 179 },
        hold_time: 9,
        connect_retry: 1,
        control_socket: this.socket,
        log: { level: 'info' },
      },
      peers: [
        {
          name: 'fabric',
          peer_ip: FABRIC.ipv4,
          remote_as: FABRIC_AS,
          local_address: SPEAKER.ipv4,
          ebgp_multihop: 2,
          families: ['ipv4-unicast', 'ipv6-unicast'],
          import: ['none'],
          export: file.fabricExport,
          ...file.fabric,
        },
        {
          name: 'source',
          peer_ip: SOURCE.ipv4,
          remote_as: SOURCE_AS,
          families: ['ipv4-unicast', 'ipv6-unicast'],
          import: ['all'],
          export: ['none'],
        },
      ],
      policies: {
        all: { statements: [{ action: 'accept' }] },
        none: { statements: [{ action: 'reject' }] },
        'keep-next-hop': { statements: [{ set: { next_hop: 'unchanged' }, action: 'accept' }] },
        tag: { statements: [{ set: { communities: { add: ['65320:1'] } }, action: 'accept' }] },
      },
      ovn: { nb: this.nb, sb: this.sb, mode: 'central', coalesce_ms: 10 },
    };
    writeFileSync(this.#config, stringify(doc));
  }

  /** Starts the speaker with this file and waits until both its sessions are Established. */
  async startSpeaker(file: SpeakerFile): Promise<void> {
    this.#writeConfig(file);
    const argv = [process.execPath, '--import', 'tsx', MAIN, 'run', '--config', this.#config];
    const p = spawnDetached(['ip', 'netns', 'exec', this.ns('s'), ...argv], 'speaker', this.#log);
    this.#speaker = p.record;
    this.#procs.set(p.record.pid, p.record);
    await eventually(
      async () => {
        if (!isRunning(p.record)) throw new Error(`the speaker exited: ${this.logTail()}`);
        const sum = await this.summary().catch(() => undefined);
        return sum?.neighbors.every((n) => n.state === 'Established') ? true : undefined;
      },
      'the speaker Established with the fabric and the source',
      START_MS,
      200,
    );
  }

  /** Writes a new file and sends SIGHUP, as an operator reloads. */
  reload(file: SpeakerFile): void {
    if (!this.#speaker) throw new Error('the speaker is not running');
    this.#writeConfig(file);
    process.kill(this.#speaker.pid, 'SIGHUP');
  }

  summary(): Promise<SummaryView> {
    return callControl(this.socket, 'summary', {}, { timeoutMs: CONTROL_MS });
  }

  logTail(lines = 30): string {
    return existsSync(this.#log) ? readFileSync(this.#log, 'utf8').split('\n').slice(-lines).join('\n') : '';
  }

  /** The fabric's best path for each prefix it has from the speaker: prefix → next hop (global). */
  async fabricTable(): Promise<Map<string, string>> {
    const out = new Map<string, string>();
    for (const f of ['ipv4', 'ipv6'] as const)
      for (const r of await this.fabric.routes(f, { from: SPEAKER.ipv4 }))
        if (r.best) out.set(r.prefix, r.nextHops.filter((h) => !h.startsWith('fe80'))[0] ?? '');
    return out;
  }

  /**
   * Waits (bounded) until the fabric's best paths carry every (prefix, next hop) of `want`; on
   * a timeout the error says what differed and how the speaker's log ends.
   */
  async waitFabric(
    want: Readonly<Record<string, string>>,
    what: string,
    timeoutMs = 20_000,
  ): Promise<Map<string, string>> {
    let last = new Map<string, string>();
    try {
      return await eventually(
        async () => {
          last = await this.fabricTable();
          return Object.entries(want).every(([p, nh]) => last.get(p) === nh) ? last : undefined;
        },
        what,
        timeoutMs,
      );
    } catch (e) {
      const differ = Object.entries(want)
        .filter(([p, nh]) => last.get(p) !== nh)
        .map(([p, nh]) => `${p}: want ${nh}, FRR has ${last.get(p) ?? 'nothing'}`);
      throw new Error(`${(e as Error).message}\n${differ.join('\n')}\nspeaker log:\n${this.logTail(15)}`);
    }
  }

  /**
   * Waits (bounded) until zebra's entry for `prefix` is installed via `via`: bgpd hands its
   * best path to zebra asynchronously, so zebra may still hold the one before. Returns the
   * last entry seen, matching or not, for the caller's assertion.
   */
  async waitInstalled(
    prefix: string,
    via: string,
    timeoutMs = 10_000,
  ): Promise<{ installed: boolean; via: string[]; resolvedBy: string[] }> {
    let last = await this.installed(prefix);
    try {
      await eventually(
        async () => {
          last = await this.installed(prefix);
          return last.installed && last.via.length === 1 && last.via[0] === via ? last : undefined;
        },
        `zebra installs ${prefix} via ${via}`,
        timeoutMs,
      );
    } catch {
      // The caller's assertion says what differs.
    }
    return last;
  }

  /**
   * The fabric's zebra entry for a prefix: whether it is installed, its BGP next hop (the
   * recursive one) and what that resolved through.
   */
  async installed(prefix: string): Promise<{ installed: boolean; via: string[]; resolvedBy: string[] }> {
    const family = prefix.includes(':') ? 'ipv6' : 'ip';
    // zebra's table, so vtysh asks zebra (the lab's vtysh asks bgpd), from the fabric's root.
    const argv = [
      'vtysh',
      '--vty_socket',
      this.fabric.dir,
      '-d',
      'zebra',
      '-c',
      `show ${family} route ${prefix} json`,
    ];
    const doc = JSON.parse(await run(this.#root ? this.#root.argv(argv) : argv)) as Record<
      string,
      {
        protocol?: string;
        installed?: boolean;
        nexthops?: { ip?: string; recursive?: boolean; resolver?: boolean }[];
      }[]
    >;
    const entry = doc[prefix]?.find((e) => e.protocol === 'bgp');
    const hops = entry?.nexthops ?? [];
    return {
      installed: entry?.installed === true,
      via: hops.filter((h) => h.recursive).flatMap((h) => (h.ip ? [h.ip] : [])),
      resolvedBy: hops.filter((h) => h.resolver).flatMap((h) => (h.ip ? [h.ip] : [])),
    };
  }

  /** The fabric kernel's forwarding for an address: the gateway it sends to. */
  async kernelGateway(address: string): Promise<string | undefined> {
    const out = await run(['ip', '-n', this.ns('f'), '-j', 'route', 'get', address]);
    const [r] = JSON.parse(out) as { gateway?: string }[];
    return r?.gateway;
  }

  /** FRR's count of sessions established with the speaker. */
  async fabricEstablished(): Promise<number> {
    const doc = JSON.parse(await this.fabric.vtysh([`show bgp neighbors ${SPEAKER.ipv4} json`])) as Record<
      string,
      { connectionsEstablished?: number }
    >;
    const n = doc[SPEAKER.ipv4]?.connectionsEstablished;
    if (typeof n !== 'number') throw new Error(`no connectionsEstablished for ${SPEAKER.ipv4}`);
    return n;
  }

  /** Stops every process this lab started, by PID, deletes its namespaces and its files. */
  async destroy(): Promise<void> {
    const errors: unknown[] = [];
    for (const d of [this.fabric, this.source]) await d.stop().catch((e) => errors.push(e));
    await stopProcesses([...this.#procs.values()]).catch((e) => errors.push(e));
    this.#procs.clear();
    this.#speaker = undefined;
    await this.ovsdb.close().catch((e) => errors.push(e));
    for (const ns of this.#namespaces) await deleteNamespace(ns).catch((e) => errors.push(e));
    rmSync(this.dir, { recursive: true, force: true });
    liveLabs.delete(this);
    if (errors.length > 0) throw new AggregateError(errors, `lab ${this.id}: teardown had errors`);
  }

  /** Synchronous last resort (process exit without destroy): SIGKILL our PIDs, delete namespaces. */
  killNow(): void {
    for (const r of [...this.#procs.values(), ...this.fabric.processes(), ...this.source.processes()]) {
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
    this.#root?.unmountAllNow();
    rmSync(this.dir, { recursive: true, force: true });
    liveLabs.delete(this);
  }
}
