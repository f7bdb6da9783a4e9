/**
 * The UPDATE-throughput benchmark: a full table over one eBGP session, received by each of
 * ovn-bgp-speaker, FRR bgpd (no FIB install), GoBGP and BIRD (no kernel protocol) in turn,
 * then sent by each of them to one common counting receiver, measured the same way in one run.
 * Needs root (network namespaces) and FRR, GoBGP and BIRD installed.
 *
 *   node dist/bench/throughput/run.js [--prefixes N] [--ipv6 M] [--runs 3] [--out DIR]
 *        [--timeout SECONDS] [--budget MINUTES] [--only ours,core,frr,gobgp,bird] [--no-send]
 *        [--profile DIR]
 *
 * 'ours' is `ovn-bgp-speaker run`; 'core' (not measured by default) is our session and RIB
 * code without the speaker around it. --profile runs both under node --cpu-prof.
 *
 * Prints a table and the targets' verdicts, writes DIR/throughput.json (every run, every time
 * series) and DIR/throughput.svg / throughput-send.svg (prefixes held over time).
 */
import { mkdirSync, writeFileSync } from 'node:fs';
import { loadavg } from 'node:os';
import { join, resolve } from 'node:path';
import { Afi, type AfiCode } from '../../src/bgp/wire/constants.js';
import { checkHeader } from '../../src/bgp/wire/header.js';
import { machineLine } from '../support/report.js';
import { type BenchLab, createBenchLab, DEFAULT_IMPLS, IMPLS, type Impl } from './bench-lab.js';
import { cellChart } from './chart.js';
import type { ChildProgram } from './child-process.js';
import { wallClock } from './clock.js';
import {
  BenchAs,
  DEFAULT_IPV6_PREFIXES,
  DEFAULT_MEASURE_TIMEOUT,
  DEFAULT_OUT_DIR,
  DEFAULT_PREFIXES,
  DEFAULT_RUNS,
  DEFAULT_TOTAL_BUDGET,
} from './constants.js';
import {
  type MeasureContext,
  type Measurement,
  measureReceive,
  measureReplayerSend,
  measureSend,
} from './measure.js';
import { formatTable, formatVerdicts, labelOf, type Summary, summarize, verdicts } from './report.js';
import { encodeTable, type TableSpec, tableSize } from './table-stream.js';
import { makeTargets } from './targets.js';
import { countUpdate } from './update-count.js';

interface Options {
  readonly prefixes: number;
  readonly ipv6: number;
  readonly runs: number;
  readonly out: string;
  readonly timeoutMs: number;
  readonly budgetMs: number;
  readonly only: readonly Impl[];
  readonly send: boolean;
  /** Profile our speaker (node --cpu-prof) into this folder. */
  readonly profile?: string;
}

const USAGE =
  'usage: run.ts [--prefixes N] [--ipv6 M] [--runs R] [--out DIR] [--timeout SECONDS] [--budget MINUTES] [--only ours,core,frr,gobgp,bird] [--no-send] [--profile DIR]';
const MS = 1000;
const MINUTE = 60_000;
/** What one measurement costs beyond its own bound: restarts, loading, teardown. */
const MEASURE_OVERHEAD = 20_000;

function parseOptions(argv: readonly string[]): Options {
  const o = {
    prefixes: DEFAULT_PREFIXES,
    ipv6: DEFAULT_IPV6_PREFIXES,
    runs: DEFAULT_RUNS,
    out: DEFAULT_OUT_DIR,
    timeoutMs: DEFAULT_MEASURE_TIMEOUT,
    budgetMs: DEFAULT_TOTAL_BUDGET,
    only: DEFAULT_IMPLS,
    send: true,
    profile: undefined as string | undefined,
  };
  const count = (v: string | undefined, what: string, min = 0): number => {
    const n = Number(v);
    if (!Number.isInteger(n) || n < min)
      throw new Error(`${what} must be a whole number >= ${min}\n${USAGE}`);
    return n;
  };
  for (let i = 0; i < argv.length; i++) {
    const a = argv[i];
    const v = argv[i + 1];
    switch (a) {
      case '--prefixes':
        o.prefixes = count(v, a, 1);
        i++;
        break;
      case '--ipv6':
        o.ipv6 = count(v, a);
        i++;
        break;
      case '--runs':
        o.runs = count(v, a, 1);
        i++;
        break;
      case '--out':
        if (!v) throw new Error(USAGE);
        o.out = v;
        i++;
        break;
      case '--timeout':
        o.timeoutMs = count(v, a, 1) * MS;
        i++;
        break;
      case '--budget':
        o.budgetMs = count(v, a, 1) * MINUTE;
        i++;
        break;
      case '--only': {
        const list = (v ?? '').split(',') as Impl[];
        if (list.some((x) => !IMPLS.includes(x)))
          throw new Error(`--only takes ${IMPLS.join(',')}\n${USAGE}`);
        o.only = list;
        i++;
        break;
      }
      case '--profile':
        if (!v) throw new Error(USAGE);
        o.profile = resolve(v);
        i++;
        break;
      case '--no-send':
        o.send = false;
        break;
      case '--help':
      case '-h':
        console.log(USAGE);
        process.exit(0);
        break;
      default:
        throw new Error(`unknown argument ${a}\n${USAGE}`);
    }
  }
  return o;
}

