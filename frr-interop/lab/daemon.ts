import { mkdirSync, readFileSync } from 'node:fs';
import { DEFAULT_STATE_WAIT, READY_POLL_INTERVAL, READY_TIMEOUT, STATE_POLL_INTERVAL } from './constants.js';
import { LabError } from './errors.js';
import { runResult } from './exec.js';
import {
  isRunning,
  type ProcessRecord,
  type SpawnedProcess,
  signalProcess,
  spawnDetached,
  stopProcesses,
} from './process.js';
import type { DaemonRoot } from './root.js';
import {
  type BgpState,
  checkDaemonSpec,
  checkNeighbor,
  type DaemonImpl,
  type DaemonSpec,
  type Family,
  familyOfPrefix,
  type NeighborSpec,
} from './spec.js';
import { waitFor } from './wait.js';

/** A NOTIFICATION as the daemon reports it; fields the daemon does not show are absent. */
export interface NotificationInfo {
  readonly direction?: 'received' | 'sent';
  readonly code?: number;
  readonly subcode?: number;
  /** The daemon's wording, e.g. "Cease/Administrative Shutdown". */
  readonly reason?: string;
  /** RFC 9003 shutdown communication. */
  readonly message?: string;
}

export interface NeighborStatus {
  readonly address: string;
  readonly state: BgpState;
  /** The daemon's own word for the state, e.g. FRR "Idle (Admin)" or BIRD "Down". */
  readonly rawState: string;
  readonly remoteAs?: number;
  readonly adminDown: boolean;
  /** Why the session last went down, as the daemon words it. */
  readonly lastError?: string;
  readonly lastNotification?: NotificationInfo;
  /** Prefixes accepted from this neighbor, per negotiated family. */
  readonly prefixesReceived: Partial<Record<Family, number>>;
}

/** A route the daemon learned from a neighbor (locally originated routes are left out). */
export interface ReceivedRoute {
  readonly prefix: string;
  readonly family: Family;
  /** Address of the neighbor it came from. */
  readonly from: string;
  readonly nextHops: readonly string[];
  readonly asPath: readonly number[];
  readonly best: boolean;
  readonly localPref?: number;
  readonly med?: number;
  /** RFC 4360 extended communities as "rt 65001:100" or "soo 198.18.0.1:7" (BIRD's parser only). */
  readonly extCommunities?: readonly string[];
}

export interface RouteQuery {
  /** Only routes from this neighbor. */
  readonly from?: string;
}

/** What every lab peer daemon (FRR, GoBGP, BIRD) offers. */
export interface BgpDaemon {
  readonly impl: DaemonImpl;
  readonly name: string;
  readonly ns: string;
  readonly dir: string;
  /** The configuration as it stands, live changes included (a restart starts from it). */
  readonly spec: DaemonSpec;
  processes(): readonly ProcessRecord[];
  isRunning(): boolean;
  /** The version the daemon's binary reports ("8.4.4", "10.3", "3.1.8"), asked once. */
  version(): Promise<string>;
  start(): Promise<void>;
  /** SIGTERM, then SIGKILL after a bound. */
  stop(): Promise<void>;
  restart(): Promise<void>;
  /** SIGSTOP: the daemon stops sending keepalives, so its peers' hold timers expire. */
  pause(): void;
  /** SIGCONT */
  resume(): void;
  neighbors(): Promise<NeighborStatus[]>;
  neighbor(address: string): Promise<NeighborStatus | undefined>;
  /** Polls until the neighbor is in one of `states`; throws a `wait-timeout` LabError naming the last state seen. */
  waitForNeighborState(
    address: string,
    states: BgpState | readonly BgpState[],
    timeoutMs?: number,
  ): Promise<NeighborStatus>;
  routes(family: Family, query?: RouteQuery): Promise<ReceivedRoute[]>;
  addNeighbor(n: NeighborSpec): Promise<void>;
  removeNeighbor(address: string): Promise<void>;
  /** Administrative shutdown: Cease/Administrative Shutdown, with an RFC 9003 message where supported. */
  shutdownNeighbor(address: string, message?: string): Promise<void>;
  enableNeighbor(address: string): Promise<void>;
  announce(prefixes: readonly string[]): Promise<void>;
  withdraw(prefixes: readonly string[]): Promise<void>;
}

/** How a daemon reports the processes it starts and stops, so the lab's state file stays current. */
export interface ProcessTracker {
  started(rec: ProcessRecord): void;
  stopped(rec: ProcessRecord): void;
}

