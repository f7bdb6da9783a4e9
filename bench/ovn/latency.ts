/**
 * OVN commit → route in FRR's RIB, through the real pieces: NB and SB ovsdb-servers with
 * ovn-northd, our speaker (`dist/`, in namespace ob-lat-spk) and FRR 8.4 bgpd (ob-lat-frr).
 * Each change is one `ovn-nbctl --wait=sb --print-wait-time lr-nat-add|lr-nat-del`, and the
 * same commit is timed from the same instant (watch.ts) to:
 *   wire      the speaker's UPDATE leaving on the veth (capture.ts)
 *   FRR       FRR's table holding the /32 (and, later, having selected it best)
 *   northd    ovn-northd having written SB for it (NB_Global.sb_cfg, what --wait=sb waits for)
 *
 *   sudo npx tsx bench/ovn/latency.ts [--samples 60] [--batch 10000] [--big-samples 20]
 *                                     [--poll-ms 1] [--coalesce-ms N] [--no-capture] [--profile DIR]
 *
 * On the sample topology of frr-interop/capture/ovn-snapshot.ts (router1: a DGP bound to gw1)
 * plus one VM per distributed sample on tenant1, bound to hv1/hv2. Samples alternate
 * distributed (logical_port + external_mac: next hop the VM's chassis) and centralized FIPs.
 */

import { join, resolve } from 'node:path';
import { buildTopology } from '../../frr-interop/capture/ovn-snapshot.js';
import { callControl } from '../../src/api/client.js';
import { nbctl, sbctl } from '../../test/support/ovsdb-lab.js';
import { loadLine, machineLine, percentile, table } from '../support/report.js';
import { firstAfter, WireCapture, type WireLog, wallOf } from './capture.js';
import { checkBuild, cpuMeter, LAB, OvnBenchLab } from './lab.js';
import { natBatchArgs, nbctlChange, northdDone, northdOwn, withTimeout } from './nbctl.js';
import { CommitWatch, type RouteSeen, received, waitReceived, watchRoute } from './watch.js';

function arg(name: string, fallback: number | undefined): number | undefined {
  const i = process.argv.indexOf(`--${name}`);
  return i > 0 ? Number(process.argv[i + 1]) : fallback;
}
const SAMPLES = Math.max(50, arg('samples', 60) as number);
const BATCH = arg('batch', 10_000) as number;
const BIG_SAMPLES = arg('big-samples', 20) as number;
const POLL_MS = arg('poll-ms', 1) as number;
const COALESCE_MS = arg('coalesce-ms', undefined);
const CAPTURE = !process.argv.includes('--no-capture');
/** --profile DIR: the speaker runs with --cpu-prof; its profile lands in DIR when it stops. */
const PROFILE = process.argv.includes('--profile')
  ? process.argv[process.argv.indexOf('--profile') + 1]
  : undefined;
const SAMPLE_MS = 10_000;
const BATCH_MS = 180_000;
const ROUTER = 'router1';
/** Single-change FIPs: 198.18.66.0/23 (at most 512). The batch: 198.18.128.0/18. */
const singleIp = (i: number) => `198.18.${66 + (i >> 8)}.${i & 255}`;
const batchIp = (i: number) => `198.18.${128 + (i >> 8)}.${i & 255}`;
const batchLogical = (i: number) => `198.19.${64 + (i >> 8)}.${i & 255}`;
const vm = (k: number) => ({
  name: `vmb${k}`,
  ip: `198.19.1.${100 + k}`,
  mac: `50:54:00:00:0b:${k.toString(16).padStart(2, '0')}`,
});

