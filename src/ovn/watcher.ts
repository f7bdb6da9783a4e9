import { performance } from 'node:perf_hooks';
import { type Clock, type Logger, systemClock } from '../components/index.js';
import {
  type ChangeBatch,
  type ClientStatus,
  OvsdbClient,
  type OvsdbClientInit,
  type TlsFiles,
} from '../ovsdb/index.js';
import { type ApplyStats, OvnDeriver, type OvnRowChange } from './derive.js';
import { ADVERTISED_ROUTE_TABLE, NB_DATABASE, NB_MONITOR, SB_DATABASE, sbMonitor } from './tables.js';
import {
  type Advertisement,
  type AdvertisementDiff,
  OVN_ROUTE_KINDS,
  type OvnDb,
  type OvnDeriveConfig,
  type OvnProblem,
  type OvnRouteKind,
} from './types.js';

/*
 * The shell around OvnDeriver: row changes from the NB and SB clients are queued, a burst is
 * coalesced for `coalesceMs`, then applied in one go and the diff handed to onChange.
 *
 *   nb client ─┐ changes                 ┌─ coalesce ─► deriver.apply ─► onChange(diff)
 *   sb client ─┴────────► queue ─────────┘
 *   status: disconnected ─► hold timer ─► withdraw everything; the next sync announces again
 *
 * Reconnects need nothing here: the client's resync already reports only real differences.
 */

export const OVN_WATCHER_DEFAULTS = { coalesceMs: 20, holdTimeMs: 30_000 } as const;

type AnyClient = OvsdbClient;

export interface OvnWatcherInit {
  readonly config: OvnDeriveConfig;
  /** A client monitoring NB_MONITOR (or remotes to make one with). */
  readonly nb: AnyClient | { readonly remotes: OvsdbClientInit['remotes']; readonly tls?: TlsFiles };
  /** A client monitoring sbMonitor(config.source) (or remotes to make one with). */
  readonly sb: AnyClient | { readonly remotes: OvsdbClientInit['remotes']; readonly tls?: TlsFiles };
  readonly coalesceMs?: number;
  /** How long routes stay after OVN is lost before they are withdrawn. */
  readonly holdTimeMs?: number;
  readonly onChange: (diff: AdvertisementDiff) => void;
}

export interface OvnWatcherComponents {
  readonly clock?: Clock;
  readonly logger?: Logger;
}

export type OvnWatcherState =
  /** Not yet synced with both databases: nothing derived yet. */
  | 'starting'
  | 'synced'
  /** A database is lost; routes are kept until the hold time ends. */
  | 'holding'
  /** Lost past the hold time: everything withdrawn. */
  | 'down'
  | 'closed';

export interface OvnWatcherStatus {
  readonly state: OvnWatcherState;
  readonly nb: ClientStatus;
  readonly sb: ClientStatus;
  readonly advertisements: readonly Advertisement[];
  readonly problems: readonly OvnProblem[];
  readonly counts: Readonly<Record<OvnRouteKind, number>>;
  /** Wall time of the last derivation step, ms. */
  readonly lastDerivationMs: number;
  /** Clock ms from the first OVSDB update of the last burst to its routes handed on (coalescing included). */
  readonly lastChangeMs: number | undefined;
  readonly lastApply: ApplyStats;
  /** When routes will be withdrawn (clock ms) while holding. */
  readonly holdUntil: number | null;
  /** Whether the SB schema has Advertised_Route (OVN 25.03+); undefined before the SB answered. */
  readonly advertisedRoutes: boolean | undefined;
}

export class OvnWatcher {
  readonly #init: OvnWatcherInit;
  readonly #clock: Clock;
  readonly #log: Logger | undefined;
  readonly #deriver: OvnDeriver;
  readonly #nb: AnyClient;
  readonly #sb: AnyClient;
  readonly #owned: AnyClient[] = [];
  readonly #off: (() => void)[] = [];
  #queue: OvnRowChange[] = [];
  #flushTimer: unknown;
  #holdTimer: unknown;
  #holdUntil: number | null = null;
  #everSynced = { nb: false, sb: false };
  #state: OvnWatcherState = 'starting';
  /** Routes were withdrawn after the hold: the next flush announces all of them again. */
  #withdrawn = false;
  #lastMs = 0;
  #lastChangeMs: number | undefined;
  /** Clock time the oldest queued change arrived. */
  #queuedAt: number | undefined;

  constructor(init: OvnWatcherInit, components: OvnWatcherComponents = {}) {
    this.#init = init;
    this.#clock = components.clock ?? systemClock;
    this.#log = components.logger;
    this.#deriver = new OvnDeriver(init.config);
    this.#nb = this.#client(init.nb, NB_DATABASE, NB_MONITOR);
    this.#sb = this.#client(init.sb, SB_DATABASE, sbMonitor(init.config.source));
  }

  #client(given: OvnWatcherInit['nb'], database: string, tables: OvsdbClientInit['tables']): AnyClient {
    if (given instanceof OvsdbClient) return given;
    const c = new OvsdbClient(
      { remotes: given.remotes, database, tables, ...(given.tls && { tls: given.tls }) },
      { clock: this.#clock, logger: this.#log },
    );
    this.#owned.push(c);
    return c;
  }

