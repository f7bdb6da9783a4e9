import { spawnSync } from 'node:child_process';
import { dirname, extname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { runShowLatencyBench } from './cli/show-latency.js';
import { formatPolicyFigures, runPolicyBench } from './policy/prefix-list.bench.js';
import { machineLine } from './support/report.js';
import { formatCodecFigures, runCodecBench } from './wire/codec.bench.js';

const SELF = fileURLToPath(import.meta.url);

/**
 * Runs one benchmark script beside this file in a child process, in the same form as this file:
 * the build under `npm run bench` (as the speaker is deployed), the sources under tsx. False on
 * failure; the next benchmark still runs.
 */
function runBench(path: string, args: readonly string[], nodeFlags: readonly string[] = []): boolean {
  const ext = extname(SELF);
  const run = spawnSync(
    process.execPath,
    [
      ...nodeFlags,
      ...(ext === '.ts' ? ['--import', 'tsx'] : []),
      join(dirname(SELF), `${path}${ext}`),
      ...args,
    ],
    { stdio: 'inherit' },
  );
  return run.status === 0;
}

interface LabBench {
  readonly name: string;
  readonly title: string;
  readonly path: string;
  readonly args: readonly string[];
}

/** The benchmarks that need root (network namespaces), after the one-core ones; `--only NAME` picks one. */
const LAB_BENCHES: readonly LabBench[] = [
  {
    name: 'throughput',
    title:
      'Full-table UPDATE throughput beside BIRD 2.0, BIRD 3.1, FRR 8.4 and FRR 10.3: skewed and transit tables, 100k into a fresh process, 1M received and sent, peak RSS (about 20 minutes)',
    path: 'throughput/run',
    args: ['--prefixes', '1000000', '--runs', '3', '--out', 'bench-results'],
  },
  {
    name: 'bfd',
    title:
      'BFD detection time at 300 ms x 3 against FRR bfdd, 20 failures idle and 20 while a 1M-prefix table arrives (about 5 minutes)',
    path: 'bfd/detection',
    args: ['--failures', '20'],
  },
  {
    name: 'ovn-latency',
    title:
      'OVN commit -> route at FRR, next to ovn-northd (6 to 16 minutes by the load, most of it ovn-northd on 10,000 NATs)',
    path: 'ovn/latency',
    args: [],
  },
  {
    name: 'ovn-dr-latency',
    title:
      "OVN 25.03 route exchange: NB commit -> route at the fabric FRR, our speaker beside FRR 10.3 in OVN's reference design on the chassis (8 to 20 minutes by the load, most of it ovn-northd and ovn-controller on 10,000 NATs)",
    path: 'ovn/dr-latency',
    args: [],
  },
  {
    name: 'ovn-scale',
    title: 'OVN at 50,000 FIPs, 2,000 routers, 1,000 chassis, beside 10 and 10,000 FIPs (about 6 minutes)',
    path: 'ovn/scale',
    args: [],
  },
  {
    name: 'kernel',
    title: 'Kernel sink: install and delete rates beside ip -batch (100k and 1M IPv4, 100k IPv6)',
    path: 'fib/kernel',
    args: [],
  },
  {
    name: 'bgp-to-kernel',
    title:
      'BGP to kernel over eBGP, our speaker (kernel sink) beside FRR bgpd + zebra: all of 198.18.0.0/15 (/15-/32), 100k and 1M IPv6 /64',
    path: 'fib/bgp-to-kernel',
    args: ['--runs', '1'],
  },
  {
    name: 'bgp-to-kernel-sets',
    title:
      'BGP to kernel as above, another table shape: a new attribute set every 10 prefixes (AS paths of 2-5 hops, MEDs), as from a transit peer',
    path: 'fib/bgp-to-kernel',
    args: ['--runs', '1', '--tables', 'v4-all,v6-big', '--prefixes-per-set', '10'],
  },
  {
    name: 'zebra',
    title: "zebra sink: our ZAPI client into FRR's zebra and its kernel",
    path: 'fib/zebra-install',
    args: [],
  },
  {
    name: 'ovn-nb',
    title: 'OVN NB sink: 10k learned routes into NB in one batch',
    path: 'fib/ovn-nb',
    args: ['--runs', '3'],
  },
];

/**
 * `npm run bench`: every benchmark, one after another, on this machine: the codec and the
 * policy (one core), OVN route derivation in process, then — as root, since they build labs —
 * the full-table throughput of ovn-bgp-speaker beside BIRD 2.0/3.1 and FRR 8.4/10.3 on two
 * table shapes (FRR 10.3 and BIRD 3.1 from the trixie root, built on first use), OVN
 * publishing end to end, and the three sinks.
 */
async function main(): Promise<void> {
  console.log(`machine: ${machineLine()}`);
  const only = process.argv.indexOf('--only');
  const pick = only > 0 ? process.argv[only + 1] : undefined;
  // `--only NAME` runs that lab benchmark alone, not the whole suite before it.
  if (pick === undefined) await runOneCoreBenches();
  if (process.argv.includes('--codec-only')) return;
  if (process.getuid?.() !== 0) {
    console.log('\nskipped the lab benchmarks (throughput, sinks, OVN): they need root (sudo npm run bench)');
    return;
  }
  if (pick !== undefined && !LAB_BENCHES.some((b) => b.name === pick)) {
    console.error(`--only takes one of ${LAB_BENCHES.map((b) => b.name).join(', ')}`);
    process.exitCode = 2;
    return;
  }
  for (const b of LAB_BENCHES) {
    if (pick !== undefined && b.name !== pick) continue;
    console.log(`\n== ${b.title} ==`);
    if (!runBench(b.path, b.args)) process.exitCode = 1;
  }
}

/** The benchmarks that need no lab: the codec, the policy, the CLI, OVN derivation, MRT injection. */
async function runOneCoreBenches(): Promise<void> {
  console.log('\n== BGP codec (one core, wall time, benny) ==');
  const codec = await runCodecBench();
  console.log(`\n${formatCodecFigures(codec)}`);
  console.log('\n== Policy: a 1000-entry prefix list over the generated table (benny) ==');
  const policy = await runPolicyBench();
  console.log(`\n${formatPolicyFigures(policy.figures)}`);
  for (const note of policy.notes) console.log(note);
  console.log('\n== CLI: one `show` query from the shell, a fresh Node process per call ==');
  console.log(await runShowLatencyBench());
  if (process.argv.includes('--codec-only')) return;
  console.log('\n== OVN route derivation in process: 10 against 50,000 FIPs (bench/ovn/derive) ==');
  if (!runBench('ovn/derive', [], ['--expose-gc'])) process.exitCode = 1;
  console.log('\n== MRT: inject a 1M-prefix TABLE_DUMP_V2 file as an origin (bench/mrt/inject) ==');
  if (!runBench('mrt/inject', ['--prefixes', '1000000'])) process.exitCode = 1;
}

main().catch((e) => {
  console.error(e);
  process.exit(1);
});
