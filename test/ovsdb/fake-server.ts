/**
 * An in-memory OVSDB server for client tests: one small database, `_Server`, a transaction
 * log (so monitor_cond_since can resume, as a RAFT member does, or not, as a standalone
 * server does), update3 notifications computed by the independent server model.
 */
import { randomUUID } from 'node:crypto';
import { ZERO_UUID } from '../../src/ovsdb/constants.js';
import { OvsdbError } from '../../src/ovsdb/errors.js';
import type { Channel } from '../../src/ovsdb/index.js';
import type { Remote } from '../../src/ovsdb/remote.js';
import { parseSchema, type TableSchema } from '../../src/ovsdb/schema.js';
import { FakeChannel } from './fakes.js';
import { insertRow, modifyRow, type PlainRow, tableUpdates2 } from './server-model.js';

export const TEST_DB = 'TestDB';
export const TEST_SCHEMA_JSON = {
  name: TEST_DB,
  version: '1.0.0',
  tables: {
    Route: {
      columns: {
        prefix: { type: 'string' },
        nexthop: { type: { key: 'string', min: 0, max: 1 } },
        tags: { type: { key: 'string', min: 0, max: 'unlimited' } },
        options: { type: { key: 'string', value: 'string', min: 0, max: 'unlimited' } },
      },
      isRoot: true,
    },
  },
};
const SERVER_SCHEMA_JSON = {
  name: '_Server',
  version: '1.2.0',
  tables: {
    Database: {
      columns: {
        name: { type: 'string' },
        model: { type: { key: { type: 'string', enum: ['set', ['standalone', 'clustered', 'relay']] } } },
        connected: { type: 'boolean' },
        leader: { type: 'boolean' },
        schema: { type: { key: 'string', min: 0, max: 1 } },
        cid: { type: { key: 'uuid', min: 0, max: 1 } },
        sid: { type: { key: 'uuid', min: 0, max: 1 } },
        index: { type: { key: 'integer', min: 0, max: 1 } },
      },
      isRoot: true,
    },
  },
};
const ROUTE = parseSchema(TEST_SCHEMA_JSON).tables.get('Route') as TableSchema;
const DATABASE = parseSchema(SERVER_SCHEMA_JSON).tables.get('Database') as TableSchema;
export const ROUTE_COLUMNS = ['prefix', 'nexthop', 'tags', 'options'] as const;
const DB_COLUMNS = ['name', 'model', 'connected', 'leader', 'cid', 'sid', 'index'];
const DB_ROW_UUID = '11111111-1111-4111-8111-111111111111';

export type Routes = Map<string, PlainRow>;
export const route = (prefix: string, extra: Partial<PlainRow> = {}): PlainRow => ({
  prefix,
  nexthop: null,
  tags: [],
  options: new Map(),
  ...extra,
});

interface Attached {
  channel: FakeChannel;
  monitorId?: unknown;
  serverMonitorId?: unknown;
}

/** Shared database state: several FakeServers (cluster members) can serve one. */
export class FakeDatabase {
  rows: Routes = new Map();
  /** txn id → state after it. */
  readonly log = new Map<string, Routes>();
  lastTxnId = ZERO_UUID;
  index = 1;
  readonly servers = new Set<FakeServer>();

  commit(next: Routes): string {
    const before = this.rows;
    this.rows = new Map(next);
    this.lastTxnId = randomUUID();
    this.log.set(this.lastTxnId, this.rows);
    this.index++;
    for (const s of this.servers) s.publish(before, this.rows);
    return this.lastTxnId;
  }
}

export interface ServerRow {
  model: 'standalone' | 'clustered';
  connected: boolean;
  leader: boolean;
  cid: string | null;
}

export class FakeServer {
  readonly db: FakeDatabase;
  readonly name: string;
  /** Keeps a transaction history (a RAFT member) or not (standalone: found is always false). */
  history: boolean;
  supportsSince = true;
  refuse = false;
  serverRow: ServerRow;
  readonly sessions = new Set<Attached>();
  readonly requests: { method: string; params: unknown[] }[] = [];
  /** When set, monitor_cond_since replies wait here until the test calls them. */
  held: (() => void)[] | undefined;
  /** Replaces the next update3 with this text (to inject bad input). */
  corruptNext: string | undefined;

  constructor(db: FakeDatabase, name: string, opts: { history?: boolean; row?: Partial<ServerRow> } = {}) {
    this.db = db;
    this.name = name;
    this.history = opts.history ?? false;
    this.serverRow = { model: 'standalone', connected: true, leader: true, cid: null, ...opts.row };
    db.servers.add(this);
  }

  accept(): Channel {
    const channel = new FakeChannel();
    const s: Attached = { channel };
    this.sessions.add(s);
    channel.on('close', () => this.sessions.delete(s));
    channel.onWrite = (m) => this.#handle(s, m);
    return channel;
  }

