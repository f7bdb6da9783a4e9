/**
 * The OVN benchmarks' lab: NB and SB ovsdb-servers (and ovn-northd when asked) in a temp dir
 * on unix sockets; our speaker, the built `dist/src/cli/main.js run`, in namespace
 * `ob-<tag>-spk`; FRR 8.4 bgpd in `ob-<tag>-frr`, one veth between them. FRR runs with
 * `bgp no-rib`: its BGP RIB is what is measured, and zebra installing 50,000 kernel routes
 * would only take CPU from the two processes under test.
 *
 *   ob-<tag>-spk  198.18.0.1/30 ── veth ── 198.18.0.2/30  ob-<tag>-frr
 *   speaker AS 65000 (connects)              bgpd AS 65001 (passive)
 *
 * Every process is stopped by its PID, the namespaces are deleted and the dirs removed in
 * destroy(), which is safe after a partial create.
 */
import { type ChildProcess, spawn } from 'node:child_process';
import {
  chmodSync,
  closeSync,
  existsSync,
  mkdtempSync,
  openSync,
  readdirSync,
  readFileSync,
  rmSync,
  statSync,
  writeFileSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { stringify } from 'yaml';
import { FrrDaemon } from '../../frr-interop/lab/frr.js';
import { createNamespace, createVeth, deleteNamespace, listNamespaces } from '../../frr-interop/lab/netns.js';
import { isRunning, type ProcessRecord, recordOf, stopProcesses } from '../../frr-interop/lab/process.js';
import {
  NB_SCHEMA,
  nbctl,
  OvsdbLab,
  SB_SCHEMA,
  type ServerHandle,
  sbctl,
} from '../../test/support/ovsdb-lab.js';
import { VtyClient } from './vty.js';

const SELF = fileURLToPath(import.meta.url);
/** The repository: bench/ovn under tsx, dist/bench/ovn in the build. */
const REPO = resolve(dirname(SELF), SELF.endsWith('.ts') ? '../..' : '../../..');
export const SPEAKER_CLI = join(REPO, 'dist/src/cli/main.js');

export const LAB = {
  speakerAs: 65000,
  frrAs: 65001,
  speakerIp: '198.18.0.1',
  frrIp: '198.18.0.2',
  prefixLen: 30,
} as const;

const READY_MS = 30_000;
const POLL_MS = 50;
const sleep = (ms: number) => new Promise<void>((r) => setTimeout(r, ms));

export interface OvnBenchLabInit {
  /** At most 6 letters or digits: namespaces `ob-<tag>-spk`/`-frr`, interfaces `ob-<tag>-s`/`-f`. */
  readonly tag: string;
  /** Start ovn-northd on the two databases. */
  readonly northd: boolean;
}

export interface SpeakerOptions {
  readonly coalesceMs?: number;
  /** Extra `node` flags, e.g. `--max-old-space-size=…`. */
  readonly nodeOptions?: readonly string[];
}

/** Warns when dist/ is older than the newest file under src/: the speaker measured would not be the code read. */
export function checkBuild(): void {
  if (!existsSync(SPEAKER_CLI)) throw new Error(`${SPEAKER_CLI} missing: run npm run build first`);
  const built = statSync(SPEAKER_CLI).mtimeMs;
  const newest = newestMtime(join(REPO, 'src'));
  if (newest > built) console.log(`warning: src/ changed after the last build (npm run build)`);
}

function newestMtime(dir: string): number {
  let t = 0;
  for (const e of readdirSyncSafe(dir)) {
    const p = join(dir, e.name);
    t = Math.max(t, e.isDirectory() ? newestMtime(p) : statSync(p).mtimeMs);
  }
  return t;
}

function readdirSyncSafe(dir: string) {
  try {
    return readdirSync(dir, { withFileTypes: true });
  } catch {
    return [];
  }
}

const live = new Set<OvnBenchLab>();
// Ctrl-C or a kill of the bench still takes the lab down (processes by PID, namespaces).
for (const signal of ['SIGINT', 'SIGTERM'] as const)
  process.once(signal, () => {
    console.error(`${signal}: taking the lab down`);
    Promise.allSettled([...live].map((l) => l.destroy())).finally(() => process.exit(130));
  });

const TICKS_PER_S = 100;

/** CPU time (user + system, all threads) a process has used, ms; NaN when it is gone. */
export function cpuMs(pid: number): number {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    const f = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    // Fields 14 and 15 of proc(5) (utime, stime), in clock ticks: indexes 11 and 12 after the name.
    return ((Number(f[11]) + Number(f[12])) * 1000) / TICKS_PER_S;
  } catch {
    return Number.NaN;
  }
}

