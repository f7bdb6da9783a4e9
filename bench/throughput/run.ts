/**
 * The UPDATE-throughput benchmark: for each table shape (skewed, transit), ovn-bgp-speaker,
 * BIRD 2.0, BIRD 3.1, FRR 8.4 and FRR 10.3 (bgpd without FIB install, BIRD without a kernel
 * protocol; FRR 10.3 and BIRD 3.1 from the trixie root) each receive a small table into a
 * fresh process and the full table over one eBGP session, then send it to one common counting
 * receiver, measured the same way in one run. Needs root (network namespaces).
 *
 *   node dist/bench/throughput/run.js [--prefixes N] [--small N] [--runs 3] [--shapes skewed,transit]
 *        [--only ours,core,bird,bird3,frr,frr10,gobgp] [--out DIR] [--timeout SECONDS]
 *        [--budget MINUTES] [--ipv6 M] [--no-send] [--profile DIR]
 *
 * 'ours' is `ovn-bgp-speaker run`; 'core' and 'gobgp' are measured on request only. --profile
 * runs ours (and the core) under node --cpu-prof.
 *
 * Prints one table per shape with the targets' verdicts, writes DIR/throughput.json (every
 * run, every time series) and DIR/throughput-<shape>.svg / -send.svg (prefixes held over time).
 */
import { mkdirSync, writeFileSync } from 'node:fs';
import { loadavg } from 'node:os';
import { join, resolve } from 'node:path';
import { Afi, type AfiCode } from '../../src/bgp/wire/constants.js';
import type { ShapedTable, TableShape } from '../gen/table-shapes.js';
import { machineLine } from '../support/report.js';
import { type BenchLab, createBenchLab, type Impl, isDaemon } from './bench-lab.js';
import { cellChart } from './chart.js';
import type { ChildProgram } from './child-process.js';
import { wallClock } from './clock.js';
import { BenchAs, POLL_INTERVAL, SMALL_POLL_INTERVAL } from './constants.js';
import {
  type CellKind,
  type MeasureContext,
  type Measurement,
  measureReceiveThenSend,
  measureReplayerSend,
} from './measure.js';
import { type Options, parseOptions, USAGE, UsageError } from './options.js';
import {
  formatTable,
  formatVerdicts,
  labelOf,
  type ShapeSummary,
  sizeLabel,
  summarizeShape,
  verdicts,
} from './report.js';
import { buildTable, countStream, encodeTable, type TableSpec, tableSize } from './table-stream.js';
import { daemonVersions, makeTargets, type Target } from './targets.js';
import { withTrixieRoot } from './trixie.js';

const MS = 1000;
/** What one measurement costs beyond its own bound: restarts, loading, teardown. */
const MEASURE_OVERHEAD = 20_000;

const loadAverage = (): string =>
  loadavg()
    .map((x) => x.toFixed(2))
    .join(' ');

interface Sized {
  readonly size: 'small' | 'full';
  readonly spec: TableSpec;
  readonly parts: ShapedTable[];
}

/** The stream file of every link, per shape and size; returns what the tables hold. */
function writeStreams(bench: BenchLab, impls: readonly Impl[], shape: TableShape, tables: readonly Sized[]) {
  const files = new Map<string, string>();
  const facts: Record<string, unknown> = {};
  for (const t of tables) {
    const expected = tableSize(t.spec);
    // Our link always: the pre-encoded writer's floor is measured over it.
    for (const impl of new Set<Impl>(['ours', ...impls])) {
      if (impl === 'core') continue; // the same link as ours
      const link = bench.links[impl]!;
      const stream = encodeTable(t.parts, { ipv4: link.hubIpv4, ipv6: link.hubIpv6 });
      const c = countStream(stream);
      if (c.announced !== expected || c.withdrawn !== 0)
        throw new Error(`the encoded ${shape} table holds ${c.announced} prefixes, not ${expected}`);
      const file = join(bench.lab.dir, `table-${shape}-${t.size}-${impl}.bin`);
      writeFileSync(file, stream);
      files.set(`${t.size}/${impl}`, file);
      facts[t.size] = {
        prefixes: expected,
        attributeSets: t.parts.reduce((n, p) => n + p.groups.length, 0),
        updates: c.messages,
        bytes: stream.length,
      };
    }
  }
  return { files, facts };
}

type Step = () => Promise<Measurement[]>;

