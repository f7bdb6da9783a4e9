/**
 * The real speaker as a benchmark target: `ovn-bgp-speaker run --config FILE` in our
 * namespace, configured with the two passive peers of the bench (the replayer hands it the
 * table, the counter takes it), an accept-all policy both ways (RFC 8212 would otherwise have
 * an eBGP session carry nothing), and polled over its control socket as `show neighbors` does.
 */
import { type ChildProcess, spawn } from 'node:child_process';
import { closeSync, existsSync, mkdirSync, openSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { dirname, extname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { stringify } from 'yaml';
import { callControl } from '../../src/api/client.js';
import type { BenchLink } from './bench-lab.js';
import { sleep, wallClock } from './clock.js';
import {
  BenchAs,
  CHILD_EXIT_WAIT,
  CHILD_READY_TIMEOUT,
  HOLD_TIME_SECONDS,
  KEEPALIVE_SECONDS,
  OURS_LINK,
  STATUS_TIMEOUT,
} from './constants.js';
import type { Held, Target } from './target.js';

const SELF = fileURLToPath(import.meta.url);
const EXT = extname(SELF);
/** The CLI next to this file: sources under tsx, dist/src/cli/main.js in the build. */
const CLI = resolve(dirname(SELF), '../../src/cli', `main${EXT}`);
const REPO = resolve(dirname(SELF), EXT === '.ts' ? '../..' : '../../..');
const READY_POLL = 100;
const ACCEPT_ALL = 'bench-accept-all';
const LOG_TAIL = 2000;
/** The CLI's dispatch of the `run` command, in the sources and in the build alike. */
const RUN_COMMAND = /case 'run':/;

/** Whether the CLI exists and has the `run` command (it is being written while this bench is). */
export function realSpeakerAvailable(): boolean {
  return existsSync(CLI) && RUN_COMMAND.test(readFileSync(CLI, 'utf8'));
}

export function speakerConfig(
  families: readonly ('ipv4-unicast' | 'ipv6-unicast')[],
  link: BenchLink,
  controlSocket: string,
): unknown {
  const peer = (name: string, address: string, remoteAs: number) => ({
    name,
    peer_ip: address,
    remote_as: remoteAs,
    passive: true,
    families: [...families],
    import: [ACCEPT_ALL],
    export: [ACCEPT_ALL],
  });
  return {
    speaker: {
      name: 'throughput-bench',
      local_as: BenchAs.OURS,
      router_id: OURS_LINK.oursIpv4,
      ip_versions: families.includes('ipv6-unicast') ? [4, 6] : [4],
      listen: { address: '::', port: 179 },
      hold_time: HOLD_TIME_SECONDS,
      keepalive_time: KEEPALIVE_SECONDS,
      control_socket: controlSocket,
      log: { level: 'warn' },
    },
    peers: [
      peer('replayer', link.hubIpv4, BenchAs.REPLAYER),
      peer('counter', link.counterIpv4, BenchAs.COUNTER),
    ],
    policies: { [ACCEPT_ALL]: { statements: [{ action: 'accept' }] } },
  };
}

interface NeighborView {
  readonly address: string;
  readonly state: string;
  readonly prefixes: Readonly<Record<string, { readonly accepted: number }>>;
}

/** What a speaker holds from a neighbor, asked over its control socket as `show neighbors` asks. */
export async function speakerHeld(socket: string, address: string): Promise<Held> {
  const all = (await callControl(
    socket,
    'neighbors',
    {},
    { timeoutMs: STATUS_TIMEOUT },
  )) as unknown as NeighborView[];
  const n = all.find((x) => x.address === address);
  if (!n) return { count: 0, state: 'not configured' };
  let count = 0;
  for (const f of Object.values(n.prefixes)) count += f.accepted;
  return { count, state: n.state };
}

export class RealSpeakerTarget implements Target {
  readonly impl = 'ours' as const;
  readonly label = 'ovn-bgp-speaker';
  readonly link: BenchLink;
  readonly #ns: string;
  readonly #dir: string;
  readonly #families: readonly ('ipv4-unicast' | 'ipv6-unicast')[];
  readonly #nodeOptions: readonly string[];
  #child: ChildProcess | null = null;

  constructor(
    ns: string,
    dir: string,
    link: BenchLink,
    families: readonly ('ipv4-unicast' | 'ipv6-unicast')[],
    nodeOptions: readonly string[],
  ) {
    this.#ns = ns;
    this.#dir = dir;
    this.link = link;
    this.#families = families;
    this.#nodeOptions = nodeOptions;
  }

  get #socket(): string {
    return join(this.#dir, 'control.sock');
  }

  get #log(): string {
    return join(this.#dir, 'speaker.log');
  }

  async start(): Promise<void> {
    await this.stop();
    mkdirSync(this.#dir, { recursive: true });
    rmSync(this.#socket, { force: true });
    const config = join(this.#dir, 'config.yaml');
    writeFileSync(config, stringify(speakerConfig(this.#families, this.link, this.#socket)));
    const loader = EXT === '.ts' ? ['--import', 'tsx'] : [];
    const out = openSync(this.#log, 'a');
    try {
      this.#child = spawn(
        'ip',
        [
          'netns',
          'exec',
          this.#ns,
          process.execPath,
          ...this.#nodeOptions,
          ...loader,
          CLI,
          'run',
          '--config',
          config,
        ],
        { cwd: REPO, stdio: ['ignore', out, out] },
      );
    } finally {
      closeSync(out);
    }
    const deadline = wallClock() + CHILD_READY_TIMEOUT;
    for (;;) {
      if (this.#child.exitCode !== null)
        throw new Error(`${this.label} exited at start:\n${this.diagnostics()}`);
      try {
        await callControl(this.#socket, 'summary', {}, { timeoutMs: STATUS_TIMEOUT });
        return;
      } catch {
        if (wallClock() > deadline)
          throw new Error(`${this.label}: control socket not answering\n${this.diagnostics()}`);
        await sleep(READY_POLL);
      }
    }
  }

  async stop(): Promise<void> {
    const child = this.#child;
    this.#child = null;
    if (!child || child.exitCode !== null || child.signalCode !== null) return;
    const exited = new Promise<void>((done) => child.once('exit', () => done()));
    child.kill('SIGTERM');
    const timer = setTimeout(() => child.kill('SIGKILL'), CHILD_EXIT_WAIT);
    await exited;
    clearTimeout(timer);
  }

  pid(): number {
    if (!this.#child?.pid) throw new Error(`${this.label} is not running`);
    return this.#child.pid;
  }

  held(address: string): Promise<Held> {
    return speakerHeld(this.#socket, address);
  }

  diagnostics(): string {
    const text = existsSync(this.#log) ? readFileSync(this.#log, 'utf8') : '';
    return `--- ${this.#log} ---\n${text.slice(-LOG_TAIL)}`;
  }
}
