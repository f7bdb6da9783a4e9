import type { Clock, TimerHandle } from '../components/index.js';
import { NEXT_HOP_SELF } from '../config/index.js';
import type { LocalOrigin, LocalRoute } from './local-origin.js';

/** How long a route that left a table still holding others waits before it is withdrawn. */
export const ROUTE_TABLE_CONFIRM_MS = 1000;

/** The worst MED (RFC 4271 5.1.4: lower is better): a route on its way out loses to any other. */
export const MED_LEAVING = 0xffff_ffff;

/**
 * How the table's metric reaches the fabric. OVN's ovn-controller writes 100 where the port a
 * route tracks is bound on this chassis and 1000 elsewhere:
 * - `med`: the metric is the MED, as FRR's `redistribute table` carries it;
 * - `prepend`: routes above `localMetric` get our AS `prepend` more times (for fabrics that
 *   ignore MED, or where the chassis are in different ASes);
 * - `local-only`: only routes at or below `localMetric` are advertised at all.
 */
export type TablePreference = 'med' | 'prepend' | 'local-only';

export interface RouteTableOriginInit {
  /** What `show` and the logs call it: the router's name, or `table N`. */
  readonly name: string;
  readonly preference: TablePreference;
  /** A metric at or below this is "the tracked port is bound here" (OVN: 100). */
  readonly localMetric: number;
  /** AS_PATH prepends on remote routes in `prepend` mode. */
  readonly prepend: number;
  /**
   * How long a route that left the table stays advertised (as MED_LEAVING) while the table is
   * empty (ovn-controller restarting, the gateway moved away): 0 withdraws at once.
   */
  readonly holdTimeMs: number;
  /**
   * After this long, a route that left a table still holding others (ovn-controller is there
   * and removed just this one: a NAT deleted) is withdrawn; default 1000. A restarting
   * ovn-controller empties the whole table within it.
   */
  readonly confirmMs?: number;
  readonly communities?: readonly number[];
  readonly largeCommunities?: readonly (readonly [number, number, number])[];
  /**
   * Whether a prefix is a network connected on this host (the provider network the gateway
   * port shares with us): not advertised, as zebra's connected route wins over the table's and
   * FRR never redistributes it, and the fabric holds it connected anyway.
   */
  readonly connected?: (prefix: string) => boolean;
}

/** One prefix as the table and the origin see it. */
export interface TableRouteView {
  readonly prefix: string;
  /** The metrics of the table's routes for the prefix (several while ovn-controller moves one). */
  readonly metrics: readonly number[];
  /** advertised; held: gone from the table, still advertised until `until`; skipped: local-only, or connected here. */
  readonly state: 'advertised' | 'held' | 'skipped';
  readonly med?: number;
  readonly prepend?: number;
  /** Milliseconds (clock time) when a held route is withdrawn. */
  readonly until?: number;
}

interface Held {
  readonly route: LocalRoute;
  readonly until: number;
}

/**
 * A kernel routing table as an origin of routes, the job FRR's `ip import-table N` +
 * `redistribute table N` does on an OVN 25.03 chassis: every route of the table (the reader
 * passes only ovn-controller's protocol) is advertised with us as next hop and its metric made
 * into something the fabric acts on.
 *
 * A route that leaves the table is at once advertised with the worst MED, so the fabric moves
 * to a better path as soon as one exists. If the table still holds other routes `confirmMs`
 * later, ovn-controller removed just this one and it is withdrawn. If the table is empty then
 * (ovn-controller restarting flushes and refills it; a gateway moving to another chassis
 * empties it here), the route stays until `holdTimeMs` has passed or it is back: the fabric
 * never sees a withdrawal while ovn-controller restarts.
 */
