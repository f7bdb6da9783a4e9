// Over 400 lines on purpose: the client's reconnect loop, RAFT leader search, monitor_cond_since
// resume and transact queue share one connection state machine; each method is one transition.
import { type Clock, type Logger, silentLogger, systemClock, type TimerHandle } from '../components/index.js';
import { type BackoffPolicy, backoffDelay } from './cluster.js';
import type { ConnectionStats } from './connection.js';
import { DEFAULTS, ServerError, ZERO_UUID } from './constants.js';
import { OvsdbError } from './errors.js';
import { Emitter } from './events.js';
import { rpcErrorName } from './jsonrpc.js';
import { conditionChangeRequests, type MonitorSpec, type MonitorWhere, prepareMonitor } from './monitor.js';
import type { Operation, TransactResult } from './operations.js';
import { parseRemotes, type Remote } from './remote.js';
import { Replica, type RowChange } from './replica.js';
import type { Row } from './rows.js';
import type { DatabaseSchema } from './schema.js';
import { type ClusterMemory, watchServer } from './server-watch.js';
import { type MonitorSinceResult, type MonitorUpdate, OvsdbSession } from './session.js';
import type { Connector, TlsFiles } from './transport.js';

export interface OvsdbClientInit {
  /** `unix:PATH`, `tcp:HOST:PORT`, `ssl:HOST:PORT`, or a comma-separated list (a cluster). */
  readonly remotes: string | readonly string[];
  readonly database: string;
  /** Tables (and columns, conditions) to replicate. */
  readonly tables: MonitorSpec;
  /** Use only a cluster's leader (fresh reads, direct writes). Default true, as ovsdb-idl. */
  readonly leaderOnly?: boolean;
  /** Check `_Server.Database` before using a server. Default true. */
  readonly checkServer?: boolean;
  /** Resume with monitor_cond_since from the last transaction id. Default true. */
  readonly resume?: boolean;
  readonly tls?: TlsFiles;
  readonly maxMessageBytes?: number;
  /** Our own echo probe; default 5 s on tcp/ssl, off on unix sockets (as OVS). */
  readonly probeIntervalMs?: number;
  readonly connectTimeoutMs?: number;
  /** Bound on the `_Server` check, schema and monitor set-up of one connection. */
  readonly setupTimeoutMs?: number;
  readonly backoff?: Partial<BackoffPolicy>;
  /** A session that lasted this long resets the back-off to "reconnect at once". */
  readonly stableSessionMs?: number;
}

export interface OvsdbClientComponents {
  readonly clock?: Clock;
  readonly logger?: Logger;
  /** Uniform in [0, 1): jitter and the first remote picked. */
  readonly random?: () => number;
  readonly connect?: Connector;
}

/** Why a batch of changes happened. */
export type BatchReason =
  /** The first fill of the replica. */
  | 'initial'
  /** An update/update2/update3 notification (one server transaction). */
  | 'update'
  /** After a reconnect: only the transactions missed, from monitor_cond_since (found=true). */
  | 'resume'
  /** After a reconnect without history: a full snapshot, diffed against the replica. */
  | 'resync';

export type TypedRowChange<T extends Record<string, Row>> = {
  [K in keyof T & string]: RowChange<T[K]> & { readonly table: K };
}[keyof T & string];

export interface ChangeBatch<T extends Record<string, Row> = Record<string, Row>> {
  readonly reason: BatchReason;
  readonly changes: readonly TypedRowChange<T>[];
}

export type ClientStatus =
  | { readonly state: 'connecting'; readonly remote: string; readonly attempt: number }
  | {
      readonly state: 'synced';
      readonly remote: string;
      readonly model: string;
      readonly leader: boolean;
      /** True when monitor_cond_since found our last transaction (no full snapshot). */
      readonly resumed: boolean;
    }
  | { readonly state: 'disconnected'; readonly remote: string; readonly error: OvsdbError }
  | { readonly state: 'closed' };

