import { chmodSync, existsSync, mkdirSync, readdirSync, rmdirSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import type { Addresses, LabLink, LinkEnd } from './addressing.js';
import { withPrefixLen } from './addressing.js';
import { BirdDaemon } from './bird.js';
import { DEFAULT_LAB_ID, READY_POLL_INTERVAL, READY_TIMEOUT, SPEAKER_NODE } from './constants.js';
import type { BgpDaemon, DaemonBase, DaemonContext, ProcessTracker } from './daemon.js';
import { LabError } from './errors.js';
import type { RunOptions } from './exec.js';
import { FrrDaemon } from './frr.js';
import { GobgpDaemon } from './gobgp.js';
import {
  createNamespace,
  createVeth,
  deleteNamespace,
  execInNamespace,
  listNamespaces,
  namespacePids,
  type VethEnd,
} from './netns.js';
import {
  isRunning,
  type ProcessRecord,
  recordOf,
  type SpawnedProcess,
  spawnDetached,
  stopProcesses,
} from './process.js';
import { DaemonRoot, unmountRootCopies } from './root.js';
import type { DaemonImpl } from './spec.js';
import { type LabStateFile, type OwnedProcess, readState, statePath, writeState } from './state.js';
import {
  checkLabId,
  defaultLabDir,
  type LabOptions,
  type LabSpeakerOptions,
  namespacePrefix,
  type PeerPlan,
  planTopology,
  type Topology,
} from './topology.js';
import { waitFor } from './wait.js';
import { prepareFrrDir, writeZebraConfig, zebraArgv, zebraReady, zebraSocket } from './zebra.js';

/** One peer of the lab: its namespace, its link to the speaker and its daemon. */
export interface LabPeer {
  readonly name: string;
  readonly impl: DaemonImpl;
  readonly as: number;
  readonly routerId: string;
  readonly ns: string;
  /** Veth to the speaker: end a is the speaker, end b this peer. */
  readonly link: LabLink;
  /** This peer's addresses on its speaker link. */
  readonly address: Addresses;
  /** The speaker's addresses on this peer's link: what the peer's daemon connects to. */
  readonly speakerAddress: Addresses;
  readonly daemon: BgpDaemon;
}

/** What a teardown did. */
export interface TeardownReport {
  /** PIDs that were signalled (lab daemons, processes spawned through the lab, anything left in its namespaces). */
  readonly stopped: readonly number[];
  /** PIDs still running afterwards (normally none). */
  readonly survivors: readonly number[];
  readonly namespaces: readonly string[];
}

export interface LabLocation {
  readonly id?: string;
  readonly dir?: string;
}

export interface SpawnOptions {
  /** Names the process in the state file and its default log, `<lab dir>/<name>.log`. */
  readonly name: string;
  readonly logFile?: string;
}

const vethEnd = (e: LinkEnd): VethEnd => ({
  ns: e.ns,
  ifname: e.ifname,
  ipv4: withPrefixLen(e.address.ipv4, 'ipv4'),
  ipv6: withPrefixLen(e.address.ipv6, 'ipv6'),
});

function makeDaemon(plan: PeerPlan, tracker: ProcessTracker, trixie?: DaemonRoot): DaemonBase {
  const root = plan.release === 'trixie' ? trixie : undefined;
  if (plan.release === 'trixie' && root === undefined)
    throw new LabError('unsupported', `peer ${plan.name}: no trixie root to run it from`);
  const ctx: DaemonContext = { name: plan.name, ns: plan.ns, dir: plan.dir, tracker, ...(root && { root }) };
  switch (plan.impl) {
    case 'frr':
      return new FrrDaemon(ctx, plan.spec);
    case 'gobgp':
      return new GobgpDaemon(ctx, plan.spec);
    case 'bird':
      return new BirdDaemon(ctx, plan.spec);
  }
}

/**
 * Removes the files a lab made: per-node directories and the state file, then the directory if
 * it is empty. The default directory (/tmp/obs-lab-<id>) is removed whole. Never anything else.
 */
function removeLabFiles(dir: string, id: string, nodes: readonly string[]): void {
  if (dir === defaultLabDir(id)) {
    rmSync(dir, { recursive: true, force: true });
    return;
  }
  for (const n of nodes) rmSync(join(dir, n), { recursive: true, force: true });
  rmSync(statePath(dir), { force: true });
  rmSync(`${statePath(dir)}.tmp`, { force: true });
  if (existsSync(dir) && readdirSync(dir).length === 0) rmdirSync(dir);
}

/**
 * Stops the given processes, then anything still living in the lab's namespaces (a speaker a test
 * started with plain `ip netns exec`, say), deletes the namespaces. All signals go out first and
 * there is one bounded wait, so a teardown takes about as long as the slowest daemon's exit.
 */
async function teardown(
  prefix: string,
  records: readonly ProcessRecord[],
  namespaces: readonly string[],
): Promise<TeardownReport> {
  const live = [...new Map(records.map((r) => [r.pid, r])).values()].filter(isRunning);
  const nss = [...new Set([...namespaces, ...(await listNamespaces(prefix))])].filter((n) =>
    n.startsWith(prefix),
  );
  const known = new Set(live.map((r) => r.pid));
  const strays = (await Promise.all(nss.map(namespacePids)))
    .flat()
    .filter((pid) => !known.has(pid) && pid !== process.pid)
    .flatMap((pid) => recordOf(pid, 'process in a lab namespace') ?? []);
  const targets = [...live, ...strays];
  const survivors = await stopProcesses(targets);
  const existing = new Set(await listNamespaces(prefix));
  const gone = nss.filter((n) => existing.has(n));
  await Promise.all(gone.map(deleteNamespace));
  return { stopped: targets.map((r) => r.pid), survivors: survivors.map((r) => r.pid), namespaces: gone };
}

/**
 * A lab: a speaker namespace, one namespace per peer with a veth to the speaker, optional veths
 * between peers, and FRR / GoBGP / BIRD daemons configured to peer with the speaker.
 * `destroy()` (or `Lab.cleanup()` from another process) removes everything it made.
 */
export class Lab {
  readonly id: string;
  readonly dir: string;
  /** Every namespace of this lab starts with it: `obs-<id>-`. */
  readonly prefix: string;
  readonly speakerNs: string;
  readonly speaker: LabSpeakerOptions;
  readonly peers: readonly LabPeer[];
  /** Peer-to-peer links (speaker links are on each peer). */
  readonly links: readonly LabLink[];
  private readonly topology: Topology;
  private state: LabStateFile<LabOptions>;
  private readonly daemons = new Map<string, DaemonBase>();
  private destroyed = false;

  private constructor(topology: Topology, state: LabStateFile<LabOptions>, trixie?: DaemonRoot) {
    this.topology = topology;
    this.state = state;
    this.id = topology.id;
    this.dir = topology.dir;
    this.prefix = topology.prefix;
    this.speakerNs = topology.speakerNs;
    this.speaker = state.options.speaker;
    this.links = topology.links;
    this.peers = topology.peers.map((plan) => {
      const daemon = makeDaemon(plan, this.trackerFor(plan.name), trixie);
      this.daemons.set(plan.name, daemon);
      return {
        name: plan.name,
        impl: plan.impl,
        as: plan.as,
        routerId: plan.routerId,
        ns: plan.ns,
        link: plan.link,
        address: plan.link.b.address,
        speakerAddress: plan.link.a.address,
        daemon,
      };
    });
  }

  /**
   * Builds and starts a lab. Leftovers of a crashed lab with the same id are removed first.
   * On any failure, everything made so far is torn down before the error is rethrown.
   */
  static async create(opts: LabOptions): Promise<Lab> {
    const topology = planTopology(opts);
    const leftovers =
      existsSync(statePath(topology.dir)) || (await listNamespaces(topology.prefix)).length > 0;
    if (leftovers) await Lab.cleanup({ id: topology.id, dir: topology.dir });
    mkdirSync(topology.dir, { recursive: true });
    // FRR runs as user frr and must reach its own directory below this one.
    chmodSync(topology.dir, 0o755);
    // Today's daemons run from the trixie root, built once per machine (it may take minutes).
    const trixie = topology.peers.some((p) => p.release === 'trixie') ? await DaemonRoot.trixie() : undefined;
    const lab = new Lab(
      topology,
      {
        version: 1,
        id: topology.id,
        dir: topology.dir,
        createdAt: new Date().toISOString(),
        options: opts,
        namespaces: topology.namespaces,
        processes: [],
        ...(trixie && { trixieRoot: trixie.path }),
      },
      trixie,
    );
    lab.persist();
    try {
      await lab.build();
    } catch (e) {
      await lab.destroy({ keepDir: true }).catch(() => undefined);
      throw e;
    }
    return lab;
  }

  /** A handle on a running lab (started by another process), from its state file. Starts nothing. */
  static attach(loc: LabLocation = {}): Lab {
    const dir = Lab.dirOf(loc);
    const state = readState<LabOptions>(dir);
    if (state === undefined) throw new LabError('state-file', `no lab state at ${statePath(dir)}`);
    const trixie = state.trixieRoot === undefined ? undefined : DaemonRoot.at(state.trixieRoot);
    const lab = new Lab(planTopology({ ...state.options, dir }), state, trixie);
    for (const [name, d] of lab.daemons) d.adopt(state.processes.filter((p) => p.owner === name));
    return lab;
  }

  /**
   * Removes whatever a lab with this id left behind, from its state file when there is one and
   * from the namespace prefix in any case: processes (by PID, checked against their start time),
   * namespaces and files.
   */
  static async cleanup(loc: LabLocation = {}): Promise<TeardownReport> {
    const id = loc.id ?? DEFAULT_LAB_ID;
    checkLabId(id);
    const dir = Lab.dirOf(loc);
    const state = readState<LabOptions>(dir);
    const report = await teardown(namespacePrefix(id), state?.processes ?? [], state?.namespaces ?? []);
    await unmountRootCopies(dir, state?.trixieRoot);
    const nodes = state ? [SPEAKER_NODE, ...state.options.peers.map((p) => p.name)] : [];
    removeLabFiles(dir, id, nodes);
    return report;
  }

  private static dirOf(loc: LabLocation): string {
    const id = loc.id ?? DEFAULT_LAB_ID;
    checkLabId(id);
    return loc.dir ?? defaultLabDir(id);
  }

  private async build(): Promise<void> {
    await Promise.all(this.topology.namespaces.map(createNamespace));
    const links = [...this.peers.map((p) => p.link), ...this.links];
    await Promise.all(links.map((l) => createVeth(vethEnd(l.a), vethEnd(l.b))));
    const starts: Promise<void>[] = this.peers.map((p) => p.daemon.start());
    if (this.speaker.zebra) starts.push(this.startSpeakerZebra());
    const results = await Promise.allSettled(starts);
    const failed = results.find((r): r is PromiseRejectedResult => r.status === 'rejected');
    if (failed) throw failed.reason;
  }

  private async startSpeakerZebra(): Promise<void> {
    const dir = join(this.dir, SPEAKER_NODE);
    prepareFrrDir(dir);
    writeZebraConfig(dir, SPEAKER_NODE);
    const p = spawnDetached(zebraArgv(this.speakerNs, dir), 'frr/zebra', join(dir, 'zebra.out'));
    this.track(SPEAKER_NODE, p.record);
    await waitFor(async () => (zebraReady(dir) ? true : undefined), {
      timeoutMs: READY_TIMEOUT,
      intervalMs: READY_POLL_INTERVAL,
      what: 'zebra in the speaker namespace',
      kind: 'daemon-not-ready',
    });
  }

  /** ZAPI socket of the zebra in the speaker namespace (when `speaker.zebra` was set). */
  get speakerZebraSocket(): string | undefined {
    return this.speaker.zebra ? zebraSocket(join(this.dir, SPEAKER_NODE)) : undefined;
  }

  peer(name: string): LabPeer {
    const p = this.peers.find((x) => x.name === name);
    if (!p) throw new LabError('unknown-peer', `lab ${this.id} has no peer ${name}`);
    return p;
  }

  private daemonOf<T>(name: string, impl: DaemonImpl): T {
    const p = this.peer(name);
    if (p.impl !== impl) throw new LabError('unknown-peer', `peer ${name} runs ${p.impl}, not ${impl}`);
    return p.daemon as T;
  }

  frr(name: string): FrrDaemon {
    return this.daemonOf<FrrDaemon>(name, 'frr');
  }

  gobgp(name: string): GobgpDaemon {
    return this.daemonOf<GobgpDaemon>(name, 'gobgp');
  }

  bird(name: string): BirdDaemon {
    return this.daemonOf<BirdDaemon>(name, 'bird');
  }

  /** Runs a command in one of the lab's namespaces, bounded in time; returns stdout. */
  exec(ns: string, argv: readonly string[], opts: RunOptions = {}): Promise<string> {
    this.requireOwnNamespace(ns);
    return execInNamespace(ns, argv, opts);
  }

  /**
   * Starts a long-running process in one of the lab's namespaces (the speaker under test, a
   * capture). It is recorded in the state file and stopped by `destroy()`.
   */
  spawn(ns: string, argv: readonly string[], opts: SpawnOptions): SpawnedProcess {
    this.requireOwnNamespace(ns);
    const p = spawnDetached(
      ['ip', 'netns', 'exec', ns, ...argv],
      opts.name,
      opts.logFile ?? join(this.dir, `${opts.name}.log`),
    );
    this.track(ns.slice(this.prefix.length), p.record);
    return p;
  }

  /** Stops one process started through `spawn` (SIGTERM, SIGKILL after a bound). */
  async stopProcess(rec: ProcessRecord): Promise<void> {
    await stopProcesses([rec]);
    this.untrack(rec);
  }

  /** Every process the lab started and still tracks. */
  processes(): readonly OwnedProcess[] {
    return this.state.processes;
  }

  /**
   * Stops every process the lab started (signals first, then one bounded wait), deletes every
   * namespace it made and its files. Safe after a partial failure and safe to call twice.
   */
  async destroy(opts: { readonly keepDir?: boolean } = {}): Promise<TeardownReport> {
    const fromFile = readState<LabOptions>(this.dir)?.processes ?? [];
    const records = [...this.state.processes, ...fromFile];
    const report = await teardown(this.prefix, records, this.state.namespaces);
    for (const d of this.daemons.values()) {
      d.adopt([]);
      await d.unmountRoot();
    }
    // What an earlier process mounted for this lab (an attached lab's daemons, say).
    await unmountRootCopies(this.dir, this.state.trixieRoot);
    this.state = { ...this.state, processes: [] };
    if (opts.keepDir) this.persist();
    else removeLabFiles(this.dir, this.id, [SPEAKER_NODE, ...this.peers.map((p) => p.name)]);
    this.destroyed = true;
    return report;
  }

  private requireOwnNamespace(ns: string): void {
    if (!this.state.namespaces.includes(ns))
      throw new LabError('unknown-peer', `${ns} is not a namespace of lab ${this.id}`);
  }

  private trackerFor(owner: string): ProcessTracker {
    return { started: (rec) => this.track(owner, rec), stopped: (rec) => this.untrack(rec) };
  }

  private track(owner: string, rec: ProcessRecord): void {
    this.state = { ...this.state, processes: [...this.state.processes, { ...rec, owner }] };
    this.persist();
  }

  private untrack(rec: ProcessRecord): void {
    this.state = { ...this.state, processes: this.state.processes.filter((p) => p.pid !== rec.pid) };
    this.persist();
  }

  private persist(): void {
    if (this.destroyed && !existsSync(this.dir)) return;
    if (!existsSync(this.dir)) mkdirSync(this.dir, { recursive: true });
    writeState(this.state);
  }
}
