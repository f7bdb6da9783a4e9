/**
 * BFD detection time: how long after a peer's BFD falls silent our speaker declares the session
 * Down (RFC 5880 6.8.4) and closes the BGP session tied to it, at FRR's 300 ms x 3 (Detection
 * Time 900 ms), first with the speaker otherwise idle, then while a full table (1M IPv6 /64s
 * from 2001:db8::/32, a new attribute set every 10 prefixes, announced and withdrawn over and
 * over) arrives from another peer at the same time.
 *
 *   sudo npx tsx bench/bfd/detection.ts [--failures 20] [--table 1000000]
 *
 * The lab: our speaker in the lab's speaker namespace; FRR 8.4 (bgpd + bfdd, `neighbor X bfd`)
 * as its peer; the feeder of the BGP-to-kernel bench (bench/fib/bgp-feeder.ts) in a namespace of
 * its own on a second link. A failure is FRR's bfdd stopped by PID (SIGSTOP): its packets stop
 * at a known instant with the link left up, so BGP comes back at once after SIGCONT. Each one
 * waits for BFD Up both ways and BGP Established, pauses 0.5-0.8 s (so failures fall at every
 * phase of the peer's transmit interval), stops bfdd and reads `show neighbors --json`: BFD Down
 * is stamped by the speaker's BFD worker, the BGP close by its main thread. Both count from the
 * SIGSTOP; the peer's last packet left up to one transmit interval (225-300 ms) before it, so
 * a correct detection lands between about 600 and 900 ms.
 */
import { mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { dirname, extname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { stringify } from 'yaml';
import { createNamespace, createVeth, Lab } from '../../frr-interop/lab/index.js';
import type { NeighborDetail } from '../../src/api/index.js';
import { Afi } from '../../src/bgp/wire/constants.js';
import { runControlCommand } from '../../src/cli/show.js';
import type { FeederConfig, FeederStream } from '../fib/bgp-feeder.js';
import { encodeStreams, ipv6Slash64s, LINK } from '../fib/bgp-tables.js';
import { LabChild } from '../fib/lab-child.js';
import { loadLine, machineLine, percentile, table } from '../support/report.js';
import { sleep, wallClock } from '../throughput/clock.js';

const SELF = fileURLToPath(import.meta.url);
const EXT = extname(SELF);
const REPO = resolve(dirname(SELF), EXT === '.ts' ? '../..' : '../../..');
/** The speaker in the same form as this file: sources under tsx, or the build. */
const SPEAKER_ARGV =
  EXT === '.ts' ? ['--import', 'tsx', join(REPO, 'src/cli/main.ts')] : [join(REPO, 'dist/src/cli/main.js')];

function arg(name: string, fallback: string): string {
  const i = process.argv.indexOf(`--${name}`);
  return i > 0 ? (process.argv[i + 1] ?? fallback) : fallback;
}

const FAILURES = Number(arg('failures', '20'));
const TABLE_PREFIXES = Number(arg('table', '1000000'));
const PREFIXES_PER_SET = 10;

const BFD = { minRx: 300, minTx: 300, multiplier: 3 } as const;
const DETECTION_MS = BFD.minRx * BFD.multiplier;
const SPEAKER_AS = 64800;
const PEER_AS = 64801;
const FEEDER_AS = 64802;
const ROUTER_ID = '198.18.0.1';
/** Far beyond the Detection Time: only BFD closes the session this fast. */
const HOLD_TIME_SECONDS = 90;
const UP_TIMEOUT = 120_000;
const DOWN_TIMEOUT = 10_000;
const SEND_TIMEOUT = 600_000;
const POLL_MS = 50;
const PAUSE_MS = 500;
const PAUSE_SPREAD_MS = 300;

interface Sample {
  /** From SIGSTOP to BFD Down (the worker's stamp), and to the BGP session closed (main thread). */
  readonly bfdDown: number;
  readonly bgpClosed: number;
}

/** `show neighbors NAME --json` over the control socket; undefined while it does not answer. */
async function neighbor(socket: string, name: string): Promise<NeighborDetail | undefined> {
  let out = '';
  // The speaker's own shape (`--json` alone prints FRR's).
  const status = await runControlCommand('show', ['neighbors', name, '--json=native', '--socket', socket], {
    out: (t) => {
      out += t;
    },
    err: () => {},
    env: {},
  });
  return status === 0 ? (JSON.parse(out) as NeighborDetail[])[0] : undefined;
}

/** Polls `probe` until it returns a value; throws after `timeoutMs`. */
async function until<T>(probe: () => Promise<T | undefined>, what: string, timeoutMs: number): Promise<T> {
  const deadline = wallClock() + timeoutMs;
  for (;;) {
    const v = await probe();
    if (v !== undefined) return v;
    if (wallClock() > deadline) throw new Error(`no ${what} within ${timeoutMs} ms`);
    await sleep(POLL_MS);
  }
}

/** CPU seconds (user + system) a process has used, from /proc. */
function cpuSeconds(pid: number): number {
  const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
  const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
  // utime and stime are fields 14 and 15 of stat(5), in clock ticks (100 per second here).
  return (Number(fields[11]) + Number(fields[12])) / 100;
}

/** `failures` silences of the peer's bfdd, one after another. */
async function measure(socket: string, bfddPid: number, failures: number, label: string): Promise<Sample[]> {
  const out: Sample[] = [];
  for (let i = 0; i < failures; i++) {
    await until(
      async () => {
        const n = await neighbor(socket, 'frr');
        return n?.state === 'Established' && n.bfd?.state === 'Up' && n.bfd.remoteState === 'Up'
          ? true
          : undefined;
      },
      `${label} ${i + 1}: BFD Up and BGP Established`,
      UP_TIMEOUT,
    );
    await sleep(PAUSE_MS + Math.random() * PAUSE_SPREAD_MS);
    // Whole milliseconds, as the speaker stamps its times.
    const t0 = Date.now();
    process.kill(bfddPid, 'SIGSTOP');
    let down: NeighborDetail;
    try {
      down = await until(
        async () => {
          const n = await neighbor(socket, 'frr');
          const b = n?.bfd;
          const drop = b?.lastSessionDrop;
          return b?.state === 'Down' && Date.parse(b.lastChange) >= t0 && drop && Date.parse(drop.at) >= t0
            ? n
            : undefined;
        },
        `${label} ${i + 1}: BFD Down and BGP closed`,
        DOWN_TIMEOUT,
      );
    } finally {
      process.kill(bfddPid, 'SIGCONT');
    }
    const b = down.bfd!;
    out.push({ bfdDown: Date.parse(b.lastChange) - t0, bgpClosed: Date.parse(b.lastSessionDrop!.at) - t0 });
  }
  return out;
}

function row(label: string, samples: readonly Sample[], extra: string): string[] {
  const down = samples.map((s) => s.bfdDown);
  const closed = samples.map((s) => s.bgpClosed);
  const within = down.filter((d) => d <= DETECTION_MS).length;
  return [
    label,
    String(samples.length),
    `${Math.min(...down)}`,
    `${percentile(down, 50)}`,
    `${Math.max(...down)}`,
    `${percentile(closed, 50)}`,
    `${Math.max(...closed)}`,
    `${within}/${samples.length}`,
    extra,
  ];
}

async function main(): Promise<void> {
  if (process.getuid?.() !== 0) throw new Error('needs root: it builds network namespaces');
  console.log(`machine: ${machineLine()}`);
  const lab = await Lab.create({
    id: 'bfdb',
    speaker: { as: SPEAKER_AS, routerId: ROUTER_ID },
    peers: [
      {
        name: 'frr',
        impl: 'frr',
        as: PEER_AS,
        speakerSessions: { transports: ['ipv4'], connectRetry: 2, bfd: BFD },
      },
    ],
  });
  const dir = join(lab.dir, 'bench');
  let feeder: LabChild | undefined;
  teardown = async () => {
    await feeder?.stop();
    await lab.destroy();
  };
  try {
    rmSync(dir, { recursive: true, force: true });
    mkdirSync(dir, { recursive: true });
    // The table, encoded before any clock starts.
    const streams = encodeStreams(
      { name: 'v6-big', afi: Afi.IPV6, describe: '', prefixes: ipv6Slash64s(TABLE_PREFIXES) },
      FEEDER_AS,
      PREFIXES_PER_SET,
    );
    const announceFile = join(dir, 'announce.bin');
    const withdrawFile = join(dir, 'withdraw.bin');
    writeFileSync(announceFile, streams.announce);
    writeFileSync(withdrawFile, streams.withdraw);

    const feedNs = `${lab.prefix}feed`;
    await createNamespace(feedNs);
    await createVeth(
      {
        ns: feedNs,
        ifname: LINK.feedIf,
        ipv4: `${LINK.feed}/${LINK.len}`,
        ipv6: `${LINK.feed6}/${LINK.len6}`,
      },
      {
        ns: lab.speakerNs,
        ifname: LINK.rxIf,
        ipv4: `${LINK.rx}/${LINK.len}`,
        ipv6: `${LINK.rx6}/${LINK.len6}`,
      },
    );

    const socket = join(dir, 'control.sock');
    const config = join(dir, 'speaker.yaml');
    writeFileSync(
      config,
      stringify({
        speaker: {
          name: 'bfd-bench',
          local_as: SPEAKER_AS,
          router_id: ROUTER_ID,
          ip_versions: [4, 6],
          listen: { address: '::', port: 179 },
          hold_time: HOLD_TIME_SECONDS,
          connect_retry: 2,
          control_socket: socket,
          log: { level: 'warn' },
        },
        peers: [
          {
            name: 'frr',
            peer_ip: lab.peer('frr').address.ipv4,
            remote_as: PEER_AS,
            idle_hold_time: 0,
            bfd: { min_rx: BFD.minRx, min_tx: BFD.minTx, multiplier: BFD.multiplier },
            import: ['all'],
            export: ['none'],
          },
          {
            name: 'feeder',
            peer_ip: LINK.feed,
            remote_as: FEEDER_AS,
            passive: true,
            families: ['ipv6-unicast'],
            import: ['all'],
            export: ['none'],
          },
        ],
        policies: {
          all: { statements: [{ action: 'accept' }] },
          none: { statements: [{ action: 'reject' }] },
        },
      }),
    );
    const speaker = lab.spawn(lab.speakerNs, [process.execPath, ...SPEAKER_ARGV, 'run', '--config', config], {
      name: 'speaker',
      logFile: join(dir, 'speaker.log'),
    });
    const bfddPid = Number(readFileSync(join(lab.peer('frr').daemon.dir, 'bfdd.pid'), 'utf8').trim());

    const feederConfig: FeederConfig = {
      host: LINK.rx,
      localAddress: LINK.feed,
      localAs: FEEDER_AS,
      routerId: LINK.feed,
      holdTimeSeconds: HOLD_TIME_SECONDS,
      afi: Afi.IPV6,
      announceFile,
      withdrawFile,
      connectTimeoutMs: UP_TIMEOUT,
    };
    feeder = new LabChild('bgp-feeder', feedNs, feederConfig, REPO);
    await feeder.waitFor((e) => e.ev === 'established', 'Established', UP_TIMEOUT);

    console.log(
      `\nBFD at ${BFD.minRx}/${BFD.minTx} ms x ${BFD.multiplier} (Detection Time ${DETECTION_MS} ms) with FRR 8.4 bfdd; ${FAILURES} failures each (its bfdd stopped by SIGSTOP)`,
    );
    const idle = await measure(socket, bfddPid, FAILURES, 'idle');
    console.log(`idle done; ${loadLine()}`);

    // The full table, announced then withdrawn for as long as the failures last.
    let loading = true;
    let passes = 0;
    const f = feeder;
    const send = async (s: FeederStream) => {
      const e = await f.ask('send', 'sent', SEND_TIMEOUT, { stream: s });
      if (!e.ok) throw new Error(`feeder: session lost while sending the ${s} stream`);
    };
    let loadError: unknown;
    const load = (async () => {
      while (loading) {
        await send('announce');
        await send('withdraw');
        passes++;
      }
    })().catch((e) => {
      loadError = e;
    });
    // Let the first UPDATEs reach the speaker before the first failure.
    await sleep(2000);
    const cpu0 = cpuSeconds(speaker.record.pid);
    const t0 = wallClock();
    let loaded: Sample[];
    try {
      loaded = await measure(socket, bfddPid, FAILURES, 'loaded');
    } finally {
      loading = false;
    }
    const cpu = (cpuSeconds(speaker.record.pid) - cpu0) / ((wallClock() - t0) / 1000);
    await load;
    if (loadError !== undefined) throw loadError;
    console.log(`loaded done; ${loadLine()}`);

    console.log(
      `\n${table([
        [
          'condition',
          'failures',
          'BFD Down min',
          'median',
          'worst',
          'BGP closed median',
          'worst',
          `within ${DETECTION_MS} ms`,
          'speaker meanwhile',
        ],
        row('idle', idle, '-'),
        row(
          `full table (${TABLE_PREFIXES / 1e6}M IPv6)`,
          loaded,
          `${(cpu * 100).toFixed(0)}% CPU, ${passes} announce+withdraw passes done`,
        ),
      ])}`,
    );
    console.log('(ms from the peer falling silent; its last packet left up to 300 ms before)');
    for (const [label, s] of [
      ['idle', idle],
      ['loaded', loaded],
    ] as const)
      console.log(`${label}: BFD Down ${s.map((x) => x.bfdDown).join(' ')}`);
  } finally {
    await teardown();
  }
}

/** What a Ctrl-C or a kill of the bench takes down before it exits: the lab and its processes. */
let teardown: () => Promise<void> = async () => {};
for (const signal of ['SIGINT', 'SIGTERM'] as const)
  process.once(signal, () => {
    console.error(`${signal}: taking the lab down`);
    teardown().finally(() => process.exit(130));
  });

main().catch((e) => {
  console.error(e);
  process.exit(1);
});
