/**
 * OVN 25.03's route exchange, end to end, with our speaker and with FRR 10.3 in the same seat:
 * an NB commit on router lr0 (dynamic routing on) -> ovn-northd's Advertised_Route -> the
 * ovn-controller of chassis hv1 installing it into lr0's kernel table -> whoever holds the
 * seat on hv1 (dr-seat.ts: ours in per-chassis mode, or FRR in OVN's reference design)
 * reading the table and sending the UPDATE -> the /32 in the fabric FRR's BGP table.
 *
 *   sudo node dist/bench/ovn/dr-latency.js [--samples 60] [--batch 10000] [--poll-ms 1]
 *                                           [--order ours,frr,ours-nohold] [--no-capture] [--nice -10]
 *
 * One lab (test/interop/support/ovn-dr-lab.ts), the seats one after the other on it. Per
 * seat: `samples` FIPs (dnat_and_snat on lr0, tracking the gateway port bound on hv1), each
 * added in one commit and removed in the next, then `batch` FIPs in one transaction and their
 * removal in one. Every commit is timed from the same instant (watch.ts: the NB monitor sees
 * it) to ovn-northd having written SB (sb_cfg), to the route in hv1's table (table-watch.ts)
 * and to the fabric's RIB (watch.ts, its vty every `poll-ms`); a capture on hv1's interface
 * (capture.ts, dr-wire.ts) tells when the seat's UPDATE left, so the seat's share and the
 * fabric's are told apart too (`--no-capture` leaves it out). Addresses: single FIPs from
 * 198.18.172.0/22, the batch from 198.18.192.0/18 (10,000 /32s need more than a /20).
 */
import { readdirSync } from 'node:fs';
import { setPriority } from 'node:os';
import { join } from 'node:path';
import { MED_LEAVING } from '../../src/routing/index.js';
import { chassisAddress, FABRIC, OvnDrLab } from '../../test/interop/support/ovn-dr-lab.js';
import { loadLine, machineLine } from '../support/report.js';
import { WireCapture, type WireLog } from './capture.js';
import { type BatchSample, printReport, type SeatFigures, type SingleSample } from './dr-report.js';
import { SEAT_NAMES, type Seat, type SeatKind, startFrrReference, startOurs } from './dr-seat.js';
import { wireBatch, wireSingle } from './dr-wire.js';
import { checkBuild, cpuMeter } from './lab.js';
import { natBatchArgs, nbctlChange, northdDone, northdOwn, withTimeout } from './nbctl.js';
import { TableWatch, wallOffset } from './table-watch.js';
import { VtyClient } from './vty.js';
import { CommitWatch, received, waitReceived, waitReceivedSpan, watchRemoval, watchRoute } from './watch.js';

function arg(name: string, fallback: string): string {
  const i = process.argv.indexOf(`--${name}`);
  return i > 0 ? (process.argv[i + 1] ?? fallback) : fallback;
}
const SAMPLES = Number(arg('samples', '60'));
const BATCH = Number(arg('batch', '10000'));
const POLL_MS = Number(arg('poll-ms', '1'));
const ORDER = arg('order', 'ours,frr,ours-nohold').split(',') as SeatKind[];
const CAPTURE = !process.argv.includes('--no-capture');
/**
 * The lab's scheduling priority (this process, OVN's daemons and the seats, which inherit it):
 * on a machine shared with other work, timed instants (the commit, the table, the fabric) are
 * otherwise late by whatever else the two cores run, by more than a single change takes.
 */
const NICE = Number(arg('nice', '-10'));
/** This process (the clocks) above the lab, so it reads each instant as it comes. */
const OBSERVER_NICE = NICE - 5;

