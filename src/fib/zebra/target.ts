import { Writer } from '../../bgp/wire/index.js';
import { type Clock, type Logger, silentLogger, systemClock } from '../../components/index.js';
import type { RibPrefix } from '../../rib/index.js';
import { type IfindexOf, sysfsIfindex } from '../link-local.js';
import type { FibChange, FibRoute, FibTarget } from '../route.js';
import { prefixText } from './address.js';
import { ZapiClient } from './client.js';
import type { ZebraComponents } from './components.js';
import { NOTIFY_OWNER_NAMES, NotifyOwner, ZEBRA_DEFAULTS } from './constants.js';
import { convertible, type RouteOwner, routeKey, toZapiRoute, zapiPrefix } from './convert.js';
import type { ZapiDialect } from './dialect.js';
import { ZapiError } from './errors.js';
import type { ZapiCapabilities, ZapiNotifyOwner } from './messages.js';
import { writeRouteAdd, writeRouteDelete } from './route-message.js';

export interface ZebraTargetInit {
  /** zebra's zserv socket path. */
  readonly socket: string;
  /** Our instance of route type BGP; default 1 (bgpd is instance 0). */
  readonly instance?: number;
  /** Administrative distance of our routes; default 20 (eBGP). */
  readonly distance?: number;
  /** Route metric; default 0. */
  readonly metric?: number;
  /** Let zebra resolve next hops recursively (bgpd does for iBGP and multihop); default false. */
  readonly allowRecursion?: boolean;
  readonly reconnectInitialMs?: number;
  readonly reconnectMaxMs?: number;
  readonly reconnectJitter?: number;
  readonly handshakeTimeoutMs?: number;
}

/**
 * What zebra last told us about a prefix. `pending`: sent, no word yet. The rest are
 * ROUTE_NOTIFY_OWNER notes; `unencodable` is ours (the route could not be put on the wire).
 */
export type ZebraRouteState =
  | 'pending'
  | 'installed'
  | 'fail-install'
  | 'better-admin-won'
  | 'removed'
  | 'remove-fail'
  | 'unencodable';

export interface ZebraRouteEvent {
  readonly prefix: string;
  readonly state: ZebraRouteState;
}

export interface ZebraStatus {
  readonly connected: boolean;
  readonly socket: string;
  readonly instance: number;
  /** Routes we hold (and replay after every reconnect). */
  readonly routes: number;
  readonly installed: number;
  readonly pending: number;
  /** Prefixes zebra did not install as ours, with the reason. */
  readonly failed: readonly ZebraRouteEvent[];
  /** Sessions that came up; more than one means zebra (or the socket) was lost and regained. */
  readonly sessions: number;
  /** The ZAPI dialect of the current (or last) session: "FRR 10.3" or "FRR 8.4". */
  readonly zapi?: string;
  readonly multipathNum?: number;
  readonly routerId?: string;
  readonly lastError?: string;
}

interface Held {
  route: FibRoute;
  state: ZebraRouteState;
}

/** Routes encoded and written per turn (about 30 ms of encoding at the rate bench/fib measured). */
const SEND_SLICE = 8192;

const NOTE_STATE: Record<number, ZebraRouteState> = {
  [NotifyOwner.FAIL_INSTALL]: 'fail-install',
  [NotifyOwner.BETTER_ADMIN_WON]: 'better-admin-won',
  [NotifyOwner.INSTALLED]: 'installed',
  [NotifyOwner.REMOVED]: 'removed',
  [NotifyOwner.REMOVE_FAIL]: 'remove-fail',
};

/**
 * Programs our best paths into FRR's zebra as routes of type BGP, instance `instance`.
 *
 * zebra keeps a client's routes only while its socket is open, and has no way to dump them to
 * the client: so this target holds every route it was given, and sends all of them again on each
 * new session. `reconcile` therefore equals a replay plus deletes of what we no longer want.
 */
