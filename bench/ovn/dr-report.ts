/**
 * The tables of dr-latency.ts: per seat the single changes and the batches, where their time
 * went (OVN's share up to hv1's table, the seat's share from there to the fabric), the CPU the
 * batches cost, and ours against FRR's.
 */
import { percentile, table } from '../support/report.js';
import { SEAT_NAMES, type SeatKind } from './dr-seat.js';

/** One FIP added or removed, ms after its commit. */
export interface SingleSample {
  readonly change: 'add' | 'del';
  /** ovn-northd had written SB (sb_cfg). */
  readonly northdMs: number;
  /** ovn-northd's own figure (--print-wait-time, its clock). */
  readonly northdOwnMs: number;
  /** ovn-controller's route was in (out of) hv1's table. */
  readonly tableMs: number;
  /** add: the fabric holds a path; del: it holds none it would use (gone, or at the worst MED only). */
  readonly fabricMs: number;
  /** add: that path is best; del: the prefix is gone. */
  readonly settledMs: number;
  /** The seat's first UPDATE for it left hv1 (dr-wire.ts); NaN when not captured. */
  readonly wireMs: number;
}

export interface BatchSample {
  readonly change: 'add' | 'del';
  readonly northdMs: number;
  readonly northdOwnMs: number;
  /** The table held all of them (none of them). */
  readonly tableMs: number;
  /** The fabric held all of them from hv1 (none of them). */
  readonly fabricMs: number;
  /** The first of them was in (out of) the table: OVN's installing took tableMs - tableFirstMs. */
  readonly tableFirstMs: number;
  /** The fabric's count from hv1 first moved. */
  readonly fabricFirstMs: number;
  /** The seat's first and last UPDATE announcing (withdrawing) one of them left hv1; NaN when not captured. */
  readonly wireFirstMs: number;
  readonly wireMs: number;
  /** CPU ms per process from just before the commit until the fabric had all. */
  readonly cpu: Record<string, number>;
  /** The table's instant came from dumps (the monitor lost notifications): 50 ms resolution. */
  readonly tableFromDumps: boolean;
}

export interface SeatFigures {
  readonly kind: SeatKind;
  readonly singles: readonly SingleSample[];
  readonly batches: readonly BatchSample[];
  readonly notes: readonly string[];
}

export interface ReportOptions {
  readonly samples: number;
  readonly batch: number;
  readonly pollMs: number;
  readonly order: readonly SeatKind[];
}

export const ms = (x: number) =>
  Number.isNaN(x) ? '-' : x >= 1000 ? `${(x / 1000).toFixed(2)} s` : `${x.toFixed(1)} ms`;
const p50 = (xs: readonly number[]) => percentile(xs, 50);
const p99 = (xs: readonly number[]) => percentile(xs, 99);
const pair = (xs: readonly number[]) => `${ms(p50(xs))} / ${ms(p99(xs))}`;
const finite = (xs: readonly number[]) => xs.filter(Number.isFinite);
const ratio = (a: number, b: number) => (Number.isFinite(a / b) ? (a / b).toFixed(2) : '-');

/** The single-change figures of one seat and change, as the report and the README use them. */
export function singleFigures(xs: readonly SingleSample[]) {
  return {
    n: xs.length,
    fabric: xs.map((x) => x.fabricMs),
    table: xs.map((x) => x.tableMs),
    seat: xs.map((x) => x.fabricMs - x.tableMs),
    /** The seat's own share: the table to its UPDATE on hv1's wire (captured samples only). */
    out: finite(xs.map((x) => x.wireMs - x.tableMs)),
    /** The fabric's share: that UPDATE to its BGP table. */
    fabricSide: finite(xs.map((x) => x.fabricMs - x.wireMs)),
    settled: xs.map((x) => x.settledMs),
    northd: xs.map((x) => x.northdMs),
  };
}

