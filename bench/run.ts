import { machineLine } from './support/report.js';
import { formatCodecFigures, runCodecBench } from './wire/codec.bench.js';

/** `npm run bench`: every benchmark, one after another, on this machine. */
async function main(): Promise<void> {
  console.log(`machine: ${machineLine()}`);
  console.log('\n== BGP codec (one core, wall time, benny) ==');
  const codec = await runCodecBench();
  console.log(`\n${formatCodecFigures(codec)}`);
}

main().catch((e) => {
  console.error(e);
  process.exit(1);
});
