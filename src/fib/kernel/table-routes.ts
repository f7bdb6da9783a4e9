import type { RibPrefix } from '../../rib/index.js';
import { NlmFlag, RtmFlag } from './constants.js';
import type { RouteEvent } from './monitor.js';

/*
 * What a kernel table holds of the protocols we read, per prefix: the metrics it is there at.
 * The pure half of the table reader (table-reader.ts): no socket, no timer.
 *
 * The kernel keys a route by (prefix, tos, metric), so one prefix can be in a table at several
 * metrics at once. ovn-controller keeps one per prefix (100 where the tracked port is bound on
 * this chassis, 1000 elsewhere) and moves it by a delete and an add; a consumer that
 * advertises the prefix wants the lowest metric present, and may want the others.
 */

/** A prefix of the table and the metrics it is there at, lowest first: `metrics[0]` is the one that counts. */
export interface TableRoute {
  readonly prefix: RibPrefix;
  readonly metrics: readonly number[];
}

/**
 * A prefix whose metrics changed since the last report. `add`: it was not there (`before` is
 * empty); `remove`: it is gone (`metrics` is empty); `replace`: its set of metrics changed
 * (the lowest one, or only another one).
 */
export interface TableChange {
  readonly kind: 'add' | 'replace' | 'remove';
  readonly prefix: RibPrefix;
  readonly metrics: readonly number[];
  readonly before: readonly number[];
}

const NONE: readonly number[] = Object.freeze([]);

/**
 * How an added route may share its (prefix, metric) key with another route of the protocols
 * read, which decides whether one delete there empties the key.
 */
export const KeyShare = {
  /** Another may hold the key already: a dump entry, or a NEWROUTE (an append, or a replace of another's route). */
  BESIDE: 1,
  /** It has several next hops, which IPv6 deletes one at a time (a DELROUTE each). */
  MULTIPATH: 2,
} as const;

/**
 * One-metric sets shared by every prefix at that metric: a table of OVN's holds [100] and
 * [1000] ten thousand times, and each route then costs its map entry and one small object.
 */
const singles = new Map<number, readonly number[]>();
function single(metric: number): readonly number[] {
  let s = singles.get(metric);
  if (s === undefined) {
    s = Object.freeze([metric]);
    // Metrics are u32 and anyone can write any: keep the shared sets few.
    if (singles.size < 64) singles.set(metric, s);
  }
  return s;
}

function sameMetrics(a: readonly number[], b: readonly number[]): boolean {
  if (a === b) return true;
  if (a.length !== b.length) return false;
  for (let i = 0; i < a.length; i++) if (a[i] !== b[i]) return false;
  return true;
}

function withMetric(ms: readonly number[], metric: number): readonly number[] {
  let i = 0;
  while (i < ms.length && ms[i] < metric) i++;
  if (ms[i] === metric) return ms;
  return Object.freeze([...ms.slice(0, i), metric, ...ms.slice(i)]);
}

function withoutMetric(ms: readonly number[], metric: number): readonly number[] {
  const i = ms.indexOf(metric);
  if (i < 0) return ms;
  if (ms.length === 1) return NONE;
  if (ms.length === 2) return single(ms[1 - i]);
  return Object.freeze(ms.filter((m) => m !== metric));
}

/**
 * The routes of one table by prefix key, each an immutable TableRoute (replaced, never
 * changed, so a reported one stays true for whoever holds it). With `track`, every prefix
 * touched since the last `takeChanges` remembers what was last reported for it, so a burst
 * that adds and removes a route, or moves a metric away and back, reports nothing.
 */
export class TableRoutes {
  #routes = new Map<number | string, TableRoute>();
  /** Key → what the last report said of it (undefined: absent); only with `track`. */
  readonly #reported = new Map<number | string, TableRoute | undefined>();
  readonly #track: boolean;
  /** (prefix, metric) entries. */
  #entries = 0;
  /**
   * `${key}|${metric}` of the keys seen holding two routes we read, or one with several next
   * hops: a delete there may leave a route behind, so only a dump can tell. Rare: empty (and
   * never looked at) for ovn-controller's one blackhole per key.
   */
  #shared = new Set<string>();

  constructor(options: { readonly track: boolean } = { track: true }) {
    this.#track = options.track;
  }

  /** Prefixes held. */
  get size(): number {
    return this.#routes.size;
  }

  /** (prefix, metric) entries held: a prefix at two metrics counts twice. */
  get entries(): number {
    return this.#entries;
  }

  /** Prefixes touched since the last report (some may have come back to what was reported). */
  get touched(): number {
    return this.#reported.size;
  }

  /** Whether the prefix is there at `metric`. */
  holds(prefix: RibPrefix, metric: number): boolean {
    return this.#routes.get(prefix.key())?.metrics.includes(metric) === true;
  }

  get(prefix: RibPrefix): TableRoute | undefined {
    return this.#routes.get(prefix.key());
  }

  values(): IterableIterator<TableRoute> {
    return this.#routes.values();
  }

  /** The prefix is there at `metric`; `share` (KeyShare bits) says whether the key may hold more than this route. */
  add(prefix: RibPrefix, metric: number, share = 0): void {
    const key = prefix.key();
    const had = this.#routes.get(key);
    const metrics = had === undefined ? single(metric) : withMetric(had.metrics, metric);
    const present = had !== undefined && metrics === had.metrics;
    if (share & KeyShare.MULTIPATH || (present && share & KeyShare.BESIDE))
      this.#shared.add(`${key}|${metric}`);
    if (present) return;
    this.#note(key, had);
    this.#entries++;
    this.#routes.set(key, { prefix: had?.prefix ?? prefix, metrics });
  }

