#!/usr/bin/env node
/**
 * The Node client, which the installed command (ovn-bgp-speaker.sh) runs for every command it
 * does not relay to the speaker itself. `npm run build` bundles this file and what `show` and
 * `neighbor` need into one script (dist/src/cli/ovn-bgp-speaker.cjs, scripts/build-cli.mjs):
 * Node then reads one file instead of resolving and compiling some sixty ES modules one by one,
 * which was most of a query's time beyond Node's own start (measured in
 * bench/cli/show-latency.ts, where a V8 startup snapshot and --jitless were slower). Every
 * other command, and help, loads main.js beside it, which imports per command as before.
 */
import { pathToFileURL } from 'node:url';
import { runControlCommand } from './show.js';
import { asksForHelp } from './usage.js';

/** In the bundle (CommonJS) the file's own path; from the sources, the module's URL. */
const here = typeof __filename === 'string' ? pathToFileURL(__filename).href : import.meta.url;

function fail(e: unknown): void {
  console.error(`ovn-bgp-speaker: ${(e as Error).message}`);
  process.exitCode = 1;
}

const [command, ...rest] = process.argv.slice(2);
if ((command === 'show' || command === 'neighbor') && !asksForHelp(rest)) {
  const io = { out: (t: string) => console.log(t), err: (t: string) => console.error(t), env: process.env };
  runControlCommand(command, rest, io).then((status) => {
    process.exitCode = status;
  }, fail);
} else {
  // main.js reads process.argv and runs the command when loaded (no top-level await: the
  // bundle is CommonJS).
  import(new URL('./main.js', here).href).catch(fail);
}