/** Every thread of `pid` to nice `prio` (Linux keeps a nice per thread). */
function renice(pid: number, prio: number): void {
  let tids: string[] = [];
  try {
    tids = readdirSync(`/proc/${pid}/task`);
  } catch {
    return;
  }
  for (const tid of tids)
    try {
      setPriority(Number(tid), prio);
    } catch {
      // The thread ended meanwhile.
    }
}
const SAMPLE_MS = 15_000;
/** How much earlier than its commit a route may be seen at the fabric (see singles()). */
const REORDER_MS = 30;
/** ovn-northd and ovn-controller on 10,000 NATs take tens of seconds on a loaded machine. */
const BATCH_MS = 600_000;
const SETTLE_MS = 60_000;
const ROUTER = 'lr0';
const HV1 = chassisAddress(1).ipv4;
const singleIp = (i: number) => `198.18.${172 + (i >> 8)}.${i & 255}`;
const singleLogical = (i: number) => `198.19.${72 + (i >> 8)}.${i & 255}`;
const batchIp = (i: number) => `198.18.${192 + (i >> 8)}.${i & 255}`;
const batchLogical = (i: number) => `198.19.${128 + (i >> 8)}.${i & 255}`;

interface Clocks {
  readonly lab: OvnDrLab;
  readonly watch: CommitWatch;
  readonly table: TableWatch;
  readonly vty: VtyClient;
}

/** The instants one commit reached each place, ms after it. */
interface Timed {
  readonly northdMs: number;
  readonly northdOwnMs: number;
  readonly tableMs: number;
}

/**
 * Commits `args` and times it: `ip` is the FIP the CommitWatch and the table watch look for,
 * `fabric` resolves when the fabric has the change (started before the commit).
 */
async function commitTimed<T>(
  c: Clocks,
  ip: string,
  change: 'add' | 'del',
  args: readonly string[],
  inTable: () => Promise<number>,
  fabric: () => Promise<T>,
  timeoutMs: number,
): Promise<Timed & { readonly commitAt: number; readonly commitWall: number; readonly fabric: T }> {
  const { commit } = await c.watch.arm(ip, change === 'add' ? 'insert' : 'delete');
  const table = inTable();
  const seen = fabric();
  // Awaited below; if ovn-nbctl fails first, none may become an unhandled rejection.
  for (const p of [commit, table, seen]) p.catch(() => {});
  const out = await nbctlChange(c.lab.nb, timeoutMs, args, c.lab.root.argv(['ovn-nbctl']));
  const at = await withTimeout(commit, timeoutMs, `the commit of ${ip}`);
  // On the wall clock as the capture's timestamps, with the offset of now (wallOffset).
  const commitWall = at.at + wallOffset();
  const tableAt = await withTimeout(table, timeoutMs, `${ip} in hv1's table`);
  const s = await seen;
  const sbAt = await northdDone(c.watch, at.nbCfg, timeoutMs);
  return {
    commitAt: at.at,
    commitWall,
    fabric: s,
    northdMs: sbAt - at.at,
    northdOwnMs: northdOwn(out),
    tableMs: tableAt - at.at,
  };
}

/** A sample before the capture is read: its figures, less when its UPDATE left hv1. */
interface Pending<T> {
  readonly sample: Omit<T, 'wireMs' | 'wireFirstMs'>;
  /** Reads its wire figures off the seat's capture (NaN without one). */
  readonly wire: (log: WireLog | undefined) => Partial<T>;
}

/** Each FIP added in one commit and removed in the next. */
async function singles(c: Clocks, n: number): Promise<Pending<SingleSample>[]> {
  const out: Pending<SingleSample>[] = [];
  const wire = (prefix: string, change: 'add' | 'del', commitWall: number) => (log: WireLog | undefined) => ({
    wireMs: log ? wireSingle(log, prefix.replace('/32', ''), change, commitWall) : Number.NaN,
  });
  for (let i = 0; i < n; i++) {
    const ip = singleIp(i);
    const prefix = `${ip}/32`;
    const add = await commitTimed(
      c,
      ip,
      'add',
      ['lr-nat-add', ROUTER, 'dnat_and_snat', ip, singleLogical(i)],
      () => c.table.arm(prefix, 'add'),
      () => watchRoute(c.vty, prefix, 'add', SAMPLE_MS, POLL_MS),
      SAMPLE_MS,
    );
    // A route there long before this process saw its commit was there before it (a leftover);
    // a few ms before is both answers read in one turn of the event loop, the vty's first.
    if (add.fabric.received < add.commitAt - REORDER_MS)
      throw new Error(`the fabric had ${ip} before its commit`);
    out.push({
      sample: {
        change: 'add',
        northdMs: add.northdMs,
        northdOwnMs: add.northdOwnMs,
        tableMs: add.tableMs,
        fabricMs: add.fabric.received - add.commitAt,
        settledMs: add.fabric.settled - add.commitAt,
      },
      wire: wire(prefix, 'add', add.commitWall),
    });
    const del = await commitTimed(
      c,
      ip,
      'del',
      ['lr-nat-del', ROUTER, 'dnat_and_snat', ip],
      () => c.table.arm(prefix, 'del'),
      () => watchRemoval(c.vty, prefix, MED_LEAVING, SAMPLE_MS, POLL_MS),
      SAMPLE_MS,
    );
    out.push({
      sample: {
        change: 'del',
        northdMs: del.northdMs,
        northdOwnMs: del.northdOwnMs,
        tableMs: del.tableMs,
        fabricMs: del.fabric.left - del.commitAt,
        settledMs: del.fabric.gone - del.commitAt,
      },
      wire: wire(prefix, 'del', del.commitWall),
    });
  }
  return out;
}

