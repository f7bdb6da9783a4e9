import { AF } from '../../bgp/transport/index.js';
import type { AfiCode } from '../../bgp/wire/index.js';
import {
  type Clock,
  type Logger,
  nextTurn,
  Pacer,
  silentLogger,
  systemScheduler,
} from '../../components/index.js';
import type { RibPrefix } from '../../rib/index.js';
import type { FibChange, FibRoute, FibTarget, SinkDetail } from '../route.js';
import { RtnlClient } from './client.js';
import { APPLY_SLICE, KERNEL_DEFAULTS, RESPONSE_TRUESIZE } from './constants.js';
import { encodeOps } from './encode-ops.js';
import { KernelError } from './errors.js';
import { MONITOR_GROUPS, RouteMonitor } from './monitor.js';
import { canonicalNexthops } from './nexthop-set.js';
import { NextHopWatch, routesOver } from './nexthop-watch.js';
import { type Installed, OwnedRoutes, type Problem } from './owned.js';
import { type Found, planChanges, planInSteps, type RouteOp, type Wanted, WantedRoutes } from './plan.js';
import { RouteGuard } from './repair.js';
import { CauseLog, kernelDetails, kernelStatus, notInstalled } from './report.js';
import { describeResolution, NextHopResolver, nextHopKey } from './resolve.js';
import type { KernelRoute } from './route-message.js';
import { openRtnlSocket, type RtnlSocketFactory } from './rtnl-socket.js';
import type { KernelComponents, KernelStatus, KernelTargetInit } from './types.js';

/**
 * Installs our best paths as Linux routes over rtnetlink, marked by (protocol, table): only
 * routes with both are ever written, replaced or deleted.
 *
 * Next hops are resolved through the kernel's routes first (RTM_GETROUTE fibmatch): one on a
 * connected subnet is installed as is, a recursive one (iBGP) via the gateways of the route that
 * covers it. A monitor on the route groups puts back a route of ours that somebody else deletes
 * or replaces, a bounded number of times (repair.ts).
 *
 * This file holds the sockets and the one write sequence at a time; the mirror of our routes is
 * owned.ts, what to write plan.ts, the guard of our routes repair.ts, status report.ts.
 */
export class KernelTarget implements FibTarget {
  readonly name: string;
  readonly #init: Required<Omit<KernelTargetInit, 'name'>>;
  readonly #log: Logger;
  readonly #openSocket: RtnlSocketFactory;
  readonly #clock: Clock;
  readonly #causes: CauseLog;
  readonly #owned: OwnedRoutes;
  readonly #wanted: WantedRoutes;
  readonly #guard: RouteGuard;
  readonly #watch: NextHopWatch;
  /** Next hops that came to resolve otherwise after an IGP change, and were followed. */
  #moved = 0;
  #client: RtnlClient | undefined;
  #monitor: RouteMonitor | undefined;
  #resolver: NextHopResolver | undefined;
  #closed = false;
  #chain: Promise<unknown> = Promise.resolve();
  #lastError: string | undefined;

