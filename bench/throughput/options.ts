/** The throughput benchmark's command line, parsed and checked (no side effects, so tests can call it). */
import { TABLE_SHAPES, type TableShape } from '../gen/table-shapes.js';
import { DEFAULT_IMPLS, IMPLS, type Impl } from './bench-lab.js';
import {
  DEFAULT_IPV6_PREFIXES,
  DEFAULT_MEASURE_TIMEOUT,
  DEFAULT_OUT_DIR,
  DEFAULT_PREFIXES,
  DEFAULT_RUNS,
  DEFAULT_SMALL_PREFIXES,
  DEFAULT_TOTAL_BUDGET,
} from './constants.js';

export interface Options {
  /** IPv4 prefixes of the full table. */
  readonly prefixes: number;
  /** IPv4 prefixes of the cold-start table (default 100k, at most a tenth of --prefixes); 0: none. */
  readonly small: number;
  readonly ipv6: number;
  readonly runs: number;
  readonly out: string;
  readonly timeoutMs: number;
  readonly budgetMs: number;
  readonly only: readonly Impl[];
  readonly shapes: readonly TableShape[];
  readonly send: boolean;
  /** Profile our speaker (node --cpu-prof) into this folder. */
  readonly profile?: string;
}

export const USAGE = `usage: run.ts [--prefixes N] [--small N] [--ipv6 M] [--runs R] [--out DIR] [--timeout SECONDS]
        [--budget MINUTES] [--only ${IMPLS.join(',')}] [--shapes ${TABLE_SHAPES.join(',')}]
        [--no-send] [--profile DIR]
  defaults: --prefixes ${DEFAULT_PREFIXES} --small ${DEFAULT_SMALL_PREFIXES} --runs ${DEFAULT_RUNS} --only ${DEFAULT_IMPLS.join(',')} --shapes ${TABLE_SHAPES.join(',')}`;

const MS = 1000;
const MINUTE = 60_000;

export class UsageError extends Error {}

function list<T extends string>(v: string | undefined, allowed: readonly T[], flag: string): T[] {
  const items = (v ?? '').split(',') as T[];
  if (items.length === 0 || items.some((x) => !allowed.includes(x)))
    throw new UsageError(`${flag} takes a comma-separated list of ${allowed.join(',')}`);
  return [...new Set(items)];
}

/** The options of `argv` (without node and the script); `help` when asked for the usage. */
export function parseOptions(argv: readonly string[]): Options | 'help' {
  const o = {
    prefixes: DEFAULT_PREFIXES,
    small: undefined as number | undefined,
    ipv6: DEFAULT_IPV6_PREFIXES,
    runs: DEFAULT_RUNS,
    out: DEFAULT_OUT_DIR,
    timeoutMs: DEFAULT_MEASURE_TIMEOUT,
    budgetMs: DEFAULT_TOTAL_BUDGET,
    only: DEFAULT_IMPLS as readonly Impl[],
    shapes: TABLE_SHAPES as readonly TableShape[],
    send: true,
    profile: undefined as string | undefined,
  };
  const count = (v: string | undefined, what: string, min = 0): number => {
    const n = Number(v);
    if (v === undefined || !Number.isInteger(n) || n < min)
      throw new UsageError(`${what} must be a whole number >= ${min}`);
    return n;
  };
  for (let i = 0; i < argv.length; i++) {
    const a = argv[i]!;
    const v = argv[i + 1];
    const takes = () => {
      if (v === undefined) throw new UsageError(`${a} needs a value`);
      i++;
      return v;
    };
    switch (a) {
      case '--prefixes':
        o.prefixes = count(takes(), a, 1);
        break;
      case '--small':
        o.small = count(takes(), a);
        break;
      case '--ipv6':
        o.ipv6 = count(takes(), a);
        break;
      case '--runs':
        o.runs = count(takes(), a, 1);
        break;
      case '--out':
        o.out = takes();
        break;
      case '--timeout':
        o.timeoutMs = count(takes(), a, 1) * MS;
        break;
      case '--budget':
        o.budgetMs = count(takes(), a, 1) * MINUTE;
        break;
      case '--only':
        o.only = list(takes(), IMPLS, a);
        break;
      case '--shapes':
        o.shapes = list(takes(), TABLE_SHAPES, a);
        break;
      case '--profile':
        o.profile = takes();
        break;
      case '--no-send':
        o.send = false;
        break;
      case '--help':
      case '-h':
        return 'help';
      default:
        throw new UsageError(`unknown argument ${a}`);
    }
  }
  if (o.small !== undefined && o.small >= o.prefixes)
    throw new UsageError(`--small (${o.small}) must be below --prefixes (${o.prefixes}); 0 leaves it out`);
  // Unless given, a tenth of a full table smaller than ten times the default.
  const small = o.small ?? Math.min(DEFAULT_SMALL_PREFIXES, Math.floor(o.prefixes / 10));
  // Measured in the order of the tables, whatever order --only gave.
  return { ...o, small, only: IMPLS.filter((i) => o.only.includes(i)) };
}