/** BATCH FIPs in one transaction (one ovn-nbctl with BATCH commands), or their removal in one. */
async function batch(c: Clocks, seat: Seat, change: 'add' | 'del'): Promise<Pending<BatchSample>> {
  const ips = Array.from({ length: BATCH }, (_, i) => batchIp(i));
  const cmds = await natBatchArgs(change, ROUTER, ips, batchLogical, (...a) => c.lab.nbctl(...a));
  const base = await received(c.vty, HV1);
  const tableBase = c.table.count;
  const sign = change === 'add' ? 1 : -1;
  const processes = { ...seat.pids(), ...labPids(c.lab) };
  const meter = cpuMeter(processes);
  let cpu: Record<string, number> = {};
  let tableFirst: Promise<number> = Promise.resolve(Number.NaN);
  const t = await commitTimed(
    c,
    batchIp(0),
    change,
    cmds,
    () => {
      tableFirst = c.table.waitCount(tableBase + sign, change, BATCH_MS);
      tableFirst.catch(() => {});
      return c.table.waitCount(tableBase + sign * BATCH, change, BATCH_MS);
    },
    async () => {
      const span = await waitReceivedSpan(c.vty, HV1, base, base + sign * BATCH, BATCH_MS, 5);
      cpu = meter();
      return span;
    },
    BATCH_MS,
  );
  return {
    sample: {
      change,
      northdMs: t.northdMs,
      northdOwnMs: t.northdOwnMs,
      tableMs: t.tableMs,
      tableFirstMs: (await tableFirst) - t.commitAt,
      fabricMs: t.fabric.last - t.commitAt,
      fabricFirstMs: t.fabric.first - t.commitAt,
      cpu,
      tableFromDumps: c.table.lost,
    },
    wire: (log) => {
      const w = log ? wireBatch(log, ips, change, t.commitWall) : undefined;
      return { wireFirstMs: w?.first ?? Number.NaN, wireMs: w?.last ?? Number.NaN };
    },
  };
}

/** OVN's daemons and the fabric's, by name: who else had the two cores. */
function labPids(lab: OvnDrLab): Record<string, number> {
  const out: Record<string, number> = {};
  for (const r of lab.processRecords()) {
    if (r.name === 'ovn-northd' || r.name === 'hv1/ovn-controller') out[r.name.replace('hv1/', '')] = r.pid;
    if (r.name === 'ovsdb-server nb' || r.name === 'ovsdb-server sb') out[r.name] = r.pid;
  }
  for (const r of lab.fabric.processes())
    if (r.name.endsWith('/bgpd')) out['fabric bgpd'] = r.pid;
    else if (r.name.endsWith('/zebra')) out['fabric zebra'] = r.pid;
  return out;
}

