import { OvsdbError, preview } from './errors.js';
import { checkRowUuid, type Row, type TableCodec } from './rows.js';

/** One row's change in one update: insert has old=null, delete has new=null. */
export interface RowChange<R extends Row = Row> {
  readonly table: string;
  readonly uuid: string;
  readonly old: R | null;
  readonly new: R | null;
}

function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

function badUpdate(message: string, json?: unknown): never {
  throw new OvsdbError('bad-update', json === undefined ? message : `${message}: ${preview(json, 80)}`);
}

/**
 * The in-memory copy of the monitored tables, rows by uuid. Pure: it takes decoded JSON
 * table-updates and returns the row changes. Each update is applied all or nothing: every
 * change is computed first and only then committed, so a bad update leaves the replica as it
 * was (and the client resyncs) instead of half applied.
 */
export class Replica {
  #codecs: ReadonlyMap<string, TableCodec>;
  readonly #tables = new Map<string, Map<string, Row>>();

  constructor(codecs: ReadonlyMap<string, TableCodec>) {
    this.#codecs = codecs;
    for (const name of codecs.keys()) this.#tables.set(name, new Map());
  }

  get tableNames(): string[] {
    return [...this.#tables.keys()];
  }

  /** Rows of a table by uuid (empty if the table is not monitored). */
  table(name: string): ReadonlyMap<string, Row> {
    return this.#tables.get(name) ?? EMPTY_TABLE;
  }

  codec(name: string): TableCodec | undefined {
    return this.#codecs.get(name);
  }

  get rowCount(): number {
    let n = 0;
    for (const rows of this.#tables.values()) n += rows.size;
    return n;
  }

  /**
   * Applies `<table-updates2>` (ovsdb-server(7) 4.1: update2 / update3 / monitor_cond_since
   * with found=true): `initial`/`insert` carry the non-default columns, `modify` the diffs,
   * `delete` is null.
   */
  applyUpdate2(updates: unknown): RowChange[] {
    const changes: RowChange[] = [];
    this.#forEachRow(updates, (table, codec, rows, uuid, update) => {
      let kind: string | undefined;
      let body: unknown;
      for (const key in update) {
        if (kind !== undefined) badUpdate(`${table} row ${uuid}: more than one operation`, update);
        kind = key;
        body = update[key];
      }
      const old = rows.get(uuid) ?? null;
      switch (kind) {
        case 'initial':
        case 'insert':
          if (old) badUpdate(`${table} row ${uuid}: ${kind} of a row we already have`);
          changes.push({ table, uuid, old: null, new: codec.decodeRow(uuid, body) });
          return;
        case 'modify':
          if (!old) badUpdate(`${table} row ${uuid}: modify of a row we do not have`);
          changes.push({ table, uuid, old, new: codec.applyModify(old, body) });
          return;
        case 'delete':
          if (!old) badUpdate(`${table} row ${uuid}: delete of a row we do not have`);
          changes.push({ table, uuid, old, new: null });
          return;
        default:
          badUpdate(`${table} row ${uuid}: unknown row update`, update);
      }
    });
    this.#commit(changes);
    return changes;
  }

  /** Applies `<table-updates>` of the original `update` notification (RFC 7047 4.1.6): old/new rows. */
  applyUpdate(updates: unknown): RowChange[] {
    const changes: RowChange[] = [];
    this.#forEachRow(updates, (table, codec, rows, uuid, update) => {
      const current = rows.get(uuid) ?? null;
      const hasNew = update.new !== undefined && update.new !== null;
      if (hasNew && current) {
        changes.push({ table, uuid, old: current, new: codec.applyNew(current, update.new) });
      } else if (hasNew) {
        changes.push({ table, uuid, old: null, new: codec.decodeRow(uuid, update.new) });
      } else if (current) {
        changes.push({ table, uuid, old: current, new: null });
      } else {
        badUpdate(`${table} row ${uuid}: delete of a row we do not have`);
      }
    });
    this.#commit(changes);
    return changes;
  }

  /**
   * Replaces the whole replica with a fresh snapshot (a full `initial` answer after a
   * reconnect) and returns only the real differences: rows that are equal keep their old
   * object and produce no change, so a resync never looks like a delete/insert storm.
   * `snapshot` is `<table-updates2>` (initial/insert rows) or, with `version1`, `<table-updates>`.
   */
  resync(
    snapshot: unknown,
    codecs: ReadonlyMap<string, TableCodec> = this.#codecs,
    version1 = false,
  ): RowChange[] {
    if (snapshot !== null && !isObject(snapshot)) badUpdate('snapshot is not an object', snapshot);
    const fresh = new Map<string, Map<string, Row>>();
    for (const [table, codec] of codecs) {
      const rows = new Map<string, Row>();
      const json = snapshot?.[table];
      if (json !== undefined) {
        if (!isObject(json)) badUpdate(`${table}: table update is not an object`, json);
        for (const uuid in json) {
          checkRowUuid(table, uuid);
          const update = json[uuid];
          const body = isObject(update)
            ? version1
              ? update.new
              : (update.initial ?? update.insert)
            : undefined;
          if (!isObject(body)) badUpdate(`${table} row ${uuid}: not an initial row`, update);
          rows.set(uuid, codec.decodeRow(uuid, body));
        }
      }
      fresh.set(table, rows);
    }
    for (const table in snapshot ?? {}) if (!codecs.has(table)) badUpdate(`${table}: table not monitored`);

    const changes: RowChange[] = [];
    for (const [table, before] of this.#tables) {
      const after = fresh.get(table);
      const codec = codecs.get(table);
      for (const [uuid, old] of before) {
        const next = after?.get(uuid);
        if (!next) changes.push({ table, uuid, old, new: null });
        else if (codec?.equals(old, next)) after?.set(uuid, old);
        else changes.push({ table, uuid, old, new: next });
      }
    }
    for (const [table, after] of fresh) {
      const before = this.#tables.get(table);
      for (const [uuid, row] of after)
        if (!before?.has(uuid)) changes.push({ table, uuid, old: null, new: row });
    }
    this.#codecs = codecs;
    this.#tables.clear();
    for (const [table, rows] of fresh) this.#tables.set(table, rows);
    return changes;
  }

  #forEachRow(
    updates: unknown,
    visit: (
      table: string,
      codec: TableCodec,
      rows: Map<string, Row>,
      uuid: string,
      update: Record<string, unknown>,
    ) => void,
  ): void {
    if (!isObject(updates)) badUpdate('table-updates is not an object', updates);
    for (const table in updates) {
      const codec = this.#codecs.get(table);
      const rows = this.#tables.get(table);
      if (!codec || !rows) badUpdate(`${table}: table not monitored`);
      const json = updates[table];
      if (!isObject(json)) badUpdate(`${table}: table update is not an object`, json);
      for (const uuid in json) {
        checkRowUuid(table, uuid);
        const update = json[uuid];
        if (!isObject(update)) badUpdate(`${table} row ${uuid}: row update is not an object`, update);
        visit(table, codec, rows, uuid, update);
      }
    }
  }

  #commit(changes: readonly RowChange[]): void {
    for (const c of changes) {
      const rows = this.#tables.get(c.table) as Map<string, Row>;
      if (c.new) rows.set(c.uuid, c.new);
      else rows.delete(c.uuid);
    }
  }
}

const EMPTY_TABLE: ReadonlyMap<string, Row> = new Map();
