/**
 * BGP to kernel: one table over one eBGP session into a receiver that installs it in the Linux
 * kernel, our speaker (`run` with `sinks.kernel`, table 254) next to FRR 8.4 (bgpd + zebra, with
 * its RIB: no `bgp no-rib`), one after the other in the same run. Each receiver gets two fresh
 * namespaces (fb2-feed, fb2-rx) and a veth, per table:
 *
 *   sudo npx tsx bench/fib/bgp-to-kernel.ts [--tables v4-all,v6,v6-big] [--runs 1] [--only ours|frr]
 *       [--v4 261632] [--v6 100000] [--v6-big 1000000] [--prefixes-per-set 0] [--wait 300000]
 *       [--cpu-prof DIR]
 *
 * The tables (bgp-tables.ts): every prefix of 198.18.0.0/15 at /15../32 (the largest IPv4 table
 * the lab range allows), 100k IPv6 /64s, and 1M IPv6 /64s, which stand in for 1M IPv4 routes;
 * in one attribute set, or (--prefixes-per-set N) a new one every N prefixes, as from a transit peer.
 * Needs `npm run build` first (our speaker runs from dist/). Measured: from Established (as the
 * feeder saw it) until the receiver's kernel holds all routes in table 254 with protocol 186,
 * then from the first withdrawal queued until it holds none. A counter in the receiver's
 * namespace (route-counter.ts) times both from the kernel's route notifications, and a dump
 * (`ip route show`, untimed) confirms each count.
 * The feeder reports the longest silence of the receiver (hold 9 s, keepalive 3 s) during the
 * install and over the whole run: ours, or bgpd's.
 */
