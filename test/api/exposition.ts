/** A small reader of the Prometheus text format (0.0.4), enough to check what a scrape holds. */

export interface Sample {
  readonly name: string;
  readonly labels: Readonly<Record<string, string>>;
  readonly value: number;
}

export interface Exposition {
  readonly help: ReadonlyMap<string, string>;
  readonly type: ReadonlyMap<string, string>;
  readonly samples: readonly Sample[];
}

const SAMPLE = /^([a-zA-Z_:][a-zA-Z0-9_:]*)(?:\{(.*)\})? (\S+)(?: \d+)?$/;
const LABEL = /([a-zA-Z_][a-zA-Z0-9_]*)="((?:[^"\\]|\\.)*)"/g;

/** Throws on a line that is none of HELP, TYPE, a sample or blank. */
export function parseExposition(text: string): Exposition {
  const help = new Map<string, string>();
  const type = new Map<string, string>();
  const samples: Sample[] = [];
  for (const line of text.split('\n')) {
    if (line === '') continue;
    const meta = /^# (HELP|TYPE) (\S+) (.*)$/.exec(line);
    if (meta) {
      (meta[1] === 'HELP' ? help : type).set(meta[2], meta[3]);
      continue;
    }
    const m = SAMPLE.exec(line);
    if (!m) throw new Error(`not an exposition line: ${line}`);
    const labels: Record<string, string> = {};
    for (const l of (m[2] ?? '').matchAll(LABEL)) labels[l[1]] = l[2];
    // Prometheus reads values with Go's ParseFloat: NaN in any case, +Inf, -Inf.
    const value = m[3] === '+Inf' ? Infinity : m[3] === '-Inf' ? -Infinity : Number(m[3]);
    if (Number.isNaN(value) && m[3].toLowerCase() !== 'nan') throw new Error(`bad value in: ${line}`);
    samples.push({ name: m[1], labels, value });
  }
  return { help, type, samples };
}

/** The samples of one metric, as "label=value,..." → value, for exact comparisons. */
export function series(e: Exposition, name: string): Record<string, number> {
  const out: Record<string, number> = {};
  for (const s of e.samples.filter((x) => x.name === name)) {
    const key = Object.entries(s.labels)
      .map(([k, v]) => `${k}=${v}`)
      .join(',');
    out[key] = s.value;
  }
  return out;
}
