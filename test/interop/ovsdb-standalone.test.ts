/**
 * The OVSDB client against real standalone ovsdb-servers (OVN_Northbound 7.0.0 and
 * OVN_Southbound 20.27.0) with ovn-northd writing the SB: every change ovn-nbctl/ovn-sbctl
 * makes reaches the replica and the change events, and both equal `ovsdb-client dump`.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { namedUuid, OvsdbClient, type Row, TransactionError } from '../../src/ovsdb/index.js';
import {
  diffAgainstDump,
  dumpDatabase,
  EventMirror,
  freePort,
  loadSchema,
  NB_SCHEMA,
  nbctl,
  OvsdbLab,
  SB_SCHEMA,
  type ServerHandle,
  sbctl,
  sleep,
  waitFor,
} from '../support/ovsdb-lab.js';

const NB_DB = 'OVN_Northbound';
const SB_DB = 'OVN_Southbound';
const nbSchema = loadSchema(NB_SCHEMA);
const sbSchema = loadSchema(SB_SCHEMA);
const allTables = (schema: typeof nbSchema) =>
  Object.fromEntries([...schema.tables.keys()].map((t) => [t, {}]));

let lab: OvsdbLab;
let nb: ServerHandle;
let sb: ServerHandle;
let nbClient: OvsdbClient;
let sbClient: OvsdbClient;
const nbMirror = new EventMirror();
const sbMirror = new EventMirror();
const clients: OvsdbClient[] = [];

function track(client: OvsdbClient): OvsdbClient {
  clients.push(client);
  return client.start();
}

/** Waits (bounded) until replica and event mirror both equal a fresh dump of every table. */
async function expectExact(): Promise<void> {
  for (const [client, mirror, server, db, schema] of [
    [nbClient, nbMirror, nb, NB_DB, nbSchema],
    [sbClient, sbMirror, sb, SB_DB, sbSchema],
  ] as const) {
    const tables = [...schema.tables.keys()];
    let last: string[] = [];
    try {
      await waitFor(
        `${db} replica to equal the dump`,
        async () => {
          const dump = await dumpDatabase(server.unix, db);
          last = [
            ...diffAgainstDump(schema, (t) => client.table(t), dump, tables),
            ...diffAgainstDump(schema, (t) => mirror.table(t), dump, tables).map((d) => `events: ${d}`),
          ];
          return last.length === 0;
        },
        10_000,
      );
    } catch (err) {
      throw new Error(`${(err as Error).message}\n${last.slice(0, 20).join('\n')}`);
    }
    expect(mirror.problems).toEqual([]);
  }
}

const byName = (client: OvsdbClient, table: string, name: string, column = 'name'): Row | undefined =>
  [...client.table(table).values()].find((r) => r[column] === name);

beforeAll(async () => {
  lab = OvsdbLab.create('ovsdb-standalone-');
  nb = await lab.startServer('nb', await lab.createDb('nb', NB_SCHEMA), {
    extraArgs: ['--remote=db:OVN_Northbound,NB_Global,connections'],
  });
  sb = await lab.startServer('sb', await lab.createDb('sb', SB_SCHEMA), { tcp: true });
  await nbctl(nb.unix, 'init');
  await sbctl(sb.unix, 'init');
  await lab.startNorthd(nb.unix, sb.unix);
  nbClient = track(new OvsdbClient({ remotes: nb.unix, database: NB_DB, tables: allTables(nbSchema) }));
  sbClient = track(
    new OvsdbClient({ remotes: sb.tcp as string, database: SB_DB, tables: allTables(sbSchema) }),
  );
  nbClient.on('changes', (b) => nbMirror.apply(b));
  sbClient.on('changes', (b) => sbMirror.apply(b));
  await nbClient.whenSynced(20_000);
  await sbClient.whenSynced(20_000);
});

afterAll(async () => {
  for (const c of clients) await c.close();
  await lab?.close();
});