/** Runs one step unless the budget is spent; an error becomes the note of each of its cells. */
async function attempt(
  base: Pick<Measurement, 'impl' | 'shape' | 'run' | 'expected'>,
  cells: readonly CellKind[],
  needMs: number,
  deadline: number,
  step: Step,
): Promise<Measurement[]> {
  const empty = (note: string) => cells.map((cell) => ({ ...base, cell, held: 0, series: [], note }));
  if (wallClock() + needMs > deadline) return empty('skipped: time budget spent');
  const t = wallClock();
  process.stdout.write(`  ${base.shape} ${cells.join('+')} ${labelOf(base.impl)} run ${base.run} ... `);
  try {
    const ms = await step();
    const what = ms
      .map((m) => `${m.cell} ${m.wallSeconds !== undefined ? `${m.wallSeconds.toFixed(2)} s` : m.note}`)
      .join(', ');
    console.log(`${what} (${((wallClock() - t) / MS).toFixed(0)} s with setup)`);
    return ms;
  } catch (e) {
    const message = e instanceof Error ? e.message : String(e);
    console.log(`failed: ${message.split('\n')[0]}`);
    console.error(message);
    return empty(`error: ${message.split('\n')[0]}`);
  }
}

async function main(): Promise<void> {
  let parsed: Options | 'help';
  try {
    parsed = parseOptions(process.argv.slice(2));
  } catch (e) {
    if (e instanceof UsageError) {
      console.error(`${e.message}\n${USAGE}`);
      process.exit(2);
    }
    throw e;
  }
  if (parsed === 'help') {
    console.log(USAGE);
    return;
  }
  if (process.getuid?.() !== 0) throw new Error('the throughput benchmark needs root (network namespaces)');
  const o: Options = { ...parsed, only: await withTrixieRoot(parsed.only) };
  const started = wallClock();
  const deadline = started + o.budgetMs;
  const loadAtStart = loadAverage();
  console.log(`machine: ${machineLine()}`);
  console.log(`load average at start: ${loadAtStart}`);
  const families = o.ipv6 > 0 ? (['ipv4', 'ipv6'] as const) : (['ipv4'] as const);
  const afis: AfiCode[] = o.ipv6 > 0 ? [Afi.IPV4, Afi.IPV6] : [Afi.IPV4];
  const sizes = { small: o.small, full: o.prefixes + o.ipv6 };
  console.log(
    `tables: ${o.shapes.join(', ')}; ${o.small > 0 ? `${o.small} IPv4 prefixes into a fresh process, ` : ''}${o.prefixes} IPv4 + ${o.ipv6} IPv6 received and sent; ${o.runs} run(s); timeout ${o.timeoutMs / MS} s per measurement, budget ${o.budgetMs / 60_000} min`,
  );
  // Generated before any lab exists: no clock runs yet, and a shape that cannot be made fails early.
  const tables = new Map<TableShape, Sized[]>();
  for (const shape of o.shapes) {
    const spec = (ipv4: number, ipv6: number): TableSpec => ({
      shape,
      ipv4,
      ipv6,
      localAs: BenchAs.REPLAYER,
    });
    const sized: Sized[] = [];
    if (o.small > 0)
      sized.push({ size: 'small', spec: spec(o.small, 0), parts: buildTable(spec(o.small, 0)) });
    sized.push({ size: 'full', spec: spec(o.prefixes, o.ipv6), parts: buildTable(spec(o.prefixes, o.ipv6)) });
    tables.set(shape, sized);
  }
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
  const tableFacts: Record<string, unknown> = {};
  let versions: Record<string, string> = {};
  try {
    bench = await createBenchLab(families, o.only.filter(isDaemon));
    const streams = new Map<TableShape, Map<string, string>>();
    for (const [shape, sized] of tables) {
      const { files, facts } = writeStreams(bench, o.only, shape, sized);
      streams.set(shape, files);
      tableFacts[shape] = facts;
      console.log(`${shape}: ${JSON.stringify(facts)}`);
    }
    tables.clear();
    if (o.profile) mkdirSync(resolve(o.profile), { recursive: true });
    const targets = makeTargets(
      bench,
      o.only,
      families.map((f) => `${f}-unicast` as const),
      (c) => children.add(c),
      o.profile && resolve(o.profile),
    );
    versions = await daemonVersions(targets);
    console.log(
      `versions: ${Object.entries(versions)
        .map(([i, v]) => `${labelOf(i)} ${v}`)
        .join(', ')}`,
    );
    const context = (shape: TableShape, cell: 'cold' | 'receive'): MeasureContext => {
      const size = cell === 'cold' ? 'small' : 'full';
      return {
        hubNs: bench!.hubNs,
        shape,
        cell,
        expected: cell === 'cold' ? o.small : sizes.full,
        afis,
        streamFile: (impl) => streams.get(shape)!.get(`${size}/${impl === 'core' ? 'ours' : impl}`)!,
        timeoutMs: o.timeoutMs,
        pollMs: cell === 'cold' ? SMALL_POLL_INTERVAL : POLL_INTERVAL,
        track: (c) => children.add(c),
      };
    };
    const receiveNeed = o.timeoutMs + MEASURE_OVERHEAD;
    const sendNeed = 2 * o.timeoutMs + MEASURE_OVERHEAD;
    const gate = () => (wallClock() + sendNeed > deadline ? 'skipped: time budget spent' : true);
    for (let run = 1; run <= o.runs && !interrupted; run++) {
      for (const shape of o.shapes) {
        console.log(`run ${run} of ${o.runs}, ${shape} table (load average ${loadAverage()})`);
        for (const impl of o.only) {
          if (interrupted || o.small === 0) break;
          const ctx = context(shape, 'cold');
          const base = { impl, shape, run, expected: ctx.expected };
          const target = targets[impl] as Target;
          results.push(
            ...(await attempt(base, ['cold'], receiveNeed, deadline, async () => {
              const r = await measureReceiveThenSend(ctx, target, run);
              return [r.receive];
            })),
          );
        }
        for (const impl of o.only) {
          if (interrupted) break;
          const ctx = context(shape, 'receive');
          const base = { impl, shape, run, expected: ctx.expected };
          const target = targets[impl] as Target;
          const cells: CellKind[] = o.send ? ['receive', 'send'] : ['receive'];
          results.push(
            ...(await attempt(base, cells, receiveNeed, deadline, async () => {
              const r = await measureReceiveThenSend(ctx, target, run, o.send ? gate : undefined);
              return r.send ? [r.receive, r.send] : [r.receive];
            })),
          );
        }
        if (o.send && !interrupted) {
          const ctx = context(shape, 'receive');
          const base = { impl: 'replayer', shape, run, expected: ctx.expected };
          results.push(
            ...(await attempt(base, ['send'], receiveNeed, deadline, async () => [
              await measureReplayerSend(ctx, bench!.oursNs, run),
            ])),
          );
        }
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
  const loadAtEnd = loadAverage();
  const summaries: ShapeSummary[] = o.shapes.map((shape) => summarizeShape(shape, sizes, o.only, results));
  const out = resolve(o.out);
  mkdirSync(out, { recursive: true });
  const subtitle = (shape: string) =>
    `${shape} table, ${sizeLabel(sizes.full)} prefixes over one eBGP session, median of ${o.runs} run(s); ${machineLine()}`;
  for (const s of summaries) {
    console.log(
      `\n${s.shape} table: ${JSON.stringify(tableFacts[s.shape])}; median of ${o.runs} run(s); load average ${loadAtStart} at start, ${loadAtEnd} at end`,
    );
    console.log(formatTable(s, o.only));
    console.log(`\n${formatVerdicts(verdicts(s))}`);
    const of = (impl: string, cell: CellKind) =>
      results.filter((m) => m.shape === s.shape && m.impl === impl && m.cell === cell);
    const recvCells = o.only.flatMap((i) =>
      s.receive[i] ? [[i, s.receive[i]!, of(i, 'receive')] as const] : [],
    );
    writeFileSync(
      join(out, `throughput-${s.shape}.svg`),
      cellChart(`Receiving a full table (${s.shape})`, subtitle(s.shape), sizes.full, recvCells),
    );
    if (o.send) {
      const sendCells = [...o.only, 'replayer'].flatMap((i) =>
        s.send[i] ? [[i, s.send[i]!, of(i, 'send')] as const] : [],
      );
      writeFileSync(
        join(out, `throughput-${s.shape}-send.svg`),
        cellChart(
          `Sending a full table to a counting receiver (${s.shape})`,
          subtitle(s.shape),
          sizes.full,
          sendCells,
        ),
      );
    }
  }
  const doc = {
    machine: machineLine(),
    versions,
    loadAverage: { start: loadAtStart, end: loadAtEnd },
    options: { ...o, only: [...o.only], shapes: [...o.shapes] },
    tables: tableFacts,
    summaries,
    verdicts: Object.fromEntries(summaries.map((s) => [s.shape, verdicts(s)])),
    measurements: results,
    elapsedSeconds: (wallClock() - started) / MS,
  };
  writeFileSync(join(out, 'throughput.json'), `${JSON.stringify(doc, null, 1)}\n`);
  console.log(`\nwrote ${join(out, 'throughput.json')} and the charts throughput-<shape>[-send].svg`);
  if (interrupted) process.exitCode = 130;
}

main().catch((e) => {
  console.error(e instanceof Error ? (e.stack ?? e.message) : String(e));
  process.exit(1);
});
