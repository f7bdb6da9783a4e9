/**
 * How long a `show` query takes from the shell: a fresh process per call, as an operator or a
 * script runs it, against a control socket serving a small fixed answer. The installed command
 * is a shell script that relays the query to the speaker through socat (or nc.openbsd) and
 * prints the text the speaker formats; beside it are the Node client it runs otherwise (one
 * bundled file) and the ways we measured and left: the ES module graph file by file, the
 * bundle with --jitless, a V8 startup snapshot of the bundle; and the floors: bare Node and,
 * as root with `--vtysh`, FRR's vtysh asking a bgpd started in a lab namespace. Wall time of each spawn, median and max of --runs (default 15),
 * the cases taking turns so a busy machine weighs on each alike.
 *
 *   npm run build && node dist/bench/cli/show-latency.js [--runs N] [--vtysh]
 */
import { execFile } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, extname, join } from 'node:path';
import { performance } from 'node:perf_hooks';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import { startControlServer } from '../../src/api/index.js';
import type { SpeakerControl, SummaryView } from '../../src/api/types.js';
import { runCliInSpeaker } from '../../src/cli/serve.js';
import { machineLine, table } from '../support/report.js';

const RUNS = 15;
const SPAWN_TIMEOUT_MS = 10_000;
const SNAPSHOT_TIMEOUT_MS = 60_000;
const SELF = fileURLToPath(import.meta.url);
const EXT = extname(SELF);
const SRC = join(dirname(SELF), '../../src');
/** From the sources the process must load tsx too; the build's figure is the one that counts. */
const LOADER = EXT === '.ts' ? ['--import', 'tsx'] : [];
/** What `npm run build` bundles (scripts/build-cli.mjs); absent when run from the sources. */
const BUNDLE = join(SRC, 'cli/ovn-bgp-speaker.cjs');
/** The installed command; its relayed queries need no bundle. */
const SCRIPT = join(SRC, 'cli/ovn-bgp-speaker.sh');

const SUMMARY: SummaryView = {
  routerId: '198.18.0.1',
  localAs: 65000,
  neighbors: [],
  rib: { 'ipv4-unicast': 0, 'ipv6-unicast': 0 },
};
const unused = () => {
  throw new Error('not served by this bench');
};
const CONTROL: SpeakerControl = {
  summary: () => SUMMARY,
  neighbors: () => [],
  rib: () => [],
  advertised: () => [],
  received: () => [],
  resetNeighbor: unused,
  shutdownNeighbor: unused,
  enableNeighbor: unused,
  refreshNeighbor: unused,
  sinks: () => [],
  ovn: () => null,
  announceRoute: unused,
  withdrawRoute: unused,
  apiRoutes: () => [],
  editPeer: unused,
  watch: unused,
  dumpRib: unused,
  injectMrt: unused,
  withdrawMrt: unused,
  mrtInjections: () => [],
};

interface Case {
  readonly what: string;
  readonly file: string;
  readonly args: readonly string[];
  readonly env?: NodeJS.ProcessEnv;
}

/** Asynchronous: the control server answering the CLI runs in this process. */
function spawnOnce(c: Case): Promise<number> {
  const start = performance.now();
  return new Promise((resolve, reject) => {
    execFile(c.file, [...c.args], { timeout: SPAWN_TIMEOUT_MS, env: c.env ?? process.env }, (error) =>
      error ? reject(new Error(`${c.what}: ${error.message}`)) : resolve(performance.now() - start),
    );
  });
}

/** Each case once per round, so load that comes and goes falls on all of them. */
async function timeCases(cases: readonly Case[], runs: number): Promise<number[][]> {
  const times = cases.map(() => [] as number[]);
  for (let i = 0; i < runs; i++) for (const [k, c] of cases.entries()) times[k]!.push(await spawnOnce(c));
  return times.map((t) => t.sort((a, b) => a - b));
}

/**
 * A snapshot needs one script whose main function is set at build time; esbuild (a
 * devDependency, through tsx) bundles one from show.ts. Undefined when that cannot be done.
 */
async function buildSnapshot(dir: string): Promise<string | undefined> {
  let esbuild: typeof import('esbuild');
  try {
    esbuild = await import('esbuild');
  } catch {
    return undefined;
  }
  const entry = join(dir, 'snapshot-entry.mjs');
  writeFileSync(
    entry,
    `import { startupSnapshot } from 'node:v8';
import { runControlCommand } from ${JSON.stringify(join(SRC, `cli/show${EXT}`))};
startupSnapshot.setDeserializeMainFunction(() => {
  const [command, ...rest] = process.argv.slice(1);
  const io = { out: (t) => console.log(t), err: (t) => console.error(t), env: process.env };
  runControlCommand(command, rest, io).then((s) => { process.exitCode = s; });
});
`,
  );
  const script = join(dir, 'snapshot-entry.cjs');
  await esbuild.build({
    entryPoints: [entry],
    outfile: script,
    bundle: true,
    platform: 'node',
    format: 'cjs',
    logLevel: 'error',
  });
  const blob = join(dir, 'show.blob');
  await new Promise<void>((resolve, reject) =>
    execFile(
      process.execPath,
      ['--snapshot-blob', blob, '--build-snapshot', script],
      { timeout: SNAPSHOT_TIMEOUT_MS },
      (e) => (e ? reject(e) : resolve()),
    ),
  );
  return blob;
}