describe('replica of NB and SB under ovn-nbctl / ovn-sbctl / ovn-northd', () => {
  it('starts equal to the dump, with one initial batch', async () => {
    expect(nbMirror.batches[0].reason).toBe('initial');
    expect(nbClient.status).toMatchObject({ state: 'synced', model: 'standalone' });
    await expectExact();
  });

  it('follows the sample topology as it is built', async () => {
    const N = (...a: string[]) => nbctl(nb.unix, ...a);
    const S = (...a: string[]) => sbctl(sb.unix, ...a);
    for (const [c, ip] of [
      ['gw1', '192.168.100.11'],
      ['hv1', '192.168.100.12'],
      ['hv2', '192.168.100.13'],
    ]) {
      await S('chassis-add', c, 'geneve', ip);
      await S(
        'set',
        'Chassis',
        c,
        `hostname=${c}.lab.example`,
        'other_config:ovn-bridge-mappings=physnet1:br-ex',
      );
    }
    await N(
      'ls-add',
      'public',
      '--',
      'lsp-add',
      'public',
      'ln-public',
      '--',
      'lsp-set-type',
      'ln-public',
      'localnet',
      '--',
      'lsp-set-addresses',
      'ln-public',
      'unknown',
      '--',
      'lsp-set-options',
      'ln-public',
      'network_name=physnet1',
    );
    await N(
      'lr-add',
      'router1',
      '--',
      'lrp-add',
      'router1',
      'lrp-public',
      '00:00:20:20:12:13',
      '172.24.4.1/24',
      '--',
      'lrp-set-gateway-chassis',
      'lrp-public',
      'gw1',
      '20',
      '--',
      'lrp-set-gateway-chassis',
      'lrp-public',
      'hv1',
      '10',
      '--',
      'lsp-add',
      'public',
      'public-router1',
      '--',
      'lsp-set-type',
      'public-router1',
      'router',
      '--',
      'lsp-set-addresses',
      'public-router1',
      'router',
      '--',
      'lsp-set-options',
      'public-router1',
      'router-port=lrp-public',
      'nat-addresses=router',
    );
    for (const n of [1, 2]) {
      await N(
        'ls-add',
        `tenant${n}`,
        '--',
        'set',
        'Logical_Switch',
        `tenant${n}`,
        `other_config:subnet=10.0.${n}.0/24`,
        '--',
        'lrp-add',
        'router1',
        `lrp-tenant${n}`,
        `00:00:00:00:0${n}:01`,
        `10.0.${n}.1/24`,
        '--',
        'lsp-add',
        `tenant${n}`,
        `tenant${n}-router1`,
        '--',
        'lsp-set-type',
        `tenant${n}-router1`,
        'router',
        '--',
        'lsp-set-addresses',
        `tenant${n}-router1`,
        'router',
        '--',
        'lsp-set-options',
        `tenant${n}-router1`,
        `router-port=lrp-tenant${n}`,
      );
    }
    await N('lsp-add', 'tenant1', 'vm1', '--', 'lsp-set-addresses', 'vm1', '50:54:00:00:01:10 10.0.1.10');
    await N('lsp-add', 'tenant1', 'vm2', '--', 'lsp-set-addresses', 'vm2', '50:54:00:00:01:11 10.0.1.11');
    await N('lsp-add', 'tenant2', 'vm3', '--', 'lsp-set-addresses', 'vm3', '50:54:00:00:02:10 10.0.2.10');
    await N(
      'lr-nat-add',
      'router1',
      'dnat_and_snat',
      '172.24.4.100',
      '10.0.1.10',
      'vm1',
      '50:54:00:00:fe:10',
    );
    await N('lr-nat-add', 'router1', 'dnat_and_snat', '172.24.4.101', '10.0.2.10');
    await N('lr-nat-add', 'router1', 'snat', '172.24.4.1', '10.0.1.0/24');
    await N('lr-nat-add', 'router1', 'snat', '172.24.4.1', '10.0.2.0/24');
    await N('lb-add', 'lb1', '172.24.4.200:80', '10.0.1.10:8080,10.0.1.11:8080', 'tcp');
    await N('lr-lb-add', 'router1', 'lb1', '--', 'ls-lb-add', 'tenant1', 'lb1');
    await N('lr-route-add', 'router1', '0.0.0.0/0', '172.24.4.254');
    await N('--wait=sb', 'sync');
    await S('lsp-bind', 'vm1', 'hv1', '--', 'lsp-bind', 'vm2', 'hv1', '--', 'lsp-bind', 'vm3', 'hv2');
    await S('lsp-bind', 'cr-lrp-public', 'gw1');
    await N('--wait=sb', 'sync');
    await expectExact();

    const fip = byName(nbClient, 'NAT', '172.24.4.100', 'external_ip');
    expect(fip).toMatchObject({
      type: 'dnat_and_snat',
      logical_port: 'vm1',
      external_mac: '50:54:00:00:fe:10',
    });
    expect(byName(nbClient, 'NAT', '172.24.4.101', 'external_ip')?.logical_port).toBeNull();
    const router = byName(nbClient, 'Logical_Router', 'router1');
    expect(router?.nat).toHaveLength(4);
    expect(router?.static_routes).toHaveLength(1);
    const cr = byName(sbClient, 'Port_Binding', 'cr-lrp-public', 'logical_port');
    const gw1 = byName(sbClient, 'Chassis', 'gw1');
    expect(cr?.type).toBe('chassisredirect');
    expect(cr?.chassis).toBe(gw1?._uuid);
    const publicRouter = byName(sbClient, 'Port_Binding', 'public-router1', 'logical_port');
    expect(publicRouter?.nat_addresses).toContain(
      '50:54:00:00:fe:10 172.24.4.100 is_chassis_resident("vm1")',
    );
  });

  it('applies modify diffs of every column kind', async () => {
    const N = (...a: string[]) => nbctl(nb.unix, ...a);
    const S = (...a: string[]) => sbctl(sb.unix, ...a);
    // set: one element → two → one (single-element sets travel bare)
    await N('lsp-set-addresses', 'vm1', '50:54:00:00:01:10 10.0.1.10', '50:54:00:00:01:99 10.0.1.99');
    await expectExact();
    expect(byName(nbClient, 'Logical_Switch_Port', 'vm1')?.addresses).toHaveLength(2);
    await N('lsp-set-addresses', 'vm1', '50:54:00:00:01:10 10.0.1.10');
    // map: add two keys, remove one, replace a value
    await N('set', 'Logical_Switch', 'tenant1', 'other_config:a=1', 'other_config:b=2');
    await N('remove', 'Logical_Switch', 'tenant1', 'other_config', 'a');
    await N('set', 'Logical_Switch', 'tenant1', 'other_config:subnet=10.0.1.0/25');
    // optional: set then clear
    await N('set', 'Logical_Router', 'router1', 'enabled=false');
    await expectExact();
    expect(byName(nbClient, 'Logical_Router', 'router1')?.enabled).toBe(false);
    await N('clear', 'Logical_Router', 'router1', 'enabled');
    // optional uuid moving in one step (SB), as when a port moves to another chassis
    await S('lsp-unbind', 'vm1', '--', 'lsp-bind', 'vm1', 'hv2');
    await N('--wait=sb', 'sync');
    await expectExact();
    const ls = byName(nbClient, 'Logical_Switch', 'tenant1');
    expect(ls?.other_config).toEqual(
      new Map([
        ['subnet', '10.0.1.0/25'],
        ['b', '2'],
      ]),
    );
    expect(byName(nbClient, 'Logical_Router', 'router1')?.enabled).toBeNull();
    expect(byName(sbClient, 'Port_Binding', 'vm1', 'logical_port')?.chassis).toBe(
      byName(sbClient, 'Chassis', 'hv2')?._uuid,
    );
  });

  it('follows deletes and their reference clean-up', async () => {
    const N = (...a: string[]) => nbctl(nb.unix, ...a);
    await N('lr-route-del', 'router1', '0.0.0.0/0');
    await N('lr-nat-del', 'router1', 'snat', '10.0.2.0/24');
    await N('lsp-del', 'vm2');
    await N('lb-del', 'lb1');
    await N('lrp-del-gateway-chassis', 'lrp-public', 'hv1');
    await sbctl(sb.unix, 'chassis-del', 'hv1');
    await N('--wait=sb', 'sync');
    await expectExact();
    const router = byName(nbClient, 'Logical_Router', 'router1');
    expect(router?.static_routes).toEqual([]);
    expect(router?.nat).toHaveLength(3);
    expect(router?.load_balancer).toEqual([]);
    expect(byName(nbClient, 'Logical_Switch_Port', 'vm2')).toBeUndefined();
  });
});

