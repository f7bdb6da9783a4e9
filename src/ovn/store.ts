import type { Row } from '../ovsdb/index.js';
import { advertisedPrefix, hostRouteOf, vipAddress } from './addr.js';
import { mapGet, opt, set, str } from './rows.js';
import type { OvnDb } from './types.js';

/*
 * The rows derivation reads, with the indexes it looks things up by, and a Reader that
 * records every key it read. A change to a row "touches" the keys whose answer it changes:
 * the row itself, and the index keys it enters or leaves. Units of derivation that read a
 * touched key are computed again; nothing else is. That is what makes a change cost work in
 * proportion to the change rather than to the size of the cloud.
 *
 *   keys of a row:          its content (any column), whether it exists, one column
 *   keys of an index value: which rows the index holds under it, whether it holds any
 *   key of a shared value:  the value many units compute alike (Reader.shared)
 *
 * A key is an object, made when first read and kept with what it is the key of (a Slot for
 * a row, an Entry for an index value); the units that read it are listed in it. So a read
 * costs no string and no lookup in a map of every key, a change touches only keys someone
 * reads, and a key nobody reads any more is let go with its slot or entry.
 *
 * A unit that reads a few columns of a row others change often (a floating IP reads its
 * router's name and options, not the `nat` set every other floating IP changes) reads them
 * with `columns`, so a new NAT on a router of 10,000 does not compute the other 9,999 again.
 */

export type TableRef = `${OvnDb}.${string}`;

interface IndexDef {
  readonly table: TableRef;
  readonly keys: (row: Row) => readonly string[];
}

/** The lookups derivation makes that are not by uuid. */
export const INDEXES = {
  /** SB Port_Binding by logical_port (the SB schema indexes it too). */
  pbPort: { table: 'sb.Port_Binding', keys: (r) => [str(r, 'logical_port')] },
  chassisName: { table: 'sb.Chassis', keys: (r) => [str(r, 'name')] },
  chassisHost: { table: 'sb.Chassis', keys: (r) => [str(r, 'hostname')] },
  /** The router that owns a NAT row (NAT is not a root table: exactly one owner). */
  routerNat: { table: 'nb.Logical_Router', keys: (r) => set(r, 'nat') },
  /** NB router names are not unique; lookups take the lowest uuid. */
  routerName: { table: 'nb.Logical_Router', keys: (r) => [str(r, 'name')] },
  /** The switch a port belongs to. */
  switchPort: { table: 'nb.Logical_Switch', keys: (r) => set(r, 'ports') },
  /** LSP by type: only `localnet` is looked up (which switches are provider networks). */
  lspType: { table: 'nb.Logical_Switch_Port', keys: (r) => [str(r, 'type')] },
  /** The switch-side port of a router port (LSP options:router-port). */
  lspRouterPort: {
    table: 'nb.Logical_Switch_Port',
    keys: (r) => {
      const p = mapGet(r, 'options', 'router-port');
      return p === undefined ? [] : [p];
    },
  },
  /** LRP by name: the router port behind an SB Port_Binding of a router. */
  lrpName: { table: 'nb.Logical_Router_Port', keys: (r) => [str(r, 'name')] },
  /** NAT rows by the host route of their external_ip: is an advertised address a NAT's? */
  natExternal: { table: 'nb.NAT', keys: (r) => orNone(hostRouteOf(str(r, 'external_ip'))) },
  /** Load balancers by the host route of each VIP: is an advertised address a VIP? */
  lbVip: {
    table: 'nb.Load_Balancer',
    keys: (r) => {
      const vips = r.vips;
      if (!(vips instanceof Map)) return NO_UUIDS;
      const out = new Set<string>();
      for (const k of vips.keys()) {
        const p = hostRouteOf(vipAddress(String(k)));
        if (p) out.add(p);
      }
      return [...out];
    },
  },
  /** SB datapaths by the NB router they stand for (external_ids:logical-router). */
  dpRouter: {
    table: 'sb.Datapath_Binding',
    keys: (r) => orNone(mapGet(r, 'external_ids', 'logical-router')),
  },
  /** Advertised_Route rows of a datapath: has OVN filled the table for a router yet? */
  arDatapath: { table: 'sb.Advertised_Route', keys: (r) => orNone(opt(r, 'datapath')) },
  /** Advertised_Route rows by `<datapath> <prefix>`: OVN writes a NAT once per router port. */
  arPrefix: {
    table: 'sb.Advertised_Route',
    keys: (r) => {
      const p = advertisedPrefix(str(r, 'ip_prefix'));
      return [`${opt(r, 'datapath') ?? ''} ${p ?? str(r, 'ip_prefix')}`];
    },
  },
} as const satisfies Record<string, IndexDef>;

