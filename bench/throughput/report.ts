/**
 * Figures across runs (medians), ratios between implementations measured in the same run, the
 * issue's targets as pass/fail, and the text table: one of each per table shape.
 */
import { table } from '../support/report.js';
import { Targets } from './constants.js';
import type { CellKind, Measurement } from './measure.js';

/** The median of the runs of one cell (implementation x shape x cell kind). */
export interface Cell {
  readonly impl: string;
  readonly cell: CellKind;
  /** Runs measured; runs the time budget left out are not among them. */
  readonly runs: number;
  /** Runs the time budget left out. */
  readonly skipped: number;
  /** Median wall seconds when every run finished. */
  readonly wallSeconds?: number;
  readonly cpuSeconds?: number;
  readonly idleRssBytes?: number;
  readonly peakRssBytes?: number;
  /** (peak - idle) / prefixes held. */
  readonly bytesPerRoute?: number;
  /** Median prefixes per second over the whole measurement. */
  readonly prefixesPerSecond?: number;
  /** Why there is no wall time ("timeout at N prefixes", a load timeout, skipped, an error). */
  readonly note?: string;
  readonly dropped: boolean;
  readonly maxSilenceSeconds: number;
}

/** Every cell of one table shape, by implementation. */
export interface ShapeSummary {
  readonly shape: string;
  /** Prefixes of the small (cold-start) and the full table. */
  readonly small: number;
  readonly full: number;
  readonly cold: Record<string, Cell>;
  readonly receive: Record<string, Cell>;
  readonly send: Record<string, Cell>;
}

export function median(xs: readonly number[]): number | undefined {
  const v = xs.filter((x) => Number.isFinite(x)).sort((a, b) => a - b);
  if (v.length === 0) return undefined;
  const mid = v.length >> 1;
  return v.length % 2 ? v[mid] : (v[mid - 1]! + v[mid]!) / 2;
}

const defined = <T>(xs: readonly (T | undefined)[]): T[] => xs.filter((x): x is T => x !== undefined);

const SKIPPED = 'skipped';

/**
 * The cell's medians over the runs measured: a run the time budget left out does not void the
 * others (it is counted in `skipped`), one that timed out or failed does.
 */
export function summarize(impl: string, cell: CellKind, given: readonly Measurement[]): Cell {
  const ms = given.filter((m) => !m.note?.startsWith(SKIPPED));
  const skipped = given.length - ms.length;
  if (ms.length === 0 && skipped > 0)
    return {
      impl,
      cell,
      runs: 0,
      skipped,
      note: given[0]!.note!,
      dropped: false,
      maxSilenceSeconds: 0,
    };
  const done = ms.filter((m) => m.wallSeconds !== undefined);
  const all = ms.length > 0 && done.length === ms.length;
  const pick = (f: (m: Measurement) => number | undefined) => median(defined(ms.map(f)));
  const notes = ms.filter((m) => m.note !== undefined);
  const heldAtEnd = median(notes.map((m) => m.held));
  let note: string | undefined;
  if (ms.length === 0) note = 'not measured';
  else if (!all) {
    const first = notes[0]?.note ?? '';
    note = first.startsWith('timeout at')
      ? `timeout at ${heldAtEnd} prefixes${notes.length < ms.length ? ` (${notes.length} of ${ms.length} runs)` : ''}`
      : first;
  }
  return {
    impl,
    cell,
    runs: ms.length,
    skipped,
    ...(all && { wallSeconds: median(done.map((m) => m.wallSeconds!)) }),
    ...(all && { prefixesPerSecond: median(done.map((m) => m.expected / m.wallSeconds!)) }),
    cpuSeconds: pick((m) => m.cpuSeconds),
    idleRssBytes: pick((m) => m.idleRssBytes),
    peakRssBytes: pick((m) => m.peakRssBytes),
    bytesPerRoute: pick((m) =>
      m.peakRssBytes === undefined || m.idleRssBytes === undefined || m.held === 0
        ? undefined
        : (m.peakRssBytes - m.idleRssBytes) / m.held,
    ),
    ...(note !== undefined && { note }),
    dropped: ms.some((m) => m.session?.dropped === true),
    maxSilenceSeconds: Math.max(
      0,
      ...defined(ms.map((m) => m.session?.maxSilenceSeconds)).filter(Number.isFinite),
    ),
  };
}

/** The cells of one shape from every measurement of the run (other shapes' are left out). */
export function summarizeShape(
  shape: string,
  sizes: { readonly small: number; readonly full: number },
  impls: readonly string[],
  ms: readonly Measurement[],
): ShapeSummary {
  const of = (impl: string, cell: CellKind) =>
    ms.filter((m) => m.shape === shape && m.impl === impl && m.cell === cell);
  const cells = (cell: CellKind, who: readonly string[]) =>
    Object.fromEntries(
      who.filter((i) => of(i, cell).length > 0).map((i) => [i, summarize(i, cell, of(i, cell))]),
    );
  return {
    shape,
    ...sizes,
    cold: cells('cold', impls),
    receive: cells('receive', impls),
    send: cells('send', [...impls, 'replayer']),
  };
}

