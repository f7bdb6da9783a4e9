// Over 400 lines on purpose: apply, reconcile, close, the monitor's repairs, the verify dump and
// following next hops that moved all read and write one mirror of what we installed, one request
// at a time; split apart, each piece would need that mirror and the exclusive lock handed to it.
// What needs neither lives beside it (plan, nexthop-watch, resolve).
import type { AfiCode } from '../../bgp/wire/index.js';
import { type Logger, nextTurn, Pacer } from '../../components/index.js';
import type { RibPrefix } from '../../rib/index.js';
import type { FibChange, FibNextHop, FibRoute, FibTarget, SinkDetail } from '../route.js';
import { RtnlClient, systemTimers, type Timers } from './client.js';
import {
  AddressFamily,
  Errno,
  IP6_RT_PRIO_USER,
  KERNEL_DEFAULTS,
  NlmFlag,
  RESPONSE_TRUESIZE,
} from './constants.js';
import { encodeOps } from './encode-ops.js';
import { KernelError, rejectionText } from './errors.js';
import { MONITOR_GROUPS, type RouteEvent, RouteMonitor } from './monitor.js';
import { canonicalNexthops, type NexthopSet, NexthopSets } from './nexthop-set.js';
import { NextHopWatch, routesOver } from './nexthop-watch.js';
import { type Found, planInSteps, type RouteOp, type Wanted } from './plan.js';
import { RepairBudget } from './repair.js';
import { describeResolution, NextHopResolver, type Resolution } from './resolve.js';
import { familyOf, type KernelRoute } from './route-message.js';
import { openRtnlSocket, type RtnlSocketFactory } from './rtnl-socket.js';

export interface KernelTargetInit {
  /** Routing table (RT_TABLE_MAIN 254 by default; a VRF's table too). */
  readonly table: number;
  /** RTA_PRIORITY of our routes. */
  readonly metric: number;
  /** rtm_protocol of our routes: with the table, the mark that says a route is ours. */
  readonly protocol: number;
  /** On close: delete every route of ours (flush) or leave them for the next start (keep). */
  readonly onStop: 'flush' | 'keep';
  readonly batch?: number;
  readonly maxInFlight?: number;
  readonly recvBuffer?: number;
  readonly sendBuffer?: number;
  readonly monitorRecvBuffer?: number;
  readonly requestTimeoutMs?: number;
  /** Watch for routes of ours deleted or replaced by others and put them back; default true. */
  readonly monitor?: boolean;
  readonly repairLimit?: number;
  readonly repairWindowMs?: number;
  readonly repairDelayMs?: number;
  readonly verifyIntervalMs?: number;
  readonly dropCheckMs?: number;
}

export interface KernelComponents {
  readonly logger?: Logger;
  /** Opens a NETLINK_ROUTE socket; tests pass a fake kernel. */
  readonly openSocket?: RtnlSocketFactory;
  readonly timers?: Timers;
  readonly now?: () => number;
}

/** Why a wanted prefix is not in the kernel as ours. */
export type KernelProblem =
  /** The kernel refused it, or no next hop resolves. */
  | 'failed'
  /** A route of another protocol holds the same (prefix, metric) in our table. */
  | 'conflict'
  /** Somebody kept removing or replacing it; we stopped putting it back. */
  | 'displaced';

export interface KernelStatus {
  readonly open: boolean;
  readonly table: number;
  readonly protocol: number;
  readonly metric: number;
  /** Routes of ours in the kernel as far as we know. */
  readonly routes: number;
  readonly nexthopSets: number;
  /** Wanted prefixes not installed, by cause, and the first few with their reason. */
  readonly problems: { readonly failed: number; readonly conflict: number; readonly displaced: number };
  readonly problemSample: readonly {
    readonly prefix: string;
    readonly problem: KernelProblem;
    readonly reason: string;
  }[];
  readonly nextHops: readonly {
    readonly address: string;
    readonly resolution: Resolution['kind'];
    readonly detail: string;
  }[];
  readonly repairs: number;
  readonly gaveUp: number;
  /** Next hops that resolved otherwise after somebody's route change, and were followed. */
  readonly nextHopsMoved: number;
  readonly monitor: {
    readonly on: boolean;
    readonly events: number;
    /** Notifications of other tables, skipped. */
    readonly otherTables: number;
    readonly overruns: number;
    readonly dropped: number;
    readonly tuned: readonly string[];
  };
  readonly socket: {
    readonly tuned: readonly string[];
    readonly batch: number;
    readonly maxInFlight: number;
  };
  readonly lastError?: string;
}