  /** Drops every client connection (a crash or kill -9, as the client sees it). */
  dropAll(): void {
    for (const s of [...this.sessions]) {
      this.sessions.delete(s);
      s.channel.hangUp();
    }
  }

  setServerRow(change: Partial<ServerRow>): void {
    const before = this.#dbRow();
    this.serverRow = { ...this.serverRow, ...change };
    const diff = modifyRow(DATABASE, DB_COLUMNS, before, this.#dbRow());
    if (!diff) return;
    for (const s of this.sessions) {
      if (s.serverMonitorId === undefined) continue;
      s.channel.serverSend({
        id: null,
        method: 'update2',
        params: [s.serverMonitorId, { Database: { [DB_ROW_UUID]: { modify: diff } } }],
      });
    }
  }

  publish(before: Routes, after: Routes): void {
    const updates = tableUpdates2(ROUTE, ROUTE_COLUMNS, before, after);
    for (const s of this.sessions) {
      if (s.monitorId === undefined) continue;
      const txn = this.history ? this.db.lastTxnId : ZERO_UUID;
      if (this.corruptNext !== undefined) {
        s.channel.serverSend(this.corruptNext.replace('MONID', JSON.stringify(s.monitorId)));
        this.corruptNext = undefined;
        continue;
      }
      s.channel.serverSend({ id: null, method: 'update3', params: [s.monitorId, txn, updates] });
    }
  }

  #dbRow(): PlainRow {
    return {
      name: TEST_DB,
      model: this.serverRow.model,
      connected: this.serverRow.connected,
      leader: this.serverRow.leader,
      cid: this.serverRow.cid,
      sid: null,
      index: this.serverRow.model === 'clustered' ? this.db.index : null,
    };
  }

  #snapshot(): Record<string, unknown> {
    const rows: Record<string, unknown> = {};
    for (const [uuid, row] of this.db.rows) rows[uuid] = { initial: insertRow(ROUTE, ROUTE_COLUMNS, row) };
    return Object.keys(rows).length ? { Route: rows } : {};
  }

  #handle(s: Attached, m: Record<string, unknown>) {
    if (m.method === undefined) return; // a reply to our echo
    const params = m.params as unknown[];
    this.requests.push({ method: m.method as string, params });
    const reply = (result: unknown) => s.channel.serverSend({ id: m.id, result, error: null });
    const fail = (error: unknown) => s.channel.serverSend({ id: m.id, error });
    switch (m.method) {
      case 'get_schema':
        if (params[0] === '_Server') return reply(SERVER_SCHEMA_JSON);
        if (params[0] === TEST_DB) return reply(TEST_SCHEMA_JSON);
        return fail({ error: 'unknown database' });
      case 'monitor_cond':
        if (params[0] === '_Server') {
          s.serverMonitorId = params[1];
          return reply({
            Database: { [DB_ROW_UUID]: { initial: insertRow(DATABASE, DB_COLUMNS, this.#dbRow()) } },
          });
        }
        s.monitorId = params[1];
        return reply(this.#snapshot());
      case 'monitor_cond_since': {
        if (!this.supportsSince) return fail('unknown method');
        if (this.held) {
          const held = this.held;
          this.held = undefined;
          held.push(() => this.#handle(s, m));
          this.requests.pop();
          return;
        }
        s.monitorId = params[1];
        const since = params[3] as string;
        const past = this.history ? this.db.log.get(since) : undefined;
        if (past) {
          return reply([true, this.db.lastTxnId, tableUpdates2(ROUTE, ROUTE_COLUMNS, past, this.db.rows)]);
        }
        return reply([false, this.history ? this.db.lastTxnId : ZERO_UUID, this.#snapshot()]);
      }
      case 'monitor_cond_change':
        return reply({});
      case 'transact': {
        // Inserts only: enough to see writes go to the right member.
        const next = new Map(this.db.rows);
        const results: unknown[] = [];
        for (const op of params.slice(1) as { op: string; row: { prefix: string } }[]) {
          const uuid = randomUUID();
          next.set(uuid, route(op.row.prefix));
          results.push({ uuid: ['uuid', uuid] });
        }
        this.db.commit(next);
        return reply(results);
      }
      case 'echo':
        return reply(params);
      default:
        return fail('unknown method');
    }
  }
}

/** A connector over fake servers by remote text; unknown or refusing servers fail to connect. */
export function fakeConnector(servers: Record<string, FakeServer>) {
  return async (remote: Remote): Promise<Channel> => {
    const server = servers[remote.text];
    if (!server || server.refuse) {
      throw new OvsdbError('connection-failed', `${remote.text}: connection refused`);
    }
    return server.accept();
  };
}