export class ZebraTarget implements FibTarget {
  readonly name = 'zebra';
  /** How our routes are ranked; the route type's number comes with the session's dialect. */
  readonly #ranking: Omit<RouteOwner, 'routeType'>;
  /** The session's dialect and our owner key in its numbering; undefined while none is up. */
  #session: { readonly dialect: ZapiDialect; readonly owner: RouteOwner } | undefined;
  readonly #socketPath: string;
  readonly #client: ZapiClient;
  readonly #log: Logger;
  readonly #clock: Clock;
  readonly #held = new Map<string, Held>();
  /** Routes we could not encode: kept out of zebra, shown in status. */
  readonly #rejected = new Map<string, string>();
  /** The indexes of the interfaces of link-local next hops, as read for the slice being encoded. */
  readonly #ifindexes = new Map<string, number | undefined>();
  readonly #readIfindex: IfindexOf;
  readonly #ifindexOf: IfindexOf = (name) => {
    if (!this.#ifindexes.has(name)) this.#ifindexes.set(name, this.#readIfindex(name));
    return this.#ifindexes.get(name);
  };
  readonly #listeners = new Set<(e: ZebraRouteEvent) => void>();
  /** Causes already logged this session: each is logged once, the rest are counted in status(). */
  readonly #loggedCauses = new Set<ZebraRouteState>();
  #caps: ZapiCapabilities | undefined;
  #routerId: string | undefined;
  #closed = false;
  #upWaiters: (() => void)[] = [];

