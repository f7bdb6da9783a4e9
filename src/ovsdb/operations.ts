import { encodeAtom, encodeValue, isUuid, type ValueInput } from './datum.js';
import { OvsdbError, preview, TransactionError } from './errors.js';
import { type Clause, encodeClause } from './monitor.js';
import { type Row, TableCodec } from './rows.js';
import {
  type BaseType,
  type ColumnType,
  columnType,
  type DatabaseSchema,
  makeColumnType,
  type TableSchema,
  tableSchema,
  UUID_COLUMN,
  userColumns,
} from './schema.js';

/* RFC 7047 section 5.2: transact operations, and the decoding of their results. */

/** Clauses of an operation's `where` are AND-ed (RFC 7047 5.1 <condition>). */
export type Where = readonly Clause[];
export type Mutator = '+=' | '-=' | '*=' | '/=' | '%=' | 'insert' | 'delete';
export type Mutation = readonly [column: string, mutator: Mutator, value: ValueInput];
export type RowInput = Readonly<Record<string, ValueInput>>;

export type Operation =
  | {
      readonly op: 'insert';
      readonly table: string;
      readonly row: RowInput;
      /** Names the new row for `namedUuid(name)` references later in the same transaction. */
      readonly uuidName?: string;
    }
  | {
      readonly op: 'select';
      readonly table: string;
      readonly where: Where;
      readonly columns?: readonly string[];
    }
  | { readonly op: 'update'; readonly table: string; readonly where: Where; readonly row: RowInput }
  | {
      readonly op: 'mutate';
      readonly table: string;
      readonly where: Where;
      readonly mutations: readonly Mutation[];
    }
  | { readonly op: 'delete'; readonly table: string; readonly where: Where }
  | {
      readonly op: 'wait';
      readonly table: string;
      readonly where: Where;
      readonly columns: readonly string[];
      readonly until: '==' | '!=';
      readonly rows: readonly RowInput[];
      readonly timeout?: number;
    }
  | { readonly op: 'commit'; readonly durable: boolean }
  | { readonly op: 'abort' }
  | { readonly op: 'comment'; readonly comment: string }
  | { readonly op: 'assert'; readonly lock: string };

export type OperationResult =
  | { readonly op: 'insert'; readonly uuid: string }
  | { readonly op: 'select'; readonly rows: readonly Row[] }
  | { readonly op: 'update' | 'mutate' | 'delete'; readonly count: number }
  | { readonly op: 'wait' | 'commit' | 'abort' | 'comment' | 'assert' };

export interface TransactResult {
  readonly results: readonly OperationResult[];
  /** uuid-name → the uuid the server gave the inserted row. */
  readonly uuids: ReadonlyMap<string, string>;
}

function withContext<T>(where: string, encode: () => T): T {
  try {
    return encode();
  } catch (err) {
    if (err instanceof OvsdbError) throw new OvsdbError(err.kind, `${where}: ${err.message}`, err.data);
    throw err;
  }
}

function encodeRow(table: TableSchema, row: RowInput): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const [column, value] of Object.entries(row)) {
    if (value === undefined) continue;
    out[column] = withContext(`${table.name}.${column}`, () => encodeValue(columnType(table, column), value));
  }
  return out;
}

function encodeWhere(table: TableSchema, where: Where): unknown[] {
  return where.map((clause) =>
    withContext(`${table.name} where ${clause[0]}`, () => encodeClause(table, clause)),
  );
}

/** The type of a mutation's argument (RFC 7047 5.1 <mutation>). */
function mutationArgument(type: ColumnType, mutator: Mutator, value: ValueInput): unknown {
  const anyCount = (key: BaseType, val?: BaseType) => makeColumnType(key, val, 0, Number.POSITIVE_INFINITY);
  if (mutator === 'insert' || mutator === 'delete') {
    if (type.kind === 'map') {
      // "delete" on a map takes either a map (key and value must match) or a set of keys.
      const keysOnly = mutator === 'delete' && (Array.isArray(value) || value instanceof Set);
      return encodeValue(keysOnly ? anyCount(type.key) : anyCount(type.key, type.value), value);
    }
    return encodeValue(anyCount(type.key), value);
  }
  return encodeAtom(type.key, value);
}

