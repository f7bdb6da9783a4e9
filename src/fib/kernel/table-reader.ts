import { AF } from '../../bgp/transport/index.js';
import {
  type Clock,
  type Logger,
  silentLogger,
  systemScheduler,
  type TimerHandle,
} from '../../components/index.js';
import { RtnlClient } from './client.js';
import { RESPONSE_TRUESIZE, RtmFlag, TABLE_READER_DEFAULTS } from './constants.js';
import { KernelError } from './errors.js';
import { MONITOR_GROUPS, type RouteEvent, RouteMonitor } from './monitor.js';
import { CauseLog } from './report.js';
import { openRtnlSocket, type RtnlSocketFactory } from './rtnl-socket.js';
import {
  applyTableEvent,
  KeyShare,
  ProtocolSet,
  type TableRoute,
  TableRoutes,
  tableEventMatters,
} from './table-routes.js';
import type {
  TableReaderComponents,
  TableReaderHandlers,
  TableReaderInit,
  TableReaderStatus,
  TableSyncReason,
} from './table-types.js';

/** Notifications held while a dump runs, at most: past that the dump is followed by another. */
const MAX_BUFFERED = 1 << 20;

type Tuning = Required<Omit<TableReaderInit, 'table' | 'protocols'>>;

/**
 * Reads the routes of some protocols (ovn-controller's, 84) from one kernel routing table and
 * follows it: one `sync` with the whole table, then `change` calls with what moved, per prefix
 * with its metrics. What zebra's `ip import-table N` does for FRR.
 *
 * - Two sockets in the calling thread's network namespace, as KernelTarget's: one for the
 *   dumps, one for a RouteMonitor of the table. The monitor starts before a dump, and the
 *   notifications that come during it are applied on top of it, so no change falls between.
 * - A burst goes out as one call: after `settleMs` of quiet, or `maxHoldMs` at most. A route
 *   that comes and goes inside it, or a metric that moves by a delete and an add (as
 *   ovn-controller moves it), is reported as what it ends as: nothing, or one replace.
 * - Lost notifications (the monitor's sk_drops went up, or a datagram did not parse) are made
 *   good by a dump after `resyncDelayMs`, at most one per `resyncIntervalMs`; it reports only
 *   the prefixes that differ.
 * - `setTable` moves to another table (the router was created again with a new tunnel key) and
 *   reports the difference between the two.
 * None of its timers hold the process; a dump in flight does, through its request timer.
 */
export class KernelTableReader {
  readonly #tuning: Tuning;
  readonly #protocols: ProtocolSet;
  readonly #h: TableReaderHandlers;
  readonly #log: Logger;
  readonly #causes: CauseLog;
  readonly #openSocket: RtnlSocketFactory;
  readonly #clock: Clock;
  readonly #routes = new TableRoutes();
  #table: number;
  #client: RtnlClient | undefined;
  #monitor: RouteMonitor | undefined;
  /** Counters of monitors closed by table switches. */
  readonly #past = { events: 0, otherTables: 0, overruns: 0, dropped: 0 };
  #started: Promise<void> | undefined;
  #synced = false;
  #closed = false;
  #chain: Promise<unknown> = Promise.resolve();
  /** Notifications held while a dump is to come or under way: applied on top of it. */
  #buffer: RouteEvent[] | undefined;
  /** Notifications were lost (or not held, or not decisive) while the dump under way ran: another must follow. */
  #dumpAgain: 'lost' | 'verify' | undefined;
  #flushTimer: TimerHandle | undefined;
  #burstAt = 0;
  #lastEventAt = 0;
  #resyncTimer: TimerHandle | undefined;
  #resyncReason: TableSyncReason = 'lost';
  #lastDumpEnd = Number.NEGATIVE_INFINITY;
  #batches = 0;
  #changes = 0;
  #syncs = 0;
  #lastSync:
    | { reason: TableSyncReason; at: number; tookMs: number; routes: number; changes: number }
    | undefined;
  #lastError: string | undefined;