interface Sample {
  readonly kind: 'distributed' | 'centralized' | 'batch';
  readonly change: 'add' | 'del';
  /** The prefix whose UPDATE is looked up on the wire (the last of a batch is found by max). */
  readonly wirePrefixes: readonly string[];
  /** Wall ms of the commit. */
  readonly commitWall: number;
  /** Commit → FRR holds the prefix (has dropped it), ms. */
  readonly frrMs: number;
  /** Commit → FRR selected it best (removed it from the table), ms. */
  readonly frrSettledMs: number;
  /** Commit → ovn-northd wrote SB for it (sb_cfg), ms, this process's clock. */
  readonly northdMs: number;
  /** ovn-nbctl --print-wait-time "ovn-northd completion", ms, northd's clock. */
  readonly northdOwnMs: number;
  /** Commit → the (last) UPDATE on the wire, ms; filled from the capture at the end. */
  wireMs: number;
  /** CPU ms each process used from just before the commit until FRR had everything (batches). */
  cpu?: Record<string, number>;
}

/** One commit of `args` (ovn-nbctl commands), timed to FRR (`frr`) and to ovn-northd. */
async function timed(
  lab: OvnBenchLab,
  watch: CommitWatch,
  ip: string,
  change: 'add' | 'del',
  args: readonly string[],
  frr: () => Promise<RouteSeen>,
  timeoutMs: number,
): Promise<Omit<Sample, 'kind' | 'wirePrefixes' | 'wireMs'>> {
  const { commit } = await watch.arm(ip, change === 'add' ? 'insert' : 'delete');
  const seen = frr();
  // Awaited below; if ovn-nbctl fails first, neither may become an unhandled rejection.
  seen.catch(() => {});
  commit.catch(() => {});
  const out = await nbctlChange(lab.nb.unix, timeoutMs, args);
  const c = await withTimeout(commit, timeoutMs, `the commit of ${ip}`);
  const s = await seen;
  const sbAt = await northdDone(watch, c.nbCfg, timeoutMs);
  if (s.received < c.at) throw new Error(`FRR had ${ip} before its commit: the watch is wrong`);
  return {
    change,
    commitWall: wallOf(c.at),
    frrMs: s.received - c.at,
    frrSettledMs: s.settled - c.at,
    northdMs: sbAt - c.at,
    northdOwnMs: northdOwn(out),
  };
}

async function addVms(lab: OvnBenchLab, n: number): Promise<void> {
  const nb: string[] = [];
  const sb: string[] = [];
  for (let k = 0; k < n; k++) {
    const v = vm(k);
    nb.push('--', 'lsp-add', 'tenant1', v.name, '--', 'lsp-set-addresses', v.name, `${v.mac} ${v.ip}`);
    sb.push('--', 'lsp-bind', v.name, k % 2 ? 'hv2' : 'hv1');
  }
  await nbctl(lab.nb.unix, '--wait=sb', ...nb.slice(1));
  await sbctl(lab.sb.unix, ...sb.slice(1));
}

/** `n` FIPs added one commit each, then removed one commit each. */
async function singles(
  lab: OvnBenchLab,
  watch: CommitWatch,
  from: number,
  n: number,
  timeoutMs: number,
): Promise<Sample[]> {
  const vty = await lab.vty();
  const out: Sample[] = [];
  for (const change of ['add', 'del'] as const) {
    for (let i = from; i < from + n; i++) {
      const ip = singleIp(i);
      const kind = i % 2 === 0 ? 'distributed' : 'centralized';
      const v = vm(i >> 1);
      const args =
        change === 'del'
          ? ['lr-nat-del', ROUTER, 'dnat_and_snat', ip]
          : [
              'lr-nat-add',
              ROUTER,
              'dnat_and_snat',
              ip,
              ...(kind === 'distributed' ? [v.ip, v.name, v.mac] : [`198.19.3.${100 + (i >> 1)}`]),
            ];
      const s = await timed(
        lab,
        watch,
        ip,
        change,
        args,
        () => watchRoute(vty, `${ip}/32`, change, timeoutMs, POLL_MS),
        timeoutMs,
      );
      out.push({ kind, wirePrefixes: [ip], wireMs: Number.NaN, ...s });
    }
  }
  return out;
}

