/**
 * A 3-member RAFT OVN_Northbound cluster: the client picks the leader from the connection
 * list through `_Server`, follows the new leader after a kill -9, resumes with
 * monitor_cond_since (only the transactions it missed), writes succeed, and the replica stays
 * exact.
 */
import net from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { namedUuid, OvsdbClient } from '../../src/ovsdb/index.js';
import {
  type ClusterHandle,
  diffAgainstDump,
  dumpDatabase,
  EventMirror,
  isAlive,
  loadSchema,
  NB_SCHEMA,
  nbctl,
  OvsdbLab,
  run,
  type ServerHandle,
  waitFor,
} from '../support/ovsdb-lab.js';

const NB_DB = 'OVN_Northbound';
const schema = loadSchema(NB_SCHEMA);
const TABLES = [...schema.tables.keys()];

let lab: OvsdbLab;
let cluster: ClusterHandle;
let client: OvsdbClient;
const mirror = new EventMirror();

const memberOf = (remote: string): ServerHandle =>
  cluster.members.find((m) => m.tcp === remote) as ServerHandle;

async function leader(candidates: readonly ServerHandle[]): Promise<ServerHandle | undefined> {
  for (const m of candidates) {
    if ((await lab.clusterRole(m, NB_DB).catch(() => '')) === 'leader') return m;
  }
  return undefined;
}

async function expectExact(member: ServerHandle): Promise<void> {
  await waitFor(
    'replica to equal the dump',
    async () => {
      const dump = await dumpDatabase(member.unix, NB_DB);
      return (
        diffAgainstDump(schema, (t) => client.table(t), dump, TABLES).length === 0 &&
        diffAgainstDump(schema, (t) => mirror.table(t), dump, TABLES).length === 0
      );
    },
    10_000,
  );
  expect(mirror.problems).toEqual([]);
}

beforeAll(async () => {
  lab = OvsdbLab.create('ovsdb-cluster-');
  cluster = await lab.startCluster('nb', NB_SCHEMA, NB_DB, 3);
  const N = (...a: string[]) => nbctl(cluster.remotes, ...a);
  await N('init');
  await N('lr-add', 'r1', '--', 'lr-route-add', 'r1', '10.1.0.0/16', '192.0.2.1');
  await N('ls-add', 'sw1', '--', 'lsp-add', 'sw1', 'p1', '--', 'lsp-add', 'sw1', 'p2');
  client = new OvsdbClient({
    remotes: cluster.remotes,
    database: NB_DB,
    tables: Object.fromEntries(TABLES.map((t) => [t, {}])),
    backoff: { initialMs: 100, maxMs: 1000, jitter: 0.5 },
  });
  client.on('changes', (b) => mirror.apply(b));
  client.start();
  await client.whenSynced(20_000);
});

afterAll(async () => {
  await client?.close();
  await lab?.close();
});