function encodeOperation(schema: DatabaseSchema, op: Operation): Record<string, unknown> {
  switch (op.op) {
    case 'commit':
      return { op: 'commit', durable: op.durable };
    case 'abort':
      return { op: 'abort' };
    case 'comment':
      return { op: 'comment', comment: op.comment };
    case 'assert':
      return { op: 'assert', lock: op.lock };
  }
  const table = tableSchema(schema, op.table);
  switch (op.op) {
    case 'insert': {
      const out: Record<string, unknown> = { op: 'insert', table: op.table, row: encodeRow(table, op.row) };
      if (op.uuidName !== undefined) out['uuid-name'] = op.uuidName;
      return out;
    }
    case 'select': {
      const out: Record<string, unknown> = {
        op: 'select',
        table: op.table,
        where: encodeWhere(table, op.where),
      };
      if (op.columns) out.columns = [...op.columns];
      return out;
    }
    case 'update':
      return {
        op: 'update',
        table: op.table,
        where: encodeWhere(table, op.where),
        row: encodeRow(table, op.row),
      };
    case 'mutate':
      return {
        op: 'mutate',
        table: op.table,
        where: encodeWhere(table, op.where),
        mutations: op.mutations.map(([column, mutator, value]) => [
          column,
          mutator,
          withContext(`${table.name}.${column} ${mutator}`, () =>
            mutationArgument(columnType(table, column), mutator, value),
          ),
        ]),
      };
    case 'delete':
      return { op: 'delete', table: op.table, where: encodeWhere(table, op.where) };
    case 'wait': {
      const out: Record<string, unknown> = {
        op: 'wait',
        table: op.table,
        where: encodeWhere(table, op.where),
        columns: [...op.columns],
        until: op.until,
        rows: op.rows.map((row) => encodeRow(table, row)),
      };
      if (op.timeout !== undefined) out.timeout = op.timeout;
      return out;
    }
  }
}

/** `params` of a transact request: the database name, then each operation. */
export function encodeTransact(schema: DatabaseSchema, ops: readonly Operation[]): unknown[] {
  return [schema.name, ...ops.map((op) => encodeOperation(schema, op))];
}

function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

function errorOf(value: unknown): { error: string; details: string | undefined } | undefined {
  if (!isObject(value) || typeof value.error !== 'string') return undefined;
  return { error: value.error, details: typeof value.details === 'string' ? value.details : undefined };
}

function decodeSelectRows(table: TableSchema, columns: readonly string[] | undefined, rows: unknown): Row[] {
  if (!Array.isArray(rows))
    throw new OvsdbError('bad-message', `select rows is not an array: ${preview(rows)}`);
  const decoded = (columns ?? userColumns(table)).filter((c) => c !== UUID_COLUMN);
  const codec = new TableCodec(table, decoded);
  return rows.map((json) => {
    const tagged = isObject(json) ? json[UUID_COLUMN] : undefined;
    const uuid = Array.isArray(tagged) && tagged[0] === 'uuid' && isUuid(tagged[1]) ? tagged[1] : '';
    return codec.decodeRow(uuid, json);
  });
}

/**
 * Reads a transact result (RFC 7047 4.1.3). Throws TransactionError for the first failure:
 * an operation's error, or the extra element ovsdb-server appends for a commit-time error
 * (constraint or referential integrity violations). Operations after a failure are null.
 */
export function decodeTransactResult(
  schema: DatabaseSchema,
  ops: readonly Operation[],
  result: unknown,
): TransactResult {
  if (!Array.isArray(result))
    throw new OvsdbError('bad-message', `transact result is not an array: ${preview(result)}`);
  for (let i = 0; i < result.length; i++) {
    const failure = errorOf(result[i]);
    if (failure) throw new TransactionError(i < ops.length ? i : -1, failure.error, failure.details);
  }
  if (result.length < ops.length) {
    throw new OvsdbError(
      'bad-message',
      `transact result has ${result.length} element(s) for ${ops.length} operation(s)`,
    );
  }
  const uuids = new Map<string, string>();
  const results = ops.map((op, i): OperationResult => {
    const r = result[i];
    if (!isObject(r)) throw new OvsdbError('bad-message', `operation ${i} result: ${preview(r)}`);
    switch (op.op) {
      case 'insert': {
        const uuid =
          Array.isArray(r.uuid) && r.uuid[0] === 'uuid' && isUuid(r.uuid[1]) ? r.uuid[1] : undefined;
        if (!uuid) throw new OvsdbError('bad-message', `insert result without uuid: ${preview(r)}`);
        if (op.uuidName !== undefined) uuids.set(op.uuidName, uuid);
        return { op: 'insert', uuid };
      }
      case 'select':
        return { op: 'select', rows: decodeSelectRows(tableSchema(schema, op.table), op.columns, r.rows) };
      case 'update':
      case 'mutate':
      case 'delete':
        if (typeof r.count !== 'number') throw new OvsdbError('bad-message', `${op.op} result without count`);
        return { op: op.op, count: r.count };
      default:
        return { op: op.op };
    }
  });
  return { results, uuids };
}