/** BATCH FIPs in one transaction (one ovn-nbctl with BATCH commands), to all at FRR. */
async function batch(lab: OvnBenchLab, watch: CommitWatch, change: 'add' | 'del'): Promise<Sample> {
  const vty = await lab.vty();
  const base = await received(vty, LAB.speakerIp);
  const ips = Array.from({ length: BATCH }, (_, i) => batchIp(i));
  const cmds = await natBatchArgs(change, ROUTER, ips, batchLogical, (...a) => nbctl(lab.nb.unix, ...a));
  const want = change === 'add' ? base + BATCH : base - BATCH;
  const meter = cpuMeter(lab.processes());
  let cpu: Record<string, number> = {};
  const s = await timed(
    lab,
    watch,
    batchIp(0),
    change,
    cmds,
    async () => {
      const at = await waitReceived(vty, LAB.speakerIp, want, BATCH_MS, 5);
      cpu = meter();
      return { received: at, settled: at };
    },
    BATCH_MS,
  );
  return { kind: 'batch', wirePrefixes: ips, wireMs: Number.NaN, cpu, ...s };
}

/** Commit → the last UPDATE carrying one of the sample's prefixes. */
function fillWire(samples: Sample[], wire: WireLog): void {
  for (const s of samples) {
    let last = Number.NaN;
    for (const p of s.wirePrefixes) {
      const e = wire.get(p);
      const d = firstAfter(s.change === 'add' ? e?.announced : e?.withdrawn, s.commitWall);
      if (!(d <= last)) last = d;
    }
    s.wireMs = last;
  }
}

const f = (ms: number) =>
  Number.isNaN(ms) ? '-' : ms >= 1000 ? `${(ms / 1000).toFixed(2)} s` : `${ms.toFixed(1)} ms`;
const p50 = (xs: readonly number[]) => percentile(xs, 50);
const p99 = (xs: readonly number[]) => percentile(xs, 99);

function headline(label: string, xs: readonly Sample[]): string[] {
  const frr = xs.map((x) => x.frrMs);
  const nd = xs.map((x) => x.northdMs);
  const one = xs.length === 1;
  return [
    label,
    String(xs.length),
    f(p50(frr)),
    one ? '' : f(p99(frr)),
    one ? '' : f(Math.max(...frr)),
    f(p50(nd)),
    one ? '' : f(p99(nd)),
    `${p50(xs.map((x) => x.northdOwnMs))} ms`,
    (p50(frr) / p50(nd)).toFixed(2),
  ];
}

function breakdown(label: string, xs: readonly Sample[]): string[] {
  const pair = (all: number[]) => {
    const v = all.filter(Number.isFinite);
    const missing = all.length - v.length ? ` (${all.length - v.length} not captured)` : '';
    return (xs.length === 1 ? f(v[0]) : `${f(p50(v))} / ${f(p99(v))}`) + missing;
  };
  return [
    label,
    pair(xs.map((x) => x.wireMs)),
    pair(xs.map((x) => x.frrMs - x.wireMs)),
    pair(xs.map((x) => x.frrMs)),
    pair(xs.map((x) => x.frrSettledMs)),
  ];
}

