import type { Row } from '../ovsdb/index.js';
import { ADVERTISED_UNITS } from './derive-advertised.js';
import { DERIVED_UNITS, type UnitFn } from './derive-kinds.js';
import { Key, type Listener, OvnStore, Reader, type SharedName, type TableRef } from './store.js';
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
 * Logical_Switch, and SB Advertised_Route) is a unit whose result and read keys are kept; a row change touches keys,
 * touched keys name the units to compute again, and only the prefixes those units gave or give
 * are settled again. From scratch is the same thing starting from an empty store.
 *
 *   change batch ─► store (rows + indexes) ─► touched keys ─► dirty units ─► candidates
 *                                                                               │ per prefix
 *                                              diff {announce, withdraw} ◄── winner
 */

/** Root tables: each of their rows is one unit. */
const UNITS: Readonly<Record<string, UnitFn>> = { ...DERIVED_UNITS, ...ADVERTISED_UNITS };

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

/** One root row's derivation: its keys read and what it gave. */
class Unit implements Listener {
  deps: readonly Key[] = [];
  ads: readonly Advertisement[] = NONE;
  problems: readonly OvnProblem[] = NONE;
  readonly table: TableRef;
  readonly uuid: string;

  constructor(table: TableRef, uuid: string) {
    this.table = table;
    this.uuid = uuid;
  }
}

/** A shared value (Reader.shared): held while some unit reads it and none of its reads changed. */
class Shared implements Listener {
  deps: readonly Key[] = [];
  value: unknown;
  readonly key: Key;
  readonly name: SharedName;
  readonly #drop: (s: Shared) => void;

  constructor(name: SharedName, drop: (s: Shared) => void) {
    this.name = name;
    this.#drop = drop;
    this.key = new Key(this);
  }

  /** Its key has no reader left: nobody needs the value. */
  release(): void {
    this.#drop(this);
  }
}

const NONE: readonly never[] = Object.freeze([]);

