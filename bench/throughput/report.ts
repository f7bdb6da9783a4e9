/**
 * Figures across runs (medians), ratios between implementations measured in the same run, the
 * issue's targets as pass/fail, and the text table.
 */
import { table } from '../support/report.js';
import { Targets } from './constants.js';
import type { Measurement } from './measure.js';

/** The median of the runs of one cell (implementation x direction). */
export interface Cell {
  readonly impl: string;
  readonly direction: 'receive' | 'send';
  readonly runs: number;
  /** Median wall seconds when every run finished. */
  readonly wallSeconds?: number;
  readonly cpuSeconds?: number;
  readonly idleRssBytes?: number;
  readonly peakRssBytes?: number;
  /** (peak - idle) / expected prefixes. */
  readonly bytesPerRoute?: number;
  /** Median prefixes per second over the whole measurement. */
  readonly prefixesPerSecond?: number;
  /** Why there is no wall time ("timeout at N prefixes", a load timeout, skipped, an error). */
  readonly note?: string;
  readonly dropped: boolean;
  readonly maxSilenceSeconds: number;
}

export function median(xs: readonly number[]): number | undefined {
  const v = xs.filter((x) => Number.isFinite(x)).sort((a, b) => a - b);
  if (v.length === 0) return undefined;
  const mid = v.length >> 1;
  return v.length % 2 ? v[mid] : (v[mid - 1]! + v[mid]!) / 2;
}

const defined = <T>(xs: readonly (T | undefined)[]): T[] => xs.filter((x): x is T => x !== undefined);

export function summarize(impl: string, direction: Cell['direction'], ms: readonly Measurement[]): Cell {
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
    direction,
    runs: ms.length,
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

export interface Summary {
  readonly receive: Record<string, Cell>;
  readonly send: Record<string, Cell>;
}

/** The faster of FRR and BIRD at sending: the issue's yardstick. */
function bestSend(s: Summary): number | undefined {
  return minDefined(s.send.frr?.wallSeconds, s.send.bird?.wallSeconds);
}

function minDefined(...xs: (number | undefined)[]): number | undefined {
  const v = defined(xs);
  return v.length ? Math.min(...v) : undefined;
}

export function verdicts(s: Summary): Verdict[] {
  const ours = s.receive.ours;
  const bird = s.receive.bird;
  const recvRatio = ratio(ours?.wallSeconds, bird?.wallSeconds);
  const best = bestSend(s);
  const sendRatio = ratio(s.send.ours?.wallSeconds, best);
  const cells = [...Object.values(s.receive), ...Object.values(s.send)];
  const oursCells = cells.filter((c) => c.impl === 'ours');
  const silence = Math.max(0, ...oursCells.map((c) => c.maxSilenceSeconds));
  return [
    {
      target: `receive the table in <= ${Targets.RECEIVE_VS_BIRD} x BIRD's time`,
      measured: `${fmt(ours?.wallSeconds)} s vs ${fmt(bird?.wallSeconds)} s = ${fmt(recvRatio)} x`,
      ...(recvRatio !== undefined && { pass: recvRatio <= Targets.RECEIVE_VS_BIRD }),
    },
    {
      target: `peak RSS <= ${Targets.BYTES_PER_ROUTE} bytes/route above idle`,
      measured: `${fmt(ours?.bytesPerRoute, 0)} bytes/route`,
      ...(ours?.bytesPerRoute !== undefined && { pass: ours.bytesPerRoute <= Targets.BYTES_PER_ROUTE }),
    },
    {
      target: `send in <= ${Targets.SEND_VS_BEST} x the faster of FRR and BIRD`,
      measured: `${fmt(s.send.ours?.wallSeconds)} s vs ${fmt(best)} s = ${fmt(sendRatio)} x`,
      ...(sendRatio !== undefined && { pass: sendRatio <= Targets.SEND_VS_BEST }),
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
  frr: 'FRR bgpd',
  gobgp: 'GoBGP',
  bird: 'BIRD',
  replayer: 'pre-encoded writer',
};
export const labelOf = (impl: string): string => LABELS[impl] ?? impl;

/** A cell's time, or a short word for why there is none with its full note as a footnote. */
function timeOrNote(c: Cell | undefined, notes: string[]): string {
  if (!c) return '';
  if (c.wallSeconds !== undefined) return fmt(c.wallSeconds);
  const note = c.note ?? 'no figure';
  notes.push(`${labelOf(c.impl)} ${c.direction}: ${note}`);
  const word = note.match(/^(timeout|dropped|not loaded|skipped|error|not measured)/)?.[1] ?? 'n/a';
  const held = note.match(/at (\d+) prefixes/)?.[1];
  return `${word}${held !== undefined ? ` at ${held}` : ''} [${notes.length}]`;
}

export function formatTable(s: Summary, order: readonly string[]): string {
  const bird = s.receive.bird?.wallSeconds;
  const best = bestSend(s);
  const notes: string[] = [];
  const rows: string[][] = [
    [
      'implementation',
      'recv s',
      'recv CPU s',
      'peak RSS MB',
      'idle MB',
      'B/route',
      'recv/BIRD',
      'recv prefixes/s',
      'send s',
      'send CPU s',
      'send/best',
      'send prefixes/s',
      'sessions',
    ],
  ];
  for (const impl of order) {
    const r = s.receive[impl];
    const t = s.send[impl];
    const drops = [r?.dropped && 'receive', t?.dropped && 'send'].filter(Boolean);
    const silence = Math.max(r?.maxSilenceSeconds ?? 0, t?.maxSilenceSeconds ?? 0);
    rows.push([
      labelOf(impl),
      timeOrNote(r, notes),
      r ? fmt(r.cpuSeconds) : '',
      r ? fmt(r.peakRssBytes === undefined ? undefined : r.peakRssBytes / MB, 0) : '',
      r ? fmt(r.idleRssBytes === undefined ? undefined : r.idleRssBytes / MB, 0) : '',
      r ? fmt(r.bytesPerRoute, 0) : '',
      r ? fmt(ratio(r.wallSeconds, bird)) : '',
      r?.prefixesPerSecond !== undefined ? `${(r.prefixesPerSecond / 1e3).toFixed(0)}k` : '',
      timeOrNote(t, notes),
      t ? fmt(t.cpuSeconds) : '',
      t ? fmt(ratio(t.wallSeconds, best)) : '',
      t?.prefixesPerSecond !== undefined ? `${(t.prefixesPerSecond / 1e3).toFixed(0)}k` : '',
      drops.length ? `${drops.join(', ')} DROPPED` : `up, max silence ${fmt(silence, 1)} s`,
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