  constructor(init: TableReaderInit, handlers: TableReaderHandlers, components: TableReaderComponents = {}) {
    checkTable(init.table);
    const protocols = init.protocols ?? TABLE_READER_DEFAULTS.protocols;
    if (protocols.length === 0) throw new KernelError('unencodable', 'no protocol to read');
    for (const p of protocols)
      if (!Number.isInteger(p) || p < 1 || p > 255)
        throw new KernelError('unencodable', `protocol ${p} not in 1..255`);
    const d = TABLE_READER_DEFAULTS;
    this.#tuning = {
      settleMs: init.settleMs ?? d.settleMs,
      maxHoldMs: init.maxHoldMs ?? d.maxHoldMs,
      resyncDelayMs: init.resyncDelayMs ?? d.resyncDelayMs,
      resyncIntervalMs: init.resyncIntervalMs ?? d.resyncIntervalMs,
      recvBuffer: init.recvBuffer ?? d.recvBuffer,
      monitorRecvBuffer: init.monitorRecvBuffer ?? d.monitorRecvBuffer,
      requestTimeoutMs: init.requestTimeoutMs ?? d.requestTimeoutMs,
      dropCheckMs: init.dropCheckMs ?? d.dropCheckMs,
    };
    this.#table = init.table;
    this.#protocols = new ProtocolSet(protocols);
    this.#h = handlers;
    this.#log = components.logger ?? silentLogger;
    this.#causes = new CauseLog(this.#log);
    this.#openSocket = components.openSocket ?? openRtnlSocket;
    this.#clock = components.clock ?? systemScheduler;
  }

  get table(): number {
    return this.#table;
  }

  /**
   * Opens the sockets in the calling thread's network namespace, reads the table and calls
   * `sync`. Rejects (and closes the reader) when rtnetlink is out of reach, the monitor cannot
   * be made safe from overruns, or the first dump fails.
   */
  start(): Promise<void> {
    this.#started ??= this.#begin();
    return this.#started;
  }

  /**
   * Follows another table from now on: dumps it and reports how it differs from the one read
   * so far (prefixes in both at the same metrics are not reported).
   */
  setTable(table: number): Promise<void> {
    checkTable(table);
    return this.#exclusive(async () => {
      if (!this.#client) {
        this.#table = table;
        return;
      }
      if (table === this.#table && this.#monitor) return;
      this.#table = table;
      this.#causes.clear();
      this.#buffer ??= [];
      this.#closeMonitor();
      this.#openMonitor();
      await this.#refresh('table');
    });
  }

  /** The routes read so far, each prefix with its metrics (lowest first). */
  routes(): TableRoute[] {
    return [...this.#routes.values()];
  }

  status(): TableReaderStatus {
    const m = this.#monitor;
    const last = this.#lastSync;
    return {
      open: this.#client !== undefined && !this.#closed,
      table: this.#table,
      protocols: this.#protocols.list,
      prefixes: this.#routes.size,
      routes: this.#routes.entries,
      pending: this.#routes.touched,
      batches: this.#batches,
      changes: this.#changes,
      syncs: this.#syncs,
      ...(last && {
        lastSync: {
          reason: last.reason,
          ageMs: Math.max(0, Math.round(this.#clock.now() - last.at)),
          tookMs: last.tookMs,
          routes: last.routes,
          changes: last.changes,
        },
      }),
      monitor: {
        on: m !== undefined,
        events: this.#past.events + (m?.events ?? 0),
        otherTables: this.#past.otherTables + (m?.otherTables ?? 0),
        overruns: this.#past.overruns + (m?.overruns ?? 0),
        dropped: this.#past.dropped + (m?.dropped ?? 0),
        tuned: m?.tuned ?? [],
      },
      socket: { tuned: this.#client?.tuned ?? [] },
      ...(this.#lastError !== undefined && { lastError: this.#lastError }),
    };
  }

  /** Stops following: timers cleared, sockets closed; changes not reported yet are dropped. */
  async close(): Promise<void> {
    if (this.#closed) return;
    this.#closed = true;
    this.#clock.clearTimeout(this.#flushTimer);
    this.#clock.clearTimeout(this.#resyncTimer);
    this.#flushTimer = undefined;
    this.#resyncTimer = undefined;
    this.#closeMonitor();
    this.#client?.close();
    this.#buffer = undefined;
    await this.#chain.catch(() => {});
  }

  async #begin(): Promise<void> {
    if (this.#closed) throw new KernelError('closed', 'the table reader is closed');
    try {
      this.#client = new RtnlClient(
        this.#openSocket({ recvBuffer: this.#tuning.recvBuffer, sendBuffer: 1 << 16 }),
        {
          batch: 1,
          maxInFlight: 1,
          responseTruesize: RESPONSE_TRUESIZE,
          requestTimeoutMs: this.#tuning.requestTimeoutMs,
        },
        this.#clock,
      );
      this.#buffer = [];
      this.#openMonitor();
      await this.#exclusive(() => this.#refresh('start'));
    } catch (error) {
      this.#lastError = (error as Error).message;
      await this.close();
      throw error;
    }
  }

  /** One dump at a time, and a table switch never inside one. */
  #exclusive<T>(fn: () => Promise<T>): Promise<T> {
    const run = this.#chain.then(() => {
      if (this.#closed) throw new KernelError('closed', 'the table reader is closed');
      return fn();
    });
    this.#chain = run.catch(() => {});
    return run;
  }

  #openMonitor(): void {
    const client = this.#client!;
    this.#monitor = new RouteMonitor(
      this.#openSocket({
        recvBuffer: this.#tuning.monitorRecvBuffer,
        sendBuffer: 1 << 16,
        groups: MONITOR_GROUPS,
      }),
      // Our socket only dumps, which the kernel notifies nobody of: its port filters nothing.
      { table: this.#table, ownPort: client.port, dropCheckMs: this.#tuning.dropCheckMs },
      { event: (e) => this.#onEvent(e), lost: (why) => this.#onLost(why) },
      this.#clock,
    );
  }

  #closeMonitor(): void {
    const m = this.#monitor;
    if (!m) return;
    this.#past.events += m.events;
    this.#past.otherTables += m.otherTables;
    this.#past.overruns += m.overruns;
    this.#past.dropped += m.dropped;
    m.close();
    this.#monitor = undefined;
  }

  #onEvent(e: RouteEvent): void {
    if (this.#closed || e.route.table !== this.#table || !tableEventMatters(e, this.#protocols)) return;
    if (this.#buffer) {
      if (this.#buffer.length < MAX_BUFFERED) this.#buffer.push(e);
      else this.#dumpAgain = 'lost';
      return;
    }
    if (!applyTableEvent(this.#routes, e, this.#protocols)) this.#scheduleResync('verify');
    if (this.#routes.touched > 0) this.#soon();
  }

  /** A burst is reported after settleMs of quiet, or maxHoldMs after it began: one timer per window, not per route. */
  #soon(): void {
    const now = this.#clock.now();
    this.#lastEventAt = now;
    if (this.#flushTimer !== undefined) return;
    this.#burstAt = now;
    this.#armFlush(this.#tuning.settleMs);
  }

  #armFlush(ms: number): void {
    this.#flushTimer = this.#clock.setTimeout(() => this.#onFlushTimer(), ms);
  }

  #onFlushTimer(): void {
    this.#flushTimer = undefined;
    // A dump under way reports when it ends.
    if (this.#closed || this.#buffer) return;
    const now = this.#clock.now();
    const quiet = now - this.#lastEventAt;
    const held = now - this.#burstAt;
    const { settleMs, maxHoldMs } = this.#tuning;
    if (quiet < settleMs && held < maxHoldMs) {
      this.#armFlush(Math.min(settleMs - quiet, maxHoldMs - held));
      return;
    }
    this.#flush();
  }

  /** Reports what changed since the last report; returns how many prefixes. */
  #flush(): number {
    if (this.#flushTimer !== undefined) {
      this.#clock.clearTimeout(this.#flushTimer);
      this.#flushTimer = undefined;
    }
    const changes = this.#routes.takeChanges();
    if (changes.length === 0) return 0;
    this.#batches++;
    this.#changes += changes.length;
    const table = this.#table;
    this.#call('change', () => this.#h.change(changes, table));
    return changes.length;
  }

  #onLost(why: string): void {
    if (this.#closed) return;
    this.#causes.warnOnce(
      'lost',
      { table: this.#table, why },
      `kernel table ${this.#table}: route notifications were lost; the table is read again`,
    );
    if (this.#buffer) {
      // A dump is coming or under way: the notifications it holds on top may lack these.
      this.#dumpAgain = 'lost';
      return;
    }
    this.#scheduleResync('lost');
  }

  /** A dump after resyncDelayMs, and resyncIntervalMs after the last at the earliest; one at a time. */
  #scheduleResync(reason: TableSyncReason): void {
    if (this.#closed) return;
    // Lost notifications are the weightier reason to name: a verify covers only one key.
    if (this.#resyncTimer !== undefined) {
      if (reason === 'lost') this.#resyncReason = reason;
      return;
    }
    this.#resyncReason = reason;
    const now = this.#clock.now();
    const at = Math.max(now + this.#tuning.resyncDelayMs, this.#lastDumpEnd + this.#tuning.resyncIntervalMs);
    this.#resyncTimer = this.#clock.setTimeout(() => {
      this.#resyncTimer = undefined;
      this.#buffer ??= [];
      const why = this.#resyncReason;
      this.#exclusive(() => this.#refresh(why)).catch(() => {});
    }, at - now);
  }

  /**
   * Dumps the table, applies the notifications held since the dump began on top, and takes the
   * result: the first time as the `sync`, after that as the changes it differs by. A failed
   * dump keeps the notifications held and is tried again after resyncIntervalMs.
   */
  async #refresh(reason: TableSyncReason): Promise<void> {
    const client = this.#client!;
    const table = this.#table;
    const started = this.#clock.now();
    this.#buffer ??= [];
    this.#dumpAgain = undefined;
    const fresh = new TableRoutes({ track: false });
    try {
      await this.#dump(client, table, fresh);
    } catch (error) {
      this.#lastError = (error as Error).message;
      this.#lastDumpEnd = this.#clock.now();
      if (this.#synced && !this.#closed) {
        this.#log.warn(
          { table, error: this.#lastError },
          `kernel table ${table}: reading it failed; trying again`,
        );
        this.#scheduleResync(reason);
      }
      throw error;
    }
    const held = this.#buffer ?? [];
    this.#buffer = undefined;
    for (const e of held)
      if (e.route.table === table && !applyTableEvent(fresh, e, this.#protocols))
        this.#dumpAgain ??= 'verify';
    this.#routes.adopt(fresh);
    const now = this.#clock.now();
    this.#lastDumpEnd = now;
    this.#syncs++;
    let changes = 0;
    if (!this.#synced) {
      this.#synced = true;
      this.#routes.markReported();
      const all = this.routes();
      this.#call('sync', () => this.#h.sync(all, table));
    } else changes = this.#flush();
    this.#lastSync = {
      reason,
      at: now,
      tookMs: Math.round(now - started),
      routes: this.#routes.entries,
      changes,
    };
    const facts = {
      table,
      reason,
      prefixes: this.#routes.size,
      routes: this.#routes.entries,
      changes,
      held: held.length,
    };
    // A start or a switch is news to an operator; the dumps after losses are counted in status().
    if (reason === 'start' || reason === 'table') this.#log.info(facts, `kernel table ${table}: read`);
    else this.#log.debug(facts, `kernel table ${table}: read again (${reason})`);
    if (this.#dumpAgain) this.#scheduleResync(this.#dumpAgain);
  }

  async #dump(client: RtnlClient, table: number, into: TableRoutes): Promise<void> {
    // With one protocol the kernel filters (strict check); with several, every protocol comes.
    const list = this.#protocols.list;
    const filter = { table, protocol: list.length === 1 ? list[0] : 0 };
    for (const family of [AF.INET, AF.INET6])
      await client.dump(family, filter, (r) => {
        // Without strict checking the kernel sends every table: filter again.
        if (r.table === table && this.#protocols.has(r.protocol) && !(r.flags & RtmFlag.CLONED))
          into.add(r.prefix, r.priority, KeyShare.BESIDE | (r.nexthops.length > 1 ? KeyShare.MULTIPATH : 0));
      });
  }

  /** A handler that throws must not stop the reader (nor, from a socket callback, the process). */
  #call(what: string, fn: () => void): void {
    try {
      fn();
    } catch (error) {
      this.#lastError = `${what} handler: ${(error as Error).message}`;
      this.#log.error(
        { table: this.#table, error: (error as Error).message },
        `kernel table: the ${what} handler threw`,
      );
    }
  }
}

function checkTable(table: number): void {
  // Table 0 (RT_TABLE_UNSPEC) would dump every table.
  if (!Number.isInteger(table) || table < 1 || table > 0xffffffff)
    throw new KernelError('unencodable', `table ${table} not in 1..4294967295`);
}
