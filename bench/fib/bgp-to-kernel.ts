/**
 * BGP to kernel: one table over one eBGP session into a receiver that installs it in the Linux
 * kernel, our speaker (`run` with `sinks.kernel`, table 254) next to FRR 8.4 (bgpd + zebra, with
 * its RIB: no `bgp no-rib`). Each receiver gets two fresh namespaces (bk-feed, bk-rx) and a veth:
 *
 *   sudo npx tsx bench/fib/bgp-to-kernel.ts [--routes 100000] [--runs 1] [--only ours|frr]
 *
 * Needs `npm run build` first (our speaker runs from dist/). Measured: from Established (as the
 * feeder saw it) until `ip -4 route show table 254 proto 186` in the receiver's namespace counts
 * all routes (polled every 250 ms; the time is when the dump that saw them all returned, so an
 * upper bound), then from the first withdrawal queued until it counts none. The feeder reports
 * the longest silence of the receiver (hold 9 s, keepalive 3 s) during the install.
 */
import { type ChildProcess, type ChildProcessWithoutNullStreams, spawn } from 'node:child_process';
import { closeSync, mkdirSync, openSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { loadavg } from 'node:os';
import { dirname, extname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { stringify } from 'yaml';
import { createNamespace, createVeth, deleteNamespace, FrrDaemon, run } from '../../frr-interop/lab/index.js';
import { Afi } from '../../src/bgp/wire/constants.js';
import { PrefixList, parseIpv4 } from '../../src/bgp/wire/prefix-list.js';
import { UpdatePacker } from '../../src/bgp/wire/update-packer.js';
import { Writer } from '../../src/bgp/wire/writer.js';
import { machineLine, rate, table } from '../support/report.js';
import type { ChildEvent } from '../throughput/child-io.js';
import { sleep, wallClock } from '../throughput/clock.js';
import type { FeederConfig, FeederStream } from './bgp-feeder.js';

const SELF = fileURLToPath(import.meta.url);
const EXT = extname(SELF);
const HERE = dirname(SELF);
const REPO = resolve(HERE, EXT === '.ts' ? '../..' : '../../..');
const CLI = join(REPO, 'dist/src/cli/main.js');
const DIR = '/tmp/bk-bgp-kernel';

function arg(name: string, fallback: string): string {
  const i = process.argv.indexOf(`--${name}`);
  return i > 0 ? (process.argv[i + 1] ?? fallback) : fallback;
}

/** /32s from 198.18.0.0 up; the link takes the last /24 of 198.18.0.0/15, so the routes never cover it. */
const MAX_ROUTES = (1 << 17) - 256;
const ROUTES = Math.min(Number(arg('routes', '100000')), MAX_ROUTES);
const RUNS = Number(arg('runs', '1'));
const ONLY = arg('only', '');
const WAIT = Number(arg('wait', '300000'));

const FEEDER_AS = 64700;
const RECEIVER_AS = 64701;
const HOLD_TIME_SECONDS = 9;
const KEEPALIVE_SECONDS = 3;
const LINK = { feedIf: 'bk-to-rx', rxIf: 'bk-to-feed', feed: '198.19.255.1', rx: '198.19.255.2', len: 24 };
const NS = { feed: 'bk-feed', rx: 'bk-rx' };
const RTPROT_BGP = 186;
const POLL = 250;
const ESTABLISH_TIMEOUT = 60_000;
const STOP_WAIT = 5_000;
const STATS_TIMEOUT = 10_000;
const LOG_TAIL = 2000;

type Receiver = 'ours' | 'frr';
const LABEL: Record<Receiver, string> = { ours: 'ovn-bgp-speaker', frr: 'FRR bgpd + zebra' };

/** The announcements (one attribute set, as a feeder of host routes would send) and the withdrawals. */
function encodeStreams(): { announce: Uint8Array; withdraw: Uint8Array } {
  const list = new PrefixList(Afi.IPV4, false, ROUTES);
  const base = parseIpv4('198.18.0.0');
  for (let i = 0; i < ROUTES; i++) {
    const at = list.grow();
    list.lens[at] = 32;
    list.words[at] = (base + i) >>> 0;
  }
  const packer = new UpdatePacker({ as4: true });
  const attrs = packer.prepare({
    origin: 0,
    asPath: [{ type: 2, asns: [FEEDER_AS] }],
    nextHop: parseIpv4(LINK.feed),
  });
  const a = new Writer(1 << 22);
  packer.announce(a, attrs, list);
  const w = new Writer(1 << 22);
  packer.withdraw(w, list);
  return { announce: a.finish().slice(), withdraw: w.finish().slice() };
}

/** The feeder child (bgp-feeder.ts) in the feeder namespace: JSON events in, commands out. */
class Feeder {
  readonly events: ChildEvent[] = [];
  readonly #child: ChildProcessWithoutNullStreams;
  #stderr = '';
  #nextId = 1;

  constructor(config: FeederConfig) {
    const loader = EXT === '.ts' ? ['--import', 'tsx'] : [];
    const file = join(HERE, `bgp-feeder${EXT}`);
    this.#child = spawn(
      'ip',
      ['netns', 'exec', NS.feed, process.execPath, ...loader, file, JSON.stringify(config)],
      { cwd: REPO },
    );
    let partial = '';
    this.#child.stdout.setEncoding('utf8').on('data', (chunk: string) => {
      const lines = (partial + chunk).split('\n');
      partial = lines.pop() ?? '';
      for (const line of lines) if (line.trim()) this.events.push(JSON.parse(line) as ChildEvent);
    });
    this.#child.stderr.setEncoding('utf8').on('data', (s: string) => {
      this.#stderr = (this.#stderr + s).slice(-LOG_TAIL);
    });
  }

  /** Bounded wait for an event; a fatal event or a closed session ends it early. */
  async waitFor(match: (e: ChildEvent) => boolean, what: string, timeoutMs: number): Promise<ChildEvent> {
    const deadline = wallClock() + timeoutMs;
    for (;;) {
      const e = this.events.find(match);
      if (e) return e;
      const bad = this.events.find((x) => x.ev === 'fatal' || x.ev === 'closed');
      if (bad) throw new Error(`feeder: ${what}: ${JSON.stringify(bad)}\n${this.#stderr}`);
      if (this.#child.exitCode !== null || wallClock() > deadline)
        throw new Error(`feeder: no ${what} within ${timeoutMs} ms\n${this.#stderr}`);
      await sleep(20);
    }
  }

  command(cmd: string, extra: Record<string, unknown> = {}): number {
    const id = this.#nextId++;
    this.#child.stdin.write(`${JSON.stringify({ id, cmd, ...extra })}\n`);
    return id;
  }

  async send(stream: FeederStream): Promise<void> {
    const id = this.command('send', { stream });
    const e = await this.waitFor((x) => x.ev === 'sent' && x.id === id, `${stream} sent`, WAIT);
    if (!e.ok) throw new Error(`feeder: session lost while sending the ${stream} stream`);
  }

  async stats(): Promise<ChildEvent> {
    const id = this.command('stats');
    return this.waitFor((x) => x.ev === 'stats' && x.id === id, 'stats', STATS_TIMEOUT);
  }

  /** Closes stdin (the feeder sends Cease and exits), then SIGKILL by PID if it lingers. */
  async stop(): Promise<void> {
    await stopChild(this.#child, () => this.#child.stdin.end());
  }
}

async function stopChild(child: ChildProcess, ask: () => void): Promise<void> {
  if (child.exitCode !== null || child.signalCode !== null) return;
  const exited = new Promise<void>((done) => child.once('exit', () => done()));
  ask();
  const timer = setTimeout(() => child.kill('SIGKILL'), STOP_WAIT);
  await exited;
  clearTimeout(timer);
}

/** A receiver started in NS.rx; stop() ends only what it started. */
interface Running {
  stop(): Promise<void>;
  diagnostics(): string;
}

async function startOurs(dir: string): Promise<Running> {
  const config = join(dir, 'config.yaml');
  const log = join(dir, 'speaker.log');
  const peer = {
    name: 'feeder',
    peer_ip: LINK.feed,
    remote_as: FEEDER_AS,
    passive: true,
    families: ['ipv4-unicast'],
    import: ['all'],
  };
  const yaml = {
    speaker: {
      name: 'bgp-to-kernel',
      local_as: RECEIVER_AS,
      router_id: LINK.rx,
      ip_versions: [4],
      listen: { address: '::', port: 179 },
      hold_time: HOLD_TIME_SECONDS,
      keepalive_time: KEEPALIVE_SECONDS,
      control_socket: join(dir, 'control.sock'),
      log: { level: 'warn' },
    },
    peers: [peer],
    policies: { all: { statements: [{ action: 'accept' }] } },
    sinks: { kernel: { table: 254 } },
  };
  writeFileSync(config, stringify(yaml));
  const out = openSync(log, 'a');
  let child: ChildProcess;
  try {
    child = spawn('ip', ['netns', 'exec', NS.rx, process.execPath, CLI, 'run', '--config', config], {
      cwd: REPO,
      stdio: ['ignore', out, out],
    });
  } finally {
    closeSync(out);
  }
  const diagnostics = () => `--- ${log} ---\n${readFileSync(log, 'utf8').slice(-LOG_TAIL)}`;
  return { stop: () => stopChild(child, () => child.kill('SIGTERM')), diagnostics };
}

async function startFrr(dir: string): Promise<Running> {
  const frr = new FrrDaemon(
    { name: 'bk-frr', ns: NS.rx, dir },
    {
      routerId: LINK.rx,
      as: RECEIVER_AS,
      neighbors: [
        {
          address: LINK.feed,
          remoteAs: FEEDER_AS,
          families: ['ipv4'],
          passive: true,
          holdTime: HOLD_TIME_SECONDS,
          keepalive: KEEPALIVE_SECONDS,
        },
      ],
    },
  );
  await frr.start();
  return { stop: () => frr.stop(), diagnostics: () => `FRR files: ${dir}` };
}

async function kernelCount(): Promise<number> {
  const out = await run(
    ['bash', '-c', `ip -n ${NS.rx} -4 route show table 254 proto ${RTPROT_BGP} | wc -l`],
    { timeoutMs: 60_000 },
  );
  return Number(out.trim());
}

/** Polls until the kernel count is `want`; returns when the dump that saw it returned. */
async function untilCount(want: number, what: string): Promise<number> {
  const deadline = wallClock() + WAIT;
  let last = -1;
  for (;;) {
    last = await kernelCount();
    const t = wallClock();
    if (last === want) return t;
    if (t > deadline) throw new Error(`${what}: kernel holds ${last} of ${want} after ${WAIT} ms`);
    await sleep(POLL);
  }
}

interface Result {
  readonly installMs: number;
  readonly withdrawMs: number;
  readonly silenceInstallMs: number;
  readonly silenceAllMs: number;
  readonly state: string;
}

async function measure(receiver: Receiver, files: { announce: string; withdraw: string }): Promise<Result> {
  const dir = join(DIR, receiver);
  rmSync(dir, { recursive: true, force: true });
  mkdirSync(dir, { recursive: true });
  await deleteNamespace(NS.feed);
  await deleteNamespace(NS.rx);
  let rx: Running | null = null;
  let feeder: Feeder | null = null;
  try {
    await createNamespace(NS.feed);
    await createNamespace(NS.rx);
    await createVeth(
      { ns: NS.feed, ifname: LINK.feedIf, ipv4: `${LINK.feed}/${LINK.len}` },
      { ns: NS.rx, ifname: LINK.rxIf, ipv4: `${LINK.rx}/${LINK.len}` },
    );
    rx = receiver === 'ours' ? await startOurs(dir) : await startFrr(dir);
    feeder = new Feeder({
      host: LINK.rx,
      localAddress: LINK.feed,
      localAs: FEEDER_AS,
      routerId: LINK.feed,
      holdTimeSeconds: HOLD_TIME_SECONDS,
      announceFile: files.announce,
      withdrawFile: files.withdraw,
      connectTimeoutMs: ESTABLISH_TIMEOUT,
    });
    const est = await feeder.waitFor((e) => e.ev === 'established', 'Established', ESTABLISH_TIMEOUT);
    const t0 = est.t as number;
    await feeder.send('announce');
    const tInstalled = await untilCount(ROUTES, `${receiver} install`);
    const s1 = await feeder.stats();
    const t1 = wallClock();
    await feeder.send('withdraw');
    const tEmpty = await untilCount(0, `${receiver} withdraw`);
    const s2 = await feeder.stats();
    return {
      installMs: tInstalled - t0,
      withdrawMs: tEmpty - t1,
      silenceInstallMs: s1.maxSilenceMs as number,
      silenceAllMs: s2.maxSilenceMs as number,
      state: s2.state as string,
    };
  } catch (e) {
    if (rx) console.error(rx.diagnostics());
    throw e;
  } finally {
    await feeder?.stop().catch(() => {});
    await rx?.stop().catch(() => {});
    await deleteNamespace(NS.feed).catch(() => {});
    await deleteNamespace(NS.rx).catch(() => {});
  }
}

async function main(): Promise<void> {
  if (process.getuid?.() !== 0) throw new Error('needs root (namespaces, FRR as user frr)');
  if (ONLY && !(ONLY in LABEL)) throw new Error(`--only: ours or frr, not ${ONLY}`);
  const receivers: Receiver[] = ONLY ? [ONLY as Receiver] : ['ours', 'frr'];
  mkdirSync(DIR, { recursive: true });
  const streams = encodeStreams();
  const files = { announce: join(DIR, 'announce.bin'), withdraw: join(DIR, 'withdraw.bin') };
  writeFileSync(files.announce, streams.announce);
  writeFileSync(files.withdraw, streams.withdraw);
  console.log(`machine: ${machineLine()}`);
  console.log(
    `load average before: ${loadavg()
      .map((x) => x.toFixed(2))
      .join(' ')}`,
  );
  console.log(
    `${ROUTES} IPv4 /32 from 198.18.0.0, ${(streams.announce.length / 1024).toFixed(0)} KiB of UPDATEs, ` +
      `withdrawals ${(streams.withdraw.length / 1024).toFixed(0)} KiB; hold ${HOLD_TIME_SECONDS} s, keepalive ${KEEPALIVE_SECONDS} s`,
  );
  const rows: string[][] = [
    [
      'receiver',
      'run',
      'install',
      'routes/s',
      'withdraw',
      'routes/s',
      'longest silence (install / all)',
      'session',
    ],
  ];
  for (let r = 1; r <= RUNS; r++) {
    for (const receiver of receivers) {
      const m = await measure(receiver, files);
      rows.push([
        LABEL[receiver],
        String(r),
        `${(m.installMs / 1000).toFixed(2)} s`,
        rate((ROUTES / m.installMs) * 1000),
        `${(m.withdrawMs / 1000).toFixed(2)} s`,
        rate((ROUTES / m.withdrawMs) * 1000),
        `${(m.silenceInstallMs / 1000).toFixed(2)} s / ${(m.silenceAllMs / 1000).toFixed(2)} s`,
        m.state,
      ]);
    }
  }
  console.log(`\n${table(rows)}`);
  console.log(
    `\nload average after: ${loadavg()
      .map((x) => x.toFixed(2))
      .join(' ')}`,
  );
}

main().catch((err) => {
  console.error(err);
  process.exitCode = 1;
});
