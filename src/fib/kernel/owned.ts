import { AF } from '../../bgp/transport/index.js';
import { Pacer } from '../../components/index.js';
import type { RibPrefix } from '../../rib/index.js';
import type { FibRoute } from '../route.js';
import type { RequestFailure } from './client.js';
import { APPLY_SLICE, Errno, IP6_RT_PRIO_USER } from './constants.js';
import { rejectionText } from './errors.js';
import { type NexthopSet, NexthopSets } from './nexthop-set.js';
import type { RouteBook, RouteOp, Wanted } from './plan.js';
import type { CauseLog } from './report.js';
import { familyOf, type KernelRoute } from './route-message.js';
import type { KernelProblem } from './types.js';

/** A route of ours in the kernel: what we wanted and got (the same object, no copy per route). */
export type Installed = Wanted;

export interface Problem {
  readonly prefix: RibPrefix;
  readonly problem: KernelProblem;
  readonly reason: string;
  /** A failed route, kept so that it is tried again when one of its next hops resolves otherwise. */
  readonly route?: FibRoute;
}

/** Which routes of the table are ours: our protocol, at our metric. */
export interface OwnMark {
  readonly table: number;
  readonly protocol: number;
  readonly metric: number;
}

/**
 * The mirror of our routes in the kernel, by prefix key: what we installed (each holding an
 * interned next-hop set), and why the wanted prefixes that are not installed are not. Every
 * write's outcome is recorded here; only a dump makes it whole again after lost answers.
 */
export class OwnedRoutes implements RouteBook {
  readonly #mark: OwnMark;
  readonly #causes: CauseLog;
  readonly sets = new NexthopSets();
  installed = new Map<number | string, Installed>();
  problems = new Map<number | string, Problem>();
  /** `installed` mirrors the kernel (false at start and after lost answers): dump before writing. */
  loaded = false;

  constructor(mark: OwnMark, causes: CauseLog) {
    this.#mark = mark;
    this.#causes = causes;
  }

  get(key: number | string): Installed | undefined {
    return this.installed.get(key);
  }

  /** The metric the kernel stores for our route: IPv6 keeps metric 0 as IP6_RT_PRIO_USER. */
  priority(prefix: RibPrefix): number {
    return familyOf(prefix) === AF.INET6 && this.#mark.metric === 0 ? IP6_RT_PRIO_USER : this.#mark.metric;
  }

  /** A route of a dump, as installed by us, when it is ours as we install them (a previous run's). */
  adoptable(r: KernelRoute): Installed | undefined {
    if (r.protocol !== this.#mark.protocol || r.priority !== this.priority(r.prefix) || r.nhId !== undefined)
      return undefined;
    if (r.nexthops.length === 0 || r.nexthops.some((n) => n.gateway === undefined)) return undefined;
    return { prefix: r.prefix, set: this.sets.get(familyOf(r.prefix), r.nexthops), priority: r.priority };
  }

  /** Records a prefix not installed, and logs it once per cause. */
  problem(
    key: number | string,
    prefix: RibPrefix,
    problem: KernelProblem,
    reason: string,
    route?: FibRoute,
  ): void {
    const p = { prefix, problem, reason, ...(route && { route }) };
    this.problems.set(key, p);
    this.logProblem(p);
  }

  fail(key: number | string, prefix: RibPrefix, reason: string, route: FibRoute): void {
    this.problem(key, prefix, 'failed', reason, route);
  }

  settle(key: number | string): void {
    this.problems.delete(key);
  }

  conflict(prefix: RibPrefix, priority: number): void {
    this.problem(prefix.key(), prefix, 'conflict', this.#conflictText(prefix, priority));
  }

  logProblem(p: Problem): void {
    const cause = `${p.problem}:${p.reason.replace(/[\d.:a-f]+\/\d+|[\d.]+|[\da-f:]+::[\da-f:]*/g, '')}`;
    this.#causes.warnOnce(
      cause,
      { prefix: p.prefix.toString(), problem: p.problem, reason: p.reason },
      `kernel: route not installed (${p.problem}); further ones with this cause are counted in status() only`,
    );
  }

  /**
   * Records each op's outcome (`failures` by index in `ops`); returns the deletes still owed:
   * a refused replace leaves in the kernel what it had for the prefix, which we no longer want.
   */
  async record(ops: readonly RouteOp[], failures: readonly RequestFailure[]): Promise<RouteOp[]> {
    const failedAt = new Map(failures.map((f) => [f.index, f]));
    const cleanup: RouteOp[] = [];
    const pace = new Pacer(APPLY_SLICE);
    for (let i = 0; i < ops.length; i++) {
      const turn = pace.tick();
      if (turn) await turn;
      const op = ops[i];
      const f = failedAt.get(i);
      if (op.kind === 'delete') {
        const key = op.prefix.key();
        if (!f || f.errno === Errno.ESRCH || f.errno === Errno.ENOENT) {
          if (op.priority === this.priority(op.prefix)) this.installed.delete(key);
        } else
          this.#causes.warnOnce(
            `delete:${f.errno}`,
            { prefix: op.prefix.toString(), error: rejectionText(f.errno, f.detail) },
            'kernel: a delete of our route was refused',
          );
        continue;
      }
      const { prefix } = op.want;
      const key = prefix.key();
      if (!f) {
        this.installed.set(key, op.want);
        this.problems.delete(key);
      } else if (f.errno === Errno.EEXIST && op.kind === 'create') {
        this.installed.delete(key);
        this.problem(key, prefix, 'conflict', this.#conflictText(prefix, op.want.priority));
      } else {
        const route = op.want.hops && { prefix, nextHops: op.want.hops };
        this.problem(key, prefix, 'failed', rejectionText(f.errno, f.detail), route);
        // The kernel kept what it had for the prefix, which is not what we want any more.
        if (this.installed.delete(key)) cleanup.push({ kind: 'delete', prefix, priority: op.want.priority });
      }
    }
    return cleanup;
  }

  /** Drops the next-hop sets no installed route uses any more, a slice per turn. */
  async retainUsedSets(pace: Pacer): Promise<void> {
    const used = new Set<NexthopSet>();
    for (const i of this.installed.values()) {
      used.add(i.set);
      const turn = pace.tick();
      if (turn) await turn;
    }
    this.sets.retain(used);
  }

  #conflictText(prefix: RibPrefix, priority: number): string {
    return `another protocol's route holds ${prefix} metric ${priority} in table ${this.#mark.table}`;
  }
}
