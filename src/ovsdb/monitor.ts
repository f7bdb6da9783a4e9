import { encodeValue, type ValueInput } from './datum.js';
import { OvsdbError } from './errors.js';
import { TableCodec } from './rows.js';
import { columnType, type DatabaseSchema, type TableSchema, userColumns } from './schema.js';

/* Monitor requests (RFC 7047 4.1.5, ovsdb-server(7) 4.1.12-4.1.15) and their conditions. */

export type ConditionFunction = '<' | '<=' | '==' | '!=' | '>=' | '>' | 'includes' | 'excludes';

/** `[column, function, value]` with the value in the in-memory form (RFC 7047 5.1 <condition>). */
export type Clause = readonly [column: string, fn: ConditionFunction, value: ValueInput];

/**
 * Which rows of a table to monitor. In monitor requests the clauses are OR-ed (a row is sent
 * if it matches any of them); `true`, `[]` or no `where` means every row, `false` none.
 */
export type MonitorWhere = readonly Clause[] | boolean;

export interface TableMonitorSpec {
  /** Columns to replicate; all of the table's columns by default. */
  readonly columns?: readonly string[];
  readonly where?: MonitorWhere;
}

/** Tables to replicate: `{ NAT: {}, Logical_Router: { columns: ['name', 'nat'] } }`. */
export type MonitorSpec = Readonly<Record<string, TableMonitorSpec>>;

export interface PreparedMonitor {
  /** `<monitor-cond-requests>` for monitor_cond / monitor_cond_since. */
  readonly requests: Record<string, unknown[]>;
  readonly codecs: ReadonlyMap<string, TableCodec>;
  /** Tables or columns the spec names that this server's schema lacks (left out, not fatal). */
  readonly missing: readonly string[];
}

/** Encodes one clause for a column of `table` (used by monitor conditions and transact where). */
export function encodeClause(table: TableSchema, clause: Clause): unknown {
  const [column, fn, value] = clause;
  const type = columnType(table, column);
  return [column, fn, encodeValue(type, value)];
}

export function encodeMonitorWhere(
  table: TableSchema,
  where: MonitorWhere | undefined,
): unknown[] | undefined {
  if (where === undefined || where === true) return undefined;
  if (where === false) return [false];
  return where.map((clause) => encodeClause(table, clause));
}

/**
 * Resolves a spec against a server's schema: the monitor request to send and the row codecs
 * that decode what comes back. Tables and columns the schema lacks are reported in `missing`
 * so an older server still serves what it has.
 */
export function prepareMonitor(schema: DatabaseSchema, spec: MonitorSpec): PreparedMonitor {
  const requests: Record<string, unknown[]> = {};
  const codecs = new Map<string, TableCodec>();
  const missing: string[] = [];
  for (const [tableName, tableSpec] of Object.entries(spec)) {
    const table = schema.tables.get(tableName);
    if (!table) {
      missing.push(tableName);
      continue;
    }
    const wanted = tableSpec.columns ?? userColumns(table);
    const columns: string[] = [];
    for (const c of wanted) {
      if (table.columns.has(c)) columns.push(c);
      else missing.push(`${tableName}.${c}`);
    }
    const request: Record<string, unknown> = { columns };
    const where = encodeMonitorWhere(table, tableSpec.where);
    if (where) request.where = where;
    requests[tableName] = [request];
    codecs.set(tableName, new TableCodec(table, columns));
  }
  if (codecs.size === 0)
    throw new OvsdbError('bad-schema', `none of the tables to monitor exist in ${schema.name}`);
  return { requests, codecs, missing };
}

/** `<monitor-cond-update-requests>` for monitor_cond_change: new conditions for some tables. */
export function conditionChangeRequests(
  schema: DatabaseSchema,
  changes: Readonly<Record<string, MonitorWhere>>,
): Record<string, unknown[]> {
  const out: Record<string, unknown[]> = {};
  for (const [tableName, where] of Object.entries(changes)) {
    const table = schema.tables.get(tableName);
    if (!table) throw new OvsdbError('bad-schema', `no table ${tableName} in ${schema.name}`);
    out[tableName] = [{ where: encodeMonitorWhere(table, where) ?? [true] }];
  }
  return out;
}
