import { describe, expect, it } from 'vitest';
import { type ChangeBatch, OvsdbClient, type OvsdbClientInit } from '../../src/ovsdb/client.js';
import { ZERO_UUID } from '../../src/ovsdb/constants.js';
import type { Row } from '../../src/ovsdb/rows.js';
import { FakeDatabase, FakeServer, fakeConnector, type Routes, route, TEST_DB } from './fake-server.js';
import { FakeClock, flush, quietLogger } from './fakes.js';

const A = '0000000a-0000-4000-8000-000000000001';
const B = '0000000b-0000-4000-8000-000000000002';
const C = '0000000c-0000-4000-8000-000000000003';
const D = '0000000d-0000-4000-8000-000000000004';

interface Tables extends Record<string, Row> {
  Route: Row & { prefix: string; nexthop: string | null; tags: readonly string[] };
}

function setup(servers: Record<string, FakeServer>, init: Partial<OvsdbClientInit> = {}) {
  const clock = new FakeClock();
  const { logger, lines } = quietLogger();
  const client = new OvsdbClient<Tables>(
    {
      remotes: Object.keys(servers).join(','),
      database: TEST_DB,
      tables: { Route: {} },
      backoff: { initialMs: 100, maxMs: 1000, jitter: 0 },
      ...init,
    },
    { clock, logger, random: () => 0, connect: fakeConnector(servers) },
  );
  const batches: ChangeBatch<Tables>[] = [];
  const statuses: string[] = [];
  client.on('changes', (b) => batches.push(b));
  client.on('status', (s) => statuses.push(`${s.state}${'remote' in s ? ` ${s.remote}` : ''}`));
  client.start();
  return { client, clock, batches, statuses, lines };
}

const summary = (b: ChangeBatch<Tables>) =>
  b.changes.map((c) => `${c.old ? (c.new ? 'modify' : 'delete') : 'insert'} ${c.uuid.slice(7, 8)}`).sort();

function seed(db: FakeDatabase): void {
  db.commit(
    new Map([
      [A, route('10.0.0.0/8', { nexthop: '192.0.2.1', tags: ['x'] })],
      [B, route('10.1.0.0/16', { options: new Map([['k', 'v']]) })],
      [C, route('10.2.0.0/16')],
    ]) as Routes,
  );
}

