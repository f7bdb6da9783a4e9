/**
 * What ovsdb-server puts on the wire for a change, computed independently of the replica code:
 * initial/insert rows without default columns, modify rows as ovsdb_datum_diff() diffs.
 * Tests use it to drive replicas through arbitrary histories.
 */
import { type Atom, defaultValue, encodeValue, type Value, valueEquals } from '../../src/ovsdb/datum.js';
import type { ColumnType, TableSchema } from '../../src/ovsdb/schema.js';

export type PlainRow = Record<string, Value>;

/** ovsdb_datum_diff(): the new value for non-composite columns, else the changed elements. */
export function serverDiff(type: ColumnType, oldValue: Value, newValue: Value): unknown {
  if (!type.composite) return encodeValue(type, newValue as never);
  if (type.kind === 'map') {
    const o = oldValue as ReadonlyMap<Atom, Atom>;
    const n = newValue as ReadonlyMap<Atom, Atom>;
    const pairs: unknown[] = [];
    for (const [k, v] of o)
      if (!n.has(k))
        pairs.push([encodeValue(keyType(type), k as never), encodeValue(valType(type), v as never)]);
    for (const [k, v] of n) {
      if (!o.has(k) || o.get(k) !== v)
        pairs.push([encodeValue(keyType(type), k as never), encodeValue(valType(type), v as never)]);
    }
    return ['map', pairs];
  }
  const o = new Set(oldValue as readonly Atom[]);
  const n = new Set(newValue as readonly Atom[]);
  const elems = [...[...o].filter((x) => !n.has(x)), ...[...n].filter((x) => !o.has(x))];
  const one = keyType(type);
  return elems.length === 1
    ? encodeValue(one, elems[0] as never)
    : ['set', elems.map((e) => encodeValue(one, e as never))];
}

const scalarOf = (base: ColumnType['key']): ColumnType => ({
  key: base,
  value: undefined,
  min: 1,
  max: 1,
  kind: 'scalar',
  composite: false,
});
const keyType = (t: ColumnType) => scalarOf(t.key);
const valType = (t: ColumnType) => scalarOf(t.value as ColumnType['key']);

/** `<row>` of an initial/insert: every column not at its default. */
export function insertRow(
  table: TableSchema,
  columns: readonly string[],
  row: PlainRow,
): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const c of columns) {
    const type = table.columns.get(c) as ColumnType;
    if (!valueEquals(type, row[c], defaultValue(type))) out[c] = encodeValue(type, row[c] as never);
  }
  return out;
}

/** `<row>` of a modify: only changed columns, as diffs. Undefined when nothing changed. */
export function modifyRow(
  table: TableSchema,
  columns: readonly string[],
  before: PlainRow,
  after: PlainRow,
): Record<string, unknown> | undefined {
  const out: Record<string, unknown> = {};
  let any = false;
  for (const c of columns) {
    const type = table.columns.get(c) as ColumnType;
    if (!valueEquals(type, before[c], after[c])) {
      out[c] = serverDiff(type, before[c], after[c]);
      any = true;
    }
  }
  return any ? out : undefined;
}

/** `<table-updates2>` taking one table from `before` to `after` (rows by uuid). */
export function tableUpdates2(
  table: TableSchema,
  columns: readonly string[],
  before: ReadonlyMap<string, PlainRow>,
  after: ReadonlyMap<string, PlainRow>,
): Record<string, Record<string, unknown>> {
  const rows: Record<string, unknown> = {};
  for (const [uuid, row] of before) {
    const next = after.get(uuid);
    if (!next) rows[uuid] = { delete: null };
    else {
      const diff = modifyRow(table, columns, row, next);
      if (diff) rows[uuid] = { modify: diff };
    }
  }
  for (const [uuid, row] of after)
    if (!before.has(uuid)) rows[uuid] = { insert: insertRow(table, columns, row) };
  return Object.keys(rows).length === 0 ? {} : { [table.name]: rows as Record<string, unknown> };
}