export class RouteTableOrigin {
  readonly #init: RouteTableOriginInit;
  readonly #origin: LocalOrigin;
  readonly #clock: Clock;
  /** Prefix -> metrics present in the table. */
  readonly #table = new Map<string, number[]>();
  /** Prefix -> the route we hold although the table lost it; in order of their deadlines. */
  readonly #held = new Map<string, Held>();
  /** What the origin holds for us, by prefix (to withdraw only ours, and for `show`). */
  readonly #advertised = new Map<string, LocalRoute>();
  /** Held prefixes not yet confirmed gone for good, with when to look, in that order. */
  readonly #unconfirmed = new Map<string, number>();
  #timer: TimerHandle | undefined;
  #confirmTimer: TimerHandle | undefined;

  constructor(init: RouteTableOriginInit, origin: LocalOrigin, clock: Clock) {
    this.#init = init;
    this.#origin = origin;
    this.#clock = clock;
  }

  get name(): string {
    return this.#init.name;
  }

  /** A route of the table appeared (or another metric for a prefix it had). */
  add(tablePrefix: string, metric: number): void {
    const metrics = this.#table.get(hostRoute(tablePrefix)) ?? [];
    if (!metrics.includes(metric)) this.set(tablePrefix, [...metrics, metric]);
  }

  /** A route of the table went. */
  remove(tablePrefix: string, metric: number): void {
    const metrics = this.#table.get(hostRoute(tablePrefix));
    if (metrics?.includes(metric))
      this.set(
        tablePrefix,
        metrics.filter((m) => m !== metric),
      );
  }