export interface Verdict {
  readonly target: string;
  readonly measured: string;
  /** undefined: could not be decided (a figure is missing). */
  readonly pass?: boolean;
}

const MB = 1e6;
const fmt = (v: number | undefined, digits = 2): string => (v === undefined ? '-' : v.toFixed(digits));
const ratio = (a: number | undefined, b: number | undefined): number | undefined =>
  a === undefined || b === undefined || b === 0 ? undefined : a / b;

/** The yardsticks: BIRD 2.0 for receiving and memory, the fastest FRR or BIRD for sending. */
const BIRD2 = 'bird';
const SEND_RIVALS = ['bird', 'bird3', 'frr', 'frr10'];

/** 100000 -> "100k", 1000000 -> "1M". */
export function sizeLabel(n: number): string {
  if (n >= 1e6 && n % 1e5 === 0) return `${n / 1e6}M`;
  if (n >= 1e3 && n % 100 === 0) return `${n / 1e3}k`;
  return String(n);
}

/** The fastest FRR or BIRD at sending, whichever versions were measured. */
export function bestSender(s: ShapeSummary): { impl: string; seconds: number } | undefined {
  let best: { impl: string; seconds: number } | undefined;
  for (const impl of SEND_RIVALS) {
    const t = s.send[impl]?.wallSeconds;
    if (t !== undefined && (best === undefined || t < best.seconds)) best = { impl, seconds: t };
  }
  return best;
}

const limit = (target: number, seconds: number | undefined): boolean | undefined =>
  seconds === undefined ? undefined : seconds <= target;

export function verdicts(s: ShapeSummary): Verdict[] {
  const ours = (c: Record<string, Cell>) => c.ours;
  const bird = (c: Record<string, Cell>) => c[BIRD2];
  const recv = ratio(ours(s.receive)?.wallSeconds, bird(s.receive)?.wallSeconds);
  const cold = ratio(ours(s.cold)?.wallSeconds, bird(s.cold)?.wallSeconds);
  const best = bestSender(s);
  const send = ratio(ours(s.send)?.wallSeconds, best?.seconds);
  const rss = ratio(ours(s.receive)?.peakRssBytes, bird(s.receive)?.peakRssBytes);
  const oursCells = [s.cold.ours, s.receive.ours, s.send.ours].filter((c): c is Cell => c !== undefined);
  const silence = Math.max(0, ...oursCells.map((c) => c.maxSilenceSeconds));
  const mb = (c: Cell | undefined) => fmt(c?.peakRssBytes === undefined ? undefined : c.peakRssBytes / MB, 0);
  const pass = (r: number | undefined, target: number) => {
    const p = limit(target, r);
    return p === undefined ? {} : { pass: p };
  };
  return [
    {
      target: `receive ${sizeLabel(s.full)} in <= ${Targets.RECEIVE_VS_BIRD2} x BIRD 2.0's time`,
      measured: `${fmt(ours(s.receive)?.wallSeconds)} s vs ${fmt(bird(s.receive)?.wallSeconds)} s = ${fmt(recv)} x`,
      ...pass(recv, Targets.RECEIVE_VS_BIRD2),
    },
    {
      target: `receive ${sizeLabel(s.small)} into a fresh process in <= ${Targets.COLD_VS_BIRD2} x BIRD 2.0's time`,
      measured: `${fmt(ours(s.cold)?.wallSeconds)} s vs ${fmt(bird(s.cold)?.wallSeconds)} s = ${fmt(cold)} x`,
      ...pass(cold, Targets.COLD_VS_BIRD2),
    },
    {
      target: `send ${sizeLabel(s.full)} in <= ${Targets.SEND_VS_BEST} x the fastest FRR or BIRD`,
      measured: `${fmt(ours(s.send)?.wallSeconds)} s vs ${fmt(best?.seconds)} s (${best ? labelOf(best.impl) : 'none'}) = ${fmt(send)} x`,
      ...pass(send, Targets.SEND_VS_BEST),
    },
    {
      target: `peak RSS at ${sizeLabel(s.full)} <= ${Targets.RSS_VS_BIRD2} x BIRD 2.0's`,
      measured: `${mb(ours(s.receive))} MB vs ${mb(bird(s.receive))} MB = ${fmt(rss)} x`,
      ...pass(rss, Targets.RSS_VS_BIRD2),
    },
    {
      target: 'sessions stay up (hold time 9 s): no drop, no NOTIFICATION',
      measured: oursCells.some((c) => c.dropped)
        ? 'a session of ours dropped'
        : `no drop; longest silence from our speaker ${fmt(silence, 1)} s`,
      ...(oursCells.length > 0 && { pass: !oursCells.some((c) => c.dropped) }),
    },
  ];
}