describe('3-member RAFT NB cluster', () => {
  it('connects to the leader and keeps real transaction ids', async () => {
    expect(client.status).toMatchObject({ state: 'synced', model: 'clustered', leader: true });
    const remote = (client.status as { remote: string }).remote;
    expect(await lab.clusterRole(memberOf(remote), NB_DB)).toBe('leader');
    await nbctl(cluster.remotes, 'lr-route-add', 'r1', '10.2.0.0/16', '192.0.2.2');
    await waitFor('route', () =>
      [...client.table('Logical_Router_Static_Route').values()].some((r) => r.ip_prefix === '10.2.0.0/16'),
    );
    expect(client.lastTxnId).not.toBe('00000000-0000-0000-0000-000000000000');
    await expectExact(memberOf(remote));
  });

  it('follows the new leader after kill -9, resuming from the last transaction', async () => {
    const old = memberOf((client.status as { remote: string }).remote);
    const others = cluster.members.filter((m) => m !== old);
    const from = mirror.batches.length;
    const fullSyncs = client.stats.fullSyncs;
    await lab.stop(old, 'SIGKILL');
    const next = (await waitFor('a new leader', () => leader(others), 20_000)) as ServerHandle;
    await nbctl(others.map((m) => m.tcp).join(','), 'lr-route-add', 'r1', '10.77.0.0/16', '192.0.2.77');
    await waitFor(
      'client on the new leader',
      () => client.synced && (client.status as { remote: string }).remote === next.tcp,
      30_000,
    );
    await waitFor('the route written during the failover', () =>
      [...client.table('Logical_Router_Static_Route').values()].some((r) => r.ip_prefix === '10.77.0.0/16'),
    );
    expect(client.status).toMatchObject({ state: 'synced', leader: true, resumed: true });
    // No full snapshot. The route arrives in the resume (written before we reached the new
    // leader) or as an ordinary update (written after): which one is a race with the election.
    expect(client.stats.fullSyncs).toBe(fullSyncs);
    const reason = mirror.batches[from]?.reason;
    expect(['resume', 'update']).toContain(reason);
    expect(mirror.summary(from).sort()).toEqual([
      `${reason} Logical_Router:modify`,
      `${reason} Logical_Router_Static_Route:insert`,
    ]);
    await expectExact(next);
  });

  it('after a lost connection, gets only the transactions it missed (monitor_cond_since found=true)', async () => {
    const alive = cluster.members.filter(isRunning);
    const proxies = alive.map(
      (m) => new CuttableProxy(m.unix.slice('unix:'.length), lab.path(`proxy-${m.name}.sock`)),
    );
    await Promise.all(proxies.map((p) => p.listening));
    const viaProxies = new OvsdbClient({
      remotes: proxies.map((p) => `unix:${p.path}`).join(','),
      database: NB_DB,
      tables: { Logical_Router: {}, Logical_Router_Static_Route: {}, Logical_Switch: {} },
      backoff: { initialMs: 50, maxMs: 500 },
    });
    const seen = new EventMirror();
    viaProxies.on('changes', (b) => seen.apply(b));
    viaProxies.start();
    try {
      await viaProxies.whenSynced(20_000);
      const before = viaProxies.lastTxnId;
      for (const p of proxies) p.cut();
      await waitFor('the client to notice', () => !viaProxies.synced, 10_000);
      const remotes = alive.map((m) => m.tcp).join(',');
      await nbctl(remotes, 'lr-route-add', 'r1', '10.88.0.0/16', '192.0.2.88');
      await nbctl(remotes, 'ls-add', 'sw-missed');
      const from = seen.batches.length;
      for (const p of proxies) p.refuse = false;
      await waitFor('the client back', () => viaProxies.synced, 20_000);
      expect(viaProxies.status).toMatchObject({ resumed: true });
      expect(viaProxies.lastTxnId).not.toBe(before);
      expect(viaProxies.stats.fullSyncs).toBe(1);
      expect(seen.batches.slice(from).map((b) => b.reason)).toEqual(['resume']);
      expect(seen.summary(from).sort()).toEqual([
        'resume Logical_Router:modify',
        'resume Logical_Router_Static_Route:insert',
        'resume Logical_Switch:insert',
      ]);
    } finally {
      await viaProxies.close();
      for (const p of proxies) await p.close();
    }
  });

  it('writes through the new leader, and ovn-nbctl reads them back', async () => {
    const r1 = [...client.table('Logical_Router').values()].find((r) => r.name === 'r1');
    const result = await client.transact([
      {
        op: 'insert',
        table: 'Logical_Router_Static_Route',
        uuidName: 'r',
        row: { ip_prefix: '198.51.100.0/24', nexthop: '192.0.2.9' },
      },
      {
        op: 'mutate',
        table: 'Logical_Router',
        where: [['_uuid', '==', r1?._uuid as string]],
        mutations: [['static_routes', 'insert', [namedUuid('r')]]],
      },
    ]);
    expect(result.uuids.get('r')).toBeDefined();
    const alive = cluster.members.filter((m) => m.pid && isRunning(m));
    expect(await nbctl(alive.map((m) => m.tcp).join(','), 'lr-route-list', 'r1')).toMatch(
      /198\.51\.100\.0\/24\s+192\.0\.2\.9/,
    );
    await expectExact(memberOf((client.status as { remote: string }).remote));
  });

  it('the killed member rejoins as a follower and the replica stays exact', async () => {
    const dead = cluster.members.find((m) => !isRunning(m)) as ServerHandle;
    await lab.restart(dead);
    await run('ovsdb-client', ['wait', dead.unix, NB_DB, 'connected'], 30_000);
    await nbctl(cluster.remotes, 'ls-add', 'sw2');
    await waitFor('sw2', () => [...client.table('Logical_Switch').values()].some((r) => r.name === 'sw2'));
    await expectExact(dead);
  });
});

/** A unix-socket proxy to one member whose connections the test can cut and refuse. */
class CuttableProxy {
  readonly path: string;
  refuse = false;
  readonly listening: Promise<void>;
  readonly #server: net.Server;
  readonly #sockets = new Set<net.Socket>();

  constructor(target: string, path: string) {
    this.path = path;
    this.#server = net.createServer((socket) => {
      if (this.refuse) return void socket.destroy();
      const upstream = net.connect(target);
      for (const s of [socket, upstream]) {
        this.#sockets.add(s);
        s.on('error', () => {});
        s.on('close', () => {
          this.#sockets.delete(s);
          socket.destroy();
          upstream.destroy();
        });
      }
      socket.pipe(upstream);
      upstream.pipe(socket);
    });
    this.listening = new Promise((resolve) => this.#server.listen(path, resolve));
  }

  /** Drops every connection and refuses new ones until `refuse` is cleared. */
  cut(): void {
    this.refuse = true;
    for (const s of this.#sockets) s.destroy();
  }

  close(): Promise<void> {
    this.cut();
    return new Promise((resolve) => this.#server.close(() => resolve()));
  }
}

function isRunning(m: ServerHandle): boolean {
  return isAlive(m.pid);
}
