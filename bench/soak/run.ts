/**
 * `npm run soak -- --minutes N [--flaps-per-second R] [--fip-changes-per-second R]` (as root):
 * a running speaker under steady GoBGP route churn and OVN floating-IP churn for N minutes,
 * then checked exactly; exits 1 when a check failed. See soak.ts for what is measured.
 */
import { loadavg } from 'node:os';
import { machineLine } from '../support/report.js';
import { runSoak } from './soak.js';

function arg(name: string, fallback: number): number {
  const i = process.argv.indexOf(`--${name}`);
  const v = i > 0 ? Number(process.argv[i + 1]) : fallback;
  if (!Number.isFinite(v) || v <= 0) throw new Error(`--${name} must be a positive number`);
  return v;
}

const minutes = arg('minutes', 10);
const report = await runSoak({
  seconds: Math.round(minutes * 60),
  flapsPerSecond: arg('flaps-per-second', 20),
  fipChangesPerSecond: arg('fip-changes-per-second', 2),
  warmupSeconds: Math.min(300, Math.round(minutes * 20)),
  log: (line) => console.log(line),
});
console.log(machineLine());
console.log(
  `load average at the end: ${loadavg()
    .map((l) => l.toFixed(2))
    .join(' ')}`,
);
console.log(`route flaps from GoBGP: ${report.flaps}; floating-IP changes in OVN: ${report.fipChanges}`);
console.log(
  `RSS: ${report.rssMiB.afterWarmup} MiB after warm-up, ${report.rssMiB.end} MiB at the end (max ${report.rssMiB.max})`,
);
console.log(`longest silence towards GoBGP: ${report.longestSilence} s (hold time ${report.holdTime} s)`);
console.log(
  `session Established ${report.establishedTransitions} time(s); speaker alive: ${report.speakerAlive}`,
);
for (const c of report.checks) console.log(`${c.ok ? 'ok  ' : 'FAIL'} ${c.what}: ${c.detail}`);
console.log(report.ok ? 'soak passed' : 'soak FAILED');
process.exitCode = report.ok ? 0 : 1;