/** Every prefix of the stream counted the way the counter counts: the tools agree with the table. */
function checkStream(stream: Uint8Array, expected: number): number {
  const c = { announced: 0, withdrawn: 0 };
  let messages = 0;
  for (let pos = 0; pos < stream.length; messages++) {
    const len = checkHeader(stream, pos);
    countUpdate(stream.subarray(pos, pos + len), c);
    pos += len;
  }
  if (c.announced !== expected || c.withdrawn !== 0) {
    throw new Error(`the encoded table holds ${c.announced} prefixes, not ${expected}`);
  }
  return messages;
}

const loadAverage = (): string =>
  loadavg()
    .map((x) => x.toFixed(2))
    .join(' ');

type Step = () => Promise<Measurement>;

/** Runs one measurement unless the budget is spent; an error becomes the measurement's note. */
async function attempt(
  base: Pick<Measurement, 'impl' | 'direction' | 'run' | 'expected'>,
  needMs: number,
  deadline: number,
  step: Step,
): Promise<Measurement> {
  const skipped = { ...base, held: 0, series: [] };
  if (wallClock() + needMs > deadline) return { ...skipped, note: 'skipped: time budget spent' };
  const t = wallClock();
  process.stdout.write(`  ${base.direction} ${labelOf(base.impl)} run ${base.run} ... `);
  try {
    const m = await step();
    const what = m.wallSeconds !== undefined ? `${m.wallSeconds.toFixed(2)} s` : m.note;
    console.log(`${what} (${((wallClock() - t) / MS).toFixed(0)} s with setup)`);
    return m;
  } catch (e) {
    const message = e instanceof Error ? e.message : String(e);
    console.log(`failed: ${message.split('\n')[0]}`);
    console.error(message);
    return { ...skipped, note: `error: ${message.split('\n')[0]}` };
  }
}

