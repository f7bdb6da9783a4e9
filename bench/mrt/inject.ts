/**
 * `mrt inject` of a full table: a TABLE_DUMP_V2 file of N IPv4 prefixes (the generated table of
 * the other benches, ~10 prefixes per attribute set, so ~N/10 sets) written here, then read
 * and originated by a fresh process as the speaker does it (the mrt origin: the UPDATE decoder,
 * the RIB, the decision process run to the end). Prints the time and the child's peak RSS.
 *
 *   node --import tsx bench/mrt/inject.ts [--prefixes 1000000] [--sets-every 10]
 */
import { spawnSync } from 'node:child_process';
import { mkdtempSync, openSync, rmSync, statSync, writeSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { AttrInterner, UpdatePacker, Writer } from '../../src/bgp/wire/index.js';
import {
  encodePeerIndexTable,
  finishRib,
  ribEntry,
  startRib,
  tableDumpAttributes,
} from '../../src/mrt/index.js';
import { Rib } from '../../src/rib/index.js';
import { MrtInjections, RouteFlow } from '../../src/routing/index.js';
import { generateTable } from '../gen/full-table.js';
import { loadLine, machineLine, rate, table } from '../support/report.js';

const SELF = fileURLToPath(import.meta.url);

function option(name: string, fallback: number): number {
  const i = process.argv.indexOf(`--${name}`);
  return i > 0 ? Number(process.argv[i + 1]) : fallback;
}

/** Writes the generated table as one peer's TABLE_DUMP_V2 file. */
function writeFile(path: string, prefixes: number, perSet: number): void {
  const t = generateTable({ afi: 1, prefixes, perAttributeSet: perSet, internet: true });
  const fd = openSync(path, 'w');
  const w = new Writer(1 << 20);
  const peer = { bgpId: 0xc6120101, address: Uint8Array.of(198, 18, 1, 1), asn: 65001 };
  encodePeerIndexTable(w, 1_700_000_000, { collectorId: 0xc6120001, viewName: '', peers: [peer] });
  const packer = new UpdatePacker({ as4: true });
  let seq = 0;
  for (const g of t.groups) {
    const attrs = tableDumpAttributes(packer, g.attrs);
    for (let i = g.from; i < g.to; i++) {
      const len = t.prefixes.lens[i];
      const at = startRib(w, 1_700_000_000, 1, false, seq++, t.prefixes.words, i, len);
      ribEntry(w, false, 0, 1_700_000_000, 0, attrs);
      finishRib(w, at, 1, len);
    }
    if (w.pos > 900_000) {
      writeSync(fd, w.view());
      w.reset();
    }
  }
  writeSync(fd, w.view());
}

/** The child: inject, decide everything, report. */
async function child(path: string): Promise<void> {
  const baseline = process.memoryUsage().rss;
  const rib = new Rib({ localAs: 65000, routerId: 0xc6120002 });
  const flow = new RouteFlow(rib, (fn) => setImmediate(fn));
  const injections = new MrtInjections({
    rib,
    flow,
    interner: new AttrInterner(),
    now: () => performance.now(),
  });
  const start = performance.now();
  const view = await injections.inject('table', path);
  const read = performance.now() - start;
  while (rib.pending > 0) await flow.whenFlushed();
  const decided = performance.now() - start;
  const held = rib.bestCount(1);
  console.log(
    JSON.stringify({
      prefixes: view.ipv4,
      held,
      readMs: read,
      totalMs: decided,
      baselineMb: baseline / 2 ** 20,
      peakMb: process.resourceUsage().maxRSS / 1024,
      ribMb: rib.byteLength / 2 ** 20,
    }),
  );
}

function main(): void {
  const prefixes = option('prefixes', 1_000_000);
  const perSet = option('sets-every', 10);
  const dir = mkdtempSync(join(tmpdir(), 'mrt-bench-'));
  try {
    const file = join(dir, 'table.mrt');
    const t0 = performance.now();
    writeFile(file, prefixes, perSet);
    const made = performance.now() - t0;
    console.log(`machine: ${machineLine()}; ${loadLine()}`);
    console.log(
      `file: ${prefixes} IPv4 prefixes, ~${perSet} per attribute set, ${(statSync(file).size / 2 ** 20).toFixed(1)} MiB (written in ${(made / 1000).toFixed(1)} s)`,
    );
    const run = spawnSync(process.execPath, [...process.execArgv, SELF, '--child', file], {
      encoding: 'utf8',
    });
    if (run.status !== 0) throw new Error(`the injecting process failed: ${run.stderr}`);
    const r = JSON.parse(run.stdout.trim().split('\n').at(-1)!);
    if (r.held !== prefixes) throw new Error(`${r.held} of ${prefixes} prefixes held`);
    console.log(
      table([
        [
          'prefixes',
          'read + originate, s',
          'to all decided, s',
          'prefixes/s',
          'peak RSS, MB',
          'baseline RSS, MB',
          'RIB columns, MB',
        ],
        [
          String(r.prefixes),
          (r.readMs / 1000).toFixed(2),
          (r.totalMs / 1000).toFixed(2),
          rate(r.prefixes / (r.totalMs / 1000)),
          r.peakMb.toFixed(0),
          r.baselineMb.toFixed(0),
          r.ribMb.toFixed(0),
        ],
      ]),
    );
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

if (process.argv[2] === '--child') {
  child(process.argv[3]).catch((e) => {
    console.error(e);
    process.exit(1);
  });
} else {
  main();
}