export function printReport(runs: readonly SeatFigures[], o: ReportOptions): void {
  const name = (k: SeatKind) => SEAT_NAMES[k];
  console.log(
    `\n== OVN 25.03 route exchange: NB commit -> route in hv1's table (ovn-northd, ovn-controller) -> the fabric FRR's BGP table, per seat on hv1 (${o.order.map(name).join(', then ')}) ==`,
  );
  console.log(
    `${o.samples} FIPs per seat, each added in one commit and removed in the next (ovn-nbctl --wait=sb); the fabric read every ${o.pollMs} ms over its vty; hv1's table through ip monitor\n`,
  );
  const rows: string[][] = [
    [
      'seat',
      'change',
      'n',
      'commit->fabric p50 / p99',
      'of it commit->table',
      'table->fabric',
      'of it table->UPDATE out',
      'commit->best / gone',
      'commit->northd SB',
    ],
  ];
  for (const r of runs)
    for (const change of ['add', 'del'] as const) {
      const f = singleFigures(r.singles.filter((x) => x.change === change));
      rows.push([
        name(r.kind),
        change === 'add' ? 'FIP added' : 'FIP removed',
        String(f.n),
        pair(f.fabric),
        pair(f.table),
        pair(f.seat),
        `${pair(f.out)}${f.out.length < f.n ? ` (n ${f.out.length})` : ''}`,
        pair(f.settled),
        pair(f.northd),
      ]);
    }
  console.log(table(rows));
  console.log(
    '\nremoved: "commit->fabric" is the fabric left with no path it would use (withdrawn, or only at the worst MED); "gone" is the withdrawal; "UPDATE out": the seat\'s first UPDATE for the FIP leaving hv1 (captured on its interface), the rest of table->fabric is the fabric\'s',
  );

  if (o.batch > 0) {
    console.log(
      `\n${o.batch} FIPs in one transaction, all at the fabric (all gone from it); "first": the first of them in (out of) hv1's table, the first UPDATE for them leaving hv1, the fabric's count first moving\n`,
    );
    const brows: string[][] = [
      [
        'seat',
        'change',
        'commit->fabric',
        'commit->table',
        'table->fabric',
        'of it table->last UPDATE out',
        'first in table / out / at fabric',
        'commit->northd SB',
        'northd own',
      ],
    ];
    for (const r of runs)
      for (const b of r.batches)
        brows.push([
          name(r.kind),
          b.change === 'add' ? `${o.batch} added` : `${o.batch} removed`,
          ms(b.fabricMs),
          `${ms(b.tableMs)}${b.tableFromDumps ? ' (dumps)' : ''}`,
          ms(b.fabricMs - b.tableMs),
          ms(b.wireMs - b.tableMs),
          `${ms(b.tableFirstMs)} / ${ms(b.wireFirstMs)} / ${ms(b.fabricFirstMs)}`,
          ms(b.northdMs),
          `${b.northdOwnMs} ms`,
        ]);
    console.log(table(brows));
    console.log('\nCPU time used from the commit until the fabric had all of the batch (2 cores)\n');
    const procs = [...new Set(runs.flatMap((r) => r.batches.flatMap((b) => Object.keys(b.cpu))))];
    console.log(
      table([
        ['seat', 'change', ...procs],
        ...runs.flatMap((r) =>
          r.batches.map((b) => [
            name(r.kind),
            b.change,
            ...procs.map((p) => (b.cpu[p] === undefined ? '' : ms(b.cpu[p]))),
          ]),
        ),
      ]),
    );
  }

  for (const r of runs) for (const n of r.notes) console.log(n);
  const frr = runs.find((r) => r.kind === 'frr');
  const ours = runs.filter((r) => r.kind !== 'frr');
  if (!frr || ours.length === 0) return;
  console.log('\nours / FRR (below 1: ours faster)\n');
  const header = ['what', name('frr'), ...ours.flatMap((r) => [name(r.kind), '/ FRR'])];
  console.log(
    table([
      header,
      ...comparisons(o.batch).map(([what, of]) => [
        what,
        ms(of(frr)),
        ...ours.flatMap((r) => [ms(of(r)), ratio(of(r), of(frr))]),
      ]),
    ]),
  );
  const main = runs.find((r) => r.kind === 'ours');
  if (!main) return;
  const [single, batch] = targets(main, frr);
  console.log(
    `\ntarget: one FIP, ours faster than FRR's (p50 and p99, commit->fabric): ${single ? 'met' : 'NOT met'}`,
  );
  if (batch !== undefined)
    console.log(
      `target: ${o.batch} FIPs in one transaction, ours faster than FRR's: ${batch ? 'met' : 'NOT met'}`,
    );
}

type Figure = (r: SeatFigures) => number;

/** The figures ours and FRR's are compared on, each read off one seat's samples. */
export function comparisons(batch: number): [string, Figure][] {
  const s =
    (c: 'add' | 'del', pick: (f: ReturnType<typeof singleFigures>) => number): Figure =>
    (r) =>
      pick(singleFigures(r.singles.filter((x) => x.change === c)));
  const b =
    (c: 'add' | 'del', pick: (x: BatchSample) => number): Figure =>
    (r) => {
      const x = r.batches.find((y) => y.change === c);
      return x ? pick(x) : Number.NaN;
    };
  return [
    ['FIP added, commit->fabric p50', s('add', (f) => p50(f.fabric))],
    ['FIP added, commit->fabric p99', s('add', (f) => p99(f.fabric))],
    ['FIP added, table->fabric p50', s('add', (f) => p50(f.seat))],
    ['FIP added, table->fabric p99', s('add', (f) => p99(f.seat))],
    ['FIP added, table->UPDATE out p50', s('add', (f) => p50(f.out))],
    ['FIP added, table->UPDATE out p99', s('add', (f) => p99(f.out))],
    ['FIP removed, commit->no usable path p50', s('del', (f) => p50(f.fabric))],
    ['FIP removed, commit->gone p50', s('del', (f) => p50(f.settled))],
    ['FIP removed, commit->gone p99', s('del', (f) => p99(f.settled))],
    [`${batch} added, commit->fabric`, b('add', (x) => x.fabricMs)],
    [`${batch} added, table->fabric`, b('add', (x) => x.fabricMs - x.tableMs)],
    [`${batch} added, table->last UPDATE out`, b('add', (x) => x.wireMs - x.tableMs)],
    [`${batch} removed, commit->all gone`, b('del', (x) => x.fabricMs)],
    [`${batch} removed, table->all gone`, b('del', (x) => x.fabricMs - x.tableMs)],
    [`${batch} removed, table->last withdrawal out`, b('del', (x) => x.wireMs - x.tableMs)],
  ];
}

/** The issue's targets: ours faster than FRR's on one FIP added (p50 and p99) and on the batch added, commit->fabric. */
export function targets(ours: SeatFigures, frr: SeatFigures): [boolean, boolean | undefined] {
  const single = (r: SeatFigures) => singleFigures(r.singles.filter((x) => x.change === 'add')).fabric;
  const batch = (r: SeatFigures) => r.batches.find((b) => b.change === 'add')?.fabricMs;
  const [o, f] = [single(ours), single(frr)];
  const [bo, bf] = [batch(ours), batch(frr)];
  return [p50(o) < p50(f) && p99(o) < p99(f), bo === undefined || bf === undefined ? undefined : bo < bf];
}