  /**
   * A route left the prefix's `metric`. False when the key was seen holding more than one
   * route (or next hop) of ours: then nothing is changed, and only a dump can say what is left.
   */
  remove(prefix: RibPrefix, metric: number): boolean {
    const key = prefix.key();
    if (this.#shared.size > 0 && this.#shared.has(`${key}|${metric}`)) return false;
    const had = this.#routes.get(key);
    if (had === undefined) return true;
    const metrics = withoutMetric(had.metrics, metric);
    if (metrics === had.metrics) return true;
    this.#note(key, had);
    this.#entries--;
    if (metrics.length === 0) this.#routes.delete(key);
    else this.#routes.set(key, { prefix: had.prefix, metrics });
    return true;
  }

  /**
   * Takes `fresh` (a dump, with the notifications that came during it) as the table: prefixes
   * that differ are touched, the others keep their objects. Nothing else changes, so a dump
   * after lost notifications reports only what really moved. `fresh` is emptied: its routes
   * are ours now.
   */
  adopt(fresh: TableRoutes): void {
    for (const [key, had] of this.#routes) {
      const now = fresh.#routes.get(key);
      if (now === undefined || !sameMetrics(now.metrics, had.metrics)) this.#note(key, had);
    }
    for (const [key, now] of fresh.#routes) {
      const had = this.#routes.get(key);
      if (had === undefined) this.#note(key, undefined);
      else if (sameMetrics(now.metrics, had.metrics)) fresh.#routes.set(key, had);
    }
    this.#routes = fresh.#routes;
    this.#entries = fresh.#entries;
    this.#shared = fresh.#shared;
    fresh.#routes = new Map();
    fresh.#entries = 0;
    fresh.#shared = new Set();
  }

  /** What changed since the last call, each prefix once; `[]` when everything came back as it was. */
  takeChanges(): TableChange[] {
    const out: TableChange[] = [];
    for (const [key, was] of this.#reported) {
      const now = this.#routes.get(key);
      const before = was?.metrics ?? NONE;
      const metrics = now?.metrics ?? NONE;
      if (sameMetrics(before, metrics)) continue;
      const kind = before.length === 0 ? 'add' : metrics.length === 0 ? 'remove' : 'replace';
      out.push({ kind, prefix: (now ?? was)!.prefix, metrics, before });
    }
    this.#reported.clear();
    return out;
  }

  /** Forgets what was touched: the current table counts as reported (after a full `sync`). */
  markReported(): void {
    this.#reported.clear();
  }

  #note(key: number | string, had: TableRoute | undefined): void {
    if (this.#track && !this.#reported.has(key)) this.#reported.set(key, had);
  }
}

/** Which rtm_protocol values are read: a 256-entry table, one load per notification. */
export class ProtocolSet {
  readonly #on = new Uint8Array(256);
  readonly list: readonly number[];

  constructor(protocols: Iterable<number>) {
    const list: number[] = [];
    for (const p of protocols) {
      if (this.#on[p] === 1) continue;
      this.#on[p] = 1;
      list.push(p);
    }
    this.list = list.sort((a, b) => a - b);
  }

  has(protocol: number): boolean {
    return this.#on[protocol] === 1;
  }
}

/** Whether a notification of the table can change what it holds of `protocols` (else it need not be kept). */
export function tableEventMatters(e: RouteEvent, protocols: ProtocolSet): boolean {
  if (e.route.flags & RtmFlag.CLONED) return false;
  return protocols.has(e.route.protocol) || (e.kind === 'new' && (e.flags & NlmFlag.REPLACE) !== 0);
}

/**
 * One notification of the table applied to `routes`:
 * - NEWROUTE of a protocol we read: the prefix is there at that metric;
 * - DELROUTE of a protocol we read: gone from that metric;
 * - cached clones (RTM_F_CLONED, IPv6 exceptions) are not routes of the table.
 * False when only a dump can tell what the key holds now, and nothing was changed:
 * - a DELROUTE at a key seen holding two routes of ours (an IPv4 append) or a multipath route
 *   (IPv6 deletes one next hop at a time, and the route stays with the others);
 * - a NEWROUTE with NLM_F_REPLACE of another protocol at a key of ours: it replaced the first
 *   route at the key (the kernel sends no DELROUTE for it), which is ours unless routes of
 *   other protocols, which we do not follow, sit there too.
 */
export function applyTableEvent(routes: TableRoutes, e: RouteEvent, protocols: ProtocolSet): boolean {
  const r = e.route;
  if (r.flags & RtmFlag.CLONED) return true;
  if (protocols.has(r.protocol)) {
    if (e.kind === 'del') return routes.remove(r.prefix, r.priority);
    // At a key held already: a second route there (an append; a replace that took another
    // protocol's route, first at the key, beside ours), or ours replaced, or the same one seen
    // by a dump too. Which, only a dump can tell.
    routes.add(r.prefix, r.priority, KeyShare.BESIDE | (r.nexthops.length > 1 ? KeyShare.MULTIPATH : 0));
    return true;
  }
  if (e.kind === 'new' && e.flags & NlmFlag.REPLACE) return !routes.holds(r.prefix, r.priority);
  return true;
}
