import { spawnSync } from 'node:child_process';
import { dirname, extname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { formatPolicyFigures, runPolicyBench } from './policy/prefix-list.bench.js';
import { machineLine } from './support/report.js';
import { formatCodecFigures, runCodecBench } from './wire/codec.bench.js';

const SELF = fileURLToPath(import.meta.url);

/**
 * `npm run bench`: every benchmark, one after another, on this machine: the codec and the
 * policy (one core), then — as root, since it builds the lab — the full-table throughput of
 * ovn-bgp-speaker, FRR, GoBGP and BIRD side by side (about 8 minutes for 1M prefixes, 3 runs).
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
  console.log('\n== Full-table UPDATE throughput against FRR, GoBGP and BIRD (the lab) ==');
  if (process.getuid?.() !== 0) {
    console.log('skipped: needs root for the lab (sudo npm run bench:throughput)');
    return;
  }
  // The same form as this file: the build under `npm run bench` (as the speaker is deployed),
  // the sources under tsx.
  const ext = extname(SELF);
  const run = spawnSync(
    process.execPath,
    [
      ...(ext === '.ts' ? ['--import', 'tsx'] : []),
      join(dirname(SELF), 'throughput', `run${ext}`),
      ...['--prefixes', '1000000', '--runs', '3', '--out', 'bench-results'],
    ],
    { stdio: 'inherit' },
  );
  if (run.status !== 0) process.exitCode = run.status ?? 1;
}

main().catch((e) => {
  console.error(e);
  process.exit(1);
});
