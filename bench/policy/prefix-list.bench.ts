import { resolve } from 'node:path';
import { PerformanceObserver } from 'node:perf_hooks';
import { fileURLToPath } from 'node:url';
import b from 'benny';
import { formatIpv4, formatIpv6, maskIpv4, maskWord } from '../../src/address/index.js';
import { Afi, type AfiCode } from '../../src/bgp/wire/constants.js';
import {
  type CompiledPrefixList,
  compileLists,
  compilePolicy,
  compilePrefixList,
  type Policy,
  type PrefixListEntryModel,
  type PrefixListModel,
} from '../../src/policy/index.js';
import { generateTable, rng, type Table } from '../gen/full-table.js';
import { machineLine, rate, table } from '../support/report.js';

const LIST_ENTRIES = 1000;
const IPV4_PREFIXES = 1_000_000;
const IPV6_PREFIXES = 200_000;
/** The linear scan reads every entry for most prefixes: a slice of the table is enough to time it. */
const LINEAR_PREFIXES = 50_000;
const WARM_UP_PASSES = 6;

/**
 * A prefix list shaped like an operator's customer filter, drawn from the table itself so a
 * good share of prefixes match: covering aggregates with `le`, exact denies, `ge`/`le` ranges,
 * and some entries that match nothing in the table.
 */
export function benchPrefixList(t: Table, entries = LIST_ENTRIES, seed = 7): PrefixListModel {
  const random = rng(seed);
  const v4 = t.afi === Afi.IPV4;
  const max = v4 ? 32 : 128;
  const out: PrefixListEntryModel[] = [];
  const text = (i: number, len: number) => {
    const w = t.prefixes.words;
    if (v4) return `${formatIpv4(maskIpv4(w[i], len))}/${len}`;
    const at = i * 4;
    const m = (k: number) => maskWord(w[at + k], k, len);
    return `${formatIpv6(m(0), m(1), m(2), m(3))}/${len}`;
  };
  for (let k = 0; k < entries; k++) {
    const i = Math.floor(random() * t.prefixes.count);
    const len = t.prefixes.lens[i];
    const r = random();
    if (r < 0.4) {
      const agg = Math.max(8, len - 8);
      out.push({ action: 'permit', prefix: text(i, agg), le: Math.min(max, len + 2) });
    } else if (r < 0.7) {
      out.push({ action: 'deny', prefix: text(i, len) });
    } else if (r < 0.9) {
      const agg = Math.max(8, len - 4);
      out.push({ action: 'permit', prefix: text(i, agg), ge: len, le: max });
    } else {
      out.push({
        action: 'permit',
        prefix: v4 ? `240.${k & 255}.0.0/16` : `3fff:${k.toString(16)}::/32`,
        le: max,
      });
    }
  }
  return { name: 'CUSTOMERS', entries: out };
}

/** Every prefix of the table through the list; returns how many it permits. */
function scanList(list: CompiledPrefixList, t: Table, count: number): number {
  const { words, lens } = t.prefixes;
  const afi: AfiCode = t.afi;
  const wpp = afi === Afi.IPV4 ? 1 : 4;
  let permitted = 0;
  for (let i = 0; i < count; i++) if (list.permits(afi, words, i * wpp, lens[i])) permitted++;
  return permitted;
}

/** Every prefix through a policy with its attribute set, as import would run it. */
function scanPolicy(policy: Policy, t: Table): number {
  const { words, lens } = t.prefixes;
  const wpp = t.afi === Afi.IPV4 ? 1 : 4;
  let accepted = 0;
  const groups = t.groups;
  for (let k = 0; k < groups.length; k++) {
    const g = groups[k];
    for (let i = g.from; i < g.to; i++)
      if (policy.evaluate(t.afi, words, i * wpp, lens[i], g.attrs).accept) accepted++;
  }
  return accepted;
}

/** The import policy of the benchmark: the 1000-entry list sets LOCAL_PREF, the rest is rejected. */
function benchPolicy(model: PrefixListModel): Policy {
  return compilePolicy(
    {
      name: 'IMPORT',
      statements: [{ match: { prefixList: model.name }, set: { localPref: 200 }, action: 'accept' }],
      defaultAction: 'reject',
    },
    compileLists({ prefixLists: [model] }),
  );
}

/**
 * A policy every route passes with changes: the list's routes get LOCAL_PREF, the rest a MED
 * step, and those tagged with our communities one more community. Every prefix takes the
 * memoised path (the output attributes shared per input set).
 */
function benchRewritePolicy(model: PrefixListModel): Policy {
  return compilePolicy(
    {
      name: 'REWRITE',
      statements: [
        { match: { communityList: 'OURS' }, set: { communities: { add: ['65001:999'] } }, action: 'next' },
        { match: { prefixList: model.name }, set: { localPref: 200 }, action: 'accept' },
        { set: { med: '+10' }, action: 'accept' },
      ],
    },
    compileLists({
      prefixLists: [model],
      communityLists: [{ name: 'OURS', entries: [{ action: 'permit', communities: ['65001:*'] }] }],
    }),
  );
}

/**
 * What one pass allocates: heap growth and garbage collections while `work` runs, after a full
 * collection when node runs with --expose-gc. No collection and a growth near zero mean the
 * per-prefix path allocates nothing.
 */
