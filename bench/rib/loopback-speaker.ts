/**
 * Peak RSS of the real speaker (`ovn-bgp-speaker run`, the build) holding a full table, on
 * loopback: no namespaces, no root, no other daemon. One eBGP session from 127.0.0.2 hands it
 * the throughput benchmark's table (same generator, same seed); the speaker's RSS is read from
 * /proc before the session (idle) and once it holds every prefix (VmHWM), and its own
 * `process.memoryUsage()` at the peak comes from the `memory` line of its control socket when
 * `--probe` is given. With `--send`, a second eBGP session from 127.0.0.3 then takes the whole
 * table from the speaker, and the peak covers sending too. The times it prints (to a 100 ms
 * poll) and the CPU seconds serve to compare two builds on one machine; speed beside the
 * other daemons is bench/throughput's.
 *
 * With `--sessions S`, the replayer connects S times to the same speaker process, each time
 * once the last session's routes are gone and the peer listens again; `--first-prefixes N`
 * makes the first session's table N prefixes of another seed (other prefixes, other sets).
 * Each session's time from Established to End-of-RIB comes from the speaker's own log: does a
 * session that follows another start faster than the first one?
 *
 *   npm run build && node dist/bench/rib/loopback-speaker.js [--prefixes N] [--shape skewed|transit] [--runs R]
 *        [--node-flag FLAG ...] [--linger SECONDS] [--send] [--sessions S] [--first-prefixes N]
 */
import { type ChildProcess, spawn } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { createInterface } from 'node:readline';
import { fileURLToPath } from 'node:url';
import { stringify } from 'yaml';
import { parseIpv4 } from '../../src/address/index.js';
import { callControl } from '../../src/api/client.js';
import { Afi } from '../../src/bgp/wire/constants.js';
import { encodeMessageBytes } from '../../src/bgp/wire/message.js';
import { endOfRibInput } from '../../src/bgp/wire/update.js';
import { TABLE_SHAPES, type TableShape } from '../gen/table-shapes.js';
import { machineLine } from '../support/report.js';
import { sleep, wallClock } from '../throughput/clock.js';
import { connectWithRetry } from '../throughput/connect.js';
import { BenchAs, STREAM_CHUNK_BYTES } from '../throughput/constants.js';
import { cpuSeconds, memory } from '../throughput/proc.js';
import { RawSession } from '../throughput/raw-session.js';
import { speakerHeld } from '../throughput/real-speaker.js';
import { buildTable, encodeTable, messageAlignedCuts } from '../throughput/table-stream.js';
import { countUpdate, type PrefixCounts } from '../throughput/update-count.js';

const SELF = fileURLToPath(import.meta.url);
const CLI = resolve(dirname(SELF), '../../src/cli/main.js');
const SPEAKER = '127.0.0.1';
const PEER = '127.0.0.2';
/** The peer the table is sent to with --send. */
const RECEIVER = '127.0.0.3';
const PORT = 11179;
const POLL = 100;
const READY_TIMEOUT = 30_000;
const LOAD_TIMEOUT = 180_000;
const IDLE_SETTLE = 2_000;
/** Bound of waiting for the replayer's peer to listen again (its idle hold time grows with each drop). */
const REOPEN_TIMEOUT = 90_000;
/** Seed of --first-prefixes' table: not the benchmark's own. */
const FIRST_TABLE_SEED = 7;
/** pino's warn level: the speaker's lines from it up pass through to stderr. */
const WARN_LEVEL = 40;
/** Bound of waiting for a session's End-of-RIB line after it held every prefix, and its poll. */
const LOG_WAIT = 5_000;
const LOG_POLL = 10;
const MIB = 2 ** 20;

