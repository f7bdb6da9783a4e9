/**
 * How much slower is a fresh process's first full table than a later one, and how much of
 * that does a start-up warm-up win back? The receive core in one process, no sockets: each
 * UPDATE framed, decoded with the decoding context an eBGP session makes (as the speaker's
 * warm-up makes it), put into a fresh RIB and flushed, a turn of the event loop every 512
 * UPDATEs as the session's inbound path yields. The same table three times, each into a fresh
 * RIB and interner, after one of:
 *
 *   none      nothing
 *   warm-up   the speaker's own warm-up (src/speaker/warm-up.ts, its defaults)
 *   pre N     a table of N prefixes from the same generator (another seed) through the same path
 *
 * Run each way in a process of its own (the point is the first table), alternating, `--runs`
 * times. Needs the build (`npm run build`).
 *
 *   node dist/bench/bgp/first-table.js [--shape skewed|transit] [--prefixes N] [--pre N] [--runs R]
 */
import { spawnSync } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { warmUp } from '../../src/speaker/warm-up.js';
import type { TableShape } from '../gen/table-shapes.js';
import { option, shapeOption } from '../support/args.js';
import { loadLine, machineLine, median, table } from '../support/report.js';
import { encodedTable, feedContext, feedTable } from './session-feed.js';

const TABLES = 3;
/** The smaller table's seed: other prefixes and sets than the measured one's. */
const PRE_SEED = 7;
const WAYS = ['none', 'warm-up', 'pre'] as const;
type Way = (typeof WAYS)[number];

/** The child: one way, then the table TABLES times; prints the times (wall, and system CPU) as JSON. */
async function child(way: Way, shape: TableShape, prefixes: number, pre: number): Promise<void> {
  const context = feedContext();
  const stream = encodedTable(shape, prefixes);
  if (way === 'warm-up') warmUp();
  if (way === 'pre') await feedTable(encodedTable(shape, pre, PRE_SEED), context);
  const ms: number[] = [];
  const systemMs: number[] = [];
  for (let t = 0; t < TABLES; t++) {
    const started = performance.now();
    const cpu = process.cpuUsage();
    const { held } = await feedTable(stream, context);
    ms.push(performance.now() - started);
    systemMs.push(process.cpuUsage(cpu).system / 1000);
    if (held !== prefixes) throw new Error(`held ${held} of ${prefixes} prefixes`);
  }
  process.stdout.write(`${JSON.stringify({ ms, systemMs })}\n`);
}

async function main(): Promise<void> {
  const shape = shapeOption('skewed');
  const prefixes = Number(option('--prefixes', '1000000'));
  const pre = Number(option('--pre', '50000'));
  const runs = Number(option('--runs', '3'));
  const way = option('--child', '');
  if (way !== '') return child(way as Way, shape, prefixes, pre);

  console.log(machineLine());
  console.log(`${loadLine()} at start`);
  console.log(
    `${prefixes} IPv4 prefixes (${shape}), ${TABLES} tables per process, ${runs} processes each way, alternating`,
  );
  const self = fileURLToPath(import.meta.url);
  const times = new Map<Way, { ms: number[]; systemMs: number[] }[]>(WAYS.map((w) => [w, []]));
  for (let r = 0; r < runs; r++) {
    for (const w of WAYS) {
      const argv = [
        self,
        '--child',
        w,
        '--shape',
        shape,
        '--prefixes',
        String(prefixes),
        '--pre',
        String(pre),
      ];
      const out = spawnSync(process.execPath, argv, { encoding: 'utf8', timeout: 600_000 });
      if (out.status !== 0) throw new Error(`${w}: ${out.stderr || out.error}`);
      times.get(w)?.push(JSON.parse(out.stdout.trim().split('\n').at(-1) ?? '{}'));
    }
  }
  const label: Record<Way, string> = { none: 'none', 'warm-up': 'warm-up (speaker)', pre: `pre ${pre}` };
  const rows = WAYS.map((w) => {
    const all = times.get(w) ?? [];
    const col = (t: number, of: 'ms' | 'systemMs') => median(all.map((r) => r[of][t])).toFixed(0);
    return [
      label[w],
      ...Array.from({ length: TABLES }, (_, t) => `${col(t, 'ms')} (${col(t, 'systemMs')})`),
      all.map((r) => r.ms[0].toFixed(0)).join(' '),
    ];
  });
  console.log(
    `medians, ms (system CPU ms)\n${table([['before', 'table 1', 'table 2', 'table 3', 'table 1 single runs'], ...rows])}`,
  );
  console.log(`${loadLine()} at end`);
}

main().catch((e) => {
  console.error(e);
  process.exit(1);
});