describe('OvsdbClient against a fake server', () => {
  it('fills the replica, reports synced, then applies each update as one batch', async () => {
    const db = new FakeDatabase();
    seed(db);
    const s1 = new FakeServer(db, 'tcp:s1:1');
    const { client, batches, statuses } = setup({ 'tcp:s1:1': s1 });
    await flush();
    expect(client.synced).toBe(true);
    expect(statuses).toEqual(['connecting tcp:s1:1', 'synced tcp:s1:1']);
    expect(batches.map((b) => b.reason)).toEqual(['initial']);
    expect(summary(batches[0])).toEqual(['insert a', 'insert b', 'insert c']);
    expect(client.table('Route').get(A)).toEqual({
      _uuid: A,
      prefix: '10.0.0.0/8',
      nexthop: '192.0.2.1',
      tags: ['x'],
      options: new Map(),
    });
    // The server checked _Server first, and asked for monitor_cond_since from scratch.
    expect(s1.requests.map((r) => r.method)).toEqual([
      'get_schema',
      'monitor_cond',
      'get_schema',
      'monitor_cond_since',
    ]);
    expect(s1.requests[3].params[3]).toBe(ZERO_UUID);

    const next = new Map(db.rows);
    next.set(A, route('10.0.0.0/8', { nexthop: null, tags: ['x', 'y'] }));
    next.delete(C);
    next.set(D, route('10.3.0.0/16'));
    db.commit(next);
    expect(batches).toHaveLength(2);
    expect(batches[1].reason).toBe('update');
    expect(summary(batches[1])).toEqual(['delete c', 'insert d', 'modify a']);
    const a = client.table('Route').get(A);
    expect([a?.nexthop, a?.tags]).toEqual([null, ['x', 'y']]);
    await client.close();
    expect(client.status.state).toBe('closed');
  });

  it('after a standalone restart, resyncs and reports only what changed while it was down', async () => {
    const db = new FakeDatabase();
    seed(db);
    const s1 = new FakeServer(db, 'tcp:s1:1');
    const { client, clock, batches, statuses } = setup({ 'tcp:s1:1': s1 });
    await flush();
    const untouched = client.table('Route').get(B);
    s1.dropAll();
    s1.refuse = true;
    await flush();
    expect(client.synced).toBe(false);
    // Changes happen while the server is down (as ovsdb-tool transact on the file would).
    const next = new Map(db.rows);
    next.set(A, route('10.0.0.0/8', { nexthop: '192.0.2.99', tags: ['x'] }));
    next.delete(C);
    next.set(D, route('10.3.0.0/16'));
    db.rows = next;
    await clock.advance(1000);
    expect(client.synced).toBe(false);
    s1.refuse = false;
    await clock.advance(1000);
    expect(client.synced).toBe(true);
    expect(statuses.filter((s) => s.startsWith('disconnected')).length).toBeGreaterThan(0);
    const last = batches[batches.length - 1];
    expect(last.reason).toBe('resync');
    expect(summary(last)).toEqual(['delete c', 'insert d', 'modify a']);
    // Rows that did not change are the very same objects: no delete/insert storm.
    expect(client.table('Route').get(B)).toBe(untouched);
    await client.close();
  });

  it('with resume off, monitors with monitor_cond and fills the replica all the same', async () => {
    const db = new FakeDatabase();
    seed(db);
    const s1 = new FakeServer(db, 'tcp:s1:1', { history: true });
    const { client, batches } = setup({ 'tcp:s1:1': s1 }, { resume: false });
    await flush();
    expect(client.synced).toBe(true);
    expect(client.table('Route').size).toBe(3);
    expect(batches.map((b) => b.reason)).toEqual(['initial']);
    expect(s1.requests.map((r) => r.method).filter((m) => m.startsWith('monitor'))).toEqual([
      'monitor_cond',
      'monitor_cond',
    ]);
    await client.close();
  });

  it('resumes from the last transaction id when the server keeps history', async () => {
    const db = new FakeDatabase();
    seed(db);
    const s1 = new FakeServer(db, 'tcp:s1:1', { history: true, row: { model: 'clustered', cid: C } });
    const { client, clock, batches } = setup({ 'tcp:s1:1': s1 });
    await flush();
    expect(client.lastTxnId).toBe(db.lastTxnId);
    const seen = db.lastTxnId;
    s1.dropAll();
    const next = new Map(db.rows);
    next.delete(B);
    db.commit(next);
    await clock.advance(500);
    expect(client.synced).toBe(true);
    expect(client.status).toMatchObject({ state: 'synced', resumed: true, model: 'clustered', leader: true });
    const since = s1.requests.filter((r) => r.method === 'monitor_cond_since');
    expect(since[since.length - 1].params[3]).toBe(seen);
    expect(batches[batches.length - 1].reason).toBe('resume');
    expect(summary(batches[batches.length - 1])).toEqual(['delete b']);
    expect(client.lastTxnId).toBe(db.lastTxnId);
    expect(client.stats.resumes).toBe(1);
    await client.close();
  });

  it('follows the leader: leaves a member that loses leadership, skips followers, backs off', async () => {
    const db = new FakeDatabase();
    seed(db);
    const cluster = { model: 'clustered' as const, cid: D };
    const m1 = new FakeServer(db, 'tcp:m1:1', { history: true, row: { ...cluster, leader: true } });
    const m2 = new FakeServer(db, 'tcp:m2:1', { history: true, row: { ...cluster, leader: false } });
    const m3 = new FakeServer(db, 'tcp:m3:1', { history: true, row: { ...cluster, leader: false } });
    const { client, clock, statuses, batches } = setup({ 'tcp:m1:1': m1, 'tcp:m2:1': m2, 'tcp:m3:1': m3 });
    await flush();
    expect(client.status).toMatchObject({ state: 'synced', remote: 'tcp:m1:1' });

    // Leadership moves to m3 without any process dying: _Server says so.
    m1.setServerRow({ leader: false });
    await flush();
    expect(client.synced).toBe(false);
    expect(statuses).toContain('disconnected tcp:m1:1');
    await clock.advance(150);
    // m2 and m3 are each tried once at once, and refused (not leader); then the back-off applies.
    expect(statuses).toContain('disconnected tcp:m2:1');
    m3.setServerRow({ leader: true });
    await clock.advance(2000);
    expect(client.status).toMatchObject({ state: 'synced', remote: 'tcp:m3:1', leader: true, resumed: true });
    expect(batches.map((b) => b.reason)).toEqual(['initial']); // nothing changed: no batch at all

    // Writes go to the new leader.
    const result = await client.transact([{ op: 'insert', table: 'Route', row: { prefix: '10.9.0.0/16' } }]);
    expect(client.table('Route').get((result.results[0] as { uuid: string }).uuid)?.prefix).toBe(
      '10.9.0.0/16',
    );
    expect(m3.requests.some((r) => r.method === 'transact')).toBe(true);
    await client.close();
  });

  it('after a leader change, tries every member once before backing off', async () => {
    const db = new FakeDatabase();
    seed(db);
    const cluster = { model: 'clustered' as const, cid: D };
    const m1 = new FakeServer(db, 'tcp:m1:1', { history: true, row: { ...cluster, leader: true } });
    const m2 = new FakeServer(db, 'tcp:m2:1', { history: true, row: { ...cluster, leader: false } });
    const m3 = new FakeServer(db, 'tcp:m3:1', { history: true, row: { ...cluster, leader: false } });
    const { client } = setup({ 'tcp:m1:1': m1, 'tcp:m2:1': m2, 'tcp:m3:1': m3 });
    await flush();
    m3.setServerRow({ leader: true });
    m1.setServerRow({ leader: false });
    // No clock advance: m2 (a follower) and then m3 (the new leader) are tried without waiting.
    await flush();
    expect(client.status).toMatchObject({ state: 'synced', remote: 'tcp:m3:1', leader: true });
    await client.close();
  });

  it('refuses a member of another cluster', async () => {
    const db = new FakeDatabase();
    seed(db);
    const m1 = new FakeServer(db, 'tcp:m1:1', { history: true, row: { model: 'clustered', cid: A } });
    const { client, clock, lines } = setup({ 'tcp:m1:1': m1 });
    await flush();
    expect(client.synced).toBe(true);
    m1.dropAll();
    m1.serverRow = { ...m1.serverRow, cid: B };
    await clock.advance(3000);
    expect(client.synced).toBe(false);
    expect(lines.some((l) => JSON.stringify(l.obj).includes('member of another cluster'))).toBe(true);
    await client.close();
  });

  it('answers transact with not-connected between sessions, and connection-lost when cut mid-way', async () => {
    const db = new FakeDatabase();
    const s1 = new FakeServer(db, 'tcp:s1:1');
    const { client } = setup({ 'tcp:s1:1': s1 });
    await expect(client.transact([{ op: 'comment', comment: 'x' }])).rejects.toMatchObject({
      kind: 'not-connected',
    });
    await flush();
    expect(client.synced).toBe(true);
    const session = [...s1.sessions][0];
    session.channel.onWrite = () => {}; // the server swallows the request...
    const pending = client.transact([{ op: 'comment', comment: 'x' }]);
    s1.dropAll(); // ...and dies
    await expect(pending).rejects.toMatchObject({ kind: 'connection-lost' });
    await client.close();
  });

  it('drops a session whose update it cannot apply, then resyncs from scratch', async () => {
    const db = new FakeDatabase();
    seed(db);
    const s1 = new FakeServer(db, 'tcp:s1:1', { history: true, row: { model: 'clustered', cid: A } });
    const { client, clock, lines } = setup({ 'tcp:s1:1': s1 });
    await flush();
    s1.corruptNext = `{"id":null,"method":"update3","params":[MONID,"${ZERO_UUID}",{"Route":{"${D}":{"modify":{"prefix":"x"}}}}]}`;
    const next = new Map(db.rows);
    next.set(D, route('10.3.0.0/16'));
    db.commit(next);
    await flush();
    expect(client.synced).toBe(false);
    expect(lines.some((l) => JSON.stringify(l.obj).includes('bad-update'))).toBe(true);
    await clock.advance(1000);
    expect(client.synced).toBe(true);
    const since = s1.requests.filter((r) => r.method === 'monitor_cond_since');
    expect(since[since.length - 1].params[3]).toBe(ZERO_UUID);
    expect(client.table('Route').has(D)).toBe(true);
    await client.close();
  });

  it('falls back to monitor_cond when monitor_cond_since is unknown', async () => {
    const db = new FakeDatabase();
    seed(db);
    const s1 = new FakeServer(db, 'tcp:s1:1');
    s1.supportsSince = false;
    const { client, batches } = setup({ 'tcp:s1:1': s1 });
    await flush();
    expect(client.synced).toBe(true);
    expect(s1.requests.map((r) => r.method)).toContain('monitor_cond');
    expect(summary(batches[0])).toHaveLength(3);
    await client.close();
  });

  it('sends monitor_cond_change, and starts from scratch when conditions changed offline', async () => {
    const db = new FakeDatabase();
    seed(db);
    const s1 = new FakeServer(db, 'tcp:s1:1', { history: true, row: { model: 'clustered', cid: A } });
    const { client, clock } = setup({ 'tcp:s1:1': s1 });
    await flush();
    await client.setConditions({ Route: [['prefix', '==', '10.0.0.0/8']] });
    const change = s1.requests.find((r) => r.method === 'monitor_cond_change');
    expect(change?.params[2]).toEqual({ Route: [{ where: [['prefix', '==', '10.0.0.0/8']] }] });
    s1.dropAll();
    s1.refuse = true;
    await flush();
    await client.setConditions({ Route: true });
    s1.refuse = false;
    await clock.advance(2000);
    const since = s1.requests.filter((r) => r.method === 'monitor_cond_since');
    const last = since[since.length - 1];
    expect(last.params[3]).toBe(ZERO_UUID);
    expect(last.params[2]).toEqual({ Route: [{ columns: ['prefix', 'nexthop', 'tags', 'options'] }] });
    await client.close();
  });

  it('brings a session up to date with conditions changed while it was being set up', async () => {
    const db = new FakeDatabase();
    seed(db);
    const s1 = new FakeServer(db, 'tcp:s1:1');
    const held: (() => void)[] = [];
    s1.held = held;
    const { client } = setup({ 'tcp:s1:1': s1 });
    await flush();
    expect(held).toHaveLength(1); // the monitor request is out, its reply not yet in
    await client.setConditions({ Route: [['prefix', '==', '10.1.0.0/16']] });
    held[0]();
    await flush();
    expect(client.synced).toBe(true);
    const change = s1.requests.find((r) => r.method === 'monitor_cond_change');
    expect(change?.params[2]).toEqual({ Route: [{ where: [['prefix', '==', '10.1.0.0/16']] }] });
    await client.close();
  });

  it('keeps going when a consumer throws, and close() ends a back-off at once', async () => {
    const db = new FakeDatabase();
    seed(db);
    const s1 = new FakeServer(db, 'tcp:s1:1');
    const { client, lines } = setup(
      { 'tcp:s1:1': s1 },
      { backoff: { initialMs: 60_000, maxMs: 60_000, jitter: 0 } },
    );
    client.on('changes', () => {
      throw new Error('consumer bug');
    });
    await flush();
    expect(client.synced).toBe(true);
    expect(lines.some((l) => l.level === 'error')).toBe(true);
    s1.refuse = true;
    s1.dropAll();
    await flush();
    await client.close(); // must not wait for the 60 s back-off
    expect(client.status.state).toBe('closed');
  });

  it('refuses an ssl remote without TLS files at construction', () => {
    expect(
      () => new OvsdbClient({ remotes: 'tcp:a:1,ssl:b:2', database: TEST_DB, tables: { Route: {} } }),
    ).toThrowError(/ssl:b:2: ssl needs tls/);
  });

  it('whenSynced rejects after its timeout while no server answers', async () => {
    const db = new FakeDatabase();
    const s1 = new FakeServer(db, 'tcp:s1:1');
    s1.refuse = true;
    const { client, clock } = setup({ 'tcp:s1:1': s1 });
    const waiting = client.whenSynced(5000).catch((e) => e);
    await clock.advance(5000);
    expect(await waiting).toMatchObject({ kind: 'request-timeout' });
    expect(client.stats.connectAttempts).toBeGreaterThan(3);
    await client.close();
  });
});
