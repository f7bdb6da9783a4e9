/**
 * kill -9 and restart of a standalone ovsdb-server: the client reconnects, its replica equals
 * a fresh dump again, and consumers see only the rows that really changed while it was down.
 * (A standalone server keeps no transaction history, so this is the full-resync path.)
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { OvsdbClient } from '../../src/ovsdb/index.js';
import {
  diffAgainstDump,
  dumpDatabase,
  EventMirror,
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
let nb: ServerHandle;
let client: OvsdbClient;
const mirror = new EventMirror();
const states: string[] = [];

async function expectExact(): Promise<void> {
  const dump = await dumpDatabase(nb.unix, NB_DB);
  expect(diffAgainstDump(schema, (t) => client.table(t), dump, TABLES)).toEqual([]);
  expect(diffAgainstDump(schema, (t) => mirror.table(t), dump, TABLES)).toEqual([]);
  expect(mirror.problems).toEqual([]);
}

async function killAndRestart(whileDown: () => Promise<void>): Promise<void> {
  const syncsBefore = client.stats.syncs;
  await lab.stop(nb, 'SIGKILL');
  await waitFor('client to notice the dead server', () => !client.synced, 10_000);
  await whileDown();
  await lab.restart(nb);
  await waitFor('client to resync', () => client.synced && client.stats.syncs > syncsBefore, 20_000);
}

beforeAll(async () => {
  lab = OvsdbLab.create('ovsdb-restart-');
  nb = await lab.startServer('nb', await lab.createDb('nb', NB_SCHEMA));
  const N = (...a: string[]) => nbctl(nb.unix, ...a);
  await N('init');
  await N(
    'lr-add',
    'r1',
    '--',
    'lr-route-add',
    'r1',
    '10.1.0.0/16',
    '192.0.2.1',
    '--',
    'lr-route-add',
    'r1',
    '10.2.0.0/16',
    '192.0.2.1',
  );
  await N('ls-add', 'sw1', '--', 'set', 'Logical_Switch', 'sw1', 'other_config:subnet=10.0.1.0/24');
  for (let i = 1; i <= 20; i++)
    await N(
      'lsp-add',
      'sw1',
      `p${i}`,
      '--',
      'lsp-set-addresses',
      `p${i}`,
      `50:54:00:00:00:${i.toString(16).padStart(2, '0')} 10.0.1.${i}`,
    );
  await N('lr-nat-add', 'r1', 'dnat_and_snat', '172.24.4.100', '10.0.1.1');
  client = new OvsdbClient(
    {
      remotes: nb.unix,
      database: NB_DB,
      tables: Object.fromEntries(TABLES.map((t) => [t, {}])),
      backoff: { initialMs: 50, maxMs: 400, jitter: 0.5 },
    },
    {},
  );
  client.on('changes', (b) => mirror.apply(b));
  client.on('status', (s) => states.push(s.state));
  client.start();
  await client.whenSynced(10_000);
});

afterAll(async () => {
  await client?.close();
  await lab?.close();
});

describe('kill -9 and restart of a standalone server', () => {
  it('starts exact', async () => {
    await expectExact();
    expect(client.lastTxnId).toBe('00000000-0000-0000-0000-000000000000');
  });

  it('reports exactly the changes made while the server was down', async () => {
    const from = mirror.batches.length;
    const sw1 = [...client.table('Logical_Switch').values()].find((r) => r.name === 'sw1');
    const r1 = [...client.table('Logical_Router').values()].find((r) => r.name === 'r1');
    const route = [...client.table('Logical_Router_Static_Route').values()].find(
      (r) => r.ip_prefix === '10.2.0.0/16',
    );
    const untouchedPort = [...client.table('Logical_Switch_Port').values()].find((r) => r.name === 'p7');
    await killAndRestart(async () => {
      // Edit the database file directly while no server runs.
      await run('ovsdb-tool', [
        'transact',
        nb.dbFile,
        JSON.stringify([
          NB_DB,
          {
            op: 'update',
            table: 'Logical_Switch',
            where: [['name', '==', 'sw1']],
            row: { other_config: ['map', [['subnet', '10.0.1.0/25']]] },
          },
          {
            op: 'mutate',
            table: 'Logical_Router',
            where: [['name', '==', 'r1']],
            mutations: [['static_routes', 'delete', ['uuid', route?._uuid]]],
          },
          {
            op: 'delete',
            table: 'Logical_Router_Static_Route',
            where: [['_uuid', '==', ['uuid', route?._uuid]]],
          },
          { op: 'insert', table: 'Logical_Switch', row: { name: 'offline' } },
        ]),
      ]);
    });
    expect(states).toContain('disconnected');
    expect(mirror.batches.length).toBe(from + 1);
    expect(mirror.batches[from].reason).toBe('resync');
    expect(mirror.summary(from).sort()).toEqual([
      'resync Logical_Router:modify',
      'resync Logical_Router_Static_Route:delete',
      'resync Logical_Switch:insert',
      'resync Logical_Switch:modify',
    ]);
    const changes = mirror.batches[from].changes;
    expect(changes.find((c) => c.uuid === sw1?._uuid)?.new?.other_config).toEqual(
      new Map([['subnet', '10.0.1.0/25']]),
    );
    expect(changes.find((c) => c.uuid === r1?._uuid)?.new?.static_routes).toHaveLength(1);
    // Unchanged rows are the same objects as before the restart.
    expect(client.table('Logical_Switch_Port').get(untouchedPort?._uuid as string)).toBe(untouchedPort);
    await expectExact();
  });

  it('a restart with nothing changed gives no change event at all', async () => {
    const from = mirror.batches.length;
    await killAndRestart(async () => {});
    expect(mirror.batches.length).toBe(from);
    await expectExact();
  });

  it('keeps following updates after the restarts', async () => {
    await nbctl(nb.unix, 'lsp-del', 'p3', '--', 'lr-route-add', 'r1', '10.9.0.0/16', '192.0.2.9');
    await waitFor('update to arrive', () =>
      [...client.table('Logical_Router_Static_Route').values()].some((r) => r.ip_prefix === '10.9.0.0/16'),
    );
    await expectExact();
  });
});
