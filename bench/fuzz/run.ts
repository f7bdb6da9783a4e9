/**
 * `npm run fuzz -- --minutes N [--cases K] [--seed S] [--replay LANE:SEED]` (as root): mutated
 * captured UPDATE streams and OPENs against a running speaker for N minutes (or K cases);
 * exits 1 on any violation, a dead speaker or a dropped good peer. See fuzz.ts.
 */
import { loadavg } from 'node:os';
import { Lab } from '../../frr-interop/lab/index.js';
import { machineLine } from '../support/report.js';
import { FUZZ_LAB_ID, runFuzz } from './fuzz.js';

function arg(name: string): string | undefined {
  const i = process.argv.indexOf(`--${name}`);
  return i > 0 ? process.argv[i + 1] : undefined;
}

function positive(name: string, fallback?: number): number | undefined {
  const text = arg(name);
  if (text === undefined) return fallback;
  const v = Number(text);
  if (!Number.isFinite(v) || v <= 0) throw new Error(`--${name} must be a positive number, got ${text}`);
  return v;
}

// Interrupted: stop what the lab started (by PID) and delete its namespaces before leaving.
for (const signal of ['SIGINT', 'SIGTERM'] as const) {
  process.once(signal, () => {
    console.log(`fuzz: ${signal}, cleaning up`);
    void Lab.cleanup({ id: FUZZ_LAB_ID })
      .catch((e) => console.error(`cleanup failed: ${(e as Error).message}`))
      .finally(() => process.exit(130));
  });
}

const replayText = arg('replay');
const replay = replayText?.match(/^(\d+):(\d+)$/);
if (replayText !== undefined && !replay) throw new Error(`--replay must be LANE:SEED, got ${replayText}`);
const cases = positive('cases');
const report = await runFuzz({
  seconds: Math.round((positive('minutes', 1) ?? 1) * 60),
  ...(cases !== undefined && { maxCases: cases }),
  ...(arg('seed') !== undefined && { seed: positive('seed') }),
  ...(replay && { replay: { lane: Number(replay[1]), seed: Number(replay[2]) } }),
  log: (line) => console.log(line),
});
console.log(machineLine());
console.log(
  `load average at the end: ${loadavg()
    .map((l) => l.toFixed(2))
    .join(' ')}`,
);
console.log(`seed ${report.seed}; streams: ${report.streams.join(', ')}`);
console.log(`cases tried: ${report.cases}`);
const sorted = (r: Record<string, number>) =>
  Object.entries(r)
    .sort((a, b) => b[1] - a[1])
    .map(([k, n]) => `${k} ${n}`)
    .join(', ');
console.log(`reactions (NOTIFICATION code/subcode, up, ...): ${sorted(report.outcomes)}`);
console.log(`mutators: ${sorted(report.byMutator)}`);
console.log(`crashes: ${report.speakerAlive ? 0 : 1}; good-peer drops: ${report.goodPeerDrops}`);
console.log(`good peer's table: ${report.goodPeerRoutes.have} of ${report.goodPeerRoutes.want} routes`);
console.log(
  `RSS: ${report.rssMiB.start} MiB at the start, ${report.rssMiB.end} MiB at the end (max ${report.rssMiB.max})`,
);
for (const v of report.violations)
  console.log(
    `VIOLATION ${v.kind} ${v.mutator} on ${v.stream}: ${v.detail}\n  replay: --seed ${report.seed} --replay ${v.lane}:${v.seed}\n  bytes: ${v.hex}`,
  );
for (const f of report.setupFailures) console.log(`SETUP ${f}`);
console.log(`violations: ${report.violations.length}`);
console.log(report.ok ? 'fuzz passed' : 'fuzz FAILED');
process.exitCode = report.ok ? 0 : 1;
