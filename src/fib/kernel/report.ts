import type { Logger } from '../../components/index.js';
import type { SinkDetail } from '../route.js';
import { canonicalNexthops } from './nexthop-set.js';
import type { NextHopResolver } from './resolve.js';
import type { KernelProblem, KernelStatus } from './types.js';

/** Problems named in status() with their reason, at most. */
const PROBLEM_SAMPLE = 20;

/**
 * Warnings logged once per cause: a million routes refused for one reason are one line, the
 * rest counted in status(). A reconcile starts the count afresh.
 */
export class CauseLog {
  readonly #log: Logger;
  readonly #logged = new Set<string>();

  constructor(log: Logger) {
    this.#log = log;
  }

  warnOnce(cause: string, obj: object, msg: string): void {
    if (this.#logged.has(cause)) return;
    this.#logged.add(cause);
    this.#log.warn(obj, msg);
  }

  clear(): void {
    this.#logged.clear();
  }
}

/** What status() gathers from the target's parts. */
export interface StatusParts {
  readonly open: boolean;
  readonly mark: { readonly table: number; readonly protocol: number; readonly metric: number };
  readonly routes: number;
  readonly nexthopSets: number;
  readonly problems: Iterable<{
    readonly prefix: { toString(): string };
    readonly problem: KernelProblem;
    readonly reason: string;
  }>;
  readonly resolver: NextHopResolver | undefined;
  readonly repairs: { readonly granted: number; readonly gaveUp: number };
  readonly nextHopsMoved: number;
  readonly monitor:
    | {
        readonly events: number;
        readonly otherTables: number;
        readonly overruns: number;
        readonly dropped: number;
        readonly tuned: readonly string[];
      }
    | undefined;
  readonly socket: {
    readonly tuned: readonly string[];
    readonly batch: number;
    readonly maxInFlight: number;
  };
  readonly lastError: string | undefined;
}

export function kernelStatus(s: StatusParts): KernelStatus {
  const counts = { failed: 0, conflict: 0, displaced: 0 };
  const sample: { prefix: string; problem: KernelProblem; reason: string }[] = [];
  for (const p of s.problems) {
    counts[p.problem]++;
    if (sample.length < PROBLEM_SAMPLE)
      sample.push({ prefix: p.prefix.toString(), problem: p.problem, reason: p.reason });
  }
  return {
    open: s.open,
    table: s.mark.table,
    protocol: s.mark.protocol,
    metric: s.mark.metric,
    routes: s.routes,
    nexthopSets: s.nexthopSets,
    problems: counts,
    problemSample: sample,
    nextHops: (s.resolver?.entries() ?? []).map(({ address, resolution: r }) => ({
      address,
      resolution: r.kind,
      detail: r.kind === 'unresolved' ? r.reason : `${r.through}: ${canonicalNexthops(r.nexthops)}`,
    })),
    repairs: s.repairs.granted,
    gaveUp: s.repairs.gaveUp,
    nextHopsMoved: s.nextHopsMoved,
    monitor: {
      on: s.monitor !== undefined,
      events: s.monitor?.events ?? 0,
      otherTables: s.monitor?.otherTables ?? 0,
      overruns: s.monitor?.overruns ?? 0,
      dropped: s.monitor?.dropped ?? 0,
      tuned: s.monitor?.tuned ?? [],
    },
    socket: s.socket,
    ...(s.lastError !== undefined && { lastError: s.lastError }),
  };
}

/** The counters an operator asks about first, in the order `show sinks` prints them. */
export function kernelDetails(s: KernelStatus): SinkDetail[] {
  return [
    { name: 'table', value: s.table },
    { name: 'routes', value: s.routes },
    { name: 'failed', value: s.problems.failed },
    { name: 'conflicts', value: s.problems.conflict },
    { name: 'displaced', value: s.problems.displaced },
    { name: 'put back', value: s.repairs },
    { name: 'gave up', value: s.gaveUp },
    { name: 'next hops moved', value: s.nextHopsMoved },
    { name: 'monitor', value: s.monitor.on ? 'on' : 'off' },
    { name: 'monitor overruns', value: s.monitor.overruns },
  ];
}

/** The first `limit` prefixes not installed, each with its cause and reason. */
export function notInstalled(s: KernelStatus, limit: number): { prefix: string; reason: string }[] {
  return s.problemSample
    .slice(0, limit)
    .map((p) => ({ prefix: p.prefix, reason: `${p.problem}: ${p.reason}` }));
}
