/**
 * Every implementation behind one interface: start a fresh process, name the process to
 * measure, and say how many prefixes it holds from a neighbor (and in what state the session is).
 */
import { join } from 'node:path';
import type { DaemonImpl, FrrDaemon } from '../../frr-interop/lab/index.js';
import {
  type BenchLab,
  type BenchLink,
  DAEMON_PLANS,
  type DaemonTargetName,
  IMPL_LABEL,
  type Impl,
  isDaemon,
} from './bench-lab.js';
import { ChildProgram } from './child-process.js';
import {
  BenchAs,
  CHILD_READY_TIMEOUT,
  HOLD_TIME_SECONDS,
  KEEPALIVE_SECONDS,
  OURS_LINK,
  STATUS_TIMEOUT,
} from './constants.js';
import { RealSpeakerTarget, realSpeakerAvailable } from './real-speaker.js';
import type { SpeakerConfig } from './speaker.js';
import type { Held, Target } from './target.js';

export type { Held, Target } from './target.js';

const PROCESS_NAME: Record<DaemonImpl, string> = {
  frr: 'frr/bgpd',
  gobgp: 'gobgp/gobgpd',
  bird: 'bird/bird',
};
const ESTABLISHED = 'Established';

class DaemonTarget implements Target {
  readonly impl: DaemonTargetName;
  readonly label: string;
  readonly link: BenchLink;
  readonly #bench: BenchLab;
  readonly #kind: DaemonImpl;

  constructor(bench: BenchLab, impl: DaemonTargetName) {
    this.impl = impl;
    this.label = IMPL_LABEL[impl];
    this.link = linkOf(bench, impl);
    this.#bench = bench;
    this.#kind = DAEMON_PLANS[impl].impl;
  }

  get #daemon() {
    return this.#bench.lab.peer(this.impl).daemon;
  }

  /** The version the daemon's binary reports ("2.0.12", "10.3"). */
  version(): Promise<string> {
    return this.#daemon.version();
  }

  async start(): Promise<void> {
    await this.#daemon.restart();
  }

  async stop(): Promise<void> {
    await this.#daemon.stop();
  }

  pid(): number {
    const name = PROCESS_NAME[this.#kind];
    const p = this.#daemon.processes().find((r) => r.name === name);
    if (!p) throw new Error(`${this.label}: no ${name} process`);
    return p.pid;
  }

  async held(address: string): Promise<Held> {
    const n = await this.#daemon.neighbor(address);
    if (!n) return { count: 0, state: 'not configured' };
    let count = 0;
    for (const v of Object.values(n.prefixesReceived)) count += v ?? 0;
    return { count, state: n.state };
  }

  diagnostics(): string {
    const d = this.#daemon;
    const log = d.impl === 'frr' ? (d as FrrDaemon).bgpdLog : `${d.dir}`;
    return `${this.label} files: ${log}`;
  }
}

/** Our session and RIB code alone (speaker.ts), as a child program. */
class CoreTarget implements Target {
  readonly impl: 'core' | 'ours';
  readonly label: string;
  readonly link: BenchLink;
  readonly #ns: string;
  readonly #config: SpeakerConfig;
  readonly #track: (c: ChildProgram) => void;
  readonly #nodeOptions: readonly string[];
  #child: ChildProgram | null = null;

  /** As 'ours' it stands in for the speaker while `ovn-bgp-speaker run` does not exist. */
  constructor(
    impl: 'core' | 'ours',
    bench: BenchLab,
    config: SpeakerConfig,
    track: (c: ChildProgram) => void,
    nodeOptions: readonly string[],
  ) {
    this.impl = impl;
    this.label =
      impl === 'core' ? IMPL_LABEL.core : `${IMPL_LABEL.ours} (${IMPL_LABEL.core}: no run command yet)`;
    this.link = linkOf(bench, 'ours');
    this.#ns = bench.oursNs;
    this.#config = config;
    this.#track = track;
    this.#nodeOptions = nodeOptions;
  }

  async start(): Promise<void> {
    await this.stop();
    const child = new ChildProgram(this.#ns, 'speaker', this.#config, this.label, this.#nodeOptions);
    this.#track(child);
    this.#child = child;
    await child.waitFor((e) => e.ev === 'ready', 'ready', CHILD_READY_TIMEOUT);
  }

  async stop(): Promise<void> {
    await this.#child?.stop();
    this.#child = null;
  }

  pid(): number {
    if (!this.#child) throw new Error(`${this.label} is not running`);
    return this.#child.pid;
  }

  async held(address: string): Promise<Held> {
    if (!this.#child) throw new Error(`${this.label} is not running`);
    const s = await this.#child.request('status', STATUS_TIMEOUT);
    const peers = s.peers as { address: string; state: string; accepted: number }[];
    const p = peers.find((x) => x.address === address);
    return p ? { count: p.accepted, state: p.state } : { count: 0, state: 'not configured' };
  }

  diagnostics(): string {
    return this.#child?.diagnostics() ?? '';
  }
}

function linkOf(bench: BenchLab, impl: Impl): BenchLink {
  const link = bench.links[impl];
  if (!link) throw new Error(`${IMPL_LABEL[impl]} has no link in this lab`);
  return link;
}

export function oursConfig(families: SpeakerConfig['families'], link: BenchLink): SpeakerConfig {
  return {
    localAs: BenchAs.OURS,
    routerId: OURS_LINK.oursIpv4,
    holdTimeSeconds: HOLD_TIME_SECONDS,
    keepaliveSeconds: KEEPALIVE_SECONDS,
    families,
    peers: [
      { address: link.hubIpv4, remoteAs: BenchAs.REPLAYER, role: 'source' },
      { address: link.counterIpv4, remoteAs: BenchAs.COUNTER, role: 'export' },
    ],
    localIpv4: OURS_LINK.oursIpv4,
    localIpv6: OURS_LINK.oursIpv6,
  };
}

/**
 * The targets of `impls`. `profileDir`: our speaker (and the core) run with --cpu-prof, one
 * profile per process in that folder. Until `ovn-bgp-speaker run` exists, 'ours' is the core.
 */
export function makeTargets(
  bench: BenchLab,
  impls: readonly Impl[],
  families: SpeakerConfig['families'],
  track: (c: ChildProgram) => void,
  profileDir?: string,
): Partial<Record<Impl, Target>> {
  const nodeOptions = profileDir ? ['--cpu-prof', `--cpu-prof-dir=${profileDir}`] : [];
  const link = linkOf(bench, 'ours');
  const config = oursConfig(families, link);
  const speakerDir = join(bench.lab.dir, 'ours');
  const make = (impl: Impl): Target => {
    if (isDaemon(impl)) return new DaemonTarget(bench, impl);
    if (impl === 'core' || !realSpeakerAvailable())
      return new CoreTarget(impl, bench, config, track, nodeOptions);
    return new RealSpeakerTarget(bench.oursNs, speakerDir, link, families, nodeOptions);
  };
  return Object.fromEntries(impls.map((i) => [i, make(i)]));
}

/** The version each daemon target reports, for the report ("BIRD 3.1" is "3.1.8" here). */
export async function daemonVersions(
  targets: Partial<Record<Impl, Target>>,
): Promise<Partial<Record<Impl, string>>> {
  const out: Partial<Record<Impl, string>> = {};
  for (const t of Object.values(targets)) {
    if (t instanceof DaemonTarget) out[t.impl] = await t.version().catch(() => 'unknown');
  }
  return out;
}

export const isEstablished = (h: Held): boolean => h.state === ESTABLISHED;