async function main(): Promise<void> {
  if (process.getuid?.() !== 0) throw new Error('needs root (namespaces, FRR as user frr)');
  checkBuild();
  console.log(`machine: ${machineLine()}; ${loadLine()}`);
  const lab = await OvnBenchLab.create({ tag: 'lat', northd: true });
  let watch: CommitWatch | undefined;
  let capture: WireCapture | undefined;
  try {
    await buildTopology(lab.nb.unix, lab.sb.unix);
    await addVms(lab, Math.ceil((SAMPLES + BIG_SAMPLES) / 2));
    if (CAPTURE)
      capture = await WireCapture.start(
        lab.speakerNs,
        lab.speakerIf,
        LAB.speakerIp,
        join(lab.dir, 'bgp.pcapng'),
        join(lab.dir, 'dumpcap.log'),
      );
    await lab.startSpeaker({
      coalesceMs: COALESCE_MS,
      nodeOptions: PROFILE ? ['--cpu-prof', `--cpu-prof-dir=${resolve(PROFILE)}`] : [],
    });
    await lab.waitEstablished();
    const vty = await lab.vty();
    // What the topology gives over IPv4 is at FRR before the first sample.
    const view = (await callControl(lab.controlSocket, 'ovn', {})) as { routes: { prefix: string }[] } | null;
    const v4 = view?.routes.filter((r) => !r.prefix.includes(':')).length ?? 0;
    await waitReceived(vty, LAB.speakerIp, v4, 30_000, 20);
    watch = await CommitWatch.start(lab.nb.unix);

    const small = await singles(lab, watch, 0, SAMPLES, SAMPLE_MS);
    const add = await batch(lab, watch, 'add');
    // ovn-northd takes seconds per change on a router of 10,000 NATs; --wait=sb waits for it.
    const big = await singles(lab, watch, SAMPLES, BIG_SAMPLES, BATCH_MS);
    const del = await batch(lab, watch, 'del');
    const mem = lab.speakerMemory();
    if (capture) {
      await capture.stop();
      fillWire([...small, add, ...big, del], await capture.updates());
    }

    const sel = (xs: Sample[], change: Sample['change'], kind?: Sample['kind']) =>
      xs.filter((x) => x.change === change && (kind === undefined || x.kind === kind));
    const rows: [string, Sample[]][] = [
      ['one FIP added, distributed', sel(small, 'add', 'distributed')],
      ['one FIP added, centralized', sel(small, 'add', 'centralized')],
      ['one FIP added, all', sel(small, 'add')],
      ['one FIP removed, all', sel(small, 'del')],
      [`${BATCH} FIPs added, one txn (all at FRR)`, [add]],
      [`one FIP added, router holding ${BATCH}`, sel(big, 'add')],
      [`one FIP removed, router holding ${BATCH}`, sel(big, 'del')],
      [`${BATCH} FIPs removed, one txn (all gone)`, [del]],
    ];
    const coalesce = COALESCE_MS ?? 20;
    console.log(
      `\n== OVN commit -> the /32 in FRR's BGP table (ovn-bgp-speaker, coalesce_ms ${coalesce}) next to ovn-northd -> SB, same commits ==`,
    );
    console.log(
      `one commit per row (ovn-nbctl --wait=sb); FRR read every ${POLL_MS} ms over its vty; northd own = ovn-nbctl --print-wait-time\n`,
    );
    console.log(
      table([
        [
          'change',
          'n',
          'to FRR p50',
          'p99',
          'max',
          'northd->SB p50',
          'p99',
          'northd own p50',
          'FRR/northd p50',
        ],
        ...rows.map(([label, xs]) => headline(label, xs)),
      ]),
    );
    console.log(
      '\nwhere the time goes (p50 / p99): the speaker, then FRR; FRR selects best paths from a work queue\n',
    );
    console.log(
      table([
        ['change', 'commit->UPDATE on wire', 'wire->FRR table', 'commit->FRR table', 'commit->FRR best/gone'],
        ...rows.map(([label, xs]) => breakdown(label, xs)),
      ]),
    );
    console.log('\nCPU time used from the commit until FRR had all of the batch (the machine has 2 cores)\n');
    const names = Object.keys(add.cpu ?? {});
    console.log(
      table([
        ['batch', 'wall', ...names],
        ...[add, del].map((b, i) => [
          i === 0 ? `${BATCH} added` : `${BATCH} removed`,
          f(b.frrMs),
          ...names.map((n) => f(b.cpu?.[n] ?? Number.NaN)),
        ]),
      ]),
    );
    const oneP99 = p99(sel(small, 'add').map((x) => x.frrMs));
    console.log(`\ntarget: one FIP p99 < 100 ms: ${f(oneP99)}, ${oneP99 < 100 ? 'met' : 'NOT met'}`);
    console.log(`target: ${BATCH} FIPs < 2 s: ${f(add.frrMs)}, ${add.frrMs < 2000 ? 'met' : 'NOT met'}`);
    console.log(`speaker RSS at the end: ${mem.rssMiB.toFixed(0)} MiB (peak ${mem.hwmMiB.toFixed(0)} MiB)`);
    console.log(`after: ${loadLine()}`);
  } finally {
    await capture?.stop().catch(() => undefined);
    await watch?.close();
    await lab.destroy();
  }
}

main().catch((e) => {
  console.error(e);
  process.exitCode = 1;
});
