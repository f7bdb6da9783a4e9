/**
 * How long a `show` query takes from the shell: a fresh Node process per call, as an operator
 * or a script runs it, against a control socket serving a small fixed answer. Beside it, bare
 * Node (the floor) and Node loading the speaker's modules (what every CLI call cost when the
 * entry imported them all). Wall time of each spawn, median and max of RUNS.
 */
import { execFile } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, extname, join } from 'node:path';
import { performance } from 'node:perf_hooks';
import { fileURLToPath } from 'node:url';
import { startControlServer } from '../../src/api/index.js';
import type { SpeakerControl, SummaryView } from '../../src/api/types.js';
import { machineLine, table } from '../support/report.js';

const RUNS = 15;
const SPAWN_TIMEOUT_MS = 10_000;
const SELF = fileURLToPath(import.meta.url);
const EXT = extname(SELF);
const SRC = join(dirname(SELF), '../../src');
/** From the sources the process must load tsx too; the build's figure is the one that counts. */
const LOADER = EXT === '.ts' ? ['--import', 'tsx'] : [];

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

/** Asynchronous: the control server answering the CLI runs in this process. */
function spawnOnce(args: readonly string[]): Promise<number> {
  const start = performance.now();
  return new Promise((resolve, reject) => {
    execFile(process.execPath, [...args], { timeout: SPAWN_TIMEOUT_MS }, (error) =>
      error ? reject(new Error(`${args.join(' ')}: ${error.message}`)) : resolve(performance.now() - start),
    );
  });
}

async function timeSpawn(args: readonly string[]): Promise<number[]> {
  const out: number[] = [];
  for (let i = 0; i < RUNS; i++) out.push(await spawnOnce(args));
  return out.sort((a, b) => a - b);
}

const ms = (n: number) => `${n.toFixed(0)} ms`;

export async function runShowLatencyBench(): Promise<string> {
  const dir = mkdtempSync(join(tmpdir(), 'obs-bench-cli-'));
  const socket = join(dir, 'control.sock');
  const server = await startControlServer({ path: socket, control: CONTROL });
  try {
    const speakerModules = `import(${JSON.stringify(join(SRC, `speaker/index${EXT}`))})`;
    const cases: [string, string[]][] = [
      ['node -e 0 (the floor)', ['-e', '0']],
      ['node loading the speaker modules', [...LOADER, '--input-type=module', '-e', speakerModules]],
      [
        'ovn-bgp-speaker show summary',
        [...LOADER, join(SRC, `cli/main${EXT}`), 'show', 'summary', '--socket', socket],
      ],
    ];
    const rows = [['what', 'median', 'max']];
    for (const [what, args] of cases) {
      const t = await timeSpawn(args);
      rows.push([what, ms(t[Math.floor(t.length / 2)]!), ms(t[t.length - 1]!)]);
    }
    return table(rows);
  } finally {
    await server.close();
    rmSync(dir, { recursive: true, force: true });
  }
}

if (process.argv[1] === SELF) {
  console.log(`machine: ${machineLine()}`);
  console.log(await runShowLatencyBench());
}