interface Options {
  prefixes: number;
  /** The throughput bench's table shape (bench/gen/table-shapes.ts). */
  shape: TableShape;
  runs: number;
  nodeFlags: string[];
  /** Keep the speaker this long after it holds the table (for a probe of its own). */
  lingerMs: number;
  /** Then send the table to a second peer and report the peak over both. */
  send: boolean;
  /** Sessions of the replayer, one after the other, into one speaker process. */
  sessions: number;
  /** The first session's table: this many prefixes of another seed; 0: the measured table. */
  firstPrefixes: number;
}

function options(argv: readonly string[]): Options {
  const o: Options = {
    prefixes: 1_000_000,
    shape: 'skewed',
    runs: 1,
    nodeFlags: [],
    lingerMs: 0,
    send: false,
    sessions: 1,
    firstPrefixes: 0,
  };
  for (let i = 0; i < argv.length; i++) {
    const v = argv[i + 1];
    if (argv[i] === '--send') {
      o.send = true;
      continue;
    }
    if (argv[i] === '--prefixes') o.prefixes = Number(v);
    else if (argv[i] === '--shape' && TABLE_SHAPES.includes(v as TableShape)) o.shape = v as TableShape;
    else if (argv[i] === '--runs') o.runs = Number(v);
    else if (argv[i] === '--node-flag') o.nodeFlags.push(v);
    else if (argv[i] === '--linger') o.lingerMs = Number(v) * 1000;
    else if (argv[i] === '--sessions') o.sessions = Number(v);
    else if (argv[i] === '--first-prefixes') o.firstPrefixes = Number(v);
    else throw new Error(`unknown option ${argv[i]}`);
    i++;
  }
  if (!Number.isInteger(o.sessions) || o.sessions < 1)
    throw new Error(`--sessions: ${o.sessions} is not a count`);
  if (o.firstPrefixes > 0 && o.sessions < 2)
    throw new Error('--first-prefixes: the first table is another seed, so it needs --sessions 2 or more');
  return o;
}

/** A table the replayer sends, and the prefixes it holds. */
interface SentTable {
  readonly stream: Uint8Array;
  readonly prefixes: number;
}

/**
 * The replayer's session times as the speaker logged them (Established, then End-of-RIB):
 * the speaker's clock, without the poll's step. Other lines of the speaker from warn up pass
 * through to stderr.
 */
class SessionTimes {
  readonly established: number[] = [];
  readonly endOfRib: number[] = [];

  constructor(child: ChildProcess) {
    const lines = createInterface({ input: child.stdout! });
    lines.on('line', (line) => this.#read(line));
  }

  #read(line: string): void {
    let entry: { level?: number; time?: number; peer?: string; to?: string; msg?: string };
    try {
      entry = JSON.parse(line);
    } catch {
      process.stderr.write(`${line}\n`);
      return;
    }
    if ((entry.level ?? 0) >= WARN_LEVEL) process.stderr.write(`${line}\n`);
    if (entry.peer !== 'replayer' || entry.time === undefined) return;
    if (entry.to === 'Established') this.established.push(entry.time);
    else if (entry.msg === 'End-of-RIB received') this.endOfRib.push(entry.time);
  }

  /** Session `i`'s Established to End-of-RIB in ms, once both were logged. */
  async ms(i: number): Promise<number> {
    const deadline = wallClock() + LOG_WAIT;
    while (this.endOfRib.length <= i || this.established.length <= i) {
      if (wallClock() > deadline) throw new Error(`session ${i + 1}: no End-of-RIB in the speaker's log`);
      await sleep(LOG_POLL);
    }
    return this.endOfRib[i] - this.established[i];
  }
}