async function main(): Promise<void> {
  const o = parseOptions(process.argv.slice(2));
  if (process.getuid?.() !== 0) throw new Error('the throughput benchmark needs root (network namespaces)');
  const started = wallClock();
  const deadline = started + o.budgetMs;
  const loadAtStart = loadAverage();
  console.log(`machine: ${machineLine()}`);
  console.log(`load average at start: ${loadAtStart}`);
  const spec: TableSpec = { ipv4: o.prefixes, ipv6: o.ipv6, localAs: BenchAs.REPLAYER };
  const expected = tableSize(spec);
  const families = o.ipv6 > 0 ? (['ipv4', 'ipv6'] as const) : (['ipv4'] as const);
  const afis: AfiCode[] = o.ipv6 > 0 ? [Afi.IPV4, Afi.IPV6] : [Afi.IPV4];
  const children = new Set<ChildProgram>();
  let bench: BenchLab | undefined;
  let interrupted = false;
  const onSignal = () => {
    interrupted = true;
    console.error('interrupted: tearing the lab down');
  };
  process.on('SIGINT', onSignal);
  process.on('SIGTERM', onSignal);
  const results: Measurement[] = [];
  try {
    console.log(
      `table: ${o.prefixes} IPv4 + ${o.ipv6} IPv6 prefixes, ${o.runs} run(s), timeout ${o.timeoutMs / MS} s per measurement`,
    );
    bench = await createBenchLab(families);
    const files: Record<string, string> = {};
    let messages = 0;
    let bytes = 0;
    for (const impl of IMPLS) {
      if (impl === 'core') continue; // the same link as ours
      const link = bench.links[impl];
      const stream = encodeTable(spec, { ipv4: link.hubIpv4, ipv6: link.hubIpv6 });
      messages = checkStream(stream, expected);
      bytes = stream.length;
      files[impl] = join(bench.lab.dir, `table-${impl}.bin`);
      writeFileSync(files[impl], stream);
    }
    console.log(
      `encoded: ${messages} UPDATEs, ${(bytes / 2 ** 20).toFixed(1)} MiB (per link: the next hop differs)`,
    );
    if (o.profile) mkdirSync(o.profile, { recursive: true });
    const targets = makeTargets(
      bench,
      families.map((f) => `${f}-unicast` as const),
      (c) => children.add(c),
      o.profile,
    );
    const ctx: MeasureContext = {
      hubNs: bench.hubNs,
      expected,
      afis,
      streamFile: (impl) => files[impl === 'core' ? 'ours' : impl]!,
      timeoutMs: o.timeoutMs,
      track: (c) => children.add(c),
    };
    const receiveNeed = o.timeoutMs + MEASURE_OVERHEAD;
    for (let run = 1; run <= o.runs && !interrupted; run++) {
      console.log(`run ${run} of ${o.runs} (load average ${loadAverage()})`);
      const received = new Map<string, Measurement>();
      for (const impl of o.only) {
        if (interrupted) break;
        const base = { impl, direction: 'receive' as const, run, expected };
        const m = await attempt(base, receiveNeed, deadline, () => measureReceive(ctx, targets[impl], run));
        received.set(impl, m);
        results.push(m);
      }
      if (!o.send) continue;
      {
        const base = { impl: 'replayer', direction: 'send' as const, run, expected };
        if (!interrupted)
          results.push(
            await attempt(base, receiveNeed, deadline, () => measureReplayerSend(ctx, bench!.oursNs, run)),
          );
      }
      for (const impl of o.only) {
        if (interrupted) break;
        const base = { impl, direction: 'send' as const, run, expected };
        const r = received.get(impl);
        if (r && r.wallSeconds === undefined && r.note?.startsWith('timeout')) {
          // Loading the sender would time out the same way: say so instead of waiting for it.
          results.push({
            ...base,
            held: 0,
            series: [],
            note: `not loaded: receiving took over ${o.timeoutMs / MS} s`,
          });
          continue;
        }
        results.push(
          await attempt(base, 2 * o.timeoutMs + MEASURE_OVERHEAD, deadline, () =>
            measureSend(ctx, targets[impl], run),
          ),
        );
      }
    }
  } finally {
    for (const c of children) await c.stop().catch(() => undefined);
    if (bench) {
      const report = await bench.lab.destroy();
      if (report.survivors.length > 0)
        console.error(`processes still running after teardown: ${report.survivors.join(' ')}`);
    }
  }
  const order = IMPLS.filter((i) => o.only.includes(i));
  const of = (impl: string, dir: Measurement['direction']) =>
    results.filter((m) => m.impl === impl && m.direction === dir);
  const summary: Summary = {
    receive: Object.fromEntries(order.map((i) => [i, summarize(i, 'receive', of(i, 'receive'))])),
    send: Object.fromEntries(
      o.send ? [...order, 'replayer'].map((i) => [i, summarize(i, 'send', of(i, 'send'))]) : [],
    ),
  };
  const vs = verdicts(summary);
  const loadAtEnd = loadAverage();
  console.log(
    `\n${expected} prefixes, median of ${o.runs} run(s); load average ${loadAtStart} at start, ${loadAtEnd} at end`,
  );
  console.log(formatTable(summary, o.send ? [...order, 'replayer'] : order));
  console.log(`\n${formatVerdicts(vs)}`);
  const out = resolve(o.out);
  mkdirSync(out, { recursive: true });
  const doc = {
    machine: machineLine(),
    loadAverage: { start: loadAtStart, end: loadAtEnd },
    options: { ...o, only: [...o.only] },
    table: spec,
    expected,
    summary,
    verdicts: vs,
    measurements: results,
    elapsedSeconds: (wallClock() - started) / MS,
  };
  writeFileSync(join(out, 'throughput.json'), `${JSON.stringify(doc, null, 1)}\n`);
  const subtitle = `${expected} prefixes over one eBGP session, median of ${o.runs} run(s); ${machineLine()}`;
  const recvCells = order.map((i) => [i, summary.receive[i]!, of(i, 'receive')] as const);
  writeFileSync(
    join(out, 'throughput.svg'),
    cellChart('Receiving a full table', subtitle, expected, recvCells),
  );
  if (o.send) {
    const sendCells = [...order, 'replayer'].map((i) => [i, summary.send[i]!, of(i, 'send')] as const);
    writeFileSync(
      join(out, 'throughput-send.svg'),
      cellChart('Sending a full table (to a counting receiver)', subtitle, expected, sendCells),
    );
  }
  console.log(
    `\nwrote ${join(out, 'throughput.json')}, throughput.svg${o.send ? ', throughput-send.svg' : ''}`,
  );
  if (interrupted) process.exitCode = 130;
}

main().catch((e) => {
  console.error(e instanceof Error ? (e.stack ?? e.message) : String(e));
  process.exit(1);
});