export interface ClientEvents<T extends Record<string, Row>> extends Record<string, unknown> {
  changes: ChangeBatch<T>;
  status: ClientStatus;
}

export interface ClientStats {
  connectAttempts: number;
  syncs: number;
  resumes: number;
  fullSyncs: number;
  updates: number;
  rowChanges: number;
}

const MONITOR_ID = 'replica';
const _SERVER_MONITOR_ID = 'server';

/**
 * A replica of chosen tables of one OVSDB database, kept exact across reconnects, restarts
 * and cluster failovers, with a `transact` that writes through the server in use.
 *
 * One session at a time: pick a remote, check `_Server` (cluster membership, leadership),
 * fetch the schema, monitor with monitor_cond_since (resume) or monitor_cond, then apply
 * notifications until the session dies; then back off and try the next remote.
 */
export class OvsdbClient<T extends Record<string, Row> = Record<string, Row>> {
  readonly database: string;
  readonly stats: ClientStats = {
    connectAttempts: 0,
    syncs: 0,
    resumes: 0,
    fullSyncs: 0,
    updates: 0,
    rowChanges: 0,
  };
  readonly #init: OvsdbClientInit;
  readonly #remotes: readonly Remote[];
  readonly #clock: Clock;
  readonly #log: Logger;
  readonly #random: () => number;
  readonly #connect: Connector | undefined;
  readonly #backoff: BackoffPolicy;
  readonly #events: Emitter<ClientEvents<T>>;
  readonly #spec: Record<string, { columns?: readonly string[]; where?: MonitorWhere }>;
  #replica: Replica | undefined;
  #schema: DatabaseSchema | undefined;
  /** The session synced and in use. */
  #session: OvsdbSession | undefined;
  /** The session being set up or in use: what close() must shut. */
  #current: OvsdbSession | undefined;
  #status: ClientStatus;
  #lastTxnId: string = ZERO_UUID;
  /** Conditions changed while no session could take them: the next monitor must start from scratch. */
  #conditionsStale = false;
  #sinceUnsupported = false;
  /** What `_Server` told us so far: the cluster id and the highest index seen. */
  readonly #seen: ClusterMemory = { cid: null, minIndex: 0 };
  #cursor: number;
  #attempt = 0;
  #closed = false;
  #running: Promise<void> | undefined;
  #sleepTimer: TimerHandle | undefined;
  #wake: (() => void) | undefined;