/** A bgpd in a lab namespace for vtysh to ask (root only); `stop` removes the lab. */
async function startBgpd(): Promise<{ vtyDir: string; stop: () => Promise<void> }> {
  const { Lab } = await import('../../frr-interop/lab/index.js');
  const lab = await Lab.create({
    id: 'clibench',
    speaker: { as: 65000, routerId: '198.18.0.1' },
    peers: [{ name: 'frr', impl: 'frr', as: 65001, originate: { ipv4: ['198.19.1.0/24'] } }],
  });
  return {
    vtyDir: lab.frr('frr').dir,
    stop: async () => {
      await lab.destroy();
    },
  };
}

/**
 * A PATH of links to what the installed command uses but `tool`, so it takes its next choice;
 * undefined when that next choice (nc.openbsd) is not installed.
 */
function pathWithout(dir: string, tool: string): string | undefined {
  const bin = join(dir, `path-without-${tool}`);
  mkdirSync(bin);
  for (const name of ['awk', 'readlink', 'node', 'socat', 'nc.openbsd']) {
    if (name === tool) continue;
    const found = (process.env.PATH ?? '')
      .split(':')
      .map((d) => join(d, name))
      .find((f) => existsSync(f));
    if (name === 'nc.openbsd' && !found) return undefined;
    if (found) symlinkSync(found, join(bin, name));
  }
  return bin;
}

const ms = (n: number) => `${n.toFixed(0)} ms`;

export interface ShowLatencyOptions {
  readonly runs?: number;
  /** Also time `vtysh -c 'show bgp summary'` against a lab bgpd (needs root and FRR). */
  readonly vtysh?: boolean;
}

export async function runShowLatencyBench(options: ShowLatencyOptions = {}): Promise<string> {
  const runs = options.runs ?? RUNS;
  const dir = mkdtempSync(join(tmpdir(), 'obs-bench-cli-'));
  const socket = join(dir, 'control.sock');
  const server = await startControlServer({ path: socket, control: CONTROL, cli: runCliInSpeaker });
  let bgpd: Awaited<ReturnType<typeof startBgpd>> | undefined;
  try {
    const node = process.execPath;
    const show = ['show', 'summary', '--socket', socket];
    const speakerModules = `import(${JSON.stringify(join(SRC, `speaker/index${EXT}`))})`;
    const cases: Case[] = [
      { what: 'node -e 0 (the floor)', file: node, args: ['-e', '0'] },
      {
        what: 'node loading the speaker modules',
        file: node,
        args: [...LOADER, '--input-type=module', '-e', speakerModules],
      },
      {
        what: 'show summary: ES modules (main.js)',
        file: node,
        args: [...LOADER, join(SRC, `cli/main${EXT}`), ...show],
      },
    ];
    cases.push({ what: 'show summary: the installed command (sh, socat)', file: SCRIPT, args: show });
    const ncOnly = pathWithout(dir, 'socat');
    if (ncOnly)
      cases.push({
        what: 'show summary: the installed command (sh, nc.openbsd)',
        file: SCRIPT,
        args: show,
        env: { ...process.env, PATH: ncOnly },
      });
    if (existsSync(BUNDLE)) {
      cases.push({ what: 'show summary: the Node client (the bundle)', file: node, args: [BUNDLE, ...show] });
      cases.push({
        what: 'show summary: the bundle, --jitless',
        file: node,
        args: ['--jitless', BUNDLE, ...show],
      });
    }
    const blob = await buildSnapshot(dir).catch(() => undefined);
    if (blob)
      cases.push({
        what: 'show summary: V8 startup snapshot',
        file: node,
        args: ['--snapshot-blob', blob, ...show],
      });
    if (options.vtysh) {
      bgpd = await startBgpd();
      cases.push({
        what: "vtysh -c 'show bgp summary' (FRR)",
        file: 'vtysh',
        args: ['--vty_socket', bgpd.vtyDir, '-d', 'bgpd', '-c', 'show bgp summary'],
      });
    }
    const times = await timeCases(cases, runs);
    const rows = [['what', 'median', 'max']];
    for (const [k, c] of cases.entries()) {
      const t = times[k]!;
      rows.push([c.what, ms(t[Math.floor(t.length / 2)]!), ms(t[t.length - 1]!)]);
    }
    return table(rows);
  } finally {
    await bgpd?.stop();
    await server.close();
    rmSync(dir, { recursive: true, force: true });
  }
}

if (process.argv[1] === SELF) {
  const { values } = parseArgs({ options: { runs: { type: 'string' }, vtysh: { type: 'boolean' } } });
  console.log(`machine: ${machineLine()}`);
  console.log(
    await runShowLatencyBench({
      ...(values.runs !== undefined && { runs: Number(values.runs) }),
      vtysh: values.vtysh ?? false,
    }),
  );
}