/** A route of ours in the kernel: what we wanted and got (the same object, no copy per route). */
type Installed = Wanted;

interface Problem {
  readonly prefix: RibPrefix;
  readonly problem: KernelProblem;
  readonly reason: string;
  /** A failed route, kept so that it is tried again when one of its next hops resolves otherwise. */
  readonly route?: FibRoute;
}

interface Lost {
  readonly inst: Installed;
  readonly how: 'deleted' | 'replaced';
}

const nothing = () => {};
const silent: Logger = { debug: nothing, info: nothing, warn: nothing, error: nothing };
/** Monitor events held while a write is in progress, at most; past that, a full verify. */
const MAX_HELD_EVENTS = 100_000;
const PROBLEM_SAMPLE = 20;
/** Changes planned and written per turn of `apply` (two writes of KERNEL_DEFAULTS.batch). */
const APPLY_SLICE = 8192;

/**
 * Installs our best paths as Linux routes over rtnetlink, marked by (protocol, table): only
 * routes with both are ever written, replaced or deleted.
 *
 * Next hops are resolved through the kernel's routes first (RTM_GETROUTE fibmatch): one on a
 * connected subnet is installed as is, a recursive one (iBGP) via the gateways of the route that
 * covers it. A monitor on the route groups puts back a route of ours that somebody else deletes
 * or replaces, a bounded number of times.
 */
export class KernelTarget implements FibTarget {
  readonly name = 'kernel';
  readonly #init: Required<KernelTargetInit>;
  readonly #log: Logger;
  readonly #openSocket: RtnlSocketFactory;
  readonly #timers: Timers;
  readonly #now: () => number;
  readonly #sets = new NexthopSets();
  readonly #repairs: RepairBudget;
  readonly #watch: NextHopWatch;
  /** Next hops that came to resolve otherwise after an IGP change, and were followed. */
  #moved = 0;
  #client: RtnlClient | undefined;
  #monitor: RouteMonitor | undefined;
  #resolver: NextHopResolver | undefined;
  #installed = new Map<number | string, Installed>();
  #problems = new Map<number | string, Problem>();
  #lost = new Map<number | string, Lost>();
  /** `#installed` mirrors the kernel (false at start and after lost answers): dump before writing. */
  #loaded = false;
  #closed = false;
  #chain: Promise<unknown> = Promise.resolve();
  #busy = false;
  #held: RouteEvent[] = [];
  /**
   * The last next-hop list planned and its interned set (or why it does not resolve): routes
   * come in runs that share one list, so a run resolves once. Cleared with the resolver.
   */
  #lastHops:
    | {
        readonly hops: readonly FibNextHop[];
        readonly family: number;
        readonly set: NexthopSet | { readonly reason: string };
      }
    | undefined;
  #repairTimer: unknown;
  #verifyTimer: unknown;
  #lastVerify = -Infinity;
  #lastError: string | undefined;
  readonly #logged = new Set<string>();

