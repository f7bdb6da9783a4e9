import type { Row } from '../ovsdb/index.js';
import { UNITS, type UnitResult } from './derive-kinds.js';
import { OvnStore, Reader, type TableRef } from './store.js';
import {
  type Advertisement,
  type AdvertisementDiff,
  OVN_ROUTE_KINDS,
  type OvnDb,
  type OvnDeriveConfig,
  type OvnProblem,
} from './types.js';

/*
 * Incremental derivation. Each root row (NAT, Logical_Router, Logical_Switch_Port,
 * Logical_Switch) is a unit whose result and read keys are kept; a row change touches keys,
 * touched keys name the units to compute again, and only the prefixes those units gave or give
 * are settled again. From scratch is the same thing starting from an empty store.
 *
 *   change batch ─► store (rows + indexes) ─► touched keys ─► dirty units ─► candidates
 *                                                                               │ per prefix
 *                                              diff {announce, withdraw} ◄── winner
 */

/** One row change, as OvsdbClient batches carry them, with the database it came from. */
export interface OvnRowChange {
  readonly db: OvnDb;
  readonly table: string;
  readonly uuid: string;
  readonly old: Row | null;
  readonly new: Row | null;
}

/** Whole NB and SB tables (e.g. `client.table(name)` of each replica), by table name. */
export interface OvnSnapshot {
  readonly nb: Readonly<Record<string, ReadonlyMap<string, Row>>>;
  readonly sb: Readonly<Record<string, ReadonlyMap<string, Row>>>;
}

export interface DerivationResult {
  readonly advertisements: Advertisement[];
  readonly problems: OvnProblem[];
}

/** What the last apply() cost. */
export interface ApplyStats {
  readonly changes: number;
  readonly units: number;
  readonly prefixes: number;
}

interface Unit {
  readonly deps: ReadonlySet<string>;
  readonly result: UnitResult;
}

const RANK = new Map(OVN_ROUTE_KINDS.map((k, i) => [k, i]));

/** The deterministic winner order of one prefix claimed twice: kind, then the origin row. */
export function compareClaims(a: Advertisement, b: Advertisement): number {
  return (
    (RANK.get(a.kind) ?? 99) - (RANK.get(b.kind) ?? 99) ||
    cmp(a.origin.db, b.origin.db) ||
    cmp(a.origin.table, b.origin.table) ||
    cmp(a.origin.name, b.origin.name) ||
    cmp(a.origin.uuid, b.origin.uuid)
  );
}

const cmp = (a: string, b: string): number => (a < b ? -1 : a > b ? 1 : 0);

/** Same route for the RIB: a change of `why` or origin alone is no new announce. */
function sameRoute(a: Advertisement, b: Advertisement): boolean {
  return (
    a.nextHop === b.nextHop &&
    a.kind === b.kind &&
    a.communities.join() === b.communities.join() &&
    a.largeCommunities.map((l) => l.join(':')).join() === b.largeCommunities.map((l) => l.join(':')).join()
  );
}

export class OvnDeriver {
  readonly config: OvnDeriveConfig;
  readonly #store = new OvnStore();
  readonly #units = new Map<string, Unit>();
  /** read key → units that read it */
  readonly #readers = new Map<string, Set<string>>();
  /** prefix → unit → its claim on that prefix */
  readonly #claims = new Map<string, Map<string, Advertisement>>();
  readonly #published = new Map<string, Advertisement>();
  readonly #conflicts = new Map<string, OvnProblem[]>();
  #last: ApplyStats = { changes: 0, units: 0, prefixes: 0 };

  constructor(config: OvnDeriveConfig) {
    this.config = config;
  }

  /** Loads whole tables (as inserts) and returns what to announce. */
  load(snapshot: OvnSnapshot): AdvertisementDiff {
    const changes: OvnRowChange[] = [];
    for (const db of ['nb', 'sb'] as const)
      for (const [table, rows] of Object.entries(snapshot[db]))
        for (const [uuid, row] of rows) changes.push({ db, table, uuid, old: null, new: row });
    return this.apply(changes);
  }

