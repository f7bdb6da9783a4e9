import type { RibPrefix } from '../../rib/index.js';
import type { FibChange, FibNextHop, FibRoute } from '../route.js';
import type { NexthopSet, NexthopSets } from './nexthop-set.js';
import type { NextHopResolver } from './resolve.js';
import { familyOf } from './route-message.js';

/** A route we want in our table. */
export interface Wanted {
  readonly prefix: RibPrefix;
  readonly set: NexthopSet;
  readonly priority: number;
  /** The BGP next hops `set` was resolved from; absent for a route adopted from a previous run. */
  readonly hops?: readonly FibNextHop[];
}

/** A route a dump of our table found (any protocol). */
export interface Found {
  readonly prefix: RibPrefix;
  readonly protocol: number;
  readonly priority: number;
  readonly canon: string;
  /** Routes on a nexthop object are never taken as equal to ours (we install plain next hops). */
  readonly nhId?: number;
}

export type RouteOp =
  /** NLM_F_CREATE|NLM_F_EXCL: fails with EEXIST rather than replace a route we do not own. */
  | { readonly kind: 'create'; readonly want: Wanted }
  /** NLM_F_CREATE|NLM_F_REPLACE of a route of ours at the same (prefix, metric). */
  | { readonly kind: 'replace'; readonly want: Wanted }
  /** RTM_DELROUTE with our protocol and that metric: the kernel deletes only ours. */
  | { readonly kind: 'delete'; readonly prefix: RibPrefix; readonly priority: number };

export interface ReconcilePlan {
  /** Deletes first, then replaces, then creates. */
  readonly ops: readonly RouteOp[];
  /** Already in the kernel exactly as wanted. */
  readonly keep: readonly Wanted[];
  /** Another protocol's route holds the same (prefix, metric) in our table: left alone. */
  readonly conflicts: readonly Wanted[];
}

/**
 * What makes our routes in the table exactly `wanted`: ours (by protocol) not wanted, or at
 * another metric, are deleted; ours that differ are replaced; missing ones are created. The
 * kernel keys a route by (prefix, tos, metric), so a route of another protocol at the same key
 * would be overwritten by a replace: such prefixes are reported, never written.
 */
export function planReconcile(
  wanted: ReadonlyMap<number | string, Wanted>,
  found: readonly Found[],
  protocol: number,
): ReconcilePlan {
  const steps = planInSteps(wanted, found, protocol);
  for (;;) {
    const step = steps.next();
    if (step.done) return step.value;
  }
}

/**
 * planReconcile worked out `slice` entries at a time: it yields between slices, so a caller
 * with a million routes to plan can let the event loop run (keepalives) before the next one.
 */
export function* planInSteps(
  wanted: ReadonlyMap<number | string, Wanted>,
  found: readonly Found[],
  protocol: number,
  slice = 16_384,
): Generator<void, ReconcilePlan> {
  let n = 0;
  const ours = new Map<number | string, Found[]>();
  const foreign = new Set<string>();
  for (const f of found) {
    if (++n % slice === 0) yield;
    const key = f.prefix.key();
    if (f.protocol === protocol) {
      const list = ours.get(key);
      if (list) list.push(f);
      else ours.set(key, [f]);
    } else foreign.add(`${key}|${f.priority}`);
  }
  const deletes: RouteOp[] = [];
  const replaces: RouteOp[] = [];
  const creates: RouteOp[] = [];
  const keep: Wanted[] = [];
  const conflicts: Wanted[] = [];
  for (const [key, list] of ours) {
    if (++n % slice === 0) yield;
    const w = wanted.get(key);
    let matched = false;
    for (const f of list) {
      // The first of ours at the wanted metric is compared below; any other one goes.
      if (w && f.priority === w.priority && !matched) matched = true;
      else deletes.push({ kind: 'delete', prefix: f.prefix, priority: f.priority });
    }
  }
  for (const [key, w] of wanted) {
    if (++n % slice === 0) yield;
    const at = ours.get(key)?.find((f) => f.priority === w.priority);
    const taken = foreign.has(`${key}|${w.priority}`);
    if (at) {
      if (at.canon === w.set.canon && at.nhId === undefined) keep.push(w);
      else if (taken) {
        // A replace could hit their route rather than ours: remove ours, leave theirs.
        deletes.push({ kind: 'delete', prefix: at.prefix, priority: at.priority });
        conflicts.push(w);
      } else replaces.push({ kind: 'replace', want: w });
    } else if (taken) conflicts.push(w);
    else creates.push({ kind: 'create', want: w });
  }
  return { ops: [...deletes, ...replaces, ...creates], keep, conflicts };
}