/** The `datapath prefix` key of arPrefix. */
export const arPrefixKey = (datapath: string, prefix: string): string => `${datapath} ${prefix}`;

export type IndexName = keyof typeof INDEXES;

const NO_UUIDS: readonly string[] = Object.freeze([]);
const orNone = (v: string | null | undefined): readonly string[] =>
  v === null || v === undefined || v === '' ? NO_UUIDS : [v];

/** What reads keys: a unit of derivation or a shared value (derive.ts). */
export interface Listener {
  deps: readonly Key[];
}

/** Something keys belong to; told when one of its keys has no reader left. */
interface KeyOwner {
  release(): void;
}

export class Key {
  /** One reader as itself, more in a Set: most keys (a NAT row) have exactly one. */
  readers: Listener | Set<Listener> | undefined = undefined;
  /** Dedupes the reads of one Reader (its stamp), and marks sets of keys (derive.ts). */
  mark = 0;
  readonly owner: KeyOwner;

  constructor(owner: KeyOwner) {
    this.owner = owner;
  }

  listen(l: Listener): void {
    const held = this.readers;
    if (held === undefined) this.readers = l;
    else if (held instanceof Set) held.add(l);
    else if (held !== l) this.readers = new Set([held, l]);
  }

  /** `l` no longer reads this key; the owner hears when nobody does. */
  unlisten(l: Listener): void {
    const held = this.readers;
    if (held instanceof Set) {
      held.delete(l);
      if (held.size === 1) this.readers = held.values().next().value as Listener;
      return;
    }
    if (held !== l) return;
    this.readers = undefined;
    this.owner.release();
  }

  /** The readers, as a list that stays valid while they change. */
  readersList(): Listener[] {
    const held = this.readers;
    return held === undefined ? [] : held instanceof Set ? [...held] : [held];
  }
}

/** A row (or a row read but not there), with the keys read of it. */
class Slot implements KeyOwner {
  row: Row | undefined;
  content: Key | undefined;
  exists: Key | undefined;
  cols: Map<string, Key> | undefined;
  /** The unit of a root row (derive.ts keeps it here). */
  unit: Listener | undefined;
  readonly #rows: Map<string, Slot>;
  readonly #uuid: string;

  constructor(rows: Map<string, Slot>, uuid: string, row: Row | undefined) {
    this.#rows = rows;
    this.#uuid = uuid;
    this.row = row;
  }

  contentKey(): Key {
    this.content ??= new Key(this);
    return this.content;
  }

  existsKey(): Key {
    this.exists ??= new Key(this);
    return this.exists;
  }

  columnKey(column: string): Key {
    this.cols ??= new Map();
    let k = this.cols.get(column);
    if (!k) {
      k = new Key(this);
      this.cols.set(column, k);
    }
    return k;
  }

  /** A row gone (or never there) that nobody reads and no unit stands for is let go. */
  release(): void {
    if (this.row || this.unit || this.content?.readers || this.exists?.readers) return;
    for (const k of this.cols?.values() ?? []) if (k.readers) return;
    if (this.#rows.get(this.#uuid) === this) this.#rows.delete(this.#uuid);
  }
}

/** The uuids an index holds under one value (possibly none, while read). */
class Entry implements KeyOwner {
  readonly uuids = new Set<string>();
  key: Key | undefined;
  /** Read by those who ask only whether the entry holds any row: touched on 0 <-> 1. */
  anyKey: Key | undefined;
  /** `uuids` sorted, until the next change. */
  sorted: readonly string[] | undefined;
  readonly #index: Map<string, Entry>;
  readonly #value: string;

  constructor(index: Map<string, Entry>, value: string) {
    this.#index = index;
    this.#value = value;
  }

  readKey(): Key {
    this.key ??= new Key(this);
    return this.key;
  }

  readAnyKey(): Key {
    this.anyKey ??= new Key(this);
    return this.anyKey;
  }

