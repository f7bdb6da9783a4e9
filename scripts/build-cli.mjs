// Bundles the installed command (src/cli/quick.ts and what show and neighbor import) into one
// CommonJS file beside the compiled main.js: `node scripts/build-cli.mjs [OUTDIR]`, OUTDIR
// being tsc's (default dist). esbuild comes with tsx, a devDependency.
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