  constructor(init: OvsdbClientInit, components: OvsdbClientComponents = {}) {
    this.#init = init;
    this.database = init.database;
    this.#remotes = parseRemotes(init.remotes);
    const ssl = this.#remotes.find((r) => r.kind === 'ssl');
    if (ssl && !init.tls) {
      throw new OvsdbError('bad-remote', `${ssl.text}: ssl needs tls (private key, certificate and CA)`);
    }
    this.#clock = components.clock ?? systemClock;
    this.#log = components.logger ?? silentLogger;
    this.#random = components.random ?? Math.random;
    this.#connect = components.connect;
    this.#backoff = {
      initialMs: init.backoff?.initialMs ?? DEFAULTS.backoffInitialMs,
      maxMs: init.backoff?.maxMs ?? DEFAULTS.backoffMaxMs,
      jitter: init.backoff?.jitter ?? DEFAULTS.backoffJitter,
    };
    this.#events = new Emitter(this.#log);
    this.#spec = Object.fromEntries(Object.entries(init.tables).map(([t, s]) => [t, { ...s }]));
    // Like ovsdb-idl, start at a random member so a fleet of clients spreads over a cluster.
    this.#cursor = Math.floor(this.#random() * this.#remotes.length) % this.#remotes.length;
    this.#status = { state: 'connecting', remote: this.#remotes[this.#cursor].text, attempt: 0 };
  }

  /** Starts connecting (once); the returned promise settles when the client is closed. */
  start(): this {
    this.#running ??= this.#run().catch((err) => {
      this.#log.error({ err }, 'ovsdb: client loop failed');
    });
    return this;
  }

  async close(): Promise<void> {
    if (this.#closed) return;
    this.#closed = true;
    if (this.#sleepTimer !== undefined) this.#clock.clearTimeout(this.#sleepTimer);
    this.#wake?.();
    this.#current?.connection.close(new OvsdbError('closed', 'client closed'));
    await this.#running;
    this.#setStatus({ state: 'closed' });
  }

  on<K extends keyof ClientEvents<T>>(event: K, listener: (value: ClientEvents<T>[K]) => void): () => void {
    return this.#events.on(event, listener);
  }

  get status(): ClientStatus {
    return this.#status;
  }

  get synced(): boolean {
    return this.#status.state === 'synced';
  }

  /** The transaction id the replica is at (all-zero on standalone servers, which keep no history). */
  get lastTxnId(): string {
    return this.#lastTxnId;
  }

  /** Counters of the connection in use (echo answered, probes sent, bytes), if any. */
  get connectionStats(): Readonly<ConnectionStats> | undefined {
    return this.#current?.connection.stats;
  }

  get schema(): DatabaseSchema | undefined {
    return this.#schema;
  }

  /** Rows of a monitored table by uuid. The map is live; its rows are frozen snapshots. */
  table<K extends keyof T & string>(name: K): ReadonlyMap<string, T[K]> {
    return (this.#replica?.table(name) ?? new Map()) as ReadonlyMap<string, T[K]>;
  }

  /** Resolves when the client is synced (at once if it is); rejects after `timeoutMs`. */
  whenSynced(timeoutMs: number = DEFAULTS.setupTimeoutMs): Promise<void> {
    if (this.synced) return Promise.resolve();
    return new Promise((resolve, reject) => {
      const timer = this.#clock.setTimeout(() => {
        off();
        reject(new OvsdbError('request-timeout', `${this.database}: not synced within ${timeoutMs} ms`));
      }, timeoutMs);
      const off = this.on('status', (s) => {
        if (s.state === 'synced' || s.state === 'closed') {
          this.#clock.clearTimeout(timer);
          off();
          if (s.state === 'synced') resolve();
          else reject(new OvsdbError('closed', 'client closed'));
        }
      });
    });
  }

  /**
   * Runs a transaction on the server in use (the leader unless `leaderOnly: false`). The
   * notifications it causes usually reach the replica before this resolves, but ovsdb-server
   * sends them later when the connection has a backlog (large updates): wait for the change
   * events, not for this promise, to see the rows. Rejects with
   * 'not-connected' between sessions, with TransactionError when the server refuses it, and
   * with the session's error if the connection dies first (the outcome is then unknown).
   */
  async transact(ops: readonly Operation[], options: { timeoutMs?: number } = {}): Promise<TransactResult> {
    const session = this.#session;
    if (!session || session.closed || !this.synced || !this.#schema) {
      throw new OvsdbError('not-connected', `${this.database}: no synced session`);
    }
    return session.transact(this.#schema, ops, options.timeoutMs);
  }

  /**
   * Changes the conditions of monitored tables (monitor_cond_change). Rows that leave or
   * enter arrive as an ordinary update batch. Without a session the change is kept and the
   * next session starts from a full snapshot (diffed as usual).
   */
  async setConditions(changes: Readonly<Partial<Record<keyof T & string, MonitorWhere>>>): Promise<void> {
    for (const [table, where] of Object.entries(changes) as [string, MonitorWhere][]) {
      const spec = this.#spec[table];
      if (!spec) throw new OvsdbError('bad-schema', `${table} is not monitored`);
      spec.where = where;
    }
    const session = this.#session;
    if (!session || session.closed || !this.synced || !this.#schema) {
      this.#conditionsStale = true;
      return;
    }
    await this.#sendConditions(session, this.#schema, changes as Record<string, MonitorWhere>);
  }

  async #sendConditions(
    session: OvsdbSession,
    schema: DatabaseSchema,
    changes: Record<string, MonitorWhere>,
  ): Promise<void> {
    try {
      const present = Object.fromEntries(Object.entries(changes).filter(([t]) => this.#replica?.codec(t)));
      await session.monitorCondChange(MONITOR_ID, conditionChangeRequests(schema, present));
    } catch (err) {
      this.#conditionsStale = true;
      throw err;
    }
  }

  // -------------------------------------------------------------------------------------------

  async #run(): Promise<void> {
    while (!this.#closed) {
      const remote = this.#remotes[this.#cursor];
      this.#cursor = (this.#cursor + 1) % this.#remotes.length;
      // One try of every remote without waiting, as ovsdb-idl: during a RAFT election each
      // member but the new leader says "not the leader", and that must not grow the back-off.
      const n = this.#remotes.length;
      const delay = this.#attempt < n ? 0 : backoffDelay(this.#attempt - n + 1, this.#backoff, this.#random);
      if (delay > 0) await this.#sleep(delay);
      if (this.#closed) break;
      this.#attempt++;
      this.stats.connectAttempts++;
      this.#setStatus({ state: 'connecting', remote: remote.text, attempt: this.#attempt });
      let session: OvsdbSession | undefined;
      try {
        session = await OvsdbSession.open(
          remote,
          {
            tls: this.#init.tls,
            maxMessageBytes: this.#init.maxMessageBytes,
            probeIntervalMs: this.#init.probeIntervalMs,
            connectTimeoutMs: this.#init.connectTimeoutMs,
          },
          { clock: this.#clock, logger: this.#log, connect: this.#connect },
        );
        this.#current = session;
        if (this.#closed) {
          session.connection.close(new OvsdbError('closed', 'client closed'));
          break;
        }
        const lost = new Promise<OvsdbError>((resolve) => session?.connection.onClose(resolve));
        await this.#establish(session);
        const since = this.#clock.now();
        const error = await lost;
        if (this.#clock.now() - since >= (this.#init.stableSessionMs ?? DEFAULTS.stableSessionMs))
          this.#attempt = 0;
        this.#lost(remote, error);
      } catch (err) {
        session?.connection.close(asError(err));
        this.#lost(remote, asError(err));
      }
    }
    this.#current = undefined;
    this.#session = undefined;
  }

  #lost(remote: Remote, error: OvsdbError): void {
    this.#session = undefined;
    if (this.#closed) return;
    if (error.kind === 'bad-update') {
      // The server sent something our replica cannot follow: never resume from there.
      this.#lastTxnId = ZERO_UUID;
    }
    const level = error.kind === 'server-unusable' ? 'info' : 'warn';
    this.#log[level]({ remote: remote.text, kind: error.kind, err: error.message }, 'ovsdb: session ended');
    this.#setStatus({ state: 'disconnected', remote: remote.text, error });
  }

  /** Brings a fresh session to "synced", or throws. */
  async #establish(session: OvsdbSession): Promise<void> {
    const timeoutMs = this.#init.setupTimeoutMs ?? DEFAULTS.setupTimeoutMs;
    const view =
      this.#init.checkServer === false
        ? undefined
        : await watchServer(session, this.database, this.#init.leaderOnly ?? true, this.#seen, timeoutMs);
    const schema = await session.getSchema(this.database, timeoutMs);
    const prepared = prepareMonitor(schema, this.#spec);
    if (prepared.missing.length > 0) {
      this.#log.warn(
        { database: this.database, missing: prepared.missing },
        'ovsdb: not in the server schema',
      );
    }
    const schemaChanged =
      this.#schema !== undefined &&
      (this.#schema.version !== schema.version || this.#schema.cksum !== schema.cksum);
    if (schemaChanged || this.#conditionsStale) this.#lastTxnId = ZERO_UUID;
    // The monitor below carries the current conditions.
    this.#conditionsStale = false;
    const first = this.#replica === undefined;
    const replica = this.#replica ?? new Replica(prepared.codecs);
    this.#replica = replica;

    const onUpdate = (update: MonitorUpdate): void => {
      if (this.#session !== session) return;
      const changes =
        update.method === 'update'
          ? replica.applyUpdate(update.updates)
          : replica.applyUpdate2(update.updates);
      if (update.method === 'update3') this.#lastTxnId = update.lastTxnId;
      this.stats.updates++;
      this.#emitChanges('update', changes);
    };
    const onSnapshot = (updates: unknown, version1 = false): boolean => {
      const changes = replica.resync(updates, prepared.codecs, version1);
      this.#activate(session, schema);
      this.stats.fullSyncs++;
      this.#emitChanges(first ? 'initial' : 'resync', changes);
      return false;
    };

    let resumed = false;
    if (this.#init.resume !== false && !this.#sinceUnsupported) {
      try {
        resumed = await session.monitorCondSince(
          this.database,
          MONITOR_ID,
          prepared.requests,
          this.#lastTxnId,
          onUpdate,
          (reply: MonitorSinceResult) => {
            if (reply.found && !first) {
              const changes = replica.applyUpdate2(reply.updates);
              this.#lastTxnId = reply.lastTxnId;
              this.#activate(session, schema);
              this.stats.resumes++;
              this.#emitChanges('resume', changes);
              return true;
            }
            this.#lastTxnId = reply.lastTxnId;
            return onSnapshot(reply.updates);
          },
          timeoutMs,
        );
      } catch (err) {
        if (!(err instanceof OvsdbError && rpcErrorName(err.data.error) === ServerError.UNKNOWN_METHOD))
          throw err;
        this.#sinceUnsupported = true;
      }
    }
    // Without resume (asked for, or the server lacks monitor_cond_since): a plain monitor_cond.
    if (this.#init.resume === false || this.#sinceUnsupported) {
      await session.monitorCond(
        this.database,
        MONITOR_ID,
        prepared.requests,
        onUpdate,
        (u) => onSnapshot(u),
        timeoutMs,
      );
    }
    if (this.#conditionsStale) {
      // Conditions changed while this session was being set up: bring it up to date.
      this.#conditionsStale = false;
      const all = Object.fromEntries(Object.entries(this.#spec).map(([t, spec]) => [t, spec.where ?? true]));
      await this.#sendConditions(session, schema, all);
    }
    this.stats.syncs++;
    this.#setStatus({
      state: 'synced',
      remote: session.remote.text,
      model: view?.model ?? 'unknown',
      leader: view?.leader ?? false,
      resumed,
    });
  }

  /** Makes `session` the one notifications and transactions go through. */
  #activate(session: OvsdbSession, schema: DatabaseSchema): void {
    this.#session = session;
    this.#schema = schema;
  }

  #emitChanges(reason: BatchReason, changes: readonly RowChange[]): void {
    this.stats.rowChanges += changes.length;
    if (changes.length === 0) return;
    this.#events.emit('changes', { reason, changes: changes as unknown as readonly TypedRowChange<T>[] });
  }

  #setStatus(status: ClientStatus): void {
    this.#status = status;
    this.#events.emit('status', status);
  }

  #sleep(ms: number): Promise<void> {
    return new Promise((resolve) => {
      this.#wake = resolve;
      this.#sleepTimer = this.#clock.setTimeout(() => {
        this.#sleepTimer = undefined;
        this.#wake = undefined;
        resolve();
      }, ms);
    });
  }
}

function asError(err: unknown): OvsdbError {
  if (err instanceof OvsdbError) return err;
  return new OvsdbError('connection-failed', (err as Error)?.message ?? String(err));
}