  /** The metrics the table holds a prefix at now; none: it left the table. */
  set(tablePrefix: string, metrics: readonly number[]): void {
    const prefix = hostRoute(tablePrefix);
    const before = this.#table.get(prefix);
    if (metrics.length === 0) {
      if (!before) return;
      this.#table.delete(prefix);
      this.#leave(prefix);
      return;
    }
    this.#table.set(prefix, [...metrics]);
    this.#unconfirmed.delete(prefix);
    if (this.#held.delete(prefix) || !before || !sameSet(before, metrics)) this.#publish(prefix);
  }

  /** The table as a whole (a first read, a new table, a read after lost notifications). */
  replaceAll(routes: Iterable<{ readonly prefix: string; readonly metrics: readonly number[] }>): void {
    const next = new Map<string, readonly number[]>();
    for (const r of routes) next.set(hostRoute(r.prefix), r.metrics);
    for (const prefix of [...this.#table.keys()]) if (!next.has(prefix)) this.set(prefix, []);
    for (const [prefix, metrics] of next) this.set(prefix, metrics);
  }

  /** Every route of this origin leaves now (the table is no longer followed). */
  withdrawAll(): void {
    this.#clock.clearTimeout(this.#timer);
    this.#clock.clearTimeout(this.#confirmTimer);
    this.#timer = undefined;
    this.#confirmTimer = undefined;
    this.#unconfirmed.clear();
    for (const prefix of this.#advertised.keys()) this.#origin.withdraw(prefix);
    this.#advertised.clear();
    this.#held.clear();
    this.#table.clear();
  }

  /** Each prefix of the table or held, with what is advertised for it. */
  view(): TableRouteView[] {
    const out: TableRouteView[] = [];
    for (const [prefix, metrics] of this.#table) {
      const r = this.#advertised.get(prefix);
      out.push({
        prefix,
        metrics: [...metrics].sort((a, b) => a - b),
        state: r ? 'advertised' : 'skipped',
        ...(r?.med !== undefined && { med: r.med }),
        ...(r?.prepend && { prepend: r.prepend }),
      });
    }
    for (const [prefix, h] of this.#held)
      out.push({
        prefix,
        metrics: [],
        state: 'held',
        ...(h.route.med !== undefined && { med: h.route.med }),
        ...(h.route.prepend && { prepend: h.route.prepend }),
        until: h.until,
      });
    return out.sort((a, b) => (a.prefix < b.prefix ? -1 : a.prefix > b.prefix ? 1 : 0));
  }

  /** Counts for `show` and metrics. */
  counts(): { table: number; advertised: number; held: number } {
    return { table: this.#table.size, advertised: this.#advertised.size, held: this.#held.size };
  }

  #publish(prefix: string): void {
    const metrics = this.#table.get(prefix);
    if (!metrics) return;
    const route = this.#routeFor(prefix, Math.min(...metrics));
    if (route) this.#announce(route);
    else this.#withdraw(prefix);
  }

  /** What the prefix is advertised as at this metric; null where local-only leaves it out. */
  #routeFor(prefix: string, metric: number): LocalRoute | null {
    const i = this.#init;
    const local = metric <= i.localMetric;
    if (i.preference === 'local-only' && !local) return null;
    if (i.connected?.(prefix)) return null;
    return {
      prefix,
      nextHop: NEXT_HOP_SELF,
      ...(i.preference === 'med' && { med: metric }),
      ...(i.preference === 'prepend' && !local && i.prepend > 0 && { prepend: i.prepend }),
      ...(i.communities && { communities: i.communities }),
      ...(i.largeCommunities && { largeCommunities: i.largeCommunities }),
    };
  }

  /** The table lost the prefix: hold it (worst MED) for holdTimeMs, or withdraw it now. */
  #leave(prefix: string): void {
    const route = this.#advertised.get(prefix);
    if (!route) return;
    if (this.#init.holdTimeMs <= 0) {
      this.#withdraw(prefix);
      return;
    }
    const leaving = { ...route, med: MED_LEAVING };
    this.#announce(leaving);
    const now = this.#clock.now();
    this.#held.set(prefix, { route: leaving, until: now + this.#init.holdTimeMs });
    this.#unconfirmed.set(prefix, now + (this.#init.confirmMs ?? ROUTE_TABLE_CONFIRM_MS));
    this.#arm();
    this.#armConfirm();
  }

  #armConfirm(): void {
    if (this.#confirmTimer !== undefined) return;
    const first = this.#unconfirmed.values().next();
    if (first.done) return;
    this.#confirmTimer = this.#clock.setTimeout(
      () => {
        this.#confirmTimer = undefined;
        this.#confirm();
      },
      Math.max(0, first.value - this.#clock.now()),
    );
  }

  /** A table that kept other routes lost these ones for good: withdraw; an empty one: keep holding. */
  #confirm(): void {
    const now = this.#clock.now();
    const emptied = this.#table.size === 0;
    for (const [prefix, at] of this.#unconfirmed) {
      if (at > now) break;
      this.#unconfirmed.delete(prefix);
      if (emptied || !this.#held.delete(prefix)) continue;
      this.#withdraw(prefix);
    }
    this.#armConfirm();
  }

  #announce(route: LocalRoute): void {
    this.#origin.announce(route);
    this.#advertised.set(route.prefix, route);
  }

  #withdraw(prefix: string): void {
    if (!this.#advertised.delete(prefix)) return;
    this.#origin.withdraw(prefix);
  }

  /** One timer for the earliest deadline: every hold is as long, so the first held expires first. */
  #arm(): void {
    if (this.#timer !== undefined) return;
    const first = this.#held.values().next();
    if (first.done) return;
    this.#timer = this.#clock.setTimeout(
      () => {
        this.#timer = undefined;
        this.#expire();
      },
      Math.max(0, first.value.until - this.#clock.now()),
    );
  }

  #expire(): void {
    const now = this.#clock.now();
    for (const [prefix, h] of this.#held) {
      if (h.until > now) break;
      this.#held.delete(prefix);
      this.#unconfirmed.delete(prefix);
      this.#withdraw(prefix);
    }
    this.#arm();
  }
}

/** The kernel prints and OVN writes host routes without a length; the RIB wants one. */
export function hostRoute(prefix: string): string {
  if (prefix.includes('/')) return prefix;
  return prefix.includes(':') ? `${prefix}/128` : `${prefix}/32`;
}

function sameSet(a: readonly number[], b: readonly number[]): boolean {
  return a.length === b.length && a.every((x) => b.includes(x));
}
