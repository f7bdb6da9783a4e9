import { OvsdbError, preview } from './errors.js';

/* RFC 7047 section 3.2: database, table and column schemas, normalised for the codec. */

export type AtomicType = 'integer' | 'real' | 'boolean' | 'string' | 'uuid';
const ATOMIC_TYPES: ReadonlySet<string> = new Set(['integer', 'real', 'boolean', 'string', 'uuid']);

export interface BaseType {
  readonly type: AtomicType;
  /** For uuid atoms: the table referenced, and whether the reference is weak. */
  readonly refTable?: string;
  readonly refType?: 'strong' | 'weak';
  /** Allowed values, when constrained (kept raw: the server enforces constraints). */
  readonly enum?: unknown;
}

/**
 * How a column's values are held in memory:
 * - `scalar`   exactly one atom (min 1, max 1, no value type) → the atom;
 * - `optional` zero or one atom (min 0, max 1) → the atom or null;
 * - `set`      more than one atom allowed → readonly array of atoms;
 * - `map`      a value type is given → ReadonlyMap of atoms.
 */
export type ColumnKind = 'scalar' | 'optional' | 'set' | 'map';

export interface ColumnType {
  readonly key: BaseType;
  readonly value: BaseType | undefined;
  readonly min: number;
  /** `Infinity` for "unlimited". */
  readonly max: number;
  readonly kind: ColumnKind;
  /**
   * ovsdb_type_is_composite(): more than one element allowed. Only such columns travel as
   * diffs in update2/update3 `modify`; every other column carries its new value.
   */
  readonly composite: boolean;
}

export interface TableSchema {
  readonly name: string;
  /** Every column, including the implicit `_uuid` and `_version`. */
  readonly columns: ReadonlyMap<string, ColumnType>;
  readonly isRoot: boolean;
  readonly indexes: readonly (readonly string[])[];
}

export interface DatabaseSchema {
  readonly name: string;
  readonly version: string;
  readonly cksum: string | undefined;
  readonly tables: ReadonlyMap<string, TableSchema>;
}

export const UUID_COLUMN = '_uuid';
export const VERSION_COLUMN = '_version';

function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

function bad(what: string, value: unknown): never {
  throw new OvsdbError('bad-schema', `${what}: ${preview(value)}`);
}

function parseBaseType(json: unknown, where: string): BaseType {
  if (typeof json === 'string') {
    if (!ATOMIC_TYPES.has(json)) bad(`${where}: unknown atomic type`, json);
    return { type: json as AtomicType };
  }
  if (!isObject(json) || typeof json.type !== 'string' || !ATOMIC_TYPES.has(json.type)) {
    bad(`${where}: bad base type`, json);
  }
  const base: { -readonly [K in keyof BaseType]: BaseType[K] } = { type: json.type as AtomicType };
  if (typeof json.refTable === 'string') {
    base.refTable = json.refTable;
    base.refType = json.refType === 'weak' ? 'weak' : 'strong';
  }
  if (json.enum !== undefined) base.enum = json.enum;
  return base;
}

export function makeColumnType(
  key: BaseType,
  value: BaseType | undefined,
  min: number,
  max: number,
): ColumnType {
  let kind: ColumnKind;
  if (value) kind = 'map';
  else if (max > 1) kind = 'set';
  else if (min === 0) kind = 'optional';
  else kind = 'scalar';
  return { key, value, min, max, kind, composite: max > 1 };
}

export function parseColumnType(json: unknown, where = 'column'): ColumnType {
  if (typeof json === 'string') return makeColumnType(parseBaseType(json, where), undefined, 1, 1);
  if (!isObject(json)) bad(`${where}: bad type`, json);
  const key = parseBaseType(json.key, `${where} key`);
  const value = json.value === undefined ? undefined : parseBaseType(json.value, `${where} value`);
  const min = json.min === undefined ? 1 : json.min;
  const max = json.max === undefined ? 1 : json.max === 'unlimited' ? Number.POSITIVE_INFINITY : json.max;
  if (min !== 0 && min !== 1) bad(`${where}: min must be 0 or 1`, json.min);
  if (typeof max !== 'number' || !(max >= 1) || (Number.isFinite(max) && !Number.isInteger(max))) {
    bad(`${where}: bad max`, json.max);
  }
  return makeColumnType(key, value, min, max);
}

const UUID_TYPE = makeColumnType({ type: 'uuid' }, undefined, 1, 1);

/** Parses a get_schema result; throws OvsdbError('bad-schema') naming the bad part. */
export function parseSchema(json: unknown): DatabaseSchema {
  if (!isObject(json) || typeof json.name !== 'string' || !isObject(json.tables))
    bad('bad database schema', json);
  const tables = new Map<string, TableSchema>();
  for (const [tableName, tableJson] of Object.entries(json.tables)) {
    if (!isObject(tableJson) || !isObject(tableJson.columns)) bad(`table ${tableName}`, tableJson);
    const columns = new Map<string, ColumnType>();
    columns.set(UUID_COLUMN, UUID_TYPE);
    columns.set(VERSION_COLUMN, UUID_TYPE);
    for (const [columnName, columnJson] of Object.entries(tableJson.columns)) {
      if (!isObject(columnJson)) bad(`column ${tableName}.${columnName}`, columnJson);
      columns.set(columnName, parseColumnType(columnJson.type, `${tableName}.${columnName}`));
    }
    const indexes = Array.isArray(tableJson.indexes)
      ? tableJson.indexes.filter((ix): ix is string[] => Array.isArray(ix))
      : [];
    tables.set(tableName, { name: tableName, columns, isRoot: tableJson.isRoot === true, indexes });
  }
  return {
    name: json.name,
    version: typeof json.version === 'string' ? json.version : '',
    cksum: typeof json.cksum === 'string' ? json.cksum : undefined,
    tables,
  };
}

export function tableSchema(schema: DatabaseSchema, table: string): TableSchema {
  const t = schema.tables.get(table);
  if (!t) throw new OvsdbError('bad-schema', `no table ${table} in ${schema.name}`, { table });
  return t;
}

export function columnType(table: TableSchema, column: string): ColumnType {
  const c = table.columns.get(column);
  if (!c) throw new OvsdbError('bad-schema', `no column ${column} in table ${table.name}`, { column });
  return c;
}

/** The columns a client sees by default: every column but the implicit ones. */
export function userColumns(table: TableSchema): string[] {
  return [...table.columns.keys()].filter((c) => c !== UUID_COLUMN && c !== VERSION_COLUMN);
}
