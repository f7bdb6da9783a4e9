/**
 * A hand-written SVG line chart: prefixes held over time, one line per implementation. Times
 * run from a tenth of a second to minutes (BIRD against a timeout), so the time axis is
 * logarithmic: every line stays readable, the fast ones included.
 */
import type { Measurement } from './measure.js';
import { type Cell, labelOf } from './report.js';

export interface ChartLine {
  readonly label: string;
  readonly color: string;
  /** [seconds, prefixes] */
  readonly points: readonly (readonly [number, number])[];
  /** Shown after the label, e.g. "1.44 s (median)" or "timeout at 367000 prefixes". */
  readonly note: string;
}

export interface ChartSpec {
  readonly title: string;
  readonly subtitle: string;
  readonly expected: number;
  readonly lines: readonly ChartLine[];
}

const COLORS: Record<string, string> = {
  ours: '#d62728',
  core: '#ff7f0e',
  frr: '#1f77b4',
  frr10: '#17becf',
  gobgp: '#2ca02c',
  bird: '#9467bd',
  bird3: '#e377c2',
  replayer: '#7f7f7f',
};

const WIDTH = 900;
const PLOT_HEIGHT = 390;
const MARGIN = { left: 90, right: 30, top: 70, bottom: 50 } as const;
const Y_TICKS = 5;
/** The axis starts here: the first poll answer comes about a tenth of a second after Established. */
const MIN_SECONDS = 0.05;
const X_HEADROOM = 1.15;
/** Tick values per decade on the logarithmic axis. */
const DECADE_TICKS = [1, 2, 5];
const LEGEND_ROW = 18;
const FONT = 'font-family="sans-serif"';

const escapeXml = (s: string): string => s.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;');

const shortCount = (n: number): string =>
  n >= 1e6 ? `${+(n / 1e6).toFixed(2)}M` : n >= 1e3 ? `${+(n / 1e3).toFixed(1)}k` : String(n);

/** 0.05, 0.1, 0.2, 0.5, 1, 2, 5, ... within [min, max]. */
function logTicks(min: number, max: number): number[] {
  const out: number[] = [];
  for (let decade = 10 ** Math.floor(Math.log10(min)); decade <= max; decade *= 10) {
    for (const m of DECADE_TICKS) {
      const v = +(m * decade).toPrecision(3);
      if (v >= min && v <= max) out.push(v);
    }
  }
  return out;
}

export function renderChart(spec: ChartSpec): string {
  const plotW = WIDTH - MARGIN.left - MARGIN.right;
  const plotH = PLOT_HEIGHT;
  // The legend sits under the plot, one row per line, so it never hides a line.
  const legendTop = MARGIN.top + plotH + MARGIN.bottom;
  const height = legendTop + (spec.lines.length + 1) * LEGEND_ROW;
  const lastTimes = spec.lines.map((l) => l.points.at(-1)?.[0] ?? 0);
  const xMax = Math.max(MIN_SECONDS * 10, ...lastTimes) * X_HEADROOM;
  const span = Math.log(xMax / MIN_SECONDS);
  const sx = (x: number) => MARGIN.left + (Math.log(Math.max(x, MIN_SECONDS) / MIN_SECONDS) / span) * plotW;
  const sy = (y: number) => MARGIN.top + plotH - (y / spec.expected) * plotH;
  const parts: string[] = [
    `<svg xmlns="http://www.w3.org/2000/svg" width="${WIDTH}" height="${height}" viewBox="0 0 ${WIDTH} ${height}">`,
    `<rect width="${WIDTH}" height="${height}" fill="white"/>`,
    `<text x="${MARGIN.left}" y="28" ${FONT} font-size="17" font-weight="bold">${escapeXml(spec.title)}</text>`,
    `<text x="${MARGIN.left}" y="48" ${FONT} font-size="12" fill="#555">${escapeXml(spec.subtitle)}</text>`,
  ];
  for (const x of logTicks(MIN_SECONDS, xMax)) {
    const px = sx(x).toFixed(1);
    parts.push(
      `<line x1="${px}" y1="${MARGIN.top}" x2="${px}" y2="${MARGIN.top + plotH}" stroke="#eee"/>`,
      `<text x="${px}" y="${MARGIN.top + plotH + 18}" ${FONT} font-size="11" text-anchor="middle">${x}</text>`,
    );
  }
  for (let i = 0; i <= Y_TICKS; i++) {
    const y = (spec.expected * i) / Y_TICKS;
    const py = sy(y).toFixed(1);
    parts.push(
      `<line x1="${MARGIN.left}" y1="${py}" x2="${MARGIN.left + plotW}" y2="${py}" stroke="#eee"/>`,
      `<text x="${MARGIN.left - 8}" y="${py}" dy="4" ${FONT} font-size="11" text-anchor="end">${shortCount(Math.round(y))}</text>`,
    );
  }
  parts.push(
    `<rect x="${MARGIN.left}" y="${MARGIN.top}" width="${plotW}" height="${plotH}" fill="none" stroke="#999"/>`,
    `<text x="${MARGIN.left + plotW / 2}" y="${MARGIN.top + plotH + 38}" ${FONT} font-size="12" text-anchor="middle">seconds since Established (logarithmic)</text>`,
    `<text transform="translate(20 ${MARGIN.top + plotH / 2}) rotate(-90)" ${FONT} font-size="12" text-anchor="middle">prefixes held</text>`,
  );
  spec.lines.forEach((l, i) => {
    const pts = l.points.map(([x, y]) => `${sx(x).toFixed(1)},${sy(y).toFixed(1)}`).join(' ');
    parts.push(`<polyline fill="none" stroke="${l.color}" stroke-width="2" points="${pts}"/>`);
    const ly = legendTop + (i + 1) * LEGEND_ROW;
    parts.push(
      `<line x1="${MARGIN.left}" y1="${ly - 4}" x2="${MARGIN.left + 22}" y2="${ly - 4}" stroke="${l.color}" stroke-width="3"/>`,
      `<text x="${MARGIN.left + 28}" y="${ly}" ${FONT} font-size="12">${escapeXml(`${l.label}: ${l.note}`)}</text>`,
    );
  });
  parts.push('</svg>');
  return `${parts.join('\n')}\n`;
}

/** The run whose wall time is the median (timeouts count as slowest): the line drawn for a cell. */
function medianRun(ms: readonly Measurement[]): Measurement | undefined {
  const sorted = [...ms]
    .filter((m) => m.series.length > 1)
    .sort((a, b) => (a.wallSeconds ?? Infinity) - (b.wallSeconds ?? Infinity));
  return sorted[(sorted.length - 1) >> 1];
}

/** The chart of a set of cells: per implementation, the run with the median time. */
export function cellChart(
  title: string,
  subtitle: string,
  expected: number,
  cells: readonly (readonly [string, Cell, readonly Measurement[]])[],
): string {
  const lines = cells.flatMap(([impl, cell, ms]) => {
    const m = medianRun(ms);
    if (!m) return [];
    return [
      {
        label: labelOf(impl),
        color: COLORS[impl] ?? '#000',
        points: m.series,
        note:
          cell.wallSeconds !== undefined ? `${cell.wallSeconds.toFixed(2)} s (median)` : (cell.note ?? ''),
      },
    ];
  });
  return renderChart({ title, subtitle, expected, lines });
}