  constructor(init: KernelTargetInit, components: KernelComponents = {}) {
    this.name = init.name ?? 'kernel';
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
    this.#log = components.logger ?? silentLogger;
    this.#openSocket = components.openSocket ?? openRtnlSocket;
    // Repair windows and verify intervals are spans of time: monotonic, unmoved by a clock step.
    this.#clock = components.clock ?? systemScheduler;
    this.#causes = new CauseLog(this.#log);
    this.#owned = new OwnedRoutes(this.#init, this.#causes);
    this.#wanted = new WantedRoutes(this.#owned.sets, (prefix) => this.#owned.priority(prefix));
    this.#guard = new RouteGuard(
      this.#init,
      this.#owned,
      {
        exclusive: (work) => this.#exclusive(work),
        execute: (ops) => this.#execute(ops),
        dumpTable: (onRoute) => this.#dumpTable(onRoute),
        noteForeign: (route) => this.#watch.note(route),
      },
      { clock: this.#clock, log: this.#log, causes: this.#causes },
    );
    this.#watch = new NextHopWatch(this.#clock, this.#init.repairDelayMs, (addresses) =>
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
      this.#clock,
    );
    client.onOverrun((e) => {
      this.#owned.loaded = false;
      this.#causes.warnOnce(
        'overrun',
        { error: e.message },
        'kernel: netlink answers were lost; our routes are dumped again',
      );
    });
    this.#client = client;
    this.#resolver = new NextHopResolver((a) => client.lookup(a), this.#init);
    this.#wanted.use(this.#resolver);
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
          { event: (e) => this.#guard.onEvent(e), lost: (why) => this.#guard.onMonitorLost(why) },
          this.#clock,
        );
      } catch (error) {
        // Routes still go in; only the repair of others' changes is missing.
        this.#log.warn({ error: (error as Error).message }, 'kernel: route monitor not started');
      }
    }
  }

  status(): KernelStatus {
    return kernelStatus({
      open: this.#client !== undefined && !this.#closed,
      mark: this.#init,
      routes: this.#owned.installed.size,
      nexthopSets: this.#owned.sets.size,
      problems: this.#owned.problems.values(),
      resolver: this.#resolver,
      repairs: this.#guard.repairs,
      nextHopsMoved: this.#moved,
      monitor: this.#monitor,
      socket: {
        tuned: this.#client?.tuned ?? [],
        batch: this.#client?.window.batch ?? this.#init.batch,
        maxInFlight: this.#client?.window.maxInFlight ?? this.#init.maxInFlight,
      },
      lastError: this.#lastError,
    });
  }

  /** The first `limit` prefixes not installed, each with its cause and reason. */
  notInstalled(limit: number): { prefix: string; reason: string }[] {
    return notInstalled(this.status(), limit);
  }

  /** The counters an operator asks about first, in the order `show sinks` prints them. */
  details(): SinkDetail[] {
    return kernelDetails(this.status());
  }

  /** The problem of one prefix, or undefined when it is installed or not wanted. */
  problemOf(prefix: RibPrefix): Problem | undefined {
    return this.#owned.problems.get(prefix.key());
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
          for (const h of c.route.nextHops) if (!resolver.get(nextHopKey(h))) addresses.push(nextHopKey(h));
      if ((await resolver.resolve(addresses)) > 0) this.#syncWatch();
      await this.#write(changes);
    });
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
      this.#wanted.forget();
      this.#guard.clear();
      this.#causes.clear();
      const addresses = new Set<string>();
      for (const r of all) for (const h of r.nextHops) addresses.add(nextHopKey(h));
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
        const w = this.#wanted.of(r);
        if ('reason' in w)
          problems.set(key, { prefix: r.prefix, problem: 'failed', reason: w.reason, route: r });
        else wanted.set(key, w);
      }
      this.#owned.problems = problems;
      for (const p of problems.values()) this.#owned.logProblem(p);
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
      this.#owned.installed = new Map();
      for (const w of plan.keep) {
        const turn = pace.tick();
        if (turn) await turn;
        this.#owned.installed.set(w.prefix.key(), w);
      }
      for (const w of plan.conflicts) this.#owned.conflict(w.prefix, w.priority);
      for (let from = 0; from < plan.ops.length; from += APPLY_SLICE)
        await this.#execute(plan.ops.slice(from, from + APPLY_SLICE));
      this.#owned.loaded = true;
      await this.#owned.retainUsedSets(pace);
      this.#wanted.forget();
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
    this.#guard.close();
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
      this.#guard.hold();
      try {
        return await fn();
      } catch (error) {
        this.#lastError = (error as Error).message;
        throw error;
      } finally {
        this.#guard.release();
      }
    });
    this.#chain = run.catch(() => {});
    return run;
  }

  /**
   * Plans and writes the changes a slice at a time: planning, encoding and the kernel's own
   * work on a write all run in our thread, and a whole batch at once would hold the event loop
   * (and keepalives) for long.
   */
  async #write(changes: readonly FibChange[]): Promise<void> {
    for (let from = 0; from < changes.length; from += APPLY_SLICE) {
      const to = Math.min(changes.length, from + APPLY_SLICE);
      await this.#execute(
        planChanges(changes, from, to, this.#owned, this.#wanted, (key) => this.#guard.forget(key)),
      );
    }
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
    this.#wanted.forget();
    this.#syncWatch();
    // Only failed routes keep their route in problems: conflicts and displaced ones wait for no next hop.
    const changes = routesOver(moved, this.#owned.installed.values(), this.#owned.problems.values());
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

  async #ready(): Promise<void> {
    this.start();
    if (this.#owned.loaded) return;
    // What is ours in the kernel (a previous run's routes, kept): so creates and replaces are right.
    const installed = new Map<number | string, Installed>();
    await this.#dumpTable((r) => {
      const inst = this.#owned.adoptable(r);
      if (inst) installed.set(r.prefix.key(), inst);
    });
    this.#owned.installed = installed;
    this.#owned.loaded = true;
  }

  async #dumpTable(onRoute: (r: KernelRoute) => void): Promise<void> {
    const client = this.#client!;
    const filter = { table: this.#init.table, protocol: 0 };
    for (const family of [AF.INET, AF.INET6])
      await client.dump(family, filter, (r) => {
        if (r.table === this.#init.table) onRoute(r);
      });
  }

  /** Sends the ops and records each outcome in the mirror (owned.ts). */
  async #execute(ops: readonly RouteOp[]): Promise<void> {
    if (ops.length === 0) return;
    const client = this.#client!;
    let failures: Awaited<ReturnType<RtnlClient['send']>>;
    try {
      failures = await client.send(ops.length, encodeOps(ops, this.#init));
    } catch (error) {
      this.#owned.loaded = false;
      throw error;
    }
    const cleanup = await this.#owned.record(ops, failures);
    if (cleanup.length > 0) await this.#execute(cleanup);
  }
}

function checkRange(name: string, v: number, min: number, max: number): void {
  if (!Number.isInteger(v) || v < min || v > max)
    throw new KernelError('unencodable', `${name} ${v} not in ${min}..${max}`);
}