  start(): this {
    for (const [db, client] of [
      ['nb', this.#nb],
      ['sb', this.#sb],
    ] as const) {
      this.#off.push(client.on('changes', (b) => this.#onBatch(db, b)));
      this.#off.push(client.on('status', () => this.#onStatus()));
      if (client.synced) {
        // Already filled before we listened: take its tables as they are.
        this.#everSynced[db] = true;
        const monitor = db === 'nb' ? NB_MONITOR : sbMonitor(this.#init.config.source);
        for (const table of client.schema
          ? Object.keys(monitor).filter((t) => client.schema?.tables.has(t))
          : [])
          for (const [uuid, row] of client.table(table))
            this.#queue.push({ db, table, uuid, old: null, new: row });
      }
    }
    for (const c of this.#owned) c.start();
    this.#onStatus();
    this.#schedule();
    return this;
  }

  async close(): Promise<void> {
    for (const off of this.#off) off();
    this.#clock.clearTimeout(this.#flushTimer);
    this.#clock.clearTimeout(this.#holdTimer);
    this.#state = 'closed';
    await Promise.all(this.#owned.map((c) => c.close()));
  }

  get status(): OvnWatcherStatus {
    const advertisements = this.#state === 'down' ? [] : this.#deriver.advertisements;
    const counts = Object.fromEntries(OVN_ROUTE_KINDS.map((k) => [k, 0])) as Record<OvnRouteKind, number>;
    for (const a of advertisements) counts[a.kind]++;
    return {
      state: this.#state,
      nb: this.#nb.status,
      sb: this.#sb.status,
      advertisements,
      problems: this.#deriver.problems,
      counts,
      lastDerivationMs: this.#lastMs,
      lastChangeMs: this.#lastChangeMs,
      lastApply: this.#deriver.lastApply,
      holdUntil: this.#holdUntil,
      advertisedRoutes: this.#sb.schema?.tables.has(ADVERTISED_ROUTE_TABLE),
    };
  }

  #onBatch(db: OvnDb, batch: ChangeBatch): void {
    if (batch.reason === 'initial') this.#everSynced[db] = true;
    if (this.#queue.length === 0 && batch.changes.length > 0) this.#queuedAt = this.#clock.now();
    for (const c of batch.changes)
      this.#queue.push({ db, table: c.table, uuid: c.uuid, old: c.old, new: c.new });
    this.#schedule();
  }

  #schedule(): void {
    if (this.#flushTimer !== undefined || this.#queue.length === 0) return;
    this.#flushTimer = this.#clock.setTimeout(() => {
      this.#flushTimer = undefined;
      this.#flush();
    }, this.#init.coalesceMs ?? OVN_WATCHER_DEFAULTS.coalesceMs);
  }

  #flush(): void {
    // Derive only once both databases are filled: half a picture makes spurious problems.
    if (!this.#everSynced.nb || !this.#everSynced.sb || this.#state === 'closed') return;
    const changes = this.#queue;
    this.#queue = [];
    const t0 = performance.now();
    let diff = this.#deriver.apply(changes);
    this.#lastMs = performance.now() - t0;
    if (this.#withdrawn && this.#state === 'synced') {
      this.#withdrawn = false;
      diff = { announce: this.#deriver.advertisements, withdraw: [] };
    } else if (this.#withdrawn) {
      return;
    }
    const queuedAt = this.#queuedAt;
    this.#queuedAt = undefined;
    if (diff.announce.length === 0 && diff.withdraw.length === 0) return;
    this.#init.onChange(diff);
    if (queuedAt !== undefined) this.#lastChangeMs = this.#clock.now() - queuedAt;
  }

  #onStatus(): void {
    if (this.#state === 'closed') return;
    // A synced client holds its database's rows, even when there were none to send (an empty
    // database sends no initial batch).
    if (this.#nb.synced) this.#everSynced.nb = true;
    if (this.#sb.synced) this.#everSynced.sb = true;
    const up = this.#nb.synced && this.#sb.synced;
    if (up) {
      this.#clock.clearTimeout(this.#holdTimer);
      this.#holdTimer = undefined;
      this.#holdUntil = null;
      this.#state = 'synced';
      // Rows that came while the other database was still syncing are derived now.
      this.#schedule();
      if (this.#withdrawn && this.#queue.length === 0) {
        this.#withdrawn = false;
        const announce = this.#deriver.advertisements;
        if (announce.length > 0) this.#init.onChange({ announce, withdraw: [] });
      }
      return;
    }
    if (this.#state === 'synced') {
      const hold = this.#init.holdTimeMs ?? OVN_WATCHER_DEFAULTS.holdTimeMs;
      this.#state = 'holding';
      this.#holdUntil = this.#clock.now() + hold;
      this.#log?.warn({ holdMs: hold }, 'ovn: database lost, holding routes');
      this.#holdTimer = this.#clock.setTimeout(() => {
        this.#holdTimer = undefined;
        this.#holdUntil = null;
        this.#state = 'down';
        this.#withdrawn = true;
        const withdraw = this.#deriver.advertisements;
        this.#log?.warn({ routes: withdraw.length }, 'ovn: hold time over, routes withdrawn');
        if (withdraw.length > 0) this.#init.onChange({ announce: [], withdraw });
      }, hold);
    }
  }
}