/** What planning a batch of changes reads and records: the mirror of our routes (owned.ts). */
export interface RouteBook {
  get(key: number | string): Wanted | undefined;
  /** The metric our route for the prefix has in the kernel. */
  priority(prefix: RibPrefix): number;
  /** Records that the route cannot go in, and why (kept to be tried again when a next hop moves). */
  fail(key: number | string, prefix: RibPrefix, reason: string, route: FibRoute): void;
  /** The prefix has no problem any more. */
  settle(key: number | string): void;
}

/**
 * The writes that make changes [from, to) hold: an add replaces our route (or creates it), a
 * withdraw deletes ours; what needs no write (a route that cannot go in, an add that changes
 * nothing) is recorded in `book`. `fresh` hears of every prefix planned anew.
 */
export function planChanges(
  changes: readonly FibChange[],
  from: number,
  to: number,
  book: RouteBook,
  wanted: WantedRoutes,
  fresh: (key: number | string) => void,
): RouteOp[] {
  const ops: RouteOp[] = [];
  for (let i = from; i < to; i++) {
    const c = changes[i];
    const prefix = c.kind === 'add' ? c.route.prefix : c.prefix;
    const key = prefix.key();
    fresh(key);
    const have = book.get(key);
    if (c.kind === 'withdraw') {
      book.settle(key);
      if (have) ops.push({ kind: 'delete', prefix, priority: book.priority(prefix) });
      continue;
    }
    const want = wanted.of(c.route);
    if ('reason' in want) {
      book.fail(key, prefix, want.reason, c.route);
      if (have) ops.push({ kind: 'delete', prefix, priority: book.priority(prefix) });
      continue;
    }
    book.settle(key);
    // Interned sets: the same object means the same next hops (a MED change, say).
    if (have?.set === want.set) continue;
    ops.push(have ? { kind: 'replace', want } : { kind: 'create', want });
  }
  return ops;
}

/**
 * A FibRoute as the route we want in the kernel: its next hops resolved (through the
 * resolver's cache) into an interned next-hop set, or why none resolves. Routes come in runs
 * that share one next-hop list, so the last list's set is kept and a run resolves once.
 */
export class WantedRoutes {
  readonly #sets: NexthopSets;
  readonly #priority: (prefix: RibPrefix) => number;
  #resolver: NextHopResolver | undefined;
  #last:
    | {
        readonly hops: readonly FibNextHop[];
        readonly family: number;
        readonly set: NexthopSet | { readonly reason: string };
      }
    | undefined;

  constructor(sets: NexthopSets, priority: (prefix: RibPrefix) => number) {
    this.#sets = sets;
    this.#priority = priority;
  }

  /** Resolves through `resolver` from now on (a new socket's). */
  use(resolver: NextHopResolver): void {
    this.#resolver = resolver;
    this.#last = undefined;
  }

  /** Forgets the last list's set: next hops may resolve otherwise now. */
  forget(): void {
    this.#last = undefined;
  }

  of(route: FibRoute): Wanted | { readonly reason: string } {
    const family = familyOf(route.prefix);
    const last = this.#last;
    let set: NexthopSet | { readonly reason: string };
    if (last !== undefined && last.hops === route.nextHops && last.family === family) set = last.set;
    else {
      const r = this.#resolver!.nexthopsFor(family, route.nextHops);
      set = 'reason' in r ? r : this.#sets.get(family, r.nexthops);
      this.#last = { hops: route.nextHops, family, set };
    }
    if ('reason' in set) return set;
    return { prefix: route.prefix, set, priority: this.#priority(route.prefix), hops: route.nextHops };
  }
}