  find(): readonly string[] {
    if (this.uuids.size === 0) return NO_UUIDS;
    this.sorted ??= this.uuids.size === 1 ? [...this.uuids] : [...this.uuids].sort();
    return this.sorted;
  }

  release(): void {
    if (
      this.uuids.size === 0 &&
      !this.key?.readers &&
      !this.anyKey?.readers &&
      this.#index.get(this.#value) === this
    )
      this.#index.delete(this.#value);
  }
}

export class OvnStore {
  readonly #tables = new Map<TableRef, Map<string, Slot>>();
  readonly #index = new Map<IndexName, Map<string, Entry>>();
  readonly #byTable = new Map<TableRef, IndexName[]>();

  constructor() {
    for (const [name, def] of Object.entries(INDEXES) as [IndexName, IndexDef][]) {
      this.#index.set(name, new Map());
      const list = this.#byTable.get(def.table) ?? [];
      list.push(name);
      this.#byTable.set(def.table, list);
    }
  }

  #rows(table: TableRef): Map<string, Slot> {
    let rows = this.#tables.get(table);
    if (!rows) {
      rows = new Map();
      this.#tables.set(table, rows);
    }
    return rows;
  }

  row(table: TableRef, uuid: string): Row | undefined {
    return this.#tables.get(table)?.get(uuid)?.row;
  }

  /** The slot of a row, made (empty) when `make` and there is none. */
  slot(table: TableRef, uuid: string, make: true): Slot;
  slot(table: TableRef, uuid: string, make?: false): Slot | undefined;
  slot(table: TableRef, uuid: string, make = false): Slot | undefined {
    const rows = this.#rows(table);
    let s = rows.get(uuid);
    if (!s && make) {
      s = new Slot(rows, uuid, undefined);
      rows.set(uuid, s);
    }
    return s;
  }

  entry(index: IndexName, value: string): Entry {
    const map = this.#index.get(index)!;
    let e = map.get(value);
    if (!e) {
      e = new Entry(map, value);
      map.set(value, e);
    }
    return e;
  }

  /** uuids under `value`, sorted so every lookup picks the same one. */
  find(index: IndexName, value: string): readonly string[] {
    return this.#index.get(index)?.get(value)?.find() ?? NO_UUIDS;
  }