  constructor(init: ZebraTargetInit, components: ZebraComponents = {}) {
    this.#socketPath = init.socket;
    this.#log = components.logger ?? silentLogger;
    this.#clock = components.clock ?? systemClock;
    this.#readIfindex = components.ifindexOf ?? sysfsIfindex;
    this.#ranking = {
      instance: checkRange('instance', init.instance ?? ZEBRA_DEFAULTS.instance, 1, 0xffff),
      distance: checkRange('distance', init.distance ?? ZEBRA_DEFAULTS.distance, 1, 255),
      metric: checkRange('metric', init.metric ?? ZEBRA_DEFAULTS.metric, 0, 0xffffffff),
      allowRecursion: init.allowRecursion ?? false,
    };
    this.#client = new ZapiClient(
      {
        socketPath: init.socket,
        // Type BGP so zebra and the kernel say `proto bgp` and rank us as bgpd's routes.
        routeType: 'BGP',
        instance: this.#ranking.instance,
        backoff: {
          initialMs: init.reconnectInitialMs ?? ZEBRA_DEFAULTS.reconnectInitialMs,
          maxMs: init.reconnectMaxMs ?? ZEBRA_DEFAULTS.reconnectMaxMs,
          jitter: init.reconnectJitter ?? ZEBRA_DEFAULTS.reconnectJitter,
        },
        handshakeTimeoutMs: init.handshakeTimeoutMs ?? ZEBRA_DEFAULTS.handshakeTimeoutMs,
      },
      {
        up: (caps, dialect) => this.#onUp(caps, dialect),
        down: () => this.#onDown(),
        notify: (n) => this.#onNotify(n),
        routerId: (r) => {
          this.#routerId = r.prefix.addr;
        },
      },
      components,
    );
  }

  /** Starts connecting (and reconnecting after every loss) in the background. */
  start(): void {
    this.#client.start();
  }

  /** Resolves once a session is up; rejects after `timeoutMs`. */
  ready(timeoutMs: number): Promise<void> {
    if (this.#client.state === 'up') return Promise.resolve();
    return new Promise((resolve, reject) => {
      const t = this.#clock.setTimeout(() => {
        this.#upWaiters = this.#upWaiters.filter((w) => w !== done);
        reject(
          new ZapiError(
            'not-connected',
            `zebra at ${this.#socketPath} not up within ${timeoutMs} ms${this.#client.lastError ? ` (${this.#client.lastError.message})` : ''}`,
          ),
        );
      }, timeoutMs);
      const done = () => {
        this.#clock.clearTimeout(t);
        resolve();
      };
      this.#upWaiters.push(done);
    });
  }

  /** Calls `listener` on every change of a prefix's state; returns the unsubscribe function. */
  onRouteState(listener: (e: ZebraRouteEvent) => void): () => void {
    this.#listeners.add(listener);
    return () => this.#listeners.delete(listener);
  }

  /** The state of one prefix, or undefined when we do not hold it. */
  routeState(prefix: RibPrefix): ZebraRouteState | undefined {
    const key = routeKey(prefix);
    return this.#held.get(key)?.state ?? (this.#rejected.has(key) ? 'unencodable' : undefined);
  }

  notInstalled(limit: number): { prefix: string; reason: string }[] {
    return this.status()
      .failed.slice(0, limit)
      .map((f) => ({ prefix: f.prefix, reason: `zebra: ${f.state}` }));
  }

  status(): ZebraStatus {
    let installed = 0;
    let pending = 0;
    const failed: ZebraRouteEvent[] = [];
    for (const [prefix, h] of this.#held) {
      if (h.state === 'installed') installed++;
      else if (h.state === 'pending') pending++;
      else failed.push({ prefix, state: h.state });
    }
    for (const prefix of this.#rejected.keys()) failed.push({ prefix, state: 'unencodable' });
    const lastError = this.#client.lastError?.message;
    return {
      connected: this.#client.state === 'up',
      socket: this.#socketPath,
      instance: this.#ranking.instance,
      routes: this.#held.size,
      installed,
      pending,
      failed,
      sessions: this.#client.sessions,
      ...(this.#client.dialect && { zapi: this.#client.dialect.name }),
      ...(this.#caps && { multipathNum: this.#caps.multipathNum }),
      ...(this.#routerId !== undefined && { routerId: this.#routerId }),
      ...(lastError !== undefined && { lastError }),
    };
  }

  /**
   * Records the changes and sends them; resolves once the socket has taken them. While zebra is
   * away it rejects with `not-connected`, the changes still recorded: the next session replays them.
   */
  async apply(changes: readonly FibChange[]): Promise<void> {
    this.#checkOpen();
    await this.#sendInSlices(changes.length, (w, i) => {
      const c = changes[i];
      if (c.kind === 'add') this.#add(w, c.route);
      else this.#withdraw(w, c.prefix);
    });
  }

  /** Makes our routes in zebra exactly `all`: every one (re)sent, the rest of ours deleted. */
  async reconcile(all: readonly FibRoute[]): Promise<void> {
    this.#checkOpen();
    const wanted = new Set(all.map((r) => routeKey(r.prefix)));
    const stale = [...this.#held].filter(([key]) => !wanted.has(key)).map(([, h]) => h.route.prefix);
    for (const key of [...this.#rejected.keys()]) if (!wanted.has(key)) this.#rejected.delete(key);
    await this.#sendInSlices(stale.length + all.length, (w, i) => {
      if (i < stale.length) this.#withdraw(w, stale[i]);
      else this.#add(w, all[i - stale.length]);
    });
  }

  /**
   * Records and encodes items [0, count) a slice at a time, each slice written before the next
   * is encoded: a full table is not encoded in one turn of the event loop (keepalives wait
   * behind it), and the socket's own pace sets ours. Every item is recorded even when zebra is
   * away or goes away on the way (then the first failure is thrown): the next session replays.
   */
  async #sendInSlices(count: number, encode: (w: Writer, i: number) => void): Promise<void> {
    let failure: unknown;
    // At least one round, so that nothing to send still says whether zebra is there.
    for (let from = 0; from < count || from === 0; from += SEND_SLICE) {
      const to = Math.min(count, from + SEND_SLICE);
      const w = new Writer(Math.max(64, (to - from) * 48));
      // Interfaces come and go: their indexes are read afresh for each slice, once each.
      this.#ifindexes.clear();
      for (let i = from; i < to; i++) encode(w, i);
      if (failure !== undefined) continue;
      try {
        await this.#send(w);
      } catch (error) {
        failure = error;
      }
    }
    if (failure !== undefined) throw failure;
  }

  /**
   * Closes the session. zebra removes every route of (BGP, instance) at once: nothing of ours
   * outlives the speaker (keeping them would need ZAPI graceful restart, which we do not do).
   */
  async close(): Promise<void> {
    this.#closed = true;
    await this.#client.close();
  }

  #checkOpen(): void {
    if (this.#closed) throw new ZapiError('closed', 'the zebra target is closed');
  }

  get #up(): boolean {
    return this.#client.state === 'up';
  }

  /** The session to encode for, while one is up. */
  get #live(): { readonly dialect: ZapiDialect; readonly owner: RouteOwner } | undefined {
    return this.#up ? this.#session : undefined;
  }

  #add(w: Writer, route: FibRoute): void {
    const key = routeKey(route.prefix);
    const reason = convertible(route, this.#ifindexOf);
    if (reason !== undefined) {
      this.#reject(w, key, route.prefix, reason);
      return;
    }
    try {
      const s = this.#live;
      if (s)
        writeRouteAdd(
          w,
          s.dialect,
          toZapiRoute(route, s.owner, this.#caps?.multipathNum ?? 1, this.#ifindexOf),
        );
    } catch (err) {
      this.#reject(w, key, route.prefix, (err as Error).message);
      return;
    }
    this.#rejected.delete(key);
    this.#held.set(key, { route, state: 'pending' });
    this.#emit(key, 'pending');
  }

  /** A route we cannot send replaces what we had: so the old one must go from zebra too. */
  #reject(w: Writer, key: string, prefix: RibPrefix, reason: string): void {
    if (this.#held.has(key)) this.#withdraw(w, prefix);
    this.#rejected.set(key, reason);
    this.#logCause('unencodable', key, reason);
    this.#emit(key, 'unencodable');
  }

  #withdraw(w: Writer, prefix: RibPrefix): void {
    const key = routeKey(prefix);
    this.#rejected.delete(key);
    if (!this.#held.delete(key)) return;
    const s = this.#live;
    if (s)
      writeRouteDelete(w, s.dialect, {
        type: s.owner.routeType,
        instance: s.owner.instance,
        flags: 0,
        safi: 1,
        prefix: zapiPrefix(prefix),
      });
  }

  async #send(w: Writer): Promise<void> {
    if (!this.#up)
      throw new ZapiError(
        'not-connected',
        `zebra at ${this.#socketPath} is not connected; changes kept for replay`,
      );
    if (w.pos > 0) await this.#client.write(w.finish());
  }

  #onUp(caps: ZapiCapabilities, dialect: ZapiDialect): void {
    this.#caps = caps;
    this.#session = { dialect, owner: { ...this.#ranking, routeType: dialect.routeType.BGP } };
    this.#loggedCauses.clear();
    // zebra dropped everything of ours when the last session went: send it all again, a slice
    // per turn. A route an apply has replaced or withdrawn meanwhile was written by that apply.
    const routes = [...this.#held.values()].map((h) => h.route);
    this.#sendInSlices(routes.length, (w, i) => {
      const r = routes[i];
      if (this.#held.get(routeKey(r.prefix))?.route === r) this.#add(w, r);
    }).catch((err: Error) => {
      this.#log.warn({ err: err.message }, 'zebra: replay interrupted; it is retried on the next session');
    });
    this.#log.info({ routes: routes.length }, 'zebra: replaying our routes');
    for (const done of this.#upWaiters.splice(0)) done();
  }

  #onDown(): void {
    for (const [key, h] of this.#held)
      if (h.state !== 'pending') {
        h.state = 'pending';
        this.#emit(key, 'pending');
      }
  }

  #onNotify(n: ZapiNotifyOwner): void {
    const key = prefixText(n.prefix);
    const h = this.#held.get(key);
    const state = NOTE_STATE[n.note];
    // A REMOVED for a prefix we withdrew is the expected answer; nothing to track.
    if (h === undefined || state === undefined) return;
    h.state = state;
    if (state !== 'installed') this.#logCause(state, key, NOTIFY_OWNER_NAMES.get(n.note) ?? String(n.note));
    this.#emit(key, state);
  }

  #logCause(state: ZebraRouteState, prefix: string, detail: string): void {
    if (this.#loggedCauses.has(state)) return;
    this.#loggedCauses.add(state);
    this.#log.warn(
      { prefix, state, detail },
      `zebra: route not installed as ours (${state}); further ${state} routes are listed in status() only`,
    );
  }

  #emit(prefix: string, state: ZebraRouteState): void {
    for (const l of [...this.#listeners]) {
      try {
        l({ prefix, state });
      } catch (err) {
        this.#log.error({ err: (err as Error).message }, 'zebra: route-state listener threw');
      }
    }
  }
}

function checkRange(name: string, v: number, min: number, max: number): number {
  if (!Number.isInteger(v) || v < min || v > max)
    throw new ZapiError('unencodable', `${name} ${v} not in ${min}..${max}`);
  return v;
}
