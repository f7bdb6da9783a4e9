/**
 * An OVN NB in memory, just big enough for the sink: Logical_Router and
 * Logical_Router_Static_Route, the ops the sink sends (wait, insert, mutate, comment) executed
 * atomically with garbage collection of unreferenced routes, and a replica fed by change
 * events as OvsdbClient feeds it. Faults on demand: the session lost before or after a
 * commit, notifications held back past the reply, the server re-running a committed
 * transaction (what ovsdb-server does after a RAFT "cluster error").
 */
import { randomUUID } from 'node:crypto';
import { readFileSync } from 'node:fs';
import type { NbClient } from '../../../src/fib/ovn-nb/index.js';
import {
  type Atom,
  type ChangeBatch,
  type ClientEvents,
  type ClientStatus,
  NamedUuid,
  type Operation,
  OvsdbError,
  parseSchema,
  type Row,
  type RowChange,
  TransactionError,
  type TransactResult,
  type ValueInput,
} from '../../../src/ovsdb/index.js';
import { encodeTransact } from '../../../src/ovsdb/operations.js';
import { lrsr } from './support.js';

export const NB_SCHEMA = parseSchema(
  JSON.parse(readFileSync(new URL('../../ovsdb/fixtures/ovn-nb.ovsschema', import.meta.url), 'utf8')),
);

const LR = 'Logical_Router';
const LRSR = 'Logical_Router_Static_Route';

export interface RouteFields {
  readonly ip_prefix: string;
  readonly nexthop: string;
  readonly output_port?: string | null;
  readonly route_table?: string;
  readonly policy?: string | null;
  readonly external_ids?: Readonly<Record<string, string>>;
}

type Tables = Map<string, Map<string, Row>>;

function routerRow(uuid: string, name: string, routes: readonly Atom[]): Row {
  return Object.freeze({
    _uuid: uuid,
    name,
    static_routes: Object.freeze([...routes]),
    _version: randomUUID(),
  });
}

function copy(t: Tables): Tables {
  return new Map([...t].map(([name, rows]) => [name, new Map(rows)]));
}

function diff(before: Tables, after: Tables): RowChange[] {
  const out: RowChange[] = [];
  for (const [table, rows] of after) {
    const old = before.get(table) ?? new Map();
    for (const [uuid, row] of rows)
      if (old.get(uuid) !== row) out.push({ table, uuid, old: old.get(uuid) ?? null, new: row });
    for (const [uuid, row] of old) if (!rows.has(uuid)) out.push({ table, uuid, old: row, new: null });
  }
  return out;
}

function sameSet(a: readonly Atom[], b: readonly Atom[]): boolean {
  return a.length === b.length && a.every((x) => b.includes(x));
}

function sameValue(a: unknown, b: unknown): boolean {
  if (Array.isArray(a) && Array.isArray(b)) return sameSet(a, b);
  if (a instanceof Map && b instanceof Map)
    return a.size === b.size && [...a].every(([k, v]) => b.get(k) === v);
  return a === b;
}

/** Equal but for `_version`. */
function sameContent(a: Row, b: Row): boolean {
  return Object.keys(a).every((k) => k === '_version' || sameValue(a[k], b[k]));
}

type Fault = 'lose-before-commit' | 'lose-after-commit' | 'rerun-after-commit';

