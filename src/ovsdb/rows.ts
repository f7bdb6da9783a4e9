import { applyDiff, decodeValue, defaultValue, isUuid, type Value, valueEquals } from './datum.js';
import { OvsdbError, preview } from './errors.js';
import type { ColumnType, TableSchema } from './schema.js';
import { UUID_COLUMN } from './schema.js';

/** One replica row: its uuid and the monitored columns, every one filled (defaults included). */
export interface Row {
  readonly _uuid: string;
  readonly [column: string]: Value;
}

interface ColumnCodec {
  readonly name: string;
  readonly type: ColumnType;
  readonly fallback: Value;
}

function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/**
 * Decodes rows of one table for a fixed column list. Rows are built with the same property
 * order every time so they share one hidden class, and they are frozen: consumers hold on to
 * them (old/new in change events) and must never see them change.
 */
export class TableCodec {
  readonly table: string;
  readonly columns: readonly string[];
  readonly #codecs: readonly ColumnCodec[];
  readonly #byName: ReadonlyMap<string, ColumnCodec>;

  constructor(schema: TableSchema, columns: readonly string[]) {
    this.table = schema.name;
    this.columns = columns;
    this.#codecs = columns.map((name) => {
      const type = schema.columns.get(name);
      if (!type)
        throw new OvsdbError('bad-schema', `no column ${name} in table ${schema.name}`, { column: name });
      return { name, type, fallback: defaultValue(type) };
    });
    this.#byName = new Map(this.#codecs.map((c) => [c.name, c]));
  }

  columnType(name: string): ColumnType | undefined {
    return this.#byName.get(name)?.type;
  }

  /** A full row from `initial`/`insert`/`new`/select: missing columns are at their default. */
  decodeRow(uuid: string, json: unknown): Row {
    if (!isObject(json)) this.#bad(uuid, 'row is not an object', json);
    const row: Record<string, Value> = { _uuid: uuid };
    for (const c of this.#codecs) {
      const cell = json[c.name];
      row[c.name] = cell === undefined ? c.fallback : this.#decode(uuid, c, cell);
    }
    return Object.freeze(row) as Row;
  }

  /** update2/update3 `modify`: only the listed columns change, each by its type's diff rule. */
  applyModify(old: Row, json: unknown): Row {
    if (!isObject(json)) this.#bad(old._uuid, 'modify is not an object', json);
    const row: Record<string, Value> = { _uuid: old._uuid };
    for (const c of this.#codecs) {
      const cell = json[c.name];
      if (cell === undefined) {
        row[c.name] = old[c.name];
        continue;
      }
      try {
        row[c.name] = applyDiff(c.type, old[c.name], cell);
      } catch (err) {
        this.#bad(old._uuid, `column ${c.name}: ${(err as Error).message}`, cell);
      }
    }
    return Object.freeze(row) as Row;
  }

  /** update (version 1) `new` on modify: full values of the changed columns. */
  applyNew(old: Row, json: unknown): Row {
    if (!isObject(json)) this.#bad(old._uuid, 'new is not an object', json);
    const row: Record<string, Value> = { _uuid: old._uuid };
    for (const c of this.#codecs) {
      const cell = json[c.name];
      row[c.name] = cell === undefined ? old[c.name] : this.#decode(old._uuid, c, cell);
    }
    return Object.freeze(row) as Row;
  }

  equals(a: Row, b: Row): boolean {
    if (a === b) return true;
    for (const c of this.#codecs) if (!valueEquals(c.type, a[c.name], b[c.name])) return false;
    return true;
  }

  /** Names of the columns whose values differ between two versions of a row. */
  changedColumns(a: Row, b: Row): string[] {
    return this.#codecs.filter((c) => !valueEquals(c.type, a[c.name], b[c.name])).map((c) => c.name);
  }

  #decode(uuid: string, c: ColumnCodec, cell: unknown): Value {
    try {
      return decodeValue(c.type, cell);
    } catch (err) {
      return this.#bad(uuid, `column ${c.name}: ${(err as Error).message}`, cell);
    }
  }

  #bad(uuid: string, message: string, json: unknown): never {
    throw new OvsdbError('bad-update', `${this.table} row ${uuid}: ${message} (${preview(json, 80)})`, {
      table: this.table,
      uuid,
    });
  }
}

/** Decodes the uuid a row was sent under (a table-update key). */
export function checkRowUuid(table: string, uuid: string): string {
  if (!isUuid(uuid)) throw new OvsdbError('bad-update', `${table}: row key is not a uuid: ${preview(uuid)}`);
  return uuid;
}

export { UUID_COLUMN };
