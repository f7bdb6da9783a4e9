/**
 * lab CLI (run as root, through frr-interop/lab.sh):
 *   up     [--id ID]   build the demo lab (removing leftovers of a crashed one with the same id)
 *   down   [--id ID]   stop every process of the lab, delete its namespaces and files
 *   status [--id ID]   each daemon's neighbors and their state
 */
import { DEFAULT_LAB_ID } from './constants.js';
import { demoLabOptions } from './demo.js';
import { LabError } from './errors.js';
import { Lab, type TeardownReport } from './lab.js';

const USAGE = 'usage: lab.sh up|down|status [--id ID]';

function parseArgs(argv: readonly string[]): { command: string; id: string } {
  const [command = '', ...rest] = argv;
  let id = DEFAULT_LAB_ID;
  for (let i = 0; i < rest.length; i++) {
    if (rest[i] === '--id' && rest[i + 1] !== undefined) id = rest[++i]!;
    else throw new LabError('invalid-spec', `unexpected argument ${rest[i]}\n${USAGE}`);
  }
  return { command, id };
}

const seconds = (t0: number): string => `${((performance.now() - t0) / 1000).toFixed(2)} s`;

function printTeardown(r: TeardownReport): void {
  console.log(
    `stopped ${r.stopped.length} process(es), deleted namespaces: ${r.namespaces.join(' ') || 'none'}`,
  );
  if (r.survivors.length > 0) console.log(`still running: ${r.survivors.join(' ')}`);
}

async function up(id: string): Promise<void> {
  const t0 = performance.now();
  const lab = await Lab.create(demoLabOptions(id));
  console.log(`lab ${lab.id} up in ${seconds(t0)}; files in ${lab.dir}`);
  console.log(`speaker: AS ${lab.speaker.as}, router id ${lab.speaker.routerId}, namespace ${lab.speakerNs}`);
  if (lab.speakerZebraSocket) console.log(`speaker zebra (ZAPI): ${lab.speakerZebraSocket}`);
  for (const p of lab.peers) {
    console.log(
      `${p.name.padEnd(6)} ${p.impl.padEnd(5)} AS ${p.as}  ns ${p.ns}  peer ${p.address.ipv4} ${p.address.ipv6}` +
        `  -> speaker ${p.speakerAddress.ipv4} ${p.speakerAddress.ipv6} (${p.link.a.ifname})`,
    );
  }
  console.log(`run the speaker with: ip netns exec ${lab.speakerNs} node …`);
}

async function status(id: string): Promise<void> {
  const lab = Lab.attach({ id });
  for (const p of lab.peers) {
    if (!p.daemon.isRunning()) {
      console.log(`${p.name.padEnd(6)} ${p.impl.padEnd(5)} not running`);
      continue;
    }
    for (const n of await p.daemon.neighbors()) {
      const pfx = Object.entries(n.prefixesReceived)
        .map(([f, c]) => `${f}:${c}`)
        .join(' ');
      const err = n.lastError ? `  last: ${n.lastError}` : '';
      console.log(
        `${p.name.padEnd(6)} ${p.impl.padEnd(5)} ${n.address.padEnd(16)} ${n.state.padEnd(11)} ${pfx}${err}`,
      );
    }
  }
}

async function main(): Promise<void> {
  const { command, id } = parseArgs(process.argv.slice(2));
  switch (command) {
    case 'up':
      return up(id);
    case 'down': {
      const t0 = performance.now();
      printTeardown(await Lab.cleanup({ id }));
      console.log(`lab ${id} down in ${seconds(t0)}`);
      return;
    }
    case 'status':
      return status(id);
    default:
      throw new LabError('invalid-spec', USAGE);
  }
}

main().catch((e: unknown) => {
  console.error(e instanceof Error ? e.message : String(e));
  process.exitCode = 1;
});
