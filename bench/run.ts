import { formatPolicyFigures, runPolicyBench } from './policy/prefix-list.bench.js';
import { machineLine } from './support/report.js';
import { formatCodecFigures, runCodecBench } from './wire/codec.bench.js';

/** `npm run bench`: every benchmark, one after another, on this machine. */
async function main(): Promise<void> {
  console.log(`machine: ${machineLine()}`);
  console.log('\n== BGP codec (one core, wall time, benny) ==');
  const codec = await runCodecBench();
  console.log(`\n${formatCodecFigures(codec)}`);
  console.log('\n== Policy: a 1000-entry prefix list over the generated table (benny) ==');
  const policy = await runPolicyBench();
  console.log(`\n${formatPolicyFigures(policy.figures)}`);
  for (const note of policy.notes) console.log(note);
}

main().catch((e) => {
  console.error(e);
  process.exit(1);
});
