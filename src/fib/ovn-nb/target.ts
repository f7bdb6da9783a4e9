import type { Logger } from '../../components/index.js';
import {
  type ChangeBatch,
  type ClientStatus,
  type Clock,
  OvsdbClient,
  systemClock,
} from '../../ovsdb/index.js';
import type { FibChange, FibRoute, FibTarget } from '../route.js';
import { NB_DATABASE, OVN_NB_DEFAULTS, ovnNbSinkMonitor, RouterColumn, Table } from './constants.js';
import { failureKind, OvnNbError, type OvnNbErrorKind } from './errors.js';
import { OwnedRoutes } from './owned.js';
import { isEmptyPlan, planOperations, planRoutes, type WantedRoute, wantedRoute } from './plan.js';
import { RepairLoop } from './repair.js';
import { findRouter, type RouterView, type RouteSettings, routeKey } from './rows.js';
import type { NbClient, OvnNbComponents, OvnNbStatus, OvnNbTargetInit } from './types.js';

const silent: Logger = { debug() {}, info() {}, warn() {}, error() {} };

/**
 * Writes best paths as Logical_Router_Static_Route rows of one logical router, each marked
 * `external_ids:{mark.key}={mark.value}`; ECMP is one row per next hop. Rows without our mark
 * are never touched.
 *
 * Every write is planned against the replica (never against what we believe we sent) and
 * carries a precondition on the router (its `_version`, or its static_routes set right after
 * a failover, see Precondition), so a transaction whose outcome was lost with the session is
 * never re-sent blindly: after the reconnect the fresh replica says what committed, and the
 * next plan starts from there. ovsdb-server itself re-runs a transaction after a RAFT
 * "cluster error" (ovsdb/trigger.c), possibly one that did commit: the precondition turns
 * that re-run into a failed `wait` instead of duplicate rows.
 *
 * The target keeps the routes it was given, so after every reconnect it reconciles NB to them
 * on its own (a standalone server restarted from an older file, rows deleted while we were away).
 */
export class OvnNbTarget implements FibTarget {
  readonly name = 'ovn-nb';
  readonly #client: NbClient;
  readonly #own: OvsdbClient | undefined;
  readonly #settings: RouteSettings;
  readonly #routerName: string;
  readonly #log: Logger;
  readonly #clock: Clock;
  readonly #readyMs: number;
  readonly #settleMs: number;
  readonly #conflictRetries: number;
  readonly #owned: OwnedRoutes;
  readonly #desired = new Map<string, WantedRoute>();
  readonly #skipped = new Map<string, string>();
  /** A reconcile set `#desired` whole: only then may the target delete on its own. */
  #complete = false;
  #chain: Promise<unknown> = Promise.resolve();
  readonly #off: (() => void)[] = [];
  #started = false;
  #closed = false;
  #wasSynced = false;
  #lostSession = false;
  #routerMissing = false;
  /** Router rows whose `_version` came from the server in use ('all' after a full snapshot). */
  #freshVersions: Set<string> | 'all' = new Set();
  readonly #repair: RepairLoop;
  /**
   * Keys last planned on a replica that had not shown our commit before the settle bound:
   * their plan may have missed a row of ours, so they are planned again once the replica moves.
   */
  readonly #recheck = new Set<string>();
  #recheckQueued = false;
  #lastError: string | undefined;
  #lastTransactMs: number | undefined;
  readonly #stats = { transactions: 0, conflicts: 0, unknownOutcomes: 0 };