/** CPU each process used between two calls: `const done = cpuMeter(lab.processes()); …; done()`. */
export function cpuMeter(pids: Record<string, number>): () => Record<string, number> {
  const start = Object.fromEntries(Object.entries(pids).map(([k, pid]) => [k, cpuMs(pid)]));
  return () => Object.fromEntries(Object.entries(pids).map(([k, pid]) => [k, cpuMs(pid) - start[k]]));
}

export class OvnBenchLab {
  readonly tag: string;
  readonly dir: string;
  readonly speakerNs: string;
  readonly frrNs: string;
  readonly ovsdb: OvsdbLab;
  nb!: ServerHandle;
  sb!: ServerHandle;
  frr!: FrrDaemon;
  northdPid: number | undefined;
  #speaker: { child: ChildProcess; record: ProcessRecord } | null = null;
  #vty: VtyClient | null = null;
  #made: string[] = [];

  private constructor(tag: string) {
    if (!/^[a-z0-9]{1,6}$/.test(tag)) throw new Error(`bad lab tag ${JSON.stringify(tag)}`);
    this.tag = tag;
    this.dir = mkdtempSync(join(tmpdir(), `ob-ovn-${tag}-`));
    // FRR runs as user frr and must reach its own directory below this one.
    chmodSync(this.dir, 0o755);
    this.speakerNs = `ob-${tag}-spk`;
    this.frrNs = `ob-${tag}-frr`;
    this.ovsdb = OvsdbLab.create(`ob-ovsdb-${tag}-`);
  }

  static async create(init: OvnBenchLabInit): Promise<OvnBenchLab> {
    const lab = new OvnBenchLab(init.tag);
    live.add(lab);
    try {
      await lab.#build(init);
      return lab;
    } catch (e) {
      await lab.destroy();
      throw e;
    }
  }

