import type { Clock, Logger, TimerHandle } from '../../components/index.js';
import { NlmFlag } from './constants.js';
import type { RouteEvent } from './monitor.js';
import { canonicalNexthops } from './nexthop-set.js';
import type { Installed, OwnedRoutes } from './owned.js';
import type { RouteOp } from './plan.js';
import type { CauseLog } from './report.js';
import type { KernelRoute } from './route-message.js';

/**
 * How often a route of ours may be put back after somebody else removed or replaced it: at
 * most `limit` times in any `windowMs`. Past that we stop, once, and leave the prefix to
 * whoever keeps taking it, so two programs never fight over a route; the next apply or
 * reconcile of that prefix starts it afresh.
 */
export type RepairVerdict = 'repair' | 'give-up' | 'given-up';

export class RepairBudget {
  readonly #limit: number;
  readonly #windowMs: number;
  readonly #book = new Map<number | string, { times: number[]; gaveUp: boolean }>();
  /** Repairs granted and prefixes given up on, since start: for status(). */
  granted = 0;
  gaveUp = 0;

  constructor(limit: number, windowMs: number) {
    this.#limit = limit;
    this.#windowMs = windowMs;
  }

  take(key: number | string, now: number): RepairVerdict {
    let entry = this.#book.get(key);
    if (!entry) {
      entry = { times: [], gaveUp: false };
      this.#book.set(key, entry);
    }
    if (entry.gaveUp) return 'given-up';
    entry.times = entry.times.filter((t) => now - t < this.#windowMs);
    if (entry.times.length >= this.#limit) {
      entry.gaveUp = true;
      this.gaveUp++;
      return 'give-up';
    }
    entry.times.push(now);
    this.granted++;
    return 'repair';
  }

  /** We installed the prefix anew (apply): its history no longer counts. */
  reset(key: number | string): void {
    if (this.#book.size > 0) this.#book.delete(key);
  }

  clear(): void {
    this.#book.clear();
  }
}

/** Monitor events held while a write is in progress, at most; past that, a full verify. */
const MAX_HELD_EVENTS = 100_000;
/** Repairs and verifies are writes owed to the kernel: their timers hold the process like a request. */
const OWED = { keepAlive: true } as const;

export interface RouteGuardInit {
  readonly table: number;
  readonly protocol: number;
  readonly repairLimit: number;
  readonly repairWindowMs: number;
  readonly repairDelayMs: number;
  readonly verifyIntervalMs: number;
}

/** What the guard does through the target: its one write sequence at a time, its writes, its dumps. */
export interface GuardedTarget {
  exclusive(work: () => Promise<void>): Promise<void>;
  execute(ops: readonly RouteOp[]): Promise<void>;
  dumpTable(onRoute: (r: KernelRoute) => void): Promise<void>;
  /** A route somebody else changed (next-hop tracking hears of it). */
  noteForeign(route: KernelRoute): void;
}

interface Lost {
  readonly inst: Installed;
  readonly how: 'deleted' | 'replaced';
}

/**
 * Guards our routes against others: a route of ours that somebody deletes, or replaces
 * (NLM_F_REPLACE), is put back after a short quiet time, so a burst is one write, within the
 * RepairBudget. When notifications were lost it compares our routes with a dump instead.
 * Events that arrive during a write of ours wait for its end: our own ACKs may not be read yet.
 */
export class RouteGuard {
  readonly #init: RouteGuardInit;
  readonly #owned: OwnedRoutes;
  readonly #target: GuardedTarget;
  readonly #clock: Clock;
  readonly #log: Logger;
  readonly #causes: CauseLog;
  readonly #repairs: RepairBudget;
  readonly #lost = new Map<number | string, Lost>();
  #held: RouteEvent[] = [];
  #busy = false;
  #closed = false;
  #repairTimer: TimerHandle;
  #verifyTimer: TimerHandle;
  #lastVerify = -Infinity;

  constructor(
    init: RouteGuardInit,
    owned: OwnedRoutes,
    target: GuardedTarget,
    components: { readonly clock: Clock; readonly log: Logger; readonly causes: CauseLog },
  ) {
    this.#init = init;
    this.#owned = owned;
    this.#target = target;
    this.#clock = components.clock;
    this.#log = components.log;
    this.#causes = components.causes;
    this.#repairs = new RepairBudget(init.repairLimit, init.repairWindowMs);
  }

  /** Repairs granted and prefixes given up on, since start. */
  get repairs(): { readonly granted: number; readonly gaveUp: number } {
    return { granted: this.#repairs.granted, gaveUp: this.#repairs.gaveUp };
  }

  /** A write sequence of ours starts: events wait for its end. */
  hold(): void {
    this.#busy = true;
  }

  /** The write sequence ended: the events that waited are judged now. */
  release(): void {
    this.#busy = false;
    const held = this.#held;
    if (held.length === 0) return;
    this.#held = [];
    for (const e of held) this.#judge(e);
  }

  /** The prefix is installed anew: its history of repairs no longer counts. */
  forget(key: number | string): void {
    this.#repairs.reset(key);
    this.#lost.delete(key);
  }

  /** A reconcile starts from the kernel as it is: nothing is owed. */
  clear(): void {
    this.#repairs.clear();
    this.#lost.clear();
  }

  close(): void {
    this.#closed = true;
    this.#clock.clearTimeout(this.#repairTimer);
    this.#clock.clearTimeout(this.#verifyTimer);
  }

  onEvent(e: RouteEvent): void {
    if (this.#closed) return;
    if (this.#busy) {
      // Our ACKs of the write in progress may not be read yet: judge the event after it.
      if (this.#held.length < MAX_HELD_EVENTS) this.#held.push(e);
      else this.onMonitorLost('too many route changes during a write');
      return;
    }
    this.#judge(e);
  }

  onMonitorLost(why: string): void {
    this.#causes.warnOnce(
      'monitor-lost',
      { why },
      'kernel: route notifications were lost; comparing our routes with the kernel',
    );
    if (this.#verifyTimer !== undefined || this.#closed) return;
    const wait = Math.max(
      this.#init.repairDelayMs,
      this.#lastVerify + this.#init.verifyIntervalMs - this.#clock.now(),
    );
    this.#verifyTimer = this.#clock.setTimeout(
      () => {
        this.#verifyTimer = undefined;
        this.#lastVerify = this.#clock.now();
        this.#target
          .exclusive(() => this.#verify())
          .catch((error: Error) =>
            this.#log.warn({ error: error.message }, 'kernel: verifying our routes failed'),
          );
      },
      wait,
      OWED,
    );
  }

  #judge(e: RouteEvent): void {
    if (e.route.table !== this.#init.table || e.route.protocol !== this.#init.protocol)
      this.#target.noteForeign(e.route);
    // A watched table's route (where next hops resolve) is never one of ours.
    if (e.route.table !== this.#init.table) return;
    const key = e.route.prefix.key();
    const inst = this.#owned.installed.get(key);
    if (!inst || e.route.priority !== this.#owned.priority(inst.prefix)) return;
    if (e.kind === 'del') {
      if (e.route.protocol !== this.#init.protocol) return;
      this.#takeAway(key, inst, 'deleted', e.pid);
      return;
    }
    if (e.route.protocol === this.#init.protocol && canonicalNexthops(e.route.nexthops) === inst.set.canon)
      return;
    // Without NLM_F_REPLACE the new route was added beside ours (ip route append), which stays.
    if (!(e.flags & NlmFlag.REPLACE)) return;
    this.#takeAway(key, inst, 'replaced', e.pid);
  }

  #takeAway(key: number | string, inst: Installed, how: Lost['how'], pid: number): void {
    this.#owned.installed.delete(key);
    const verdict = this.#repairs.take(key, this.#clock.now());
    if (verdict === 'repair') {
      this.#causes.warnOnce(
        `taken:${how}`,
        { prefix: inst.prefix.toString(), by: pid },
        `kernel: a route of ours was ${how} by somebody else; putting it back (later repairs are counted in status())`,
      );
      this.#lost.set(key, { inst, how });
      this.#scheduleRepair();
      return;
    }
    this.#lost.delete(key);
    if (verdict === 'give-up') {
      this.#owned.problem(
        key,
        inst.prefix,
        'displaced',
        `${how} again after ${this.#init.repairLimit} repairs in ${this.#init.repairWindowMs} ms; left to the other party`,
      );
    }
  }

  #scheduleRepair(): void {
    if (this.#repairTimer !== undefined) return;
    this.#repairTimer = this.#clock.setTimeout(
      () => {
        this.#repairTimer = undefined;
        this.#target
          .exclusive(() => this.#repair())
          .catch((error: Error) =>
            this.#log.warn(
              { error: error.message },
              'kernel: putting routes back failed; the next reconcile will',
            ),
          );
      },
      this.#init.repairDelayMs,
      OWED,
    );
  }

  async #repair(): Promise<void> {
    const ops: RouteOp[] = [];
    for (const [key, { inst, how }] of this.#lost) {
      if (this.#owned.installed.has(key)) continue;
      // A deleted route comes back only where nobody else has since put one; a replaced one displaces theirs.
      ops.push({ kind: how === 'deleted' ? 'create' : 'replace', want: inst });
    }
    this.#lost.clear();
    await this.#target.execute(ops);
  }

  /** After lost notifications: every route we hold that the kernel lacks (or holds otherwise) is put back. */
  async #verify(): Promise<void> {
    const seen = new Map<number | string, string>();
    await this.#target.dumpTable((r) => {
      if (r.protocol === this.#init.protocol && r.priority === this.#owned.priority(r.prefix))
        seen.set(r.prefix.key(), canonicalNexthops(r.nexthops));
    });
    for (const [key, inst] of [...this.#owned.installed]) {
      const canon = seen.get(key);
      if (canon === inst.set.canon) continue;
      // Missing: put back only where nobody else has a route since (create). Ours but different: replace.
      this.#takeAway(key, inst, canon === undefined ? 'deleted' : 'replaced', 0);
    }
    this.#clock.clearTimeout(this.#repairTimer);
    this.#repairTimer = undefined;
    await this.#repair();
  }
}