  constructor(init: OvnNbTargetInit, components: OvnNbComponents = {}) {
    const markKey = init.mark.key ?? OVN_NB_DEFAULTS.markKey;
    if (markKey === '' || init.mark.value === '')
      throw new OvnNbError('bad-config', 'the mark needs a non-empty key and value');
    if (init.router === '') throw new OvnNbError('bad-config', 'no logical router named');
    this.#settings = {
      markKey,
      markValue: init.mark.value,
      outputPort: init.outputPort ?? null,
      routeTable: init.routeTable ?? '',
    };
    this.#routerName = init.router;
    this.#log = components.logger ?? silent;
    this.#clock = components.clock ?? systemClock;
    this.#readyMs = init.readyTimeoutMs ?? OVN_NB_DEFAULTS.readyTimeoutMs;
    this.#settleMs = init.settleTimeoutMs ?? OVN_NB_DEFAULTS.settleTimeoutMs;
    this.#conflictRetries = init.conflictRetries ?? OVN_NB_DEFAULTS.conflictRetries;
    this.#owned = new OwnedRoutes(this.#settings);
    this.#repair = new RepairLoop(() => this.#serial(() => this.#converge(null)), this.#clock, this.#log);
    if (init.client) {
      this.#client = init.client;
    } else {
      if (init.remotes === undefined || init.remotes.length === 0)
        throw new OvnNbError('bad-config', 'neither NB remotes nor a client given');
      this.#own = new OvsdbClient(
        {
          remotes: init.remotes,
          database: NB_DATABASE,
          tables: ovnNbSinkMonitor(markKey, init.mark.value),
          tls: init.tls,
        },
        { logger: this.#log, clock: this.#clock, random: components.random },
      );
      this.#client = this.#own;
    }
    this.#off.push(this.#client.on('changes', (b) => this.#onChanges(b)));
    this.#off.push(this.#client.on('status', (s) => this.#onStatus(s)));
    this.#owned.load(this.#client.table(Table.STATIC_ROUTE));
    this.#wasSynced = this.#client.synced;
  }

  /** Starts our own NB client (apply and reconcile start it too); a shared client is the owner's to start. */
  start(): void {
    if (this.#started || this.#closed) return;
    this.#started = true;
    this.#own?.start();
  }

  notInstalled(limit: number): { prefix: string; reason: string }[] {
    return this.status().skipped.slice(0, limit);
  }

  status(): OvnNbStatus {
    let router: RouterView | undefined;
    try {
      router = findRouter(this.#client.table(Table.ROUTER), this.#routerName);
    } catch {
      router = undefined;
    }
    const s = this.#client.status;
    return {
      connected: this.#client.synced,
      ...('remote' in s && { remote: s.remote }),
      router: this.#routerName,
      ...(router && { routerUuid: router.uuid }),
      mark: `${this.#settings.markKey}=${this.#settings.markValue}`,
      routes: this.#desired.size,
      rows: router ? this.#owned.countOn(router.routes) : 0,
      ...this.#stats,
      repairs: this.#repair.runs,
      skipped: [...this.#skipped].map(([prefix, reason]) => ({ prefix, reason })),
      ...(this.#lastTransactMs !== undefined && { lastTransactMs: this.#lastTransactMs }),
      ...(this.#lastError !== undefined && { lastError: this.#lastError }),
    };
  }

  /** Makes NB hold these changes, in one transaction. The routes are kept even if this rejects. */
  async apply(changes: readonly FibChange[]): Promise<void> {
    this.#checkOpen();
    const keys: string[] = [];
    for (const c of changes) {
      if (c.kind === 'add') keys.push(this.#want(c.route));
      else {
        const key = routeKey(c.prefix);
        this.#desired.delete(key);
        this.#skipped.delete(key);
        keys.push(key);
      }
    }
    this.start();
    await this.#serial(() => this.#converge(keys));
  }

  /** Makes our rows on the router exactly `all`, in one transaction. */
  async reconcile(all: readonly FibRoute[]): Promise<void> {
    this.#checkOpen();
    this.#desired.clear();
    this.#skipped.clear();
    for (const r of all) this.#want(r);
    this.#complete = true;
    this.start();
    await this.#serial(() => this.#converge(null));
  }

  /** Stops the target. Our rows stay in NB (traffic keeps flowing); the next speaker reconciles them. */
  async close(): Promise<void> {
    if (this.#closed) return;
    this.#closed = true;
    this.#repair.stop();
    for (const off of this.#off.splice(0)) off();
    await this.#own?.close();
  }

  #want(route: FibRoute): string {
    const { route: wanted, skipped } = wantedRoute(route);
    const key = routeKey(route.prefix);
    if (wanted) this.#desired.set(key, wanted);
    else this.#desired.delete(key);
    if (skipped.length > 0) this.#skipped.set(key, skipped.join('; '));
    else this.#skipped.delete(key);
    return key;
  }

  #checkOpen(): void {
    if (this.#closed) throw new OvnNbError('closed', 'the OVN NB target is closed');
  }

  /** One plan-and-transact at a time: each plans against the replica the previous one left. */
  #serial<T>(work: () => Promise<T>): Promise<T> {
    const run = this.#chain.then(work, work);
    this.#chain = run.catch(() => {});
    return run;
  }

  /**
   * Plans `keys` (null: every prefix wanted or held) against the replica and commits the plan.
   * A failed precondition means the replica was behind: wait for it to move, plan again.
   */
  async #converge(keys: readonly string[] | null): Promise<void> {
    for (let attempt = 0; ; attempt++) {
      this.#checkOpen();
      await this.#ready();
      const router = this.#router();
      const todo = keys ?? new Set([...this.#desired.keys(), ...this.#owned.keysOn(router.routes)]);
      const plan = planRoutes(todo, this.#desired, (key) => this.#owned.on(key, router.routes));
      if (isEmptyPlan(plan)) {
        this.#lastError = undefined;
        return;
      }
      const started = this.#clock.now();
      try {
        const fresh = this.#freshVersions === 'all' || this.#freshVersions.has(router.uuid);
        await this.#client.transact(
          planOperations(plan, router, this.#settings, fresh ? 'version' : 'static-routes'),
        );
      } catch (err) {
        const kind = failureKind(err, this.#closed);
        if (kind === 'conflict' && attempt < this.#conflictRetries) {
          this.#stats.conflicts++;
          await this.#settle(router);
          continue;
        }
        throw this.#failed(kind, err);
      }
      this.#stats.transactions++;
      this.#lastTransactMs = this.#clock.now() - started;
      this.#lastError = undefined;
      this.#log.debug(
        {
          sink: this.name,
          inserted: plan.inserts.length,
          deleted: plan.deletes.length,
          ms: this.#lastTransactMs,
        },
        'ovn-nb: static routes committed',
      );
      // The next plan must see this commit: its notification usually came before the reply.
      if (!(await this.#settle(router))) for (const key of todo) this.#recheck.add(key);
      return;
    }
  }

  #failed(kind: OvnNbErrorKind, err: unknown): OvnNbError {
    const cause = err instanceof Error ? err.message : String(err);
    let error: OvnNbError;
    if (kind === 'outcome-unknown') {
      this.#stats.unknownOutcomes++;
      this.#lostSession = true;
      error = new OvnNbError(
        kind,
        `NB session lost with the transaction out (${cause}); what committed is read back from the fresh replica`,
        { cause: err },
      );
      // A request timeout leaves the session up: no reconnect will trigger the repair.
      if (this.#client.synced) this.#scheduleRepair();
    } else if (kind === 'conflict') {
      error = new OvnNbError(kind, `Logical_Router "${this.#routerName}" kept changing under us (${cause})`, {
        cause: err,
      });
    } else {
      error = err instanceof OvnNbError ? err : new OvnNbError(kind, cause, { cause: err });
    }
    this.#lastError = error.message;
    return error;
  }

  async #ready(): Promise<void> {
    if (this.#client.synced) return;
    try {
      await this.#client.whenSynced(this.#readyMs);
    } catch (err) {
      this.#checkOpen();
      const s = this.#client.status;
      const detail = s.state === 'disconnected' ? `: ${s.error.message}` : '';
      throw this.#failed(
        'not-connected',
        new OvnNbError(
          'not-connected',
          `OVN NB not synced within ${this.#readyMs} ms${'remote' in s ? ` (${s.remote}${detail})` : ''}`,
          { cause: err },
        ),
      );
    }
  }

  #router(): RouterView {
    try {
      const router = findRouter(this.#client.table(Table.ROUTER), this.#routerName);
      this.#routerMissing = false;
      return router;
    } catch (err) {
      if (err instanceof OvnNbError && err.kind === 'no-router') this.#routerMissing = true;
      throw this.#failed(err instanceof OvnNbError ? err.kind : 'rejected', err);
    }
  }

  /**
   * Resolves once the replica's router is past `router` (or gone, or the session is): true; or
   * after the bound: false.
   */
  #settle(router: RouterView): Promise<boolean> {
    const moved = () => {
      const row = this.#client.table(Table.ROUTER).get(router.uuid);
      return (
        this.#closed ||
        !this.#client.synced ||
        row === undefined ||
        row[RouterColumn.VERSION] !== router.version
      );
    };
    if (moved()) return Promise.resolve(true);
    return new Promise((resolve) => {
      const done = (settled: boolean) => {
        offChanges();
        offStatus();
        this.#clock.clearTimeout(timer);
        resolve(settled);
      };
      const timer = this.#clock.setTimeout(() => {
        this.#log.debug(
          { sink: this.name },
          'ovn-nb: replica did not show our commit in time; planning anyway, again once it does',
        );
        done(false);
      }, this.#settleMs);
      const offChanges = this.#client.on('changes', () => moved() && done(true));
      const offStatus = this.#client.on('status', () => moved() && done(true));
    });
  }

  #onChanges(batch: ChangeBatch): void {
    let routerAppeared = false;
    // A full snapshot comes from the server in use: every _version in the replica is its own.
    if (batch.reason === 'initial' || batch.reason === 'resync') this.#freshVersions = 'all';
    for (const c of batch.changes) {
      if (c.table === Table.STATIC_ROUTE) this.#owned.update(c.uuid, c.new);
      else if (c.table === Table.ROUTER && this.#freshVersions !== 'all') this.#freshVersions.add(c.uuid);
      if (
        c.table === Table.ROUTER &&
        c.new?.[RouterColumn.NAME] === this.#routerName &&
        c.old?.[RouterColumn.NAME] !== this.#routerName
      )
        routerAppeared = true;
    }
    if (routerAppeared && this.#routerMissing) {
      this.#log.info({ sink: this.name, router: this.#routerName }, 'ovn-nb: the logical router appeared');
      this.#scheduleRepair(true);
    }
    if (this.#recheck.size > 0) this.#queueRecheck();
  }

  /** Plans the keys in #recheck again, once the changes now arriving are in the replica. */
  #queueRecheck(): void {
    if (this.#recheckQueued || this.#closed) return;
    this.#recheckQueued = true;
    this.#clock.setTimeout(() => {
      this.#recheckQueued = false;
      if (this.#closed || this.#recheck.size === 0) return;
      const keys = [...this.#recheck];
      this.#recheck.clear();
      this.#serial(() => this.#converge(keys)).catch(() => {
        // Planned again with the next changes; the repair loop covers a session that is gone.
        for (const key of keys) this.#recheck.add(key);
        this.#scheduleRepair();
      });
    }, 0);
  }

  #onStatus(status: ClientStatus): void {
    if (status.state !== 'synced') this.#freshVersions = new Set();
    if (status.state === 'synced') {
      if (this.#wasSynced && this.#lostSession) {
        this.#log.info(
          { sink: this.name, remote: status.remote, resumed: status.resumed },
          'ovn-nb: NB session back; reconciling our rows against the fresh replica',
        );
        this.#scheduleRepair(true);
      }
      this.#wasSynced = true;
      this.#lostSession = false;
    } else if (this.#wasSynced) {
      this.#lostSession = true;
    }
  }

  /** Our own reconcile to the routes we hold; only once a reconcile told us the whole set. */
  #scheduleRepair(now = false): void {
    if (!this.#closed && this.#complete) this.#repair.schedule(now);
  }
}
