import type { Row } from '../ovsdb/index.js';
import { mapGet, set, str } from './rows.js';
import type { OvnDb } from './types.js';

/*
 * The rows derivation reads, with the indexes it looks things up by, and a Reader that
 * records every key it read. A change to a row "touches" the keys whose answer it changes:
 * the row itself, and the index keys it enters or leaves. Units of derivation that read a
 * touched key are computed again; nothing else is. That is what makes a change cost work in
 * proportion to the change rather than to the size of the cloud.
 *
 *   key forms:  r:<db>.<table>:<uuid>           the row's content, any column
 *               e:<db>.<table>:<uuid>           whether the row exists
 *               c:<db>.<table>:<uuid>:<column>  one column of a row that stays
 *               i:<index>:<value>               which rows the index holds under value
 *               d:<what>:<inputs>               a value shared by many units (Reader.shared)
 *
 * A unit that reads a few columns of a row others change often (a floating IP reads its
 * router's name, options and ports, not the `nat` set every other floating IP changes)
 * reads them with `columns`, so a new NAT on a router of 10,000 does not compute the other
 * 9,999 again.
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
} as const satisfies Record<string, IndexDef>;

export type IndexName = keyof typeof INDEXES;

const NO_UUIDS: readonly string[] = Object.freeze([]);

/*
 * Keys are strings, but each one a row or an index value can be read under is made once and
 * kept with it (a Slot, an Entry): a read adds the same string object every time, so the
 * Sets and Maps that hold keys find it by its cached hash and by identity, instead of
 * building, hashing and comparing a fresh 50-character string per read. A key of a row or
 * value not held (a read of a missing row) is built on the spot; equal text is the same key.
 */

/** A row held, with its keys. */
interface Slot {
  row: Row;
  readonly r: string;
  readonly e: string;
  /** c: keys by column, made on first use. */
  cols: Map<string, string> | undefined;
  /** The unit key (`<table>:<uuid>`) of a root row, made on first use. */
  unit: string | undefined;
}

/** The uuids an index holds under one value, with its key. */
interface Entry {
  readonly uuids: Set<string>;
  readonly key: string;
  /** `uuids` sorted, until the next change. */
  sorted: readonly string[] | undefined;
}

const rowKey = (table: TableRef, uuid: string) => `r:${table}:${uuid}`;
const existsKey = (table: TableRef, uuid: string) => `e:${table}:${uuid}`;
const columnKey = (table: TableRef, uuid: string, column: string) => `c:${table}:${uuid}:${column}`;
const indexKey = (index: IndexName, value: string) => `i:${index}:${value}`;
export const unitKeyOf = (table: TableRef, uuid: string): string => `${table}:${uuid}`;

function columnKeyOf(slot: Slot, table: TableRef, uuid: string, column: string): string {
  slot.cols ??= new Map();
  let k = slot.cols.get(column);
  if (k === undefined) {
    k = columnKey(table, uuid, column);
    slot.cols.set(column, k);
  }
  return k;
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

  row(table: TableRef, uuid: string): Row | undefined {
    return this.#tables.get(table)?.get(uuid)?.row;
  }

  slot(table: TableRef, uuid: string): Slot | undefined {
    return this.#tables.get(table)?.get(uuid);
  }

  entry(index: IndexName, value: string): Entry | undefined {
    return this.#index.get(index)?.get(value);
  }

  /** The unit key of a row: the held string when the row is held. */
  unitKey(table: TableRef, uuid: string): string {
    const slot = this.slot(table, uuid);
    if (!slot) return unitKeyOf(table, uuid);
    slot.unit ??= unitKeyOf(table, uuid);
    return slot.unit;
  }

  /** uuids under `value`, sorted so every lookup picks the same one. */
  find(index: IndexName, value: string): readonly string[] {
    const hit = this.entry(index, value);
    return hit ? sortedOf(hit) : NO_UUIDS;
  }

  /**
   * Stores a row's new version (null: deleted) and adds the keys whose answers changed to
   * `touched`; null when nobody reads yet (the first load), which skips building them.
   */
  apply(table: TableRef, uuid: string, next: Row | null, touched: Set<string> | null): void {
    let rows = this.#tables.get(table);
    if (!rows) {
      rows = new Map();
      this.#tables.set(table, rows);
    }
    let slot = rows.get(uuid);
    const old = slot?.row ?? null;
    if (next && slot) slot.row = next;
    else if (next) {
      slot = {
        row: next,
        r: rowKey(table, uuid),
        e: existsKey(table, uuid),
        cols: undefined,
        unit: undefined,
      };
      rows.set(uuid, slot);
    } else rows.delete(uuid);
    if (touched && slot) touchRow(slot, table, uuid, old, next, touched);
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
        touched?.add(e.key);
        if (e.uuids.size === 0) index.delete(k);
      }
      for (const k of after) {
        if (inBefore ? inBefore.has(k) : before.includes(k)) continue;
        let e = index.get(k);
        if (!e) {
          e = { uuids: new Set(), key: indexKey(name, k), sorted: undefined };
          index.set(k, e);
        }
        e.uuids.add(uuid);
        e.sorted = undefined;
        touched?.add(e.key);
      }
    }
  }
}