describe('transact', () => {
  it('adds a static route that ovn-nbctl reads back, then removes it', async () => {
    const router = byName(nbClient, 'Logical_Router', 'router1') as Row;
    const added = await nbClient.transact([
      {
        op: 'insert',
        table: 'Logical_Router_Static_Route',
        uuidName: 'route',
        row: {
          ip_prefix: '198.51.100.0/24',
          nexthop: '172.24.4.253',
          external_ids: { 'ovn-bgp-speaker': 'learned' },
        },
      },
      {
        op: 'mutate',
        table: 'Logical_Router',
        where: [['_uuid', '==', router._uuid]],
        mutations: [['static_routes', 'insert', [namedUuid('route')]]],
      },
    ]);
    const uuid = added.uuids.get('route') as string;
    // ovsdb-server usually sends the notifications a transaction causes before its reply, but
    // may defer them behind a backlog: wait for the rows rather than assume.
    await waitFor(
      'route in the replica',
      () => nbClient.table('Logical_Router_Static_Route').has(uuid),
      10_000,
    );
    expect(nbClient.table('Logical_Router_Static_Route').get(uuid)?.nexthop).toBe('172.24.4.253');
    expect(nbClient.table('Logical_Router').get(router._uuid)?.static_routes).toContain(uuid);
    expect(await nbctl(nb.unix, 'lr-route-list', 'router1')).toMatch(/198\.51\.100\.0\/24\s+172\.24\.4\.253/);

    await nbClient.transact([
      {
        op: 'mutate',
        table: 'Logical_Router',
        where: [['_uuid', '==', router._uuid]],
        mutations: [['static_routes', 'delete', [uuid]]],
      },
      { op: 'delete', table: 'Logical_Router_Static_Route', where: [['_uuid', '==', uuid]] },
    ]);
    expect(await nbctl(nb.unix, 'lr-route-list', 'router1')).not.toMatch(/198\.51\.100\.0/);
    await waitFor(
      'route gone from the replica',
      () => !nbClient.table('Logical_Router_Static_Route').has(uuid),
      10_000,
    );
    await expectExact();
  });

  it('reports commit-time and operation errors as TransactionError', async () => {
    // HA_Chassis_Group is a root table with an index on name.
    const dup = nbClient.transact([
      { op: 'insert', table: 'HA_Chassis_Group', row: { name: 'dup' } },
      { op: 'insert', table: 'HA_Chassis_Group', row: { name: 'dup' } },
    ]);
    await expect(dup).rejects.toBeInstanceOf(TransactionError);
    await expect(dup).rejects.toMatchObject({ opIndex: -1, error: 'constraint violation' });
    const router = byName(nbClient, 'Logical_Router', 'router1') as Row;
    const dangling = nbClient.transact([
      {
        op: 'mutate',
        table: 'Logical_Router',
        where: [['_uuid', '==', router._uuid]],
        mutations: [['static_routes', 'insert', ['00000000-0000-0000-0000-000000000001']]],
      },
    ]);
    await expect(dangling).rejects.toMatchObject({ opIndex: -1, error: 'referential integrity violation' });
    const bad = nbClient.transact([
      { op: 'insert', table: 'Logical_Router_Static_Route', row: { ip_prefix: '10.0.0.0/8' } },
      {
        op: 'wait',
        table: 'Logical_Router',
        where: [['name', '==', 'no-such']],
        columns: ['name'],
        until: '==',
        rows: [{ name: 'x' }],
        timeout: 0,
      },
    ]);
    await expect(bad).rejects.toMatchObject({ opIndex: 1, error: 'timed out' });
  });
});