export interface DaemonContext {
  readonly name: string;
  readonly ns: string;
  /** Working directory of this daemon: configs, sockets, pid files, logs. */
  readonly dir: string;
  readonly tracker?: ProcessTracker;
  /** Run the daemon from this root (today's versions from the trixie root) instead of the host's. */
  readonly root?: DaemonRoot;
}

/** Last lines of a log file, for error messages. */
export function logTail(file: string, lines = 15): string {
  try {
    return readFileSync(file, 'utf8').trimEnd().split('\n').slice(-lines).join('\n');
  } catch {
    return '(no log)';
  }
}

/** Process bookkeeping, lifecycle and spec changes shared by the three daemons. */
export abstract class DaemonBase implements BgpDaemon {
  abstract readonly impl: DaemonImpl;
  readonly name: string;
  readonly ns: string;
  readonly dir: string;
  protected current: DaemonSpec;
  protected procs: ProcessRecord[] = [];
  /** The root the daemon runs from; undefined: the host's own packages. */
  protected readonly root: DaemonRoot | undefined;
  private readonly tracker: ProcessTracker | undefined;
  #version: Promise<string> | undefined;

  constructor(ctx: DaemonContext, spec: DaemonSpec) {
    checkDaemonSpec(spec);
    this.name = ctx.name;
    this.ns = ctx.ns;
    this.dir = ctx.dir;
    this.tracker = ctx.tracker;
    this.root = ctx.root;
    this.current = spec;
  }

  get spec(): DaemonSpec {
    return this.current;
  }

  processes(): readonly ProcessRecord[] {
    return this.procs;
  }

  /** Takes over processes started by an earlier lab object (from the state file). */
  adopt(recs: readonly ProcessRecord[]): void {
    this.procs = [...recs];
  }

  isRunning(): boolean {
    return this.procs.length > 0 && this.procs.every(isRunning);
  }

  async version(): Promise<string> {
    if (this.#version === undefined) {
      // BIRD prints it on stderr, FRR and GoBGP on stdout.
      const asked = runResult(this.client(this.versionArgv())).then((r) => {
        const out = `${r.stdout}${r.stderr}`;
        const v = out.match(/version\s+v?(\d+(?:\.\d+)+)/i)?.[1];
        if (r.code !== 0 || v === undefined)
          throw new LabError('unsupported', `${this.name}: no version in ${out.trim()}`);
        return v;
      });
      asked.catch(() => {
        this.#version = undefined;
      });
      this.#version = asked;
    }
    return this.#version;
  }

  /** Its major version: what the configuration renderers choose their words by. */
  async major(): Promise<number> {
    return Number((await this.version()).split('.')[0]);
  }

  /** The command that prints the daemon's version (on stdout or stderr). */
  protected abstract versionArgv(): string[];

  /** Undoes the bind mount of its directory in its root (a lab teardown that stopped it by PID). */
  async unmountRoot(): Promise<void> {
    await this.root?.unmount(this.dir);
  }

  /** Starts the daemon's processes and waits (bounded) until it answers queries. */
  protected abstract launch(): Promise<void>;
  abstract neighbors(): Promise<NeighborStatus[]>;
  abstract routes(family: Family, query?: RouteQuery): Promise<ReceivedRoute[]>;
  /** Live changes; called only while running, after `current` already holds the new spec. */
  protected abstract applyNeighborAdded(n: NeighborSpec): Promise<void>;
  protected abstract applyNeighborRemoved(n: NeighborSpec): Promise<void>;
  protected abstract applyOriginate(family: Family, prefixes: readonly string[], add: boolean): Promise<void>;
  abstract shutdownNeighbor(address: string, message?: string): Promise<void>;
  abstract enableNeighbor(address: string): Promise<void>;

  async start(): Promise<void> {
    if (this.isRunning()) return;
    if (this.procs.length > 0) await this.stop();
    try {
      mkdirSync(this.dir, { recursive: true });
      await this.root?.mount(this.dir);
      await this.launch();
    } catch (e) {
      await this.stop();
      throw e;
    }
  }

  async stop(): Promise<void> {
    const recs = this.procs;
    this.procs = [];
    await stopProcesses(recs);
    for (const r of recs) this.tracker?.stopped(r);
    await this.root?.unmount(this.dir);
  }

  async restart(): Promise<void> {
    await this.stop();
    await this.start();
  }

  pause(): void {
    for (const r of this.procs) signalProcess(r, 'SIGSTOP');
  }

  resume(): void {
    for (const r of this.procs) signalProcess(r, 'SIGCONT');
  }

  async neighbor(address: string): Promise<NeighborStatus | undefined> {
    return (await this.neighbors()).find((n) => n.address === address);
  }

