/**
 * OVN's own dynamic routing (OVN 25.03) in the lab, every daemon from the trixie root
 * (scripts/trixie-root.sh): NB and SB ovsdb-server and ovn-northd, and per chassis a namespace
 * with userspace Open vSwitch (dummy datapath) and a real ovn-controller, which fills the
 * router's kernel routing table (its datapath tunnel key) with the SB Advertised_Route rows
 * (blackholes, protocol 84) and turns other routes in that table into SB Learned_Route rows.
 * FRR 10.3 is the fabric router on the provider network the chassis sit on:
 *
 *   dr-<id>-hv1  eth0 198.18.171.11/24 ─┐
 *   dr-<id>-hv2  eth0 198.18.171.12/24 ─┼─ br0 198.18.171.254/24  dr-<id>-f: FRR 10.3, AS 65001
 *   dr-<id>-c    eth0 198.18.171.2/24  ─┘  (a central speaker, when asked for)
 *
 * The logical topology (buildDrTopology) puts router lr0's gateway port on that same provider
 * network (198.18.171.1/24), so FRR's address is a next hop ovn-controller learns routes by.
 * Everything started is recorded by PID and stopped by PID; the lab directory is bind-mounted
 * into the root and unmounted at teardown, also after a failed start.
 */
import { execFileSync } from 'node:child_process';
import { chmodSync, mkdirSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import {
  createNamespace,
  createVeth,
  DaemonRoot,
  deleteNamespace,
  FrrDaemon,
  isRunning,
  type ProcessRecord,
  recordOf,
  run,
  runResult,
  stopProcesses,
} from '../../../frr-interop/lab/index.js';
import { eventually } from '../../speaker/lab-speaker.js';
import { removeLabLeftovers } from './leftovers.js';
import { SpeakerProcess } from './ovn-speaker.js';

export const FABRIC_AS = 65001;
export const CHASSIS_AS = 65171;
/** The provider network: FRR's bridge, the chassis, a central speaker, lr0's gateway port. */
export const FABRIC = { ipv4: '198.18.171.254', ipv6: '2001:db8:171::254' } as const;
export const CENTRAL = { ipv4: '198.18.171.2', ipv6: '2001:db8:171::2' } as const;
export const chassisAddress = (i: number) => ({
  ipv4: `198.18.171.${10 + i}`,
  ipv6: `2001:db8:171::${10 + i}`,
});
/** What FRR announces to the chassis: routes OVN should learn. */
export const FABRIC_ROUTES = { ipv4: '198.18.180.0/24', ipv6: '2001:db8:180::/64' } as const;

const START_MS = 30_000;
const OVN_COMMAND_MS = 20_000;

export interface OvnDrLabOptions {
  /** 1-6 lowercase letters or digits: namespaces are `dr-<id>-…`. */
  readonly id: string;
  /** Chassis with ovn-controller (hv1, hv2, …); lr0's gateway port is bound to hv1. */
  readonly chassis?: number;
  /** A namespace for a central speaker (198.18.171.2). */
  readonly central?: boolean;
}

/** Every lab still alive in this process, for the last-resort exit hook. */
const liveLabs = new Set<OvnDrLab>();
process.once('exit', () => {
  for (const lab of liveLabs) lab.killNow();
});

export class OvnDrLab {
  readonly id: string;
  readonly prefix: string;
  readonly dir: string;
  readonly root: DaemonRoot;
  readonly fabric: FrrDaemon;
  readonly chassisCount: number;
  readonly central: boolean;
  readonly nb: string;
  readonly sb: string;
  readonly #procs = new Map<number, ProcessRecord>();
  readonly #namespaces: string[];

  private constructor(opts: OvnDrLabOptions, root: DaemonRoot) {
    if (!/^[a-z0-9]{1,6}$/.test(opts.id))
      throw new Error(`lab id ${JSON.stringify(opts.id)}: 1-6 of [a-z0-9]`);
    this.id = opts.id;
    this.prefix = `dr-${opts.id}-`;
    this.root = root;
    this.dir = mkdtempSync(join(tmpdir(), this.prefix));
    chmodSync(this.dir, 0o755);
    this.nb = `unix:${join(this.dir, 'nb.sock')}`;
    this.sb = `unix:${join(this.dir, 'sb.sock')}`;
    this.chassisCount = opts.chassis ?? 1;
    this.central = opts.central ?? false;
    this.#namespaces = [
      this.fabricNs,
      ...Array.from({ length: this.chassisCount }, (_, i) => this.chassisNs(i + 1)),
      ...(this.central ? [this.centralNs] : []),
    ];
    const tracker = {
      started: (r: ProcessRecord) => this.#procs.set(r.pid, r),
      stopped: (r: ProcessRecord) => this.#procs.delete(r.pid),
    };
    const neighbors = [
      ...Array.from({ length: this.chassisCount }, (_, i) => chassisAddress(i + 1).ipv4),
      ...(this.central ? [CENTRAL.ipv4] : []),
    ].map((address) => ({ address, remoteAs: CHASSIS_AS, families: ['ipv4', 'ipv6'] as const }));
    this.fabric = new FrrDaemon(
      { name: 'fabric', ns: this.fabricNs, dir: join(this.dir, 'fabric'), tracker, root },
      {
        routerId: FABRIC.ipv4,
        as: FABRIC_AS,
        neighbors,
        originate: { ipv4: [FABRIC_ROUTES.ipv4], ipv6: [FABRIC_ROUTES.ipv6] },
      },
    );
    liveLabs.add(this);
  }

  /** Builds the namespaces, OVN with the topology, a controller per chassis and FRR. Nothing is left on failure. */
  static async create(opts: OvnDrLabOptions): Promise<OvnDrLab> {
    const root = await DaemonRoot.trixie();
    await removeLabLeftovers(`dr-${opts.id}-`, root);
    const lab = new OvnDrLab(opts, root);
    try {
      await root.mount(lab.dir);
      await lab.#network();
      await lab.#startCentral();
      await buildDrTopology((...a) => lab.nbctl(...a));
      for (let i = 1; i <= lab.chassisCount; i++) await lab.#startChassis(i);
      await lab.fabric.start();
      await lab.nbctl('--wait=hv', 'sync');
    } catch (error) {
      await lab.destroy().catch(() => undefined);
      throw error;
    }
    return lab;
  }

  /** Removes what a lab of this id left when its process died before its teardown. */
  static async removeLeftovers(id: string): Promise<void> {
    await removeLabLeftovers(`dr-${id}-`, await DaemonRoot.trixie());
  }

  get fabricNs(): string {
    return `${this.prefix}f`;
  }

  get centralNs(): string {
    return `${this.prefix}c`;
  }

  chassisNs(i: number): string {
    return `${this.prefix}hv${i}`;
  }

  /**
   * FRR (the root's, 10.3) on chassis `i` as OVN's reference design runs it: zebra imports
   * table `table` and bgpd redistributes it to the fabric, both families. Not started.
   */
  frrReference(i: number, table: number, name: string, dir: string): FrrDaemon {
    const frr = new FrrDaemon(
      { name, ns: this.chassisNs(i), dir, root: this.root },
      {
        routerId: chassisAddress(i).ipv4,
        as: CHASSIS_AS,
        neighbors: [{ address: FABRIC.ipv4, remoteAs: FABRIC_AS, families: ['ipv4', 'ipv6'] }],
        extraConfig: [
          `router bgp ${CHASSIS_AS}`,
          ' address-family ipv4 unicast',
          `  redistribute table ${table}`,
          ' exit-address-family',
          ' address-family ipv6 unicast',
          `  redistribute table ${table}`,
          ' exit-address-family',
          'exit',
        ],
      },
    );
    frr.zebraLines = [`ip import-table ${table}`, `ipv6 import-table ${table}`];
    return frr;
  }

  /** ovn-nbctl from the root (OVN 25.03's), against the lab's NB. */
  nbctl(...args: string[]): Promise<string> {
    return run(this.root.argv(['ovn-nbctl', `--db=${this.nb}`, '--timeout=15', ...args]), {
      timeoutMs: OVN_COMMAND_MS,
    });
  }

  sbctl(...args: string[]): Promise<string> {
    return run(this.root.argv(['ovn-sbctl', `--db=${this.sb}`, '--timeout=15', ...args]), {
      timeoutMs: OVN_COMMAND_MS,
    });
  }

  /** The kernel routing table ovn-controller fills for a router: its datapath's tunnel key. */
  async tableOf(router: string): Promise<number> {
    const out = await this.sbctl(
      '--bare',
      '--columns=tunnel_key',
      'find',
      'Datapath_Binding',
      `external_ids:name=${router}`,
    );
    const n = Number.parseInt(out.trim(), 10);
    if (!Number.isInteger(n)) throw new Error(`no datapath for router ${router}: ${JSON.stringify(out)}`);
    return n;
  }

  /**
   * Routes of a chassis' table N, both families, as `ip route` prints them (one per line); none
   * while the table does not exist (no gateway port of the router is bound there).
   */
  async tableRoutes(chassis: number, table: number): Promise<string[]> {
    const ns = this.chassisNs(chassis);
    const lines: string[] = [];
    for (const family of ['-4', '-6']) {
      const r = await runResult(['ip', '-n', ns, family, 'route', 'show', 'table', String(table)]);
      if (r.code !== 0 && !/table does not exist/i.test(r.stderr))
        throw new Error(`ip route show table ${table} in ${ns}: ${r.stderr.trim()}`);
      lines.push(...r.stdout.split('\n').map((l) => l.trim()));
    }
    return lines.filter((l) => l !== '');
  }

  /** SB Learned_Route rows as (ip_prefix, nexthop) pairs. */
  async learnedRoutes(): Promise<{ prefix: string; nextHop: string }[]> {
    const out = await this.sbctl('--format=json', '--columns=ip_prefix,nexthop', 'list', 'Learned_Route');
    const doc = JSON.parse(out) as { data: [string, string][] };
    return doc.data.map(([prefix, nextHop]) => ({ prefix, nextHop }));
  }

  /** SB Advertised_Route prefixes (without duplicates: a NAT shows once per router port). */
  async advertisedPrefixes(): Promise<string[]> {
    const out = await this.sbctl('--format=json', '--columns=ip_prefix', 'list', 'Advertised_Route');
    const doc = JSON.parse(out) as { data: [string][] };
    return [...new Set(doc.data.map(([p]) => p))].sort();
  }

  /**
   * Stops ovn-controller of a chassis as `ovn-appctl exit` does (what stopping the service
   * does): it releases its ports and removes the routes it installed in the kernel before it
   * exits. (A SIGTERM or a crash leaves them in the table.)
   */
  async stopController(i: number): Promise<void> {
    const h = this.chassisDir(i);
    const rec = this.#procs.get(this.#pidOf(join(h, 'ovn-controller.pid')) ?? -1);
    if (!rec) throw new Error(`no ovn-controller on hv${i}`);
    await run(this.root.argv(['ovn-appctl', '-t', `${h}/ovn-controller.ctl`, 'exit']), {
      timeoutMs: OVN_COMMAND_MS,
    });
    await eventually(
      async () => (isRunning(rec) ? undefined : true),
      `ovn-controller of hv${i} exited`,
      START_MS,
      100,
    );
    this.#procs.delete(rec.pid);
  }

  async startController(i: number): Promise<void> {
    const h = this.chassisDir(i);
    await this.#detached(
      this.root.argv(
        [
          'env',
          ...ovsEnv(h),
          'ovn-controller',
          '--detach',
          '--no-chdir',
          `--pidfile=${h}/ovn-controller.pid`,
          `--log-file=${h}/ovn-controller.log`,
          `--unixctl=${h}/ovn-controller.ctl`,
          `unix:${h}/db.sock`,
        ],
        this.chassisNs(i),
      ),
      `${h}/ovn-controller.pid`,
      `hv${i}/ovn-controller`,
    );
  }

  chassisDir(i: number): string {
    return join(this.dir, `hv${i}`);
  }

  async #network(): Promise<void> {
    for (const ns of this.#namespaces) await createNamespace(ns);
    await run(['ip', '-n', this.fabricNs, '-batch', '-'], {
      input: [
        'link add br0 type bridge',
        `address add ${FABRIC.ipv4}/24 dev br0`,
        `address add ${FABRIC.ipv6}/64 dev br0 nodad`,
        'link set br0 up',
        '',
      ].join('\n'),
    });
    const ends = [
      ...Array.from({ length: this.chassisCount }, (_, i) => ({
        ns: this.chassisNs(i + 1),
        a: chassisAddress(i + 1),
      })),
      ...(this.central ? [{ ns: this.centralNs, a: CENTRAL }] : []),
    ];
    for (const [k, e] of ends.entries()) {
      await createVeth(
        { ns: e.ns, ifname: 'eth0', ipv4: `${e.a.ipv4}/24`, ipv6: `${e.a.ipv6}/64` },
        { ns: this.fabricNs, ifname: `p${k + 1}` },
      );
      await run(['ip', '-n', this.fabricNs, 'link', 'set', `p${k + 1}`, 'master', 'br0']);
    }
  }

  async #startCentral(): Promise<void> {
    const L = this.dir;
    for (const db of ['nb', 'sb'] as const) {
      await run(
        this.root.argv(['ovsdb-tool', 'create', `${L}/${db}.db`, `/usr/share/ovn/ovn-${db}.ovsschema`]),
      );
      await this.#detached(
        this.root.argv([
          'ovsdb-server',
          '--detach',
          '--no-chdir',
          `--pidfile=${L}/${db}.pid`,
          `--log-file=${L}/${db}.log`,
          `--unixctl=${L}/${db}.ctl`,
          `--remote=punix:${L}/${db}.sock`,
          `${L}/${db}.db`,
        ]),
        `${L}/${db}.pid`,
        `ovsdb-server ${db}`,
      );
    }
    await this.nbctl('init');
    await this.sbctl('init');
    await this.#detached(
      this.root.argv([
        'ovn-northd',
        '--detach',
        '--no-chdir',
        `--pidfile=${L}/northd.pid`,
        `--log-file=${L}/northd.log`,
        `--unixctl=${L}/northd.ctl`,
        `--ovnnb-db=${this.nb}`,
        `--ovnsb-db=${this.sb}`,
      ]),
      `${L}/northd.pid`,
      'ovn-northd',
    );
  }

  async #startChassis(i: number): Promise<void> {
    const h = this.chassisDir(i);
    mkdirSync(h, { recursive: true });
    const ns = this.chassisNs(i);
    const env = ovsEnv(h);
    const vsctl = (...a: string[]) =>
      run(this.root.argv(['ovs-vsctl', `--db=unix:${h}/db.sock`, '--timeout=10', ...a]));
    await run(
      this.root.argv(['ovsdb-tool', 'create', `${h}/conf.db`, '/usr/share/openvswitch/vswitch.ovsschema']),
    );
    await this.#detached(
      this.root.argv(
        [
          'ovsdb-server',
          '--detach',
          '--no-chdir',
          `--pidfile=${h}/ovsdb-server.pid`,
          `--log-file=${h}/ovsdb-server.log`,
          `--unixctl=${h}/ovsdb-server.ctl`,
          `--remote=punix:${h}/db.sock`,
          `${h}/conf.db`,
        ],
        ns,
      ),
      `${h}/ovsdb-server.pid`,
      `hv${i}/ovsdb-server`,
    );
    await vsctl('--no-wait', 'init');
    await this.#detached(
      this.root.argv(
        [
          'env',
          ...env,
          'ovs-vswitchd',
          '--detach',
          '--no-chdir',
          `--pidfile=${h}/ovs-vswitchd.pid`,
          `--log-file=${h}/ovs-vswitchd.log`,
          `--unixctl=${h}/ovs-vswitchd.ctl`,
          '--enable-dummy=override',
          `unix:${h}/db.sock`,
        ],
        ns,
      ),
      `${h}/ovs-vswitchd.pid`,
      `hv${i}/ovs-vswitchd`,
    );
    await vsctl(
      '--',
      'set',
      'Open_vSwitch',
      '.',
      `external-ids:system-id=hv${i}`,
      `external-ids:hostname=hv${i}`,
      `external-ids:ovn-remote=${this.sb}`,
      'external-ids:ovn-encap-type=geneve',
      `external-ids:ovn-encap-ip=${chassisAddress(i).ipv4}`,
      'external-ids:ovn-bridge-mappings=physnet1:br-ex',
      '--',
      'add-br',
      'br-int',
      '--',
      'set',
      'Bridge',
      'br-int',
      'fail-mode=secure',
      'other-config:disable-in-band=true',
      'datapath_type=dummy',
      '--',
      'add-br',
      'br-ex',
      '--',
      'set',
      'Bridge',
      'br-ex',
      'datapath_type=dummy',
    );
    await this.startController(i);
    // The VM of the sample topology lives on hv1.
    if (i === 1)
      await vsctl(
        'add-port',
        'br-int',
        'vm1',
        '--',
        'set',
        'Interface',
        'vm1',
        'type=dummy',
        'external_ids:iface-id=vm1',
      );
    await eventually(
      async () =>
        (await this.sbctl('--bare', '--columns=name', 'list', 'Chassis')).includes(`hv${i}`)
          ? true
          : undefined,
      `chassis hv${i} in SB`,
      START_MS,
      200,
    );
  }

  /** Runs a daemon that detaches, then records it by the PID in its pidfile. */
  async #detached(argv: string[], pidfile: string, name: string): Promise<void> {
    await run(argv, { timeoutMs: OVN_COMMAND_MS });
    const pid = this.#pidOf(pidfile);
    const rec = pid === undefined ? undefined : recordOf(pid, name);
    if (!rec) throw new Error(`${name}: no process behind ${pidfile}`);
    this.#procs.set(rec.pid, rec);
  }

  #pidOf(pidfile: string): number | undefined {
    try {
      const pid = Number.parseInt(readFileSync(pidfile, 'utf8'), 10);
      return Number.isInteger(pid) ? pid : undefined;
    } catch {
      return undefined;
    }
  }

  /**
   * Starts one of our speakers (`ovn-bgp-speaker run`) on chassis `where` (or the central
   * namespace) with these top-level sections, peering with the fabric over IPv4 and taking
   * every route it offers; waits until the session is Established.
   */
  async startSpeaker(where: number | 'central', sections: Record<string, unknown>): Promise<SpeakerProcess> {
    const index = where === 'central' ? 9 : where;
    const s = SpeakerProcess.spawn(
      {
        index,
        ns: where === 'central' ? this.centralNs : this.chassisNs(where),
        dir: this.dir,
        address: where === 'central' ? CENTRAL : chassisAddress(where),
        routerAddress: FABRIC.ipv4,
        localAs: CHASSIS_AS,
        routerAs: FABRIC_AS,
        learn: true,
        sections,
      },
      (r) => this.#procs.set(r.pid, r),
    );
    await eventually(
      async () => {
        if (!s.running) throw new Error(`speaker s${index} exited: ${s.logTail()}`);
        const sum = await s.summary().catch(() => undefined);
        return sum?.neighbors.every((n) => n.state === 'Established') ? true : undefined;
      },
      `speaker s${index} Established with the fabric`,
      START_MS,
      200,
    );
    return s;
  }

  /** The processes the lab runs now (OVN's daemons, speakers), by the names it gave them: for CPU accounting. */
  processRecords(): ProcessRecord[] {
    return [...this.#procs.values()];
  }

  /** Records a process the caller started in this lab (a speaker), so teardown stops it. */
  adopt(rec: ProcessRecord): void {
    this.#procs.set(rec.pid, rec);
  }

  /** Stops every process of the lab by PID, deletes its namespaces, unmounts and removes its directory. */
  async destroy(): Promise<void> {
    const errors: unknown[] = [];
    await this.fabric.stop().catch((e) => errors.push(e));
    await stopProcesses([...this.#procs.values()]).catch((e) => errors.push(e));
    this.#procs.clear();
    for (const ns of this.#namespaces) await deleteNamespace(ns).catch((e) => errors.push(e));
    await this.root.unmount(this.dir).catch((e) => errors.push(e));
    rmSync(this.dir, { recursive: true, force: true });
    liveLabs.delete(this);
    if (errors.length > 0) throw new AggregateError(errors, `lab ${this.id}: teardown had errors`);
  }

  /** Synchronous last resort (process exit without destroy). */
  killNow(): void {
    for (const r of [...this.#procs.values(), ...this.fabric.processes()]) {
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
    this.root.unmountAllNow();
    rmSync(this.dir, { recursive: true, force: true });
    liveLabs.delete(this);
  }
}

/** The environment OVS and OVN daemons of one chassis find their sockets and databases by. */
function ovsEnv(h: string): string[] {
  return ['OVS_RUNDIR', 'OVS_LOGDIR', 'OVS_DBDIR', 'OVN_RUNDIR', 'OVN_LOGDIR', 'OVN_DBDIR'].map(
    (v) => `${v}=${h}`,
  );
}

/**
 * The sample topology of OVN's dynamic routing: router lr0 with `dynamic-routing` on and every
 * kind redistributed, its gateway port on the provider network and bound to hv1, a tenant
 * network with VM vm1 (bound on hv1), a floating IP, a load balancer and a static route, each
 * in IPv4 and IPv6.
 */
export async function buildDrTopology(nbctl: (...args: string[]) => Promise<string>): Promise<void> {
  const steps: string[][] = [
    ['ls-add', 'ext', '--', 'lsp-add', 'ext', 'ln-ext', '--', 'lsp-set-type', 'ln-ext', 'localnet'],
    ['lsp-set-addresses', 'ln-ext', 'unknown', '--', 'lsp-set-options', 'ln-ext', 'network_name=physnet1'],
    [
      'lr-add',
      'lr0',
      '--',
      'set',
      'Logical_Router',
      'lr0',
      'options:dynamic-routing=true',
      'options:dynamic-routing-redistribute="connected,nat,lb,static"',
    ],
    ['lrp-add', 'lr0', 'lr0-ext', '00:00:00:00:71:01', '198.18.171.1/24', '2001:db8:171::1/64'],
    ['lrp-set-gateway-chassis', 'lr0-ext', 'hv1', '20'],
    [
      'lsp-add',
      'ext',
      'ext-lr0',
      '--',
      'lsp-set-type',
      'ext-lr0',
      'router',
      '--',
      'lsp-set-addresses',
      'ext-lr0',
      'router',
      '--',
      'lsp-set-options',
      'ext-lr0',
      'router-port=lr0-ext',
    ],
    [
      'ls-add',
      't1',
      '--',
      'lrp-add',
      'lr0',
      'lr0-t1',
      '00:00:00:00:72:01',
      '198.19.71.1/24',
      '2001:db8:71::1/64',
    ],
    [
      'lsp-add',
      't1',
      't1-lr0',
      '--',
      'lsp-set-type',
      't1-lr0',
      'router',
      '--',
      'lsp-set-addresses',
      't1-lr0',
      'router',
      '--',
      'lsp-set-options',
      't1-lr0',
      'router-port=lr0-t1',
    ],
    [
      'lsp-add',
      't1',
      'vm1',
      '--',
      'lsp-set-addresses',
      'vm1',
      '00:00:00:00:72:10 198.19.71.10 2001:db8:71::10',
    ],
    ['lr-nat-add', 'lr0', 'dnat_and_snat', '198.18.171.10', '198.19.71.10'],
    ['lr-nat-add', 'lr0', 'dnat_and_snat', '2001:db8:171::10', '2001:db8:71::10'],
    ['lb-add', 'lb0', '198.18.171.20', '198.19.71.10'],
    ['lb-add', 'lb6', '[2001:db8:171::20]:80', '[2001:db8:71::10]:80', 'tcp'],
    ['lr-lb-add', 'lr0', 'lb0'],
    ['lr-lb-add', 'lr0', 'lb6'],
    ['lr-route-add', 'lr0', '198.18.190.0/24', '198.19.71.10'],
    ['lr-route-add', 'lr0', '2001:db8:190::/64', '2001:db8:71::10'],
  ];
  for (const s of steps) await nbctl(...s);
}