  async #build(init: OvnBenchLabInit): Promise<void> {
    // Leftovers of a crashed run of the same tag: only namespaces of exactly these names.
    const stale = await listNamespaces(`ob-${this.tag}-`);
    for (const ns of stale.filter((n) => n === this.speakerNs || n === this.frrNs)) await deleteNamespace(ns);
    for (const ns of [this.speakerNs, this.frrNs]) {
      await createNamespace(ns);
      this.#made.push(ns);
    }
    const cidr = (ip: string) => `${ip}/${LAB.prefixLen}`;
    await createVeth(
      { ns: this.speakerNs, ifname: this.speakerIf, ipv4: cidr(LAB.speakerIp) },
      { ns: this.frrNs, ifname: `ob-${this.tag}-f`, ipv4: cidr(LAB.frrIp) },
    );
    this.nb = await this.ovsdb.startServer('nb', await this.ovsdb.createDb('nb', NB_SCHEMA));
    this.sb = await this.ovsdb.startServer('sb', await this.ovsdb.createDb('sb', SB_SCHEMA));
    await nbctl(this.nb.unix, 'init');
    await sbctl(this.sb.unix, 'init');
    if (init.northd) this.northdPid = await this.ovsdb.startNorthd(this.nb.unix, this.sb.unix);
    this.frr = new FrrDaemon(
      { name: 'frr', ns: this.frrNs, dir: join(this.dir, 'frr') },
      {
        routerId: LAB.frrIp,
        as: LAB.frrAs,
        // The speaker connects as it starts: no wait for FRR's connect-retry timer.
        neighbors: [
          {
            address: LAB.speakerIp,
            remoteAs: LAB.speakerAs,
            families: ['ipv4'],
            holdTime: 90,
            keepalive: 30,
            passive: true,
          },
        ],
        // No FIB: bgpd's RIB is what is measured. Nothing back to the speaker: it would only
        // drop every route again by AS-path loop, on the same two cores.
        extraConfig: [
          'bgp no-rib',
          'route-map ob-none deny 10',
          '!',
          `router bgp ${LAB.frrAs}`,
          ' address-family ipv4 unicast',
          `  neighbor ${LAB.speakerIp} route-map ob-none out`,
          ' exit-address-family',
          'exit',
        ],
      },
    );
    await this.frr.start();
  }

  get controlSocket(): string {
    return join(this.dir, 'speaker.sock');
  }

  /** The speaker's end of the veth. */
  get speakerIf(): string {
    return `ob-${this.tag}-s`;
  }

  /** The speaker's configuration: FRR as its one peer, the OVN section on our two servers. */
  speakerConfig(o: SpeakerOptions): Record<string, unknown> {
    return {
      speaker: {
        name: `ovn-bench-${this.tag}`,
        local_as: LAB.speakerAs,
        router_id: LAB.speakerIp,
        listen: { address: LAB.speakerIp, port: 179 },
        hold_time: 90,
        control_socket: this.controlSocket,
        log: { level: 'warn' },
      },
      peers: [{ name: 'frr', peer_ip: LAB.frrIp, remote_as: LAB.frrAs, export: ['all'], import: ['all'] }],
      policies: { all: { statements: [{ action: 'accept' }] } },
      ovn: {
        nb: this.nb.unix,
        sb: this.sb.unix,
        ...(o.coalesceMs !== undefined && { coalesce_ms: o.coalesceMs }),
      },
    };
  }

  /** Starts `node dist/src/cli/main.js run` in the speaker namespace; resolves once FRR's session is up. */
  async startSpeaker(o: SpeakerOptions = {}): Promise<number> {
    const config = join(this.dir, 'speaker.yaml');
    writeFileSync(config, stringify(this.speakerConfig(o)));
    const log = join(this.dir, 'speaker.log');
    const fd = openSync(log, 'a');
    let child: ChildProcess;
    try {
      child = spawn(
        'ip',
        [
          'netns',
          'exec',
          this.speakerNs,
          process.execPath,
          ...(o.nodeOptions ?? []),
          SPEAKER_CLI,
          'run',
          '--config',
          config,
        ],
        { cwd: REPO, stdio: ['ignore', fd, fd] },
      );
    } finally {
      closeSync(fd);
    }
    child.on('error', () => {});
    // `ip netns exec` execs node in place: the PID is the speaker's.
    const record = child.pid === undefined ? undefined : recordOf(child.pid, 'speaker');
    if (!record) throw new Error(`speaker did not start: ${this.speakerLog()}`);
    this.#speaker = { child, record };
    return record.pid;
  }

  /** Wall time (performance.now) at which FRR's session with the speaker was seen Established. */
  async waitEstablished(timeoutMs = READY_MS): Promise<number> {
    const end = performance.now() + timeoutMs;
    for (;;) {
      if (this.#speaker && this.#speaker.child.exitCode !== null)
        throw new Error(`speaker exited: ${this.speakerLog()}`);
      const n = await this.frr.neighbor(LAB.speakerIp).catch(() => undefined);
      if (n?.state === 'Established') return performance.now();
      if (performance.now() > end)
        throw new Error(`session not Established: ${n?.rawState}\n${this.speakerLog()}`);
      await sleep(POLL_MS);
    }
  }

  async stopSpeaker(): Promise<void> {
    const s = this.#speaker;
    this.#speaker = null;
    if (s) await stopProcesses([s.record]);
  }

  get speakerPid(): number | undefined {
    return this.#speaker?.record.pid;
  }

  /** Resident and peak memory of the speaker, from /proc (kB → MiB). */
  speakerMemory(): { rssMiB: number; hwmMiB: number } {
    const pid = this.speakerPid;
    if (pid === undefined) throw new Error('speaker not running');
    const status = readFileSync(`/proc/${pid}/status`, 'utf8');
    const kb = (key: string) => Number(new RegExp(`^${key}:\\s+(\\d+)`, 'm').exec(status)?.[1] ?? 'NaN');
    return { rssMiB: kb('VmRSS') / 1024, hwmMiB: kb('VmHWM') / 1024 };
  }

  /** The processes whose CPU time tells who had the two cores: name → PID. */
  processes(): Record<string, number> {
    const out: Record<string, number> = {};
    if (this.speakerPid !== undefined) out.speaker = this.speakerPid;
    const bgpd = this.frr?.processes().find((p) => p.name === 'frr/bgpd');
    if (bgpd) out.bgpd = bgpd.pid;
    if (this.northdPid !== undefined) out['ovn-northd'] = this.northdPid;
    out['ovsdb-server nb'] = this.nb.pid;
    out['ovsdb-server sb'] = this.sb.pid;
    return out;
  }

  speakerLog(lines = 30): string {
    const f = join(this.dir, 'speaker.log');
    return existsSync(f) ? readFileSync(f, 'utf8').split('\n').slice(-lines).join('\n') : '(no log)';
  }

  /** A held connection to bgpd's vty (see vty.ts). */
  async vty(): Promise<VtyClient> {
    this.#vty ??= await VtyClient.connect(join(this.frr.dir, 'bgpd.vty'));
    return this.#vty;
  }

  async destroy(): Promise<void> {
    live.delete(this);
    this.#vty?.close();
    this.#vty = null;
    await this.stopSpeaker().catch(() => undefined);
    if (this.frr) await this.frr.stop().catch(() => undefined);
    await this.ovsdb.close().catch(() => undefined);
    for (const ns of this.#made.reverse()) await deleteNamespace(ns).catch(() => undefined);
    this.#made = [];
    rmSync(this.dir, { recursive: true, force: true });
  }

  /** Processes of ours still alive (for the report that cleanup worked). */
  leftovers(): number[] {
    const s = this.#speaker?.record;
    return s && isRunning(s) ? [s.pid] : [];
  }
}