function sortedOf(e: Entry): readonly string[] {
  e.sorted ??= e.uuids.size === 1 ? [...e.uuids] : [...e.uuids].sort();
  return e.sorted;
}

/** Below this many keys, before and after are compared with includes (no Sets to allocate). */
const SMALL = 16;
const has = (keys: readonly string[]): ReadonlySet<string> => new Set(keys);

function touchRow(
  slot: Slot,
  table: TableRef,
  uuid: string,
  old: Row | null,
  next: Row | null,
  touched: Set<string>,
): void {
  touched.add(slot.r);
  if (!old || !next) {
    touched.add(slot.e);
    return;
  }
  // The replica keeps the value of an unchanged column (Replica.applyModify): identity says
  // "unchanged". A column rebuilt with an equal value only costs a needless recompute.
  for (const column in next)
    if (old[column] !== next[column]) touched.add(columnKeyOf(slot, table, uuid, column));
  for (const column in old) if (!(column in next)) touched.add(columnKeyOf(slot, table, uuid, column));
}

/** Computes (or hands back) the shared value of `key` for a Reader; see Reader.shared. */
export type SharedValues = <T>(key: SharedKey, compute: (r: Reader) => T) => T;

/** `d:<what>:<its inputs>`, e.g. `d:gw:<router uuid>:<gateway port>:4`. */
export type SharedKey = `d:${string}`;

/** Reads the store for one unit of derivation, remembering each key it depended on. */
export class Reader {
  readonly deps = new Set<string>();
  readonly #store: OvnStore;
  readonly #shared: SharedValues;

  constructor(store: OvnStore, shared: SharedValues) {
    this.#store = store;
    this.#shared = shared;
  }

  /**
   * A value many units compute alike (the gateway hop of a router, for each of its 10,000
   * floating IPs), computed once with its own reads and read here as one key. `key` names
   * every input that is not a read (uuids, family); when a read of the value changes, the
   * value is dropped and each unit that read it is computed again.
   */
  shared<T>(key: SharedKey, compute: (r: Reader) => T): T {
    this.deps.add(key);
    return this.#shared(key, compute);
  }

  row(table: TableRef, uuid: string | null | undefined): Row | undefined {
    if (!uuid) return undefined;
    const slot = this.#store.slot(table, uuid);
    this.deps.add(slot ? slot.r : rowKey(table, uuid));
    return slot?.row;
  }

  find(index: IndexName, value: string): readonly string[] {
    const e = this.#store.entry(index, value);
    this.deps.add(e ? e.key : indexKey(index, value));
    return e ? sortedOf(e) : NO_UUIDS;
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
    const slot = this.#store.slot(table, uuid);
    if (!slot) {
      this.deps.add(existsKey(table, uuid));
      return undefined;
    }
    this.deps.add(slot.e);
    for (const c of columns) this.deps.add(columnKeyOf(slot, table, uuid, c));
    return slot.row;
  }

  /** `first`, reading only `columns` of the row found. */
  firstColumns(index: IndexName, value: string, columns: readonly string[]): Row | undefined {
    const uuid = this.find(index, value)[0];
    return uuid === undefined ? undefined : this.columns(INDEXES[index].table, uuid, columns);
  }
}