async function runSeat(
  kind: SeatKind,
  c: Omit<Clocks, 'table'>,
  tableNo: number,
  baseline: number,
): Promise<SeatFigures> {
  const { lab, vty } = c;
  console.log(`\n${SEAT_NAMES[kind]} in hv1's seat (${loadLine()})`);
  const seat =
    kind === 'frr'
      ? await startFrrReference(lab, tableNo)
      : await startOurs(lab, kind === 'ours-nohold' ? 0 : undefined);
  for (const pid of Object.values(seat.pids())) renice(pid, NICE);
  let table: TableWatch | undefined;
  let capture: WireCapture | undefined;
  try {
    // Everything lr0 advertises over IPv4 (the provider network aside) is at the fabric first.
    await waitReceived(vty, HV1, baseline, SETTLE_MS, 20);
    table = await TableWatch.start(lab.chassisNs(1), tableNo);
    if (CAPTURE)
      capture = await WireCapture.start(
        lab.chassisNs(1),
        'eth0',
        HV1,
        join(lab.dir, `wire-${kind}.pcapng`),
        join(lab.dir, `wire-${kind}.log`),
        { pings: true },
      );
    const clocks = { ...c, table };
    const t0 = performance.now();
    const s = await singles(clocks, SAMPLES);
    console.log(`  ${SAMPLES} FIPs added and removed in ${((performance.now() - t0) / 1000).toFixed(1)} s`);
    const batches: Pending<BatchSample>[] = [];
    const notes: string[] = [];
    if (BATCH > 0) {
      for (const change of ['add', 'del'] as const) {
        const b = await batch(clocks, seat, change);
        batches.push(b);
        const state = await seat.tableState();
        if (state)
          notes.push(
            `${SEAT_NAMES[kind]} after ${BATCH} ${change === 'add' ? 'added' : 'removed'}: ${state}`,
          );
        console.log(
          `  ${BATCH} FIPs ${change === 'add' ? 'added' : 'removed'}: ${(b.sample.fabricMs / 1000).toFixed(2)} s`,
        );
      }
    }
    await capture?.flush(FABRIC.ipv4);
    await capture?.stop();
    const log = await capture?.updates();
    return {
      kind,
      singles: s.map((x) => ({ ...x.sample, ...x.wire(log) }) as SingleSample),
      batches: batches.map((x) => ({ ...x.sample, ...x.wire(log) }) as BatchSample),
      notes: [...notes, ...(await seat.notes())],
    };
  } finally {
    await capture?.stop().catch(() => undefined);
    table?.close();
    await seat.stop();
    // The next seat starts from a fabric that holds nothing from hv1.
    await waitReceived(vty, HV1, 0, SETTLE_MS, 50).catch(() => undefined);
  }
}

async function main(): Promise<void> {
  if (process.getuid?.() !== 0) throw new Error('needs root (namespaces, the trixie root)');
  if (ORDER.some((k) => !(k in SEAT_NAMES)))
    throw new Error(`--order ${ORDER.join(',')}: of ${Object.keys(SEAT_NAMES).join(', ')}`);
  checkBuild();
  // The lab's processes inherit this process' nice and are set to NICE once started.
  setPriority(OBSERVER_NICE);
  console.log(
    `machine: ${machineLine()}; ${loadLine()}; the lab at nice ${NICE}, its clocks at ${OBSERVER_NICE}`,
  );
  if (SAMPLES < 50) console.log(`note: ${SAMPLES} samples per seat, fewer than the benchmark's 50`);
  const lab = await OvnDrLab.create({ id: 'drb', chassis: 1 });
  for (const pid of Object.values(labPids(lab))) renice(pid, NICE);
  for (const r of lab.processRecords()) renice(r.pid, NICE);
  let watch: CommitWatch | undefined;
  let vty: VtyClient | undefined;
  try {
    const tableNo = await lab.tableOf(ROUTER);
    const advertised = await lab.advertisedPrefixes();
    // Over IPv4 the fabric gets all but the provider network (connected on hv1: neither seat sends it).
    const baseline = advertised.filter((p) => !p.includes(':') && p !== '198.18.171.0/24').length;
    vty = await VtyClient.connect(join(lab.fabric.dir, 'bgpd.vty'));
    watch = await CommitWatch.start(lab.nb);
    const runs: SeatFigures[] = [];
    for (const kind of ORDER) runs.push(await runSeat(kind, { lab, watch, vty }, tableNo, baseline));
    printReport(runs, { samples: SAMPLES, batch: BATCH, pollMs: POLL_MS, order: ORDER });
    console.log(`after: ${loadLine()}`);
  } finally {
    vty?.close();
    await watch?.close();
    await lab.destroy();
  }
}

main().catch((e) => {
  console.error(e);
  process.exitCode = 1;
});