export class FakeNb implements NbClient {
  /** What the server holds. */
  server: Tables = new Map([
    [LR, new Map()],
    [LRSR, new Map()],
  ]);
  /** What the client has seen. */
  #replica: Tables = copy(this.server);
  #synced = true;
  #status: ClientStatus = {
    state: 'synced',
    remote: 'fake',
    model: 'standalone',
    leader: true,
    resumed: false,
  };
  readonly #listeners = {
    changes: new Set<(b: ChangeBatch) => void>(),
    status: new Set<(s: ClientStatus) => void>(),
  };
  /** Hold notifications until flush() (ovsdb-server sends them after the reply under load). */
  lag = false;
  #held: RowChange[][] = [];
  /** Applied to the next transact only. */
  nextFault: Fault | undefined;
  transactions = 0;
  readonly sent: (readonly Operation[])[] = [];

  get synced(): boolean {
    return this.#synced;
  }

  get status(): ClientStatus {
    return this.#status;
  }

  table(name: string): ReadonlyMap<string, Row> {
    return this.#replica.get(name) ?? new Map();
  }

  on<K extends 'changes' | 'status'>(
    event: K,
    listener: (value: ClientEvents<Record<string, Row>>[K]) => void,
  ): () => void {
    const set = this.#listeners[event] as Set<typeof listener>;
    set.add(listener);
    return () => set.delete(listener);
  }

  whenSynced(timeoutMs = 1000): Promise<void> {
    if (this.#synced) return Promise.resolve();
    return new Promise((resolve, reject) => {
      const timer = setTimeout(() => {
        off();
        reject(new OvsdbError('request-timeout', `not synced within ${timeoutMs} ms`));
      }, timeoutMs);
      const off = this.on('status', (s) => {
        if (s.state !== 'synced') return;
        clearTimeout(timer);
        off();
        resolve();
      });
    });
  }

  async transact(ops: readonly Operation[]): Promise<TransactResult> {
    if (!this.#synced) throw new OvsdbError('not-connected', 'no synced session');
    encodeTransact(NB_SCHEMA, ops); // what the real client would refuse to send
    this.sent.push(ops);
    const fault = this.nextFault;
    this.nextFault = undefined;
    await Promise.resolve();
    if (fault === 'lose-before-commit') {
      this.disconnect();
      throw new OvsdbError('connection-lost', 'fake: closed by peer');
    }
    const result = this.#execute(ops);
    if (fault === 'rerun-after-commit') {
      // ovsdb-server re-executes the request; the client only ever sees the second outcome.
      return this.#execute(ops);
    }
    if (fault === 'lose-after-commit') {
      this.disconnect();
      throw new OvsdbError('connection-lost', 'fake: closed by peer');
    }
    return result;
  }

  /** The session drops: no more notifications until reconnect(). */
  disconnect(): void {
    if (!this.#synced) return;
    this.#synced = false;
    this.#held = [];
    this.#setStatus({
      state: 'disconnected',
      remote: 'fake',
      error: new OvsdbError('connection-lost', 'fake'),
    });
  }

  /** A new session: a full snapshot, diffed against the replica (as OvsdbClient's resync). */
  reconnect(): void {
    const changes = diff(this.#replica, this.server);
    this.#replica = copy(this.server);
    this.#emit({ reason: 'resync', changes });
    this.#synced = true;
    this.#setStatus({ state: 'synced', remote: 'fake', model: 'standalone', leader: true, resumed: false });
  }

  /**
   * The session moves to another RAFT member: same rows, but that member's own `_version` for
   * each router (members do not share them). `missed` runs on the server while we are away.
   * The resume (monitor_cond_since found=true) then sends only rows whose content changed.
   */
  failover(missed: () => void = () => {}): void {
    this.disconnect();
    for (const [uuid, r] of this.server.get(LR)!)
      this.server.get(LR)!.set(uuid, routerRow(uuid, r.name as string, r.static_routes as Atom[]));
    missed();
    const changes: RowChange[] = [];
    for (const [table, rows] of this.server) {
      const mine = this.#replica.get(table)!;
      for (const [uuid, row] of rows) {
        const old = mine.get(uuid);
        if (!old || !sameContent(old, row)) changes.push({ table, uuid, old: old ?? null, new: row });
      }
      for (const [uuid, row] of mine) if (!rows.has(uuid)) changes.push({ table, uuid, old: row, new: null });
    }
    for (const c of changes) {
      if (c.new) this.#replica.get(c.table)!.set(c.uuid, c.new);
      else this.#replica.get(c.table)!.delete(c.uuid);
    }
    this.#emit({ reason: 'resume', changes });
    this.#synced = true;
    this.#setStatus({ state: 'synced', remote: 'fake-2', model: 'clustered', leader: true, resumed: true });
  }

  /** Delivers held notifications. */
  flush(): void {
    for (const changes of this.#held.splice(0)) this.#deliver(changes);
  }

  // --- server-side edits, as ovn-nbctl would make them -----------------------------------------

  addRouter(name: string): string {
    const uuid = randomUUID();
    this.#commit((t) => t.get(LR)!.set(uuid, routerRow(uuid, name, [])));
    return uuid;
  }

  deleteRouter(uuid: string): void {
    this.#commit((t) => t.get(LR)!.delete(uuid));
  }

  /** A static route on a router (by hand, or by another speaker). */
  addRoute(router: string, fields: RouteFields): string {
    const uuid = randomUUID();
    this.#commit((t) => {
      t.get(LRSR)!.set(uuid, lrsr(uuid, fields));
      const r = t.get(LR)!.get(router)!;
      t.get(LR)!.set(router, routerRow(router, r.name as string, [...(r.static_routes as Atom[]), uuid]));
    });
    return uuid;
  }

  removeRoute(uuid: string): void {
    this.#commit((t) => {
      for (const [id, r] of t.get(LR)!) {
        const routes = r.static_routes as Atom[];
        if (routes.includes(uuid))
          t.get(LR)!.set(
            id,
            routerRow(
              id,
              r.name as string,
              routes.filter((u) => u !== uuid),
            ),
          );
      }
    });
  }

  /** Static routes on a router, server side. */
  routesOf(router: string): Row[] {
    const r = this.server.get(LR)!.get(router);
    return ((r?.static_routes as Atom[]) ?? []).map((u) => this.server.get(LRSR)!.get(u as string)!);
  }

  // ---------------------------------------------------------------------------------------------

  #execute(ops: readonly Operation[]): TransactResult {
    const next = copy(this.server);
    const names = new Map<string, string>();
    const results: TransactResult['results'][number][] = [];
    const resolve = (v: ValueInput): string[] =>
      (v as readonly unknown[]).map((a) => (a instanceof NamedUuid ? names.get(a.name)! : (a as string)));
    ops.forEach((op, i) => {
      switch (op.op) {
        case 'wait': {
          const uuid = op.where[0][2] as string;
          const row = next.get(op.table)!.get(uuid);
          const [column] = op.columns;
          const want = op.rows[0][column];
          const holds =
            row !== undefined &&
            (column === '_version'
              ? row._version === want
              : sameSet(row.static_routes as readonly Atom[], want as readonly Atom[]));
          if (!holds) throw new TransactionError(i, 'timed out', '"where" clause test failed');
          results.push({ op: 'wait' });
          return;
        }
        case 'insert': {
          const uuid = randomUUID();
          if (op.uuidName) names.set(op.uuidName, uuid);
          next.get(op.table)!.set(uuid, lrsr(uuid, op.row as unknown as RouteFields));
          results.push({ op: 'insert', uuid });
          return;
        }
        case 'mutate': {
          const uuid = op.where[0][2] as string;
          const row = next.get(op.table)!.get(uuid);
          if (!row) {
            results.push({ op: 'mutate', count: 0 });
            return;
          }
          let routes = [...(row.static_routes as Atom[])];
          for (const [, mutator, value] of op.mutations) {
            const uuids = resolve(value);
            routes =
              mutator === 'delete'
                ? routes.filter((u) => !uuids.includes(u as string))
                : [...routes, ...uuids.filter((u) => !routes.includes(u))];
          }
          next.get(op.table)!.set(uuid, routerRow(uuid, row.name as string, routes));
          results.push({ op: 'mutate', count: 1 });
          return;
        }
        case 'comment':
          results.push({ op: 'comment' });
          return;
        default:
          throw new Error(`fake NB: ${op.op} not supported`);
      }
    });
    this.#commit(() => {}, next);
    this.transactions++;
    return { results, uuids: names };
  }

  /** Commits `edit` (on a copy), garbage-collects unreferenced routes, notifies. */
  #commit(edit: (t: Tables) => void, base?: Tables): void {
    const next = base ?? copy(this.server);
    edit(next);
    const referenced = new Set<string>();
    for (const r of next.get(LR)!.values())
      for (const u of r.static_routes as Atom[]) referenced.add(u as string);
    for (const uuid of [...next.get(LRSR)!.keys()]) if (!referenced.has(uuid)) next.get(LRSR)!.delete(uuid);
    const changes = diff(this.server, next);
    this.server = next;
    if (!this.#synced || changes.length === 0) return;
    if (this.lag) this.#held.push(changes);
    else this.#deliver(changes);
  }

  #deliver(changes: RowChange[]): void {
    for (const c of changes) {
      const rows = this.#replica.get(c.table)!;
      if (c.new) rows.set(c.uuid, c.new);
      else rows.delete(c.uuid);
    }
    this.#emit({ reason: 'update', changes });
  }

  #emit(batch: ChangeBatch): void {
    if (batch.changes.length === 0) return;
    for (const l of [...this.#listeners.changes]) l(batch);
  }

  #setStatus(s: ClientStatus): void {
    this.#status = s;
    for (const l of [...this.#listeners.status]) l(s);
  }
}