async function allocation(work: () => void): Promise<{ bytes: number; collections: number }> {
  (globalThis as { gc?: () => void }).gc?.();
  let collections = 0;
  const obs = new PerformanceObserver((list) => {
    collections += list.getEntries().length;
  });
  obs.observe({ entryTypes: ['gc'] });
  const before = process.memoryUsage().heapUsed;
  work();
  const bytes = process.memoryUsage().heapUsed - before;
  await new Promise((r) => setTimeout(r, 50));
  obs.disconnect();
  return { bytes, collections };
}

export interface PolicyFigure {
  readonly name: string;
  readonly prefixes: number;
  readonly evaluationsPerSecond: number;
  readonly margin: number;
  readonly samples: number;
  readonly matched: number;
}

interface Case {
  readonly name: string;
  readonly prefixes: number;
  readonly matched: number;
  readonly run: () => number;
}

export async function runPolicyBench(): Promise<{ figures: PolicyFigure[]; notes: string[] }> {
  const notes: string[] = [];
  const cases: Case[] = [];
  for (const [label, afi, count] of [
    ['IPv4', Afi.IPV4, IPV4_PREFIXES],
    ['IPv6', Afi.IPV6, IPV6_PREFIXES],
  ] as const) {
    const t = generateTable({ afi, prefixes: count });
    const model = benchPrefixList(t);
    const trie = compilePrefixList(model, 'bench', 'auto');
    const linear = compilePrefixList(model, 'bench', 'linear');
    const policy = benchPolicy(model);
    const matched = scanList(trie, t, count);
    // The two lookups and the policy must agree before either is timed.
    if (scanList(linear, t, LINEAR_PREFIXES) !== scanList(trie, t, LINEAR_PREFIXES))
      throw new Error(`${label}: linear scan and trie disagree`);
    if (scanPolicy(policy, t) !== matched) throw new Error(`${label}: policy and prefix list disagree`);
    const rewrite = benchRewritePolicy(model);
    if (scanPolicy(rewrite, t) !== count) throw new Error(`${label}: the rewrite policy lost routes`);
    notes.push(
      `${label}: ${count} prefixes, ${t.groups.length} attribute sets, ${LIST_ENTRIES}-entry list permits ${matched}`,
    );
    // Warm-up passes first: the first ones also carry the JIT's own allocations, which settle
    // after a handful, as in the timed runs.
    for (let k = 0; k < WARM_UP_PASSES; k++) {
      scanPolicy(policy, t);
      scanPolicy(rewrite, t);
    }
    for (const [what, p] of [
      ['list policy', policy],
      ['rewrite policy', rewrite],
    ] as const) {
      const alloc = await allocation(() => scanPolicy(p, t));
      notes.push(
        `${label}: one ${what} pass (warm): heap +${alloc.bytes} bytes (${(alloc.bytes / count).toFixed(3)} per prefix), ${alloc.collections} garbage collections`,
      );
    }
    const lc = LINEAR_PREFIXES;
    cases.push({
      name: `${label} prefix list, trie`,
      prefixes: count,
      matched,
      run: () => scanList(trie, t, count),
    });
    cases.push({
      name: `${label} prefix list, linear scan`,
      prefixes: lc,
      matched: scanList(linear, t, lc),
      run: () => scanList(linear, t, lc),
    });
    cases.push({
      name: `${label} policy (list + set local-pref)`,
      prefixes: count,
      matched,
      run: () => scanPolicy(policy, t),
    });
    cases.push({
      name: `${label} policy, all rewritten (3 statements)`,
      prefixes: count,
      matched: count,
      run: () => scanPolicy(rewrite, t),
    });
  }
  const figures: PolicyFigure[] = [];
  await b.suite(
    'policy',
    ...cases.map((c) =>
      b.add(c.name, () => {
        if (c.run() !== c.matched) throw new Error(`${c.name}: result changed`);
      }),
    ),
    b.configure({ cases: { minSamples: 5, maxTime: 3 } }),
    b.complete((summary) => {
      for (const r of summary.results) {
        const c = cases.find((x) => x.name === r.name)!;
        // An op is a whole pass over the prefixes: per-prefix figures come from the mean time.
        figures.push({
          name: r.name,
          prefixes: c.prefixes,
          evaluationsPerSecond: c.prefixes / r.details.mean,
          margin: r.margin,
          samples: r.samples,
          matched: c.matched,
        });
      }
    }),
  );
  return { figures, notes };
}

export function formatPolicyFigures(figures: readonly PolicyFigure[]): string {
  return table([
    ['case', 'prefixes/pass', 'evaluations/s', 'ns/evaluation', '± %', 'samples'],
    ...figures.map((f) => [
      f.name,
      String(f.prefixes),
      rate(f.evaluationsPerSecond),
      (1e9 / f.evaluationsPerSecond).toFixed(0),
      f.margin.toFixed(1),
      String(f.samples),
    ]),
  ]);
}

/** `npx tsx bench/policy/prefix-list.bench.ts`; under `node --expose-gc --import tsx` the allocation note is exact. */
async function main(): Promise<void> {
  console.log(`machine: ${machineLine()}`);
  console.log(`\n== policy: ${LIST_ENTRIES}-entry prefix list (one core, wall time, benny) ==`);
  const { figures, notes } = await runPolicyBench();
  console.log(`\n${notes.join('\n')}\n\n${formatPolicyFigures(figures)}`);
}

if (process.argv[1] && resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  main().catch((e) => {
    console.error(e);
    process.exit(1);
  });
}