describe('conditions and probes', () => {
  it('monitor_cond with where, then monitor_cond_change, deliver exactly the matching rows', async () => {
    const natClient = track(
      new OvsdbClient({
        remotes: nb.unix,
        database: NB_DB,
        tables: { NAT: { where: [['type', '==', 'dnat_and_snat']] } },
      }),
    );
    await natClient.whenSynced(10_000);
    const ips = () => [...natClient.table('NAT').values()].map((r) => r.external_ip).sort();
    expect(ips()).toEqual(['172.24.4.100', '172.24.4.101']);
    const batches: string[] = [];
    natClient.on('changes', (b) =>
      batches.push(...b.changes.map((c) => `${c.new ? 'in' : 'out'} ${(c.new ?? c.old)?.external_ip}`)),
    );
    await natClient.setConditions({
      NAT: [
        ['external_ip', '==', '172.24.4.100'],
        ['type', '==', 'snat'],
      ],
    });
    expect(ips()).toEqual(['172.24.4.1', '172.24.4.100']);
    expect(batches.sort()).toEqual(['in 172.24.4.1', 'out 172.24.4.101']);
    await natClient.close();
  });

  it("answers the server's inactivity probe on TCP and probes the server itself", async () => {
    const port = await freePort();
    await nbctl(
      nb.unix,
      'set-connection',
      `ptcp:${port}:127.0.0.1`,
      '--',
      'set',
      'connection',
      '.',
      'inactivity_probe=1000',
    );
    const remote = `tcp:127.0.0.1:${port}`;
    await waitFor('probe listener', () => run(remote));
    // Our own probe off: the only traffic on the idle connection is the server's echo.
    const quiet = track(
      new OvsdbClient({ remotes: remote, database: NB_DB, tables: { NB_Global: {} }, probeIntervalMs: 0 }),
    );
    const prober = track(
      new OvsdbClient({ remotes: nb.unix, database: NB_DB, tables: { NB_Global: {} }, probeIntervalMs: 300 }),
    );
    await quiet.whenSynced(10_000);
    await prober.whenSynced(10_000);
    await sleep(3500);
    expect(quiet.connectionStats?.echoesAnswered).toBeGreaterThanOrEqual(2);
    expect(quiet.stats.connectAttempts).toBe(1);
    expect(quiet.synced).toBe(true);
    expect(prober.connectionStats?.probesSent).toBeGreaterThanOrEqual(2);
    expect(prober.stats.connectAttempts).toBe(1);
    expect(prober.synced).toBe(true);
    await quiet.close();
    await prober.close();
  });
});

async function run(remote: string): Promise<boolean> {
  try {
    await dumpDatabase(remote, NB_DB, ['NB_Global']);
    return true;
  } catch {
    return false;
  }
}