async function once(o: Options, measured: SentTable, first: SentTable): Promise<string> {
  const dir = mkdtempSync(join(tmpdir(), 'loopback-speaker-'));
  const socket = join(dir, 'control.sock');
  const config = join(dir, 'config.yaml');
  writeFileSync(
    config,
    stringify({
      speaker: {
        name: 'loopback-speaker',
        local_as: BenchAs.OURS,
        router_id: '198.18.0.2',
        ip_versions: [4],
        listen: { address: SPEAKER, port: PORT },
        hold_time: 9,
        keepalive_time: 3,
        control_socket: socket,
        // Info: the replayer's Established and End-of-RIB lines time each session.
        log: { level: 'info' },
      },
      peers: [
        {
          name: 'replayer',
          peer_ip: PEER,
          remote_as: BenchAs.REPLAYER,
          passive: true,
          families: ['ipv4-unicast'],
          import: ['all'],
          export: ['all'],
        },
        {
          name: 'receiver',
          peer_ip: RECEIVER,
          remote_as: BenchAs.COUNTER,
          passive: true,
          families: ['ipv4-unicast'],
          import: ['all'],
          export: ['all'],
        },
      ],
      policies: { all: { statements: [{ action: 'accept' }] } },
    }),
  );
  const child: ChildProcess = spawn(process.execPath, [...o.nodeFlags, CLI, 'run', '--config', config], {
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  const times = new SessionTimes(child);
  let session: RawSession | null = null;
  try {
    const ready = wallClock() + READY_TIMEOUT;
    for (;;) {
      try {
        await callControl(socket, 'summary', {}, { timeoutMs: 1_000 });
        break;
      } catch {
        if (wallClock() > ready || child.exitCode !== null) throw new Error('speaker did not start');
        await sleep(POLL);
      }
    }
    await sleep(IDLE_SETTLE);
    const idle = memory(child.pid!);
    const cpuIdle = cpuSeconds(child.pid!);
    const sessionLines: string[] = [];
    let done = 0;
    let established = 0;
    for (let k = 0; k < o.sessions; k++) {
      if (session) {
        session.socket.destroy();
        await peerListensAgain(socket);
      }
      const table = k === 0 ? first : measured;
      const r = await replay(table, socket);
      session = r.session;
      established = r.established;
      done = r.done;
      sessionLines.push(
        `session ${k + 1}: ${table.prefixes} prefixes, Established to End-of-RIB ${await times.ms(k)} ms`,
      );
    }
    if (!session) throw new Error('no session');
    const full = memory(child.pid!);
    const cpu = cpuSeconds(child.pid!) - cpuIdle;
    const silence = session.liveness().maxSilenceMs;
    const perRoute = (full.peakBytes - idle.rssBytes) / measured.prefixes;
    const sent = o.send ? await sendTable(o, child.pid!) : '';
    await sleep(o.lingerMs);
    return (
      `idle RSS ${(idle.rssBytes / MIB).toFixed(1)} MiB (anon ${(idle.anonBytes / MIB).toFixed(1)}), ` +
      `peak ${(full.peakBytes / MIB).toFixed(1)} MiB, after ${(full.rssBytes / MIB).toFixed(1)} MiB, ` +
      `${perRoute.toFixed(1)} bytes/route above idle; held in ${((done - established) / 1000).toFixed(2)} s ` +
      `(to a ${POLL} ms poll), CPU ${cpu.toFixed(2)} s, longest silence ${silence.toFixed(0)} ms${sent}` +
      sessionLines.map((l) => `\n  ${l}`).join('')
    );
  } finally {
    session?.socket.destroy();
    child.kill('SIGTERM');
    await new Promise<void>((r) => (child.exitCode !== null ? r() : child.once('exit', () => r())));
    rmSync(dir, { recursive: true, force: true });
  }
}

/**
 * One session of the replayer: connects, writes the table and End-of-RIB once Established,
 * and returns when the speaker holds every prefix (to the poll).
 */
async function replay(
  table: SentTable,
  socket: string,
): Promise<{ session: RawSession; established: number; done: number }> {
  const tcp = await connectWithRetry({ host: SPEAKER, port: PORT, localAddress: PEER }, 5_000);
  const { stream } = table;
  const cuts = messageAlignedCuts(stream, STREAM_CHUNK_BYTES);
  let established = 0;
  const session = new RawSession(
    tcp,
    { localAs: BenchAs.REPLAYER, bgpId: parseIpv4('198.18.0.3'), holdTimeSeconds: 9, afis: [Afi.IPV4] },
    {
      established: async (t) => {
        established = t;
        for (let i = 1; i < cuts.length; i++) {
          if (!tcp.write(stream.subarray(cuts[i - 1], cuts[i])))
            await new Promise<void>((r) => tcp.once('drain', () => r()));
        }
        tcp.write(encodeMessageBytes({ type: 'update', ...endOfRibInput(Afi.IPV4) }));
      },
      update: () => {},
      closed: (reason) => console.log(`session closed: ${reason}`),
    },
  );
  const deadline = wallClock() + LOAD_TIMEOUT;
  let count = 0;
  while (count < table.prefixes) {
    if (wallClock() > deadline) throw new Error(`only ${count} of ${table.prefixes} prefixes in time`);
    await sleep(POLL);
    count = (await speakerHeld(socket, PEER)).count;
  }
  return { session, established, done: wallClock() };
}

/** Waits until the replayer's routes are gone and its peer accepts a connection again. */
async function peerListensAgain(socket: string): Promise<void> {
  const deadline = wallClock() + REOPEN_TIMEOUT;
  for (;;) {
    const held = await speakerHeld(socket, PEER);
    if (held.count === 0 && held.state === 'Active') return;
    if (wallClock() > deadline)
      throw new Error(`the replayer's peer is still ${held.state} holding ${held.count}`);
    await sleep(POLL);
  }
}

/** --send: a second session takes the whole table; the peak RSS now covers sending. */
async function sendTable(o: Options, pid: number): Promise<string> {
  const cpu0 = cpuSeconds(pid);
  const counts: PrefixCounts = { announced: 0, withdrawn: 0 };
  const tcp = await connectWithRetry({ host: SPEAKER, port: PORT, localAddress: RECEIVER }, 5_000);
  let established = 0;
  const session = new RawSession(
    tcp,
    { localAs: BenchAs.COUNTER, bgpId: parseIpv4('198.18.0.4'), holdTimeSeconds: 9, afis: [Afi.IPV4] },
    {
      established: (t) => {
        established = t;
      },
      update: (m) => countUpdate(m, counts),
      closed: (reason) => console.log(`receiver's session closed: ${reason}`),
    },
  );
  try {
    const deadline = wallClock() + LOAD_TIMEOUT;
    while (counts.announced < o.prefixes) {
      if (wallClock() > deadline)
        throw new Error(`only ${counts.announced} of ${o.prefixes} prefixes sent in time`);
      await sleep(POLL);
    }
    const seconds = (wallClock() - established) / 1000;
    const s = memory(pid);
    return (
      `; sent in ${seconds.toFixed(2)} s (to a ${POLL} ms poll), CPU ${(cpuSeconds(pid) - cpu0).toFixed(2)} s, ` +
      `peak over both ${(s.peakBytes / MIB).toFixed(1)} MiB, after ${(s.rssBytes / MIB).toFixed(1)} MiB`
    );
  } finally {
    session.socket.destroy();
  }
}

const o = options(process.argv.slice(2));
/** A table of the bench's shape from the replayer, next hops on its address. */
const sentTable = (prefixes: number, seed?: number): SentTable => ({
  stream: encodeTable(
    buildTable({ shape: o.shape, ipv4: prefixes, ipv6: 0, localAs: BenchAs.REPLAYER, seed }),
    { ipv4: PEER, ipv6: '::1' },
  ),
  prefixes,
});
const measured = sentTable(o.prefixes);
const first = o.firstPrefixes > 0 ? sentTable(o.firstPrefixes, FIRST_TABLE_SEED) : measured;
console.log(machineLine());
console.log(
  `table: ${o.prefixes} IPv4 prefixes (${o.shape}), ${(measured.stream.length / MIB).toFixed(1)} MiB of UPDATEs; node ${o.nodeFlags.join(' ')}`,
);
for (let r = 0; r < o.runs; r++) console.log(`run ${r + 1}: ${await once(o, measured, first)}`);