/** The units claiming a prefix: almost always one, so one is held without a Map. */
type Claims = { readonly unit: Unit; readonly ad: Advertisement } | Map<Unit, Advertisement>;

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
  readonly #units = new Set<Unit>();
  readonly #shared = new Map<SharedName, Shared>();
  /** prefix → unit → its claim on that prefix */
  readonly #claims = new Map<string, Claims>();
  readonly #published = new Map<string, Advertisement>();
  readonly #conflicts = new Map<string, OvnProblem[]>();
  #last: ApplyStats = { changes: 0, units: 0, prefixes: 0 };
  /** Marks the keys of one unit's new reads (Key.mark), to tell which old ones it let go. */
  #stamp = 0;

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
    const touched = new Set<Key>();
    const dirty = new Set<Unit>();
    for (const c of changes) {
      const ref: TableRef = `${c.db}.${c.table}`;
      const root = UNITS[ref] !== undefined;
      this.#store.apply(ref, c.uuid, c.new, touched);
      if (!root) continue;
      const slot = this.#store.slot(ref, c.uuid, true);
      if (!slot.unit) {
        slot.unit = new Unit(ref, c.uuid);
        this.#units.add(slot.unit as Unit);
      }
      dirty.add(slot.unit as Unit);
    }
    // A shared value that read a touched key is dropped, and its own key counts as touched:
    // the units that read it are computed again (and compute it again, once, on first ask).
    const queue = [...touched];
    for (let i = 0; i < queue.length; i++) {
      for (const reader of queue[i].readersList()) {
        if (reader instanceof Unit) dirty.add(reader);
        else if (reader instanceof Shared && this.#shared.get(reader.name) === reader) {
          this.#shared.delete(reader.name);
          queue.push(reader.key);
          this.#unlisten(reader, reader.deps);
        }
      }
    }
    const affected = new Set<string>();
    for (const unit of dirty) this.#compute(unit, affected);
    this.#last = { changes: changes.length, units: dirty.size, prefixes: affected.size };
    return this.#settle(affected);
  }

  get lastApply(): ApplyStats {
    return this.#last;
  }

  /** What the deriver holds, by kind: a change undone must leave the same behind. */
  get held(): { units: number; shared: number; slots: number; entries: number } {
    return { units: this.#units.size, shared: this.#shared.size, ...this.#store.held };
  }

  /** Advertisements in force, by prefix. */
  get advertisements(): Advertisement[] {
    return [...this.#published.values()].sort((a, b) => cmp(a.prefix, b.prefix));
  }

  /** Every problem: routes not advertised and prefixes claimed twice. */
  get problems(): OvnProblem[] {
    const out: OvnProblem[] = [];
    for (const u of this.#units) out.push(...u.problems);
    for (const list of this.#conflicts.values()) out.push(...list);
    return out.sort(
      (a, b) => cmp(a.kind, b.kind) || cmp(a.origin.uuid, b.origin.uuid) || cmp(a.message, b.message),
    );
  }

  readonly #sharedValue = (
    name: SharedName,
    compute: (r: Reader) => unknown,
  ): { key: Key; value: unknown } => {
    const held = this.#shared.get(name);
    if (held) return held;
    const s = new Shared(name, (x) => this.#dropShared(x));
    const reader = new Reader(this.#store, this.#sharedValue);
    s.value = compute(reader);
    s.deps = reader.deps;
    this.#shared.set(name, s);
    for (const k of s.deps) k.listen(s);
    return s;
  };

  #dropShared(s: Shared): void {
    if (this.#shared.get(s.name) !== s) return;
    this.#shared.delete(s.name);
    this.#unlisten(s, s.deps);
  }

  #unlisten(l: Listener, deps: readonly Key[]): void {
    for (const k of deps) k.unlisten(l);
  }

  #compute(unit: Unit, affected: Set<string>): void {
    for (const ad of unit.ads) {
      affected.add(ad.prefix);
      this.#unclaim(ad.prefix, unit);
    }
    const old = unit.deps;
    const slot = this.#store.slot(unit.table, unit.uuid);
    if (!slot?.row) {
      // The row is gone: so is its unit, and every read it held.
      unit.deps = NONE;
      unit.ads = NONE;
      unit.problems = NONE;
      this.#units.delete(unit);
      if (slot) slot.unit = undefined;
      this.#unlisten(unit, old);
      slot?.release();
      return;
    }
    const reader = new Reader(this.#store, this.#sharedValue);
    const result = UNITS[unit.table](reader, this.config, unit.uuid);
    unit.deps = reader.deps;
    unit.ads = result.ads.length ? result.ads : NONE;
    unit.problems = result.problems.length ? result.problems : NONE;
    // Listen to the new reads first, then let go of the old ones not read again: a key read
    // both times never loses its last reader (and its slot) in between.
    const stamp = --this.#stamp;
    for (const k of unit.deps) {
      k.listen(unit);
      k.mark = stamp;
    }
    for (const k of old) if (k.mark !== stamp) k.unlisten(unit);
    for (const ad of unit.ads) {
      affected.add(ad.prefix);
      this.#claim(ad.prefix, unit, ad);
    }
  }

  #claim(prefix: string, unit: Unit, ad: Advertisement): void {
    const c = this.#claims.get(prefix);
    if (!c || (!(c instanceof Map) && c.unit === unit)) this.#claims.set(prefix, { unit, ad });
    else if (c instanceof Map) c.set(unit, ad);
    else
      this.#claims.set(
        prefix,
        new Map([
          [c.unit, c.ad],
          [unit, ad],
        ]),
      );
  }

  #unclaim(prefix: string, unit: Unit): void {
    const c = this.#claims.get(prefix);
    if (!c) return;
    if (!(c instanceof Map)) {
      if (c.unit === unit) this.#claims.delete(prefix);
      return;
    }
    c.delete(unit);
    if (c.size === 1) {
      const [[u, ad]] = c;
      this.#claims.set(prefix, { unit: u, ad });
    } else if (c.size === 0) this.#claims.delete(prefix);
  }

  #claimsOf(prefix: string): Advertisement[] {
    const c = this.#claims.get(prefix);
    if (!c) return [];
    return c instanceof Map ? [...c.values()].sort(compareClaims) : [c.ad];
  }

  #settle(affected: ReadonlySet<string>): AdvertisementDiff {
    const announce: Advertisement[] = [];
    const withdraw: Advertisement[] = [];
    for (const prefix of [...affected].sort()) {
      const claims = this.#claimsOf(prefix);
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
