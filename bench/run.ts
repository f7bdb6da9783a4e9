import { spawnSync } from 'node:child_process';
import { dirname, extname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { formatPolicyFigures, runPolicyBench } from './policy/prefix-list.bench.js';
import { machineLine } from './support/report.js';
import { formatCodecFigures, runCodecBench } from './wire/codec.bench.js';

const SELF = fileURLToPath(import.meta.url);

/**
 * `npm run bench`: every benchmark, one after another, on this machine: the codec and the
 * policy (one core), OVN route derivation in process, then — as root, since they build the
 * lab — the full-table throughput of ovn-bgp-speaker, FRR, GoBGP and BIRD side by side (about
 * 8 minutes for 1M prefixes, 3 runs), and OVN publishing end to end: commit → FRR next to
 * ovn-northd (about 6 minutes, most of it ovn-northd on 10,000 NATs), and 50,000 FIPs (about
 * 3 minutes).
 */
async function main(): Promise<void> {
  console.log(`machine: ${machineLine()}`);
  console.log('\n== BGP codec (one core, wall time, benny) ==');
  const codec = await runCodecBench();
  console.log(`\n${formatCodecFigures(codec)}`);
  console.log('\n== Policy: a 1000-entry prefix list over the generated table (benny) ==');
  const policy = await runPolicyBench();
  console.log(`\n${formatPolicyFigures(policy.figures)}`);
  for (const note of policy.notes) console.log(note);
  if (process.argv.includes('--codec-only')) return;
  console.log('\n== OVN route derivation in process: 10 against 50,000 FIPs (bench/ovn/derive) ==');
  child(['ovn', 'derive'], [], ['--expose-gc']);
  console.log('\n== Full-table UPDATE throughput against FRR, GoBGP and BIRD (the lab) ==');
  if (process.getuid?.() !== 0) {
    console.log('skipped: needs root for the lab (sudo npm run bench:throughput)');
    console.log('\n== OVN publishing end to end (the lab) ==\nskipped: needs root for the lab');
    return;
  }
  child(['throughput', 'run'], ['--prefixes', '1000000', '--runs', '3', '--out', 'bench-results']);
  console.log('\n== OVN commit -> route at FRR, next to ovn-northd (bench/ovn/latency) ==');
  child(['ovn', 'latency'], []);
  console.log('\n== OVN at 50,000 FIPs, 2,000 routers, 1,000 chassis (bench/ovn/scale) ==');
  child(['ovn', 'scale'], []);
}

/**
 * Runs a benchmark of this folder in a child process, in the same form as this file: the
 * build under `npm run bench` (as the speaker is deployed), the sources under tsx. A failure
 * is the exit status; the next benchmark still runs.
 */
function child(path: readonly string[], args: readonly string[], nodeFlags: readonly string[] = []): void {
  const ext = extname(SELF);
  const run = spawnSync(
    process.execPath,
    [
      ...nodeFlags,
      ...(ext === '.ts' ? ['--import', 'tsx'] : []),
      `${join(dirname(SELF), ...path)}${ext}`,
      ...args,
    ],
    { stdio: 'inherit' },
  );
  if (run.status !== 0) process.exitCode = run.status ?? 1;
}

main().catch((e) => {
  console.error(e);
  process.exit(1);
});
