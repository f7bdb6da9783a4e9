// Builds the installed command: the shell script package.json's bin names
// (src/cli/ovn-bgp-speaker.sh, copied executable) and the Node CLI it runs, src/cli/quick.ts and
// what show and neighbor import bundled into one CommonJS file beside the compiled main.js:
// `node scripts/build-cli.mjs [OUTDIR]`, OUTDIR being tsc's (default dist). esbuild comes with
// tsx, a devDependency.
import { chmodSync, copyFileSync } from 'node:fs';
import { join } from 'node:path';
import { build } from 'esbuild';

const outDir = process.argv[2] ?? 'dist';
await build({
  entryPoints: [join(import.meta.dirname, '../src/cli/quick.ts')],
  outfile: join(outDir, 'src/cli/ovn-bgp-speaker.cjs'),
  bundle: true,
  platform: 'node',
  format: 'cjs',
  target: 'node20',
  // main.js is loaded at run time for the other commands, never bundled.
  external: ['./main.js'],
  // quick.ts reads import.meta.url only when it runs as an ES module.
  logOverride: { 'empty-import-meta': 'silent' },
  logLevel: 'warning',
});

const script = join(outDir, 'src/cli/ovn-bgp-speaker.sh');
copyFileSync(join(import.meta.dirname, '../src/cli/ovn-bgp-speaker.sh'), script);
chmodSync(script, 0o755);
