import { cpus, loadavg, totalmem } from 'node:os';

/** One line naming the machine, printed with every benchmark so figures carry their context. */
export function machineLine(): string {
  const c = cpus();
  return `${c.length} x ${c[0]?.model ?? 'unknown cpu'}, ${(totalmem() / 2 ** 30).toFixed(0)} GiB, node ${process.version}`;
}

export function rate(perSecond: number): string {
  if (perSecond >= 1e6) return `${(perSecond / 1e6).toFixed(2)} M`;
  if (perSecond >= 1e3) return `${(perSecond / 1e3).toFixed(1)} k`;
  return perSecond.toFixed(0);
}

/** A plain text table: the first row is the header. */
export function table(rows: readonly (readonly string[])[]): string {
  const widths = rows[0].map((_, i) => Math.max(...rows.map((r) => r[i].length)));
  const line = (r: readonly string[]) => r.map((cell, i) => cell.padEnd(widths[i])).join('  ');
  return [line(rows[0]), widths.map((w) => '-'.repeat(w)).join('  '), ...rows.slice(1).map(line)].join('\n');
}

/** The middle value (the upper one of an even count). */
export function median(xs: readonly number[]): number {
  const s = [...xs].sort((a, b) => a - b);
  return s[s.length >> 1];
}

/** The p-th percentile (0-100) by the nearest-rank method: p99 of 50 samples is the largest. */
export function percentile(xs: readonly number[], p: number): number {
  if (xs.length === 0) return Number.NaN;
  const sorted = [...xs].sort((a, b) => a - b);
  const rank = Math.ceil((p / 100) * sorted.length);
  return sorted[Math.min(sorted.length, Math.max(1, rank)) - 1];
}

/** The 1, 5 and 15 minute load averages: on a shared machine, what else was running. */
export function loadLine(): string {
  return `load average ${loadavg()
    .map((x) => x.toFixed(2))
    .join(' ')} on ${cpus().length} cores`;
}