  async waitForNeighborState(
    address: string,
    states: BgpState | readonly BgpState[],
    timeoutMs = DEFAULT_STATE_WAIT,
  ): Promise<NeighborStatus> {
    const wanted: readonly BgpState[] = typeof states === 'string' ? [states] : states;
    let last = 'not configured';
    return waitFor(
      async () => {
        const n = await this.neighbor(address);
        last = n ? n.rawState : 'not configured';
        return n && wanted.includes(n.state) ? n : undefined;
      },
      {
        timeoutMs,
        intervalMs: STATE_POLL_INTERVAL,
        get what() {
          return `${address} in ${wanted.join('|')} (last: ${last})`;
        },
      },
    );
  }

  async addNeighbor(n: NeighborSpec): Promise<void> {
    checkNeighbor(n);
    if (this.current.neighbors.some((x) => x.address === n.address)) {
      throw new LabError('invalid-spec', `${this.name}: neighbor ${n.address} exists already`);
    }
    this.current = { ...this.current, neighbors: [...this.current.neighbors, n] };
    if (this.isRunning()) await this.applyNeighborAdded(n);
  }

  async removeNeighbor(address: string): Promise<void> {
    const n = this.requireNeighbor(address);
    this.current = { ...this.current, neighbors: this.current.neighbors.filter((x) => x !== n) };
    if (this.isRunning()) await this.applyNeighborRemoved(n);
  }

  announce(prefixes: readonly string[]): Promise<void> {
    return this.changeOriginate(prefixes, true);
  }

  withdraw(prefixes: readonly string[]): Promise<void> {
    return this.changeOriginate(prefixes, false);
  }

  private async changeOriginate(prefixes: readonly string[], add: boolean): Promise<void> {
    const byFamily: Record<Family, string[]> = { ipv4: [], ipv6: [] };
    for (const p of prefixes) byFamily[familyOfPrefix(p)].push(p);
    const originate = { ...this.current.originate };
    for (const f of ['ipv4', 'ipv6'] as const) {
      const have = originate[f] ?? [];
      originate[f] = add
        ? [...have, ...byFamily[f].filter((p) => !have.includes(p))]
        : have.filter((p) => !byFamily[f].includes(p));
    }
    this.current = { ...this.current, originate };
    if (!this.isRunning()) return;
    for (const f of ['ipv4', 'ipv6'] as const) {
      if (byFamily[f].length > 0) await this.applyOriginate(f, byFamily[f], add);
    }
  }

  protected requireNeighbor(address: string): NeighborSpec {
    const n = this.current.neighbors.find((x) => x.address === address);
    if (!n) throw new LabError('invalid-spec', `${this.name}: no neighbor ${address}`);
    return n;
  }

  /**
   * Kills (SIGKILL, as a crash) the processes whose name ends with `what`, waits (bounded)
   * until they are gone and forgets them; the daemon's other processes keep running.
   */
  protected async kill(what: string): Promise<void> {
    const recs = this.procs.filter((r) => r.name.endsWith(`/${what}`));
    this.procs = this.procs.filter((r) => !recs.includes(r));
    for (const r of recs) signalProcess(r, 'SIGKILL');
    await stopProcesses(recs);
    for (const r of recs) this.tracker?.stopped(r);
  }

  /** `argv` run inside the daemon's namespace, from its root when it has one. */
  protected inNamespace(argv: readonly string[]): string[] {
    return this.root ? this.root.argv(argv, this.ns) : ['ip', 'netns', 'exec', this.ns, ...argv];
  }

  /** A client tool (vtysh, birdc, gobgp) as the daemon's own version of it, outside any namespace. */
  protected client(argv: readonly string[]): string[] {
    return this.root ? this.root.argv(argv) : [...argv];
  }

  /** Starts one process of this daemon and records it (in memory and through the tracker). */
  protected spawn(argv: readonly string[], what: string, logFile: string): SpawnedProcess {
    const p = spawnDetached(argv, `${this.impl}/${what}`, logFile);
    this.procs.push(p.record);
    this.tracker?.started(p.record);
    return p;
  }

  /** Bounded wait for readiness that gives up early, with the log, if a process has died. */
  protected waitReady<T>(probe: () => Promise<T | undefined>, what: string, logFile: string): Promise<T> {
    return waitFor(
      async () => {
        const dead = this.procs.find((r) => !isRunning(r));
        if (dead) {
          throw new LabError(
            'daemon-exited',
            `${this.name}: ${dead.name} exited during start:\n${logTail(logFile)}`,
          );
        }
        return probe();
      },
      {
        timeoutMs: READY_TIMEOUT,
        intervalMs: READY_POLL_INTERVAL,
        what: `${this.name}: ${what}`,
        kind: 'daemon-not-ready',
      },
    );
  }
}