  constructor(init: KernelTargetInit, components: KernelComponents = {}) {
    this.#init = {
      batch: KERNEL_DEFAULTS.batch,
      maxInFlight: KERNEL_DEFAULTS.maxInFlight,
      recvBuffer: KERNEL_DEFAULTS.recvBuffer,
      sendBuffer: KERNEL_DEFAULTS.sendBuffer,
      monitorRecvBuffer: KERNEL_DEFAULTS.monitorRecvBuffer,
      requestTimeoutMs: KERNEL_DEFAULTS.requestTimeoutMs,
      monitor: true,
      repairLimit: KERNEL_DEFAULTS.repairLimit,
      repairWindowMs: KERNEL_DEFAULTS.repairWindowMs,
      repairDelayMs: KERNEL_DEFAULTS.repairDelayMs,
      verifyIntervalMs: KERNEL_DEFAULTS.verifyIntervalMs,
      dropCheckMs: KERNEL_DEFAULTS.dropCheckMs,
      ...init,
    };
    checkRange('table', init.table, 1, 0xffffffff);
    checkRange('metric', init.metric, 0, 0xffffffff);
    checkRange('protocol', init.protocol, 1, 255);
    this.#log = components.logger ?? silent;
    this.#openSocket = components.openSocket ?? openRtnlSocket;
    this.#timers = components.timers ?? systemTimers;
    this.#now = components.now ?? Date.now;
    this.#repairs = new RepairBudget(this.#init.repairLimit, this.#init.repairWindowMs);
    this.#watch = new NextHopWatch(this.#timers, this.#init.repairDelayMs, (addresses) =>
      this.#exclusive(() => this.#follow(addresses)).catch((error: Error) =>
        this.#log.warn(
          { error: error.message },
          'kernel: following a next hop that moved failed; the next reconcile will',
        ),
      ),
    );
  }

  /**
   * Opens the netlink sockets in the calling thread's network namespace and starts the monitor.
   * Throws KernelError('socket') when rtnetlink is out of reach. apply/reconcile call it too.
   */
  start(): void {
    if (this.#closed) throw new KernelError('closed', 'the kernel target is closed');
    if (this.#client) return;
    const client = new RtnlClient(
      this.#openSocket({ recvBuffer: this.#init.recvBuffer, sendBuffer: this.#init.sendBuffer }),
      {
        batch: this.#init.batch,
        maxInFlight: this.#init.maxInFlight,
        responseTruesize: RESPONSE_TRUESIZE,
        requestTimeoutMs: this.#init.requestTimeoutMs,
      },
      this.#timers,
    );
    client.onOverrun((e) => {
      this.#loaded = false;
      this.#logOnce(
        'overrun',
        { error: e.message },
        'kernel: netlink answers were lost; our routes are dumped again',
      );
    });
    this.#client = client;
    this.#resolver = new NextHopResolver((a) => client.lookup(a), this.#init);
    this.#lastHops = undefined;
    if (this.#init.monitor) {
      try {
        this.#monitor = new RouteMonitor(
          this.#openSocket({
            recvBuffer: this.#init.monitorRecvBuffer,
            sendBuffer: 1 << 16,
            groups: MONITOR_GROUPS,
            dropFromPort: client.port,
          }),
          {
            table: this.#init.table,
            ownPort: client.port,
            dropCheckMs: this.#init.dropCheckMs,
            watches: (table) => this.#watch.watches(table),
          },
          { event: (e) => this.#onEvent(e), lost: (why) => this.#onMonitorLost(why) },
          this.#timers,
        );
      } catch (error) {
        // Routes still go in; only the repair of others' changes is missing.
        this.#log.warn({ error: (error as Error).message }, 'kernel: route monitor not started');
      }
    }
  }

  status(): KernelStatus {
    const counts = { failed: 0, conflict: 0, displaced: 0 };
    const sample: { prefix: string; problem: KernelProblem; reason: string }[] = [];
    for (const p of this.#problems.values()) {
      counts[p.problem]++;
      if (sample.length < PROBLEM_SAMPLE)
        sample.push({ prefix: p.prefix.toString(), problem: p.problem, reason: p.reason });
    }
    return {
      open: this.#client !== undefined && !this.#closed,
      table: this.#init.table,
      protocol: this.#init.protocol,
      metric: this.#init.metric,
      routes: this.#installed.size,
      nexthopSets: this.#sets.size,
      problems: counts,
      problemSample: sample,
      nextHops: (this.#resolver?.entries() ?? []).map(({ address, resolution: r }) => ({
        address,
        resolution: r.kind,
        detail: r.kind === 'unresolved' ? r.reason : `${r.through}: ${canonicalNexthops(r.nexthops)}`,
      })),
      repairs: this.#repairs.granted,
      gaveUp: this.#repairs.gaveUp,
      nextHopsMoved: this.#moved,
      monitor: {
        on: this.#monitor !== undefined,
        events: this.#monitor?.events ?? 0,
        otherTables: this.#monitor?.otherTables ?? 0,
        overruns: this.#monitor?.overruns ?? 0,
        dropped: this.#monitor?.dropped ?? 0,
        tuned: this.#monitor?.tuned ?? [],
      },
      socket: {
        tuned: this.#client?.tuned ?? [],
        batch: this.#client?.window.batch ?? this.#init.batch,
        maxInFlight: this.#client?.window.maxInFlight ?? this.#init.maxInFlight,
      },
      ...(this.#lastError !== undefined && { lastError: this.#lastError }),
    };
  }

  /** The problem of one prefix, or undefined when it is installed or not wanted. */
  notInstalled(limit: number): { prefix: string; reason: string }[] {
    return this.status()
      .problemSample.slice(0, limit)
      .map((p) => ({ prefix: p.prefix, reason: `${p.problem}: ${p.reason}` }));
  }

  /** The counters an operator asks about first, in the order `show sinks` prints them. */
  details(): SinkDetail[] {
    const s = this.status();
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

  problemOf(prefix: RibPrefix): Problem | undefined {
    return this.#problems.get(prefix.key());
  }

  /**
   * Writes the changes: an add replaces our route for the prefix (or creates it, never over
   * another protocol's), a withdraw deletes ours. A route the kernel refuses is recorded in
   * status() and logged once per cause; only a lost socket or lost answers reject.
   */
  apply(changes: readonly FibChange[]): Promise<void> {
    return this.#exclusive(async () => {
      await this.#ready();
      const resolver = this.#resolver!;
      const addresses: string[] = [];
      for (const c of changes)
        if (c.kind === 'add')
          for (const h of c.route.nextHops) if (!resolver.get(h.address)) addresses.push(h.address);
      if ((await resolver.resolve(addresses)) > 0) this.#syncWatch();
      await this.#write(changes);
    });
  }

  /**
   * Plans and writes the changes a slice at a time: planning, encoding and the kernel's own
   * work on a write all run in our thread, and a whole batch at once would hold the event loop
   * (and keepalives) for long.
   */
  async #write(changes: readonly FibChange[]): Promise<void> {
    for (let from = 0; from < changes.length; from += APPLY_SLICE)
      await this.#execute(this.#plan(changes, from, Math.min(changes.length, from + APPLY_SLICE)));
  }

  #syncWatch(): void {
    const resolver = this.#resolver!;
    this.#watch.watch(resolver.addresses(), resolver.tables());
  }

  /**
   * Some next hops may resolve otherwise since an IGP route changed: looks them up again, and
   * every route of ours over one that moved (and every one that failed for want of it) is
   * planned again: a replace where its kernel next hops changed, nothing where they did not.
   */
  async #follow(addresses: readonly string[]): Promise<void> {
    await this.#ready();
    const moved = new Set(await this.#resolver!.refresh(addresses));
    if (moved.size === 0) return;
    this.#moved += moved.size;
    this.#lastHops = undefined;
    this.#syncWatch();
    // Only failed routes keep their route in #problems: conflicts and displaced ones wait for no next hop.
    const changes = routesOver(moved, this.#installed.values(), this.#problems.values());
    this.#log.info(
      {
        nextHops: [...moved].map((a) => ({ address: a, now: this.#describe(a) })),
        routes: changes.length,
      },
      'kernel: next hops resolve otherwise after a route change; our routes over them follow',
    );
    await this.#write(changes);
  }

  #describe(address: string): string {
    const r = this.#resolver!.get(address);
    return r ? describeResolution(r) : 'not looked up';
  }

  /** The writes that make changes [from, to) hold; records what needs none (problems, no-ops). */
  #plan(changes: readonly FibChange[], from: number, to: number): RouteOp[] {
    const ops: RouteOp[] = [];
    for (let i = from; i < to; i++) {
      const c = changes[i];
      const prefix = c.kind === 'add' ? c.route.prefix : c.prefix;
      const key = prefix.key();
      this.#repairs.reset(key);
      this.#lost.delete(key);
      const have = this.#installed.get(key);
      if (c.kind === 'withdraw') {
        this.#problems.delete(key);
        if (have) ops.push({ kind: 'delete', prefix, priority: this.#priority(prefix) });
        continue;
      }
      const want = this.#wanted(c.route);
      if ('reason' in want) {
        this.#problem(key, prefix, 'failed', want.reason, c.route);
        if (have) ops.push({ kind: 'delete', prefix, priority: this.#priority(prefix) });
        continue;
      }
      this.#problems.delete(key);
      // Interned sets: the same object means the same next hops (a MED change, say).
      if (have?.set === want.set) continue;
      ops.push(have ? { kind: 'replace', want } : { kind: 'create', want });
    }
    return ops;
  }

  /**
   * Makes our routes in the table exactly `all`: next hops resolved afresh, our routes dumped,
   * missing ones created, different ones replaced, stale ones deleted; nothing else touched.
   */
  reconcile(all: readonly FibRoute[]): Promise<void> {
    return this.#exclusive(async () => {
      this.start();
      const resolver = this.#resolver!;
      resolver.clear();
      this.#lastHops = undefined;
      this.#repairs.clear();
      this.#logged.clear();
      this.#lost.clear();
      const addresses = new Set<string>();
      for (const r of all) for (const h of r.nextHops) addresses.add(h.address);
      await resolver.resolve(addresses);
      this.#syncWatch();
      // A full table is planned over many turns, as it is written (see #write).
      const pace = new Pacer(APPLY_SLICE);
      const wanted = new Map<number | string, Wanted>();
      const problems = new Map<number | string, Problem>();
      for (const r of all) {
        const turn = pace.tick();
        if (turn) await turn;
        const key = r.prefix.key();
        const w = this.#wanted(r);
        if ('reason' in w)
          problems.set(key, { prefix: r.prefix, problem: 'failed', reason: w.reason, route: r });
        else wanted.set(key, w);
      }
      this.#problems = problems;
      for (const p of problems.values()) this.#logProblem(p);
      const found: Found[] = [];
      await this.#dumpTable((r) =>
        found.push({
          prefix: r.prefix,
          protocol: r.protocol,
          priority: r.priority,
          canon: canonicalNexthops(r.nexthops),
          ...(r.nhId !== undefined && { nhId: r.nhId }),
        }),
      );
      const steps = planInSteps(wanted, found, this.#init.protocol, APPLY_SLICE);
      let step = steps.next();
      for (; !step.done; step = steps.next()) await nextTurn();
      const plan = step.value;
      this.#installed = new Map();
      for (const w of plan.keep) {
        const turn = pace.tick();
        if (turn) await turn;
        this.#installed.set(w.prefix.key(), w);
      }
      for (const w of plan.conflicts)
        this.#problem(w.prefix.key(), w.prefix, 'conflict', this.#conflictText(w.prefix, w.priority));
      for (let from = 0; from < plan.ops.length; from += APPLY_SLICE)
        await this.#execute(plan.ops.slice(from, from + APPLY_SLICE));
      this.#loaded = true;
      const used = new Set<NexthopSet>();
      for (const i of this.#installed.values()) {
        used.add(i.set);
        const turn = pace.tick();
        if (turn) await turn;
      }
      this.#sets.retain(used);
      this.#lastHops = undefined;
    });
  }

  /**
   * The families of the routes of ours the table holds now, before we wrote anything: what a
   * previous run left (on_stop keep, or a crash) and the kernel still forwards by while we
   * start. Graceful restart's F bit is set for these only.
   */
  held(): Promise<AfiCode[]> {
    return this.#exclusive(async () => {
      this.start();
      const families = new Set<AfiCode>();
      await this.#dumpTable((r) => {
        if (r.protocol === this.#init.protocol) families.add(r.prefix.afi);
      });
      return [...families].sort();
    });
  }

  /** Stops the monitor; with onStop 'flush' deletes every route of ours first (found by a dump). */
  async close(): Promise<void> {
    if (this.#closed) return;
    this.#closed = true;
    this.#timers.clearTimeout(this.#repairTimer);
    this.#timers.clearTimeout(this.#verifyTimer);
    this.#watch.close();
    this.#monitor?.close();
    this.#monitor = undefined;
    const client = this.#client;
    if (!client) return;
    await this.#chain.catch(() => {});
    if (this.#init.onStop === 'flush') {
      try {
        const ops: RouteOp[] = [];
        await this.#dumpTable((r) => {
          if (r.protocol === this.#init.protocol)
            ops.push({ kind: 'delete', prefix: r.prefix, priority: r.priority });
        });
        await this.#execute(ops);
        this.#log.info({ routes: ops.length }, 'kernel: flushed our routes');
      } catch (error) {
        this.#log.warn({ error: (error as Error).message }, 'kernel: flushing our routes failed');
      }
    }
    client.close();
  }

  /** One write sequence at a time: apply, reconcile, repairs and close never interleave. */
  #exclusive<T>(fn: () => Promise<T>): Promise<T> {
    const run = this.#chain.then(async () => {
      if (this.#closed) throw new KernelError('closed', 'the kernel target is closed');
      this.#busy = true;
      try {
        return await fn();
      } catch (error) {
        this.#lastError = (error as Error).message;
        throw error;
      } finally {
        this.#busy = false;
        this.#drainEvents();
      }
    });
    this.#chain = run.catch(() => {});
    return run;
  }

  async #ready(): Promise<void> {
    this.start();
    if (this.#loaded) return;
    // What is ours in the kernel (a previous run's routes, kept): so creates and replaces are right.
    const installed = new Map<number | string, Installed>();
    await this.#dumpTable((r) => {
      if (
        r.protocol !== this.#init.protocol ||
        r.priority !== this.#priority(r.prefix) ||
        r.nhId !== undefined
      )
        return;
      if (r.nexthops.length === 0 || r.nexthops.some((n) => n.gateway === undefined)) return;
      installed.set(r.prefix.key(), {
        prefix: r.prefix,
        set: this.#sets.get(familyOf(r.prefix), r.nexthops),
        priority: r.priority,
      });
    });
    this.#installed = installed;
    this.#loaded = true;
  }

  async #dumpTable(onRoute: (r: KernelRoute) => void): Promise<void> {
    const client = this.#client!;
    const filter = { table: this.#init.table, protocol: 0 };
    for (const family of [AddressFamily.INET, AddressFamily.INET6])
      await client.dump(family, filter, (r) => {
        if (r.table === this.#init.table) onRoute(r);
      });
  }

  #priority(prefix: RibPrefix): number {
    return familyOf(prefix) === AddressFamily.INET6 && this.#init.metric === 0
      ? IP6_RT_PRIO_USER
      : this.#init.metric;
  }

  #wanted(route: FibRoute): Wanted | { readonly reason: string } {
    const family = familyOf(route.prefix);
    const last = this.#lastHops;
    let set: NexthopSet | { readonly reason: string };
    if (last !== undefined && last.hops === route.nextHops && last.family === family) set = last.set;
    else {
      const r = this.#resolver!.nexthopsFor(family, route.nextHops);
      set = 'reason' in r ? r : this.#sets.get(family, r.nexthops);
      this.#lastHops = { hops: route.nextHops, family, set };
    }
    if ('reason' in set) return set;
    return { prefix: route.prefix, set, priority: this.#priority(route.prefix), hops: route.nextHops };
  }

  /** Sends the ops and records each outcome in #installed / #problems. */
  async #execute(ops: readonly RouteOp[]): Promise<void> {
    if (ops.length === 0) return;
    const client = this.#client!;
    let failures: Awaited<ReturnType<RtnlClient['send']>>;
    try {
      failures = await client.send(ops.length, encodeOps(ops, this.#init));
    } catch (error) {
      this.#loaded = false;
      throw error;
    }
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
          if (op.priority === this.#priority(op.prefix)) this.#installed.delete(key);
        } else
          this.#logOnce(
            `delete:${f.errno}`,
            { prefix: op.prefix.toString(), error: rejectionText(f.errno, f.detail) },
            'kernel: a delete of our route was refused',
          );
        continue;
      }
      const { prefix } = op.want;
      const key = prefix.key();
      if (!f) {
        this.#installed.set(key, op.want);
        this.#problems.delete(key);
      } else if (f.errno === Errno.EEXIST && op.kind === 'create') {
        this.#installed.delete(key);
        this.#problem(key, prefix, 'conflict', this.#conflictText(prefix, op.want.priority));
      } else {
        const route = op.want.hops && { prefix, nextHops: op.want.hops };
        this.#problem(key, prefix, 'failed', rejectionText(f.errno, f.detail), route);
        // The kernel kept what it had for the prefix, which is not what we want any more.
        if (this.#installed.delete(key)) cleanup.push({ kind: 'delete', prefix, priority: op.want.priority });
      }
    }
    if (cleanup.length > 0) await this.#execute(cleanup);
  }

  #conflictText(prefix: RibPrefix, priority: number): string {
    return `another protocol's route holds ${prefix} metric ${priority} in table ${this.#init.table}`;
  }

  #problem(
    key: number | string,
    prefix: RibPrefix,
    problem: KernelProblem,
    reason: string,
    route?: FibRoute,
  ): void {
    const p = { prefix, problem, reason, ...(route && { route }) };
    this.#problems.set(key, p);
    this.#logProblem(p);
  }

  #logProblem(p: Problem): void {
    const cause = `${p.problem}:${p.reason.replace(/[\d.:a-f]+\/\d+|[\d.]+|[\da-f:]+::[\da-f:]*/g, '')}`;
    this.#logOnce(
      cause,
      { prefix: p.prefix.toString(), problem: p.problem, reason: p.reason },
      `kernel: route not installed (${p.problem}); further ones with this cause are counted in status() only`,
    );
  }

  #logOnce(cause: string, obj: object, msg: string): void {
    if (this.#logged.has(cause)) return;
    this.#logged.add(cause);
    this.#log.warn(obj, msg);
  }

  // --- the monitor: routes of ours changed by somebody else ---

  #onEvent(e: RouteEvent): void {
    if (this.#closed) return;
    if (this.#busy) {
      // Our ACKs of the write in progress may not be read yet: judge the event after it.
      if (this.#held.length < MAX_HELD_EVENTS) this.#held.push(e);
      else this.#onMonitorLost('too many route changes during a write');
      return;
    }
    this.#judge(e);
  }

  #drainEvents(): void {
    const held = this.#held;
    if (held.length === 0) return;
    this.#held = [];
    for (const e of held) this.#judge(e);
  }

  #judge(e: RouteEvent): void {
    if (e.route.table !== this.#init.table || e.route.protocol !== this.#init.protocol)
      this.#watch.note(e.route);
    // A watched table's route (where next hops resolve) is never one of ours.
    if (e.route.table !== this.#init.table) return;
    const key = e.route.prefix.key();
    const inst = this.#installed.get(key);
    if (!inst || e.route.priority !== this.#priority(inst.prefix)) return;
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
    this.#installed.delete(key);
    const verdict = this.#repairs.take(key, this.#now());
    if (verdict === 'repair') {
      this.#logOnce(
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
      this.#problem(
        key,
        inst.prefix,
        'displaced',
        `${how} again after ${this.#init.repairLimit} repairs in ${this.#init.repairWindowMs} ms; left to the other party`,
      );
    }
  }

  #scheduleRepair(): void {
    if (this.#repairTimer !== undefined) return;
    this.#repairTimer = this.#timers.setTimeout(() => {
      this.#repairTimer = undefined;
      this.#exclusive(() => this.#repair()).catch((error: Error) =>
        this.#log.warn(
          { error: error.message },
          'kernel: putting routes back failed; the next reconcile will',
        ),
      );
    }, this.#init.repairDelayMs);
  }

  async #repair(): Promise<void> {
    const ops: RouteOp[] = [];
    for (const [key, { inst, how }] of this.#lost) {
      if (this.#installed.has(key)) continue;
      const want = inst;
      // A deleted route comes back only where nobody else has since put one; a replaced one displaces theirs.
      ops.push({ kind: how === 'deleted' ? 'create' : 'replace', want });
    }
    this.#lost.clear();
    await this.#execute(ops);
  }

  #onMonitorLost(why: string): void {
    this.#logOnce(
      'monitor-lost',
      { why },
      'kernel: route notifications were lost; comparing our routes with the kernel',
    );
    if (this.#verifyTimer !== undefined || this.#closed) return;
    const wait = Math.max(
      this.#init.repairDelayMs,
      this.#lastVerify + this.#init.verifyIntervalMs - this.#now(),
    );
    this.#verifyTimer = this.#timers.setTimeout(() => {
      this.#verifyTimer = undefined;
      this.#lastVerify = this.#now();
      this.#exclusive(() => this.#verify()).catch((error: Error) =>
        this.#log.warn({ error: error.message }, 'kernel: verifying our routes failed'),
      );
    }, wait);
  }

  /** After lost notifications: every route we hold that the kernel lacks (or holds otherwise) is put back. */
  async #verify(): Promise<void> {
    const seen = new Map<number | string, string>();
    await this.#dumpTable((r) => {
      if (r.protocol === this.#init.protocol && r.priority === this.#priority(r.prefix))
        seen.set(r.prefix.key(), canonicalNexthops(r.nexthops));
    });
    for (const [key, inst] of [...this.#installed]) {
      const canon = seen.get(key);
      if (canon === inst.set.canon) continue;
      // Missing: put back only where nobody else has a route since (create). Ours but different: replace.
      this.#takeAway(key, inst, canon === undefined ? 'deleted' : 'replaced', 0);
    }
    this.#timers.clearTimeout(this.#repairTimer);
    this.#repairTimer = undefined;
    await this.#repair();
  }
}

function checkRange(name: string, v: number, min: number, max: number): void {
  if (!Number.isInteger(v) || v < min || v > max)
    throw new KernelError('unencodable', `${name} ${v} not in ${min}..${max}`);
}