import { type ChildProcess, spawn, spawnSync } from 'node:child_process';
import { closeSync, mkdirSync, openSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { loadavg } from 'node:os';
import { dirname, extname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { stringify } from 'yaml';
import { createNamespace, createVeth, deleteNamespace, FrrDaemon, run } from '../../frr-interop/lab/index.js';
import { Afi, type AfiCode } from '../../src/bgp/wire/constants.js';
import { machineLine, rate, table } from '../support/report.js';
import type { ChildEvent } from '../throughput/child-io.js';
import { wallClock } from '../throughput/clock.js';
import type { FeederConfig, FeederStream } from './bgp-feeder.js';
import { allIpv4Prefixes, encodeStreams, ipv6Slash64s, LINK, type TableSpec } from './bgp-tables.js';
import { LabChild, stopChild } from './lab-child.js';
import type { CounterConfig } from './route-counter.js';

const SELF = fileURLToPath(import.meta.url);
const EXT = extname(SELF);
const HERE = dirname(SELF);
const REPO = resolve(HERE, EXT === '.ts' ? '../..' : '../../..');
const CLI = join(REPO, 'dist/src/cli/main.js');
const DIR = '/tmp/fb2-bgp-kernel';

function arg(name: string, fallback: string): string {
  const i = process.argv.indexOf(`--${name}`);
  return i > 0 ? (process.argv[i + 1] ?? fallback) : fallback;
}

const RUNS = Number(arg('runs', '1'));
const ONLY = arg('only', '');
const WAIT = Number(arg('wait', '300000'));
const TABLES = arg('tables', 'v4-all,v6,v6-big').split(',');
const CPU_PROF = arg('cpu-prof', '');
const PREFIXES_PER_SET = Number(arg('prefixes-per-set', '0'));

const FEEDER_AS = 64700;
const RECEIVER_AS = 64701;
const HOLD_TIME_SECONDS = 9;
const KEEPALIVE_SECONDS = 3;
const NS = { feed: 'fb2-feed', rx: 'fb2-rx' };
const RTPROT_BGP = 186;
const DUMP_TIMEOUT = 300_000;
const ESTABLISH_TIMEOUT = 60_000;
const STATS_TIMEOUT = 10_000;
const LOG_TAIL = 2000;

type Receiver = 'ours' | 'frr';
const LABEL: Record<Receiver, string> = { ours: 'ovn-bgp-speaker', frr: 'FRR bgpd + zebra' };

/** The feeder child (bgp-feeder.ts) in the feeder namespace. */
class Feeder {
  readonly #child: LabChild;

  constructor(config: FeederConfig) {
    this.#child = new LabChild('bgp-feeder', NS.feed, config, REPO);
  }

  established(): Promise<ChildEvent> {
    return this.#child.waitFor((e) => e.ev === 'established', 'Established', ESTABLISH_TIMEOUT);
  }

  async send(stream: FeederStream): Promise<void> {
    const e = await this.#child.ask('send', 'sent', WAIT, { stream });
    if (!e.ok) throw new Error(`feeder: session lost while sending the ${stream} stream`);
  }

  stats(): Promise<ChildEvent> {
    return this.#child.ask('stats', 'stats', STATS_TIMEOUT);
  }

  /** Closes stdin: the feeder sends Cease and exits. */
  stop(): Promise<void> {
    return this.#child.stop();
  }
}

/** The route counter (route-counter.ts) in the receiver's namespace, started before the receiver. */
class Counter {
  readonly #child: LabChild;

  constructor(afi: AfiCode) {
    const config: CounterConfig = { afi, table: 254, protocol: RTPROT_BGP };
    this.#child = new LabChild('route-counter', NS.rx, config, REPO);
  }

  ready(): Promise<ChildEvent> {
    return this.#child.waitFor((e) => e.ev === 'ready', 'ready', ESTABLISH_TIMEOUT);
  }

  /** When the count reached `want` (the notification that made it so), by the wall clock. */
  async until(want: number, what: string): Promise<number> {
    const e = await this.#child.ask('until', 'reached', WAIT + STATS_TIMEOUT, { want, timeoutMs: WAIT });
    if (!e.ok) throw new Error(`${what}: counted ${e.n} of ${want} after ${WAIT} ms ${e.lost}`);
    return e.t as number;
  }

  stop(): Promise<void> {
    return this.#child.stop();
  }
}

/** A receiver started in NS.rx; stop() ends only what it started. */
interface Running {
  stop(): Promise<void>;
  diagnostics(): string;
}

async function startOurs(dir: string, afi: AfiCode): Promise<Running> {
  const config = join(dir, 'config.yaml');
  const log = join(dir, 'speaker.log');
  const peer = {
    name: 'feeder',
    peer_ip: LINK.feed,
    remote_as: FEEDER_AS,
    passive: true,
    families: [afi === Afi.IPV4 ? 'ipv4-unicast' : 'ipv6-unicast'],
    import: ['all'],
  };
  const yaml = {
    speaker: {
      name: 'bgp-to-kernel',
      local_as: RECEIVER_AS,
      router_id: LINK.rx,
      ip_versions: [4, 6],
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
    // --cpu-prof DIR: our speaker writes a V8 CPU profile there when it stops (where its time goes).
    const prof = CPU_PROF ? ['--cpu-prof', `--cpu-prof-dir=${CPU_PROF}`] : [];
    child = spawn('ip', ['netns', 'exec', NS.rx, process.execPath, ...prof, CLI, 'run', '--config', config], {
      cwd: REPO,
      stdio: ['ignore', out, out],
    });
  } finally {
    closeSync(out);
  }
  const socket = join(dir, 'control.sock');
  // What the speaker holds and what its sink says, when a count falls short.
  const show = (what: string) =>
    spawnSync(process.execPath, [CLI, 'show', what, '--socket', socket], {
      encoding: 'utf8',
      timeout: 20_000,
    }).stdout;
  const diagnostics = () =>
    `--- ${log} ---\n${readFileSync(log, 'utf8').slice(-LOG_TAIL)}\n--- show summary ---\n${show('summary')}` +
    `--- show sinks ---\n${show('sinks')}`;
  return { stop: () => stopChild(child, () => child.kill('SIGTERM')), diagnostics };
}

async function startFrr(dir: string, afi: AfiCode): Promise<Running> {
  const frr = new FrrDaemon(
    { name: 'fb2-frr', ns: NS.rx, dir },
    {
      routerId: LINK.rx,
      as: RECEIVER_AS,
      neighbors: [
        {
          address: LINK.feed,
          remoteAs: FEEDER_AS,
          families: [afi === Afi.IPV4 ? 'ipv4' : 'ipv6'],
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

const FAMILY_FLAG: Record<AfiCode, string> = { [Afi.IPV4]: '-4', [Afi.IPV6]: '-6' };

/** Our routes in the receiver's table 254 by a full dump: the check on the counter, never timed. */
async function kernelCount(afi: AfiCode): Promise<number> {
  const out = await run(
    ['bash', '-c', `ip -n ${NS.rx} ${FAMILY_FLAG[afi]} route show table 254 proto ${RTPROT_BGP} | wc -l`],
    { timeoutMs: DUMP_TIMEOUT },
  );
  return Number(out.trim());
}

async function checkCount(afi: AfiCode, want: number, what: string): Promise<void> {
  const n = await kernelCount(afi);
  if (n !== want) throw new Error(`${what}: the counter saw ${want}, a dump shows ${n}`);
}

interface Result {
  readonly installMs: number;
  readonly withdrawMs: number;
  readonly silenceInstallMs: number;
  readonly silenceAllMs: number;
  readonly state: string;
}

interface Files {
  readonly announce: string;
  readonly withdraw: string;
}

async function measure(receiver: Receiver, spec: TableSpec, files: Files): Promise<Result> {
  const dir = join(DIR, receiver);
  const routes = spec.prefixes.count;
  rmSync(dir, { recursive: true, force: true });
  mkdirSync(dir, { recursive: true });
  await deleteNamespace(NS.feed);
  await deleteNamespace(NS.rx);
  let rx: Running | null = null;
  let feeder: Feeder | null = null;
  let counter: Counter | null = null;
  try {
    await createNamespace(NS.feed);
    await createNamespace(NS.rx);
    await createVeth(
      {
        ns: NS.feed,
        ifname: LINK.feedIf,
        ipv4: `${LINK.feed}/${LINK.len}`,
        ipv6: `${LINK.feed6}/${LINK.len6}`,
      },
      { ns: NS.rx, ifname: LINK.rxIf, ipv4: `${LINK.rx}/${LINK.len}`, ipv6: `${LINK.rx6}/${LINK.len6}` },
    );
    counter = new Counter(spec.afi);
    await counter.ready();
    rx = receiver === 'ours' ? await startOurs(dir, spec.afi) : await startFrr(dir, spec.afi);
    feeder = new Feeder({
      host: LINK.rx,
      localAddress: LINK.feed,
      localAs: FEEDER_AS,
      routerId: LINK.feed,
      holdTimeSeconds: HOLD_TIME_SECONDS,
      afi: spec.afi,
      announceFile: files.announce,
      withdrawFile: files.withdraw,
      connectTimeoutMs: ESTABLISH_TIMEOUT,
    });
    const est = await feeder.established();
    const t0 = est.t as number;
    await feeder.send('announce');
    const installed = await counter.until(routes, `${receiver} install`);
    const s1 = await feeder.stats();
    await checkCount(spec.afi, routes, `${receiver} install`);
    const t1 = wallClock();
    await feeder.send('withdraw');
    const empty = await counter.until(0, `${receiver} withdraw`);
    const s2 = await feeder.stats();
    await checkCount(spec.afi, 0, `${receiver} withdraw`);
    return {
      installMs: installed - t0,
      withdrawMs: empty - t1,
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
    await counter?.stop().catch(() => {});
    await deleteNamespace(NS.feed).catch(() => {});
    await deleteNamespace(NS.rx).catch(() => {});
  }
}

const V4_ALL = 261_632;

/** The tables by name; sizes can be lowered (a quick check) with --v4, --v6, --v6-big. */
function tableSpec(name: string): TableSpec {
  switch (name) {
    case 'v4-all': {
      const prefixes = allIpv4Prefixes(Number(arg('v4', String(V4_ALL))));
      return {
        name,
        afi: Afi.IPV4,
        prefixes,
        describe: `${prefixes.count.toLocaleString('en')} IPv4 prefixes /15../32 of 198.18.0.0/15 (all it holds but the link's /24)`,
      };
    }
    case 'v6':
    case 'v6-big': {
      const n = Number(arg(name, name === 'v6' ? '100000' : '1000000'));
      const note = name === 'v6-big' ? ' (stands in for 1M IPv4: 198.18.0.0/15 holds 262,143 prefixes)' : '';
      return {
        name,
        afi: Afi.IPV6,
        prefixes: ipv6Slash64s(n),
        describe: `${n.toLocaleString('en')} IPv6 /64 of 2001:db8::/32${note}`,
      };
    }
    default:
      throw new Error(`--tables: v4-all, v6 or v6-big, not ${name}`);
  }
}

function loadLine(): string {
  return loadavg()
    .map((x) => x.toFixed(2))
    .join(' ');
}

function seconds(ms: number): string {
  return `${(ms / 1000).toFixed(2)} s`;
}

async function main(): Promise<void> {
  if (process.getuid?.() !== 0) throw new Error('needs root (namespaces, FRR as user frr)');
  if (ONLY && !(ONLY in LABEL)) throw new Error(`--only: ours or frr, not ${ONLY}`);
  const receivers: Receiver[] = ONLY ? [ONLY as Receiver] : ['ours', 'frr'];
  const specs = TABLES.map(tableSpec);
  mkdirSync(DIR, { recursive: true });
  console.log(`machine: ${machineLine()}`);
  console.log(`load average before: ${loadLine()}`);
  console.log(
    `one eBGP session per receiver, hold ${HOLD_TIME_SECONDS} s, keepalive ${KEEPALIVE_SECONDS} s; ` +
      `${RUNS} run(s) of each table, ours and FRR in turn`,
  );
  const rows: string[][] = [
    [
      'table',
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
  for (const spec of specs) {
    const streams = encodeStreams(spec, FEEDER_AS, PREFIXES_PER_SET);
    const files = {
      announce: join(DIR, `${spec.name}-announce.bin`),
      withdraw: join(DIR, `${spec.name}-withdraw.bin`),
    };
    writeFileSync(files.announce, streams.announce);
    writeFileSync(files.withdraw, streams.withdraw);
    const sets =
      PREFIXES_PER_SET > 0 ? `a new attribute set every ${PREFIXES_PER_SET} prefixes` : 'one attribute set';
    console.log(
      `${spec.name}: ${spec.describe}, ${sets}; ${(streams.announce.length / 1024).toFixed(0)} KiB of UPDATEs, ` +
        `withdrawals ${(streams.withdraw.length / 1024).toFixed(0)} KiB`,
    );
    const routes = spec.prefixes.count;
    for (let r = 1; r <= RUNS; r++) {
      for (const receiver of receivers) {
        const m = await measure(receiver, spec, files);
        const row = [
          spec.name,
          LABEL[receiver],
          String(r),
          seconds(m.installMs),
          rate((routes / m.installMs) * 1000),
          seconds(m.withdrawMs),
          rate((routes / m.withdrawMs) * 1000),
          `${seconds(m.silenceInstallMs)} / ${seconds(m.silenceAllMs)}`,
          m.state,
        ];
        console.log(`  ${row.join(' | ')} (load ${loadLine()})`);
        rows.push(row);
      }
    }
  }
  console.log(`\n${table(rows)}`);
  console.log(`\nload average after: ${loadLine()}`);
}

main().catch((err) => {
  console.error(err);
  process.exitCode = 1;
});