  /** Applies row changes; returns the advertisement diff they cause. */
  apply(changes: readonly OvnRowChange[]): AdvertisementDiff {
    const touched = new Set<string>();
    const dirty = new Set<string>();
    for (const c of changes) {
      const ref: TableRef = `${c.db}.${c.table}`;
      this.#store.apply(ref, c.uuid, c.new, touched);
      if (UNITS[ref]) dirty.add(`${ref}:${c.uuid}`);
    }
    for (const key of touched) for (const unit of this.#readers.get(key) ?? []) dirty.add(unit);
    const affected = new Set<string>();
    for (const unit of dirty) this.#compute(unit, affected);
    this.#last = { changes: changes.length, units: dirty.size, prefixes: affected.size };
    return this.#settle(affected);
  }

  get lastApply(): ApplyStats {
    return this.#last;
  }

  /** Advertisements in force, by prefix. */
  get advertisements(): Advertisement[] {
    return [...this.#published.values()].sort((a, b) => cmp(a.prefix, b.prefix));
  }

  /** Every problem: routes not advertised and prefixes claimed twice. */
  get problems(): OvnProblem[] {
    const out: OvnProblem[] = [];
    for (const u of this.#units.values()) out.push(...u.result.problems);
    for (const list of this.#conflicts.values()) out.push(...list);
    return out.sort(
      (a, b) => cmp(a.kind, b.kind) || cmp(a.origin.uuid, b.origin.uuid) || cmp(a.message, b.message),
    );
  }

  #compute(key: string, affected: Set<string>): void {
    const at = key.indexOf(':');
    const ref = key.slice(0, at) as TableRef;
    const uuid = key.slice(at + 1);
    const old = this.#units.get(key);
    if (old) {
      for (const dep of old.deps) {
        const set = this.#readers.get(dep);
        set?.delete(key);
        if (set?.size === 0) this.#readers.delete(dep);
      }
      for (const ad of old.result.ads) {
        affected.add(ad.prefix);
        const claims = this.#claims.get(ad.prefix);
        claims?.delete(key);
        if (claims?.size === 0) this.#claims.delete(ad.prefix);
      }
      this.#units.delete(key);
    }
    if (!this.#store.row(ref, uuid)) return;
    const reader = new Reader(this.#store);
    const result = UNITS[ref](reader, this.config, uuid);
    this.#units.set(key, { deps: reader.deps, result });
    for (const dep of reader.deps) {
      let set = this.#readers.get(dep);
      if (!set) {
        set = new Set();
        this.#readers.set(dep, set);
      }
      set.add(key);
    }
    for (const ad of result.ads) {
      affected.add(ad.prefix);
      let claims = this.#claims.get(ad.prefix);
      if (!claims) {
        claims = new Map();
        this.#claims.set(ad.prefix, claims);
      }
      claims.set(key, ad);
    }
  }

  #settle(affected: ReadonlySet<string>): AdvertisementDiff {
    const announce: Advertisement[] = [];
    const withdraw: Advertisement[] = [];
    for (const prefix of [...affected].sort()) {
      const claims = [...(this.#claims.get(prefix)?.values() ?? [])].sort(compareClaims);
      const winner = claims[0];
      if (claims.length > 1) {
        this.#conflicts.set(
          prefix,
          claims.slice(1).map((loser) => ({
            kind: 'duplicate-prefix',
            origin: loser.origin,
            message: `${prefix} is also claimed by ${winner.kind} ${winner.origin.table} ${winner.origin.name}, which wins`,
          })),
        );
      } else {
        this.#conflicts.delete(prefix);
      }
      const before = this.#published.get(prefix);
      if (!winner) {
        if (before) {
          withdraw.push(before);
          this.#published.delete(prefix);
        }
        continue;
      }
      if (!before || !sameRoute(before, winner)) announce.push(winner);
      this.#published.set(prefix, winner);
    }
    return { announce, withdraw };
  }
}

/** Derivation from scratch: the advertisements and problems whole NB and SB tables give. */
export function deriveOvnRoutes(snapshot: OvnSnapshot, config: OvnDeriveConfig): DerivationResult {
  const d = new OvnDeriver(config);
  d.load(snapshot);
  return { advertisements: d.advertisements, problems: d.problems };
}