const LABELS: Record<string, string> = {
  ours: 'ovn-bgp-speaker',
  core: 'Sessions+Rib core',
  bird: 'BIRD 2.0',
  bird3: 'BIRD 3.1',
  frr: 'FRR 8.4',
  frr10: 'FRR 10.3',
  gobgp: 'GoBGP 3.10',
  replayer: 'pre-encoded writer',
};
export const labelOf = (impl: string): string => LABELS[impl] ?? impl;

const CELL_WORD: Record<CellKind, string> = { cold: 'cold receive', receive: 'receive', send: 'send' };

/** A cell's time, or a short word for why there is none with its full note as a footnote. */
function timeOrNote(c: Cell | undefined, notes: string[]): string {
  if (!c) return '';
  if (c.wallSeconds !== undefined) {
    if (c.skipped === 0) return fmt(c.wallSeconds);
    notes.push(
      `${labelOf(c.impl)} ${CELL_WORD[c.cell]}: median of ${c.runs} run(s), ${c.skipped} skipped (time budget)`,
    );
    return `${fmt(c.wallSeconds)} [${notes.length}]`;
  }
  const note = c.note ?? 'no figure';
  notes.push(`${labelOf(c.impl)} ${CELL_WORD[c.cell]}: ${note}`);
  const word = note.match(/^(timeout|dropped|not loaded|skipped|error|not measured)/)?.[1] ?? 'n/a';
  const held = note.match(/at (\d+) prefixes/)?.[1];
  return `${word}${held !== undefined ? ` at ${held}` : ''} [${notes.length}]`;
}

const x = (v: number | undefined): string => (v === undefined ? '' : `${v.toFixed(2)}x`);

/**
 * One shape's table. Ratios: receive and cold receive to BIRD 2.0's time, peak RSS to BIRD
 * 2.0's, send to the fastest FRR or BIRD's; below 1 is better than the yardstick.
 */
export function formatTable(s: ShapeSummary, order: readonly string[]): string {
  const birdCold = s.cold[BIRD2]?.wallSeconds;
  const birdRecv = s.receive[BIRD2]?.wallSeconds;
  const birdRss = s.receive[BIRD2]?.peakRssBytes;
  const best = bestSender(s)?.seconds;
  const small = sizeLabel(s.small);
  const full = sizeLabel(s.full);
  const notes: string[] = [];
  const rows: string[][] = [
    [
      'implementation',
      `recv ${small} s`,
      '/BIRD 2',
      `recv ${full} s`,
      '/BIRD 2',
      'recv CPU s',
      `peak RSS ${full} MB`,
      '/BIRD 2',
      'B/route',
      `send ${full} s`,
      '/best',
      'sessions',
    ],
  ];
  for (const impl of [...order, 'replayer']) {
    const c = s.cold[impl];
    const r = s.receive[impl];
    const t = s.send[impl];
    if (!c && !r && !t) continue;
    const drops = [c?.dropped && 'cold', r?.dropped && 'receive', t?.dropped && 'send'].filter(Boolean);
    const silence = Math.max(c?.maxSilenceSeconds ?? 0, r?.maxSilenceSeconds ?? 0, t?.maxSilenceSeconds ?? 0);
    rows.push([
      labelOf(impl),
      timeOrNote(c, notes),
      x(ratio(c?.wallSeconds, birdCold)),
      timeOrNote(r, notes),
      x(ratio(r?.wallSeconds, birdRecv)),
      r ? fmt(r.cpuSeconds) : '',
      r ? fmt(r.peakRssBytes === undefined ? undefined : r.peakRssBytes / MB, 0) : '',
      x(ratio(r?.peakRssBytes, birdRss)),
      r ? fmt(r.bytesPerRoute, 0) : '',
      timeOrNote(t, notes),
      x(ratio(t?.wallSeconds, best)),
      impl === 'replayer'
        ? '(baseline)'
        : drops.length
          ? `${drops.join(', ')} DROPPED`
          : `up, max silence ${fmt(silence, 1)} s`,
    ]);
  }
  const footnotes = notes.map((n, i) => `[${i + 1}] ${n}`);
  return [table(rows), ...footnotes].join('\n');
}

export function formatVerdicts(vs: readonly Verdict[]): string {
  return vs
    .map((v) => `${v.pass === undefined ? 'n/a ' : v.pass ? 'PASS' : 'FAIL'}  ${v.target}: ${v.measured}`)
    .join('\n');
}
