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
 *   key forms:  r:<db>.<table>:<uuid>      the row's content
 *               i:<index>:<value>          which rows the index holds under value
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

export class OvnStore {
  readonly #tables = new Map<TableRef, Map<string, Row>>();
  readonly #index = new Map<IndexName, Map<string, Set<string>>>();
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
    return this.#tables.get(table)?.get(uuid);
  }

  rows(table: TableRef): ReadonlyMap<string, Row> {
    return this.#tables.get(table) ?? new Map();
  }

  /** uuids under `value`, sorted so every lookup picks the same one. */
  find(index: IndexName, value: string): readonly string[] {
    const hit = this.#index.get(index)?.get(value);
    return hit ? [...hit].sort() : NO_UUIDS;
  }

  /** Stores a row's new version (null: deleted); returns the keys whose answers changed. */
  apply(table: TableRef, uuid: string, next: Row | null, touched: Set<string>): void {
    let rows = this.#tables.get(table);
    if (!rows) {
      rows = new Map();
      this.#tables.set(table, rows);
    }
    const old = rows.get(uuid) ?? null;
    if (next) rows.set(uuid, next);
    else rows.delete(uuid);
    touched.add(`r:${table}:${uuid}`);
    for (const name of this.#byTable.get(table) ?? []) {
      const def: IndexDef = INDEXES[name];
      const before = old ? def.keys(old) : NO_UUIDS;
      const after = next ? def.keys(next) : NO_UUIDS;
      const index = this.#index.get(name)!;
      for (const k of before) {
        if (after.includes(k)) continue;
        const s = index.get(k);
        s?.delete(uuid);
        if (s?.size === 0) index.delete(k);
        touched.add(`i:${name}:${k}`);
      }
      for (const k of after) {
        if (before.includes(k)) continue;
        let s = index.get(k);
        if (!s) {
          s = new Set();
          index.set(k, s);
        }
        s.add(uuid);
        touched.add(`i:${name}:${k}`);
      }
    }
  }
}

/** Reads the store for one unit of derivation, remembering each key it depended on. */
export class Reader {
  readonly deps = new Set<string>();
  readonly #store: OvnStore;

  constructor(store: OvnStore) {
    this.#store = store;
  }

  row(table: TableRef, uuid: string | null | undefined): Row | undefined {
    if (!uuid) return undefined;
    this.deps.add(`r:${table}:${uuid}`);
    return this.#store.row(table, uuid);
  }

  find(index: IndexName, value: string): readonly string[] {
    this.deps.add(`i:${index}:${value}`);
    return this.#store.find(index, value);
  }

  /** The first (lowest uuid) row under `value`, read with its content. */
  first(index: IndexName, value: string): Row | undefined {
    const uuid = this.find(index, value)[0];
    return uuid === undefined ? undefined : this.row(INDEXES[index].table, uuid);
  }
}