  /** Slots (rows, and rows read but absent) and index entries held: what a change leaves behind. */
  get held(): { slots: number; entries: number } {
    let slots = 0;
    let entries = 0;
    for (const rows of this.#tables.values()) slots += rows.size;
    for (const values of this.#index.values()) entries += values.size;
    return { slots, entries };
  }

  /**
   * Stores a row's new version (null: deleted) and adds the keys whose answers changed to
   * `touched` (only keys someone reads exist to be touched).
   */
  apply(table: TableRef, uuid: string, next: Row | null, touched: Set<Key>): void {
    const rows = this.#rows(table);
    let slot = rows.get(uuid);
    const old = slot?.row ?? null;
    if (!slot) {
      if (!next) return;
      slot = new Slot(rows, uuid, next);
      rows.set(uuid, slot);
    } else slot.row = next ?? undefined;
    touchRow(slot, old, next, touched);
    for (const name of this.#byTable.get(table) ?? []) {
      const def: IndexDef = INDEXES[name];
      const before = old ? def.keys(old) : NO_UUIDS;
      const after = next ? def.keys(next) : NO_UUIDS;
      if (before === after) continue;
      const index = this.#index.get(name)!;
      // Sets of thousands (a router's nat, a provider switch's ports): compare in linear time.
      const [inBefore, inAfter] =
        before.length + after.length > SMALL ? [has(before), has(after)] : [null, null];
      for (const k of before) {
        if (inAfter ? inAfter.has(k) : after.includes(k)) continue;
        const e = index.get(k);
        if (!e) continue;
        e.uuids.delete(uuid);
        e.sorted = undefined;
        if (e.key?.readers) touched.add(e.key);
        if (e.uuids.size === 0 && e.anyKey?.readers) touched.add(e.anyKey);
        e.release();
      }
      for (const k of after) {
        if (inBefore ? inBefore.has(k) : before.includes(k)) continue;
        const e = this.entry(name, k);
        e.uuids.add(uuid);
        e.sorted = undefined;
        if (e.key?.readers) touched.add(e.key);
        if (e.uuids.size === 1 && e.anyKey?.readers) touched.add(e.anyKey);
      }
    }
    if (!next) slot.release();
  }
}

/** Below this many keys, before and after are compared with includes (no Sets to allocate). */
const SMALL = 16;
const has = (keys: readonly string[]): ReadonlySet<string> => new Set(keys);

function touch(key: Key | undefined, touched: Set<Key>): void {
  if (key?.readers) touched.add(key);
}

function touchRow(slot: Slot, old: Row | null, next: Row | null, touched: Set<Key>): void {
  touch(slot.content, touched);
  if (!old || !next) {
    touch(slot.exists, touched);
    // A row that comes or goes changes every column read of it.
    for (const k of slot.cols?.values() ?? []) touch(k, touched);
    return;
  }
  if (!slot.cols) return;
  // The replica keeps the value of an unchanged column (Replica.applyModify): identity says
  // "unchanged". A column rebuilt with an equal value only costs a needless recompute.
  for (const [column, k] of slot.cols) if (old[column] !== next[column]) touch(k, touched);
}

/** Computes (or hands back) the shared value of `name` for a Reader; see Reader.shared. */
export type SharedValues = (
  name: SharedName,
  compute: (r: Reader) => unknown,
) => { key: Key; value: unknown };

/** `<what>:<its inputs>`, e.g. `gw:<router uuid>:<gateway port>:4`. */
export type SharedName = `${string}:${string}`;

let stamps = 0;

/** Reads the store for one unit of derivation, remembering each key it depended on. */
export class Reader {
  readonly deps: Key[] = [];
  readonly #store: OvnStore;
  readonly #shared: SharedValues;
  readonly #stamp = ++stamps;

  constructor(store: OvnStore, shared: SharedValues) {
    this.#store = store;
    this.#shared = shared;
  }

  #dep(k: Key): void {
    if (k.mark === this.#stamp) return;
    k.mark = this.#stamp;
    this.deps.push(k);
  }

  /**
   * A value many units compute alike (the gateway hop of a router, for each of its 10,000
   * floating IPs), computed once with its own reads and read here as one key. `name` names
   * every input that is not a read (uuids, family); when a read of the value changes, the
   * value is dropped and each unit that read it is computed again.
   */
  shared<T>(name: SharedName, compute: (r: Reader) => T): T {
    const { key, value } = this.#shared(name, compute);
    this.#dep(key);
    return value as T;
  }

  row(table: TableRef, uuid: string | null | undefined): Row | undefined {
    if (!uuid) return undefined;
    const slot = this.#store.slot(table, uuid, true);
    this.#dep(slot.contentKey());
    return slot.row;
  }

  find(index: IndexName, value: string): readonly string[] {
    const e = this.#store.entry(index, value);
    this.#dep(e.readKey());
    return e.find();
  }

  /**
   * Whether the index holds any row under `value`: a change that adds a second row or takes
   * away one of two does not compute the reader again (a router's 10,000th advertised route).
   */
  any(index: IndexName, value: string): boolean {
    const e = this.#store.entry(index, value);
    this.#dep(e.readAnyKey());
    return e.uuids.size > 0;
  }

  /** The first (lowest uuid) row under `value`, read with its content. */
  first(index: IndexName, value: string): Row | undefined {
    const uuid = this.find(index, value)[0];
    return uuid === undefined ? undefined : this.row(INDEXES[index].table, uuid);
  }

  /**
   * A row of which the unit reads only `columns` (and that it exists): changes to its other
   * columns do not compute the unit again. Reading any other column of it is a bug.
   */
  columns(table: TableRef, uuid: string | null | undefined, columns: readonly string[]): Row | undefined {
    if (!uuid) return undefined;
    const slot = this.#store.slot(table, uuid, true);
    this.#dep(slot.existsKey());
    if (!slot.row) return undefined;
    for (const c of columns) this.#dep(slot.columnKey(c));
    return slot.row;
  }

  /** `first`, reading only `columns` of the row found. */
  firstColumns(index: IndexName, value: string, columns: readonly string[]): Row | undefined {
    const uuid = this.find(index, value)[0];
    return uuid === undefined ? undefined : this.columns(INDEXES[index].table, uuid, columns);
  }
}
