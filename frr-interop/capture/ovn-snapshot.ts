/**
 * Builds the sample OVN topology in throwaway ovsdb-servers with a real ovn-northd, then
 * writes the NB and SB rows derivation reads to fixtures/ovn/{nb,sb}.json.
 *   npx tsx frr-interop/capture/ovn-snapshot.ts [outdir]
 * Every daemon lives in a temp dir and is stopped by its PID; only unix sockets are used.
 */
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { NB_DATABASE, NB_MONITOR, SB_DATABASE, SB_MONITOR } from '../../src/ovn/index.js';
import {
  dumpDatabase,
  NB_SCHEMA,
  nbctl,
  OvsdbLab,
  run,
  SB_SCHEMA,
  sbctl,
} from '../../test/support/ovsdb-lab.js';

/** The commands, in order; `nb`/`sb` run through ovn-nbctl/ovn-sbctl. */
export const TOPOLOGY: readonly (readonly ['nb' | 'sb', ...string[]])[] = [
  ['sb', 'chassis-add', 'gw1', 'geneve', '198.18.100.11'],
  ['sb', 'chassis-add', 'hv1', 'geneve', '198.18.100.12'],
  ['sb', 'chassis-add', 'hv2', 'geneve', '198.18.100.13'],
  ['sb', 'chassis-add', 'node-a-6f2c', 'geneve', '198.18.100.21'],
  ['sb', 'set', 'Chassis', 'hv1', 'other_config:ovn-bgp-speaker-nexthop-ipv6=2001:db8:100::12'],
  ['sb', 'set', 'Chassis', 'node-a-6f2c', 'hostname=node-a'],
  [
    'nb',
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
  ],
  [
    'nb',
    'lr-add',
    'router1',
    '--',
    'lrp-add',
    'router1',
    'lrp-public',
    '00:00:20:20:12:13',
    '198.18.64.1/24',
    '2001:db8:64::1/64',
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
  ],
  ...[1, 3].map(
    (n) =>
      [
        'nb',
        'ls-add',
        `tenant${n}`,
        '--',
        'lrp-add',
        'router1',
        `lrp-tenant${n}`,
        `00:00:00:00:0${n}:01`,
        `198.19.${n}.1/24`,
        `2001:db8:${n}::1/64`,
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
      ] as const,
  ),
  [
    'nb',
    'lsp-add',
    'tenant1',
    'vm1',
    '--',
    'lsp-set-addresses',
    'vm1',
    '50:54:00:00:01:10 198.19.1.10 2001:db8:1::10',
  ],
  ['nb', 'lsp-add', 'tenant3', 'vm3', '--', 'lsp-set-addresses', 'vm3', '50:54:00:00:03:10 198.19.3.10'],
  [
    'nb',
    'lsp-add',
    'public',
    'pvm1',
    '--',
    'lsp-set-addresses',
    'pvm1',
    '50:54:00:00:09:01 198.18.64.50 2001:db8:64::50',
  ],
  [
    'nb',
    'lr-nat-add',
    'router1',
    'dnat_and_snat',
    '198.18.64.100',
    '198.19.1.10',
    'vm1',
    '50:54:00:00:fe:10',
  ],
  [
    'nb',
    'lr-nat-add',
    'router1',
    'dnat_and_snat',
    '2001:db8:64::100',
    '2001:db8:1::10',
    'vm1',
    '50:54:00:00:fe:11',
  ],
  ['nb', 'lr-nat-add', 'router1', 'dnat_and_snat', '198.18.64.101', '198.19.3.10'],
  ['nb', 'lr-nat-add', 'router1', 'snat', '198.18.64.1', '198.19.1.0/24'],
  ['nb', 'lb-add', 'lb1', '198.18.64.200:80', '198.19.1.10:8080', 'tcp'],
  ['nb', 'lr-lb-add', 'router1', 'lb1'],
  ['nb', 'lb-add', 'lb2', '[2001:db8:64::200]:80', '[2001:db8:3::10]:8080', 'tcp'],
  ['nb', 'ls-lb-add', 'tenant3', 'lb2'],
  [
    'nb',
    'lr-add',
    'gr1',
    '--',
    'set',
    'Logical_Router',
    'gr1',
    'options:chassis=gw1',
    '--',
    'lrp-add',
    'gr1',
    'lrp-gr1-public',
    '00:00:20:20:12:aa',
    '198.18.64.3/24',
    '--',
    'lsp-add',
    'public',
    'public-gr1',
    '--',
    'lsp-set-type',
    'public-gr1',
    'router',
    '--',
    'lsp-set-addresses',
    'public-gr1',
    'router',
    '--',
    'lsp-set-options',
    'public-gr1',
    'router-port=lrp-gr1-public',
  ],
  ['nb', 'lr-nat-add', 'gr1', 'dnat_and_snat', '198.18.64.110', '198.19.4.10'],
  // ovn-kubernetes shape: node switch node-a with its pod subnet, gateway router GR_node-a
  ['nb', 'ls-add', 'node-a', '--', 'set', 'Logical_Switch', 'node-a', 'other_config:subnet=198.19.8.0/24'],
  ['nb', 'lr-add', 'GR_node-a', '--', 'set', 'Logical_Router', 'GR_node-a', 'options:chassis=node-a-6f2c'],
  ['nb', 'lb-add', 'svc1', '198.18.65.10:80', '198.19.8.5:8080', 'tcp'],
  ['nb', 'lr-lb-add', 'GR_node-a', 'svc1'],
  ['nb', '--wait=sb', 'sync'],
  ['sb', 'lsp-bind', 'vm1', 'hv1', '--', 'lsp-bind', 'vm3', 'hv2', '--', 'lsp-bind', 'pvm1', 'hv2'],
  ['sb', 'lsp-bind', 'cr-lrp-public', 'gw1'],
  ['nb', '--wait=sb', 'sync'],
];

export async function buildTopology(nb: string, sb: string): Promise<void> {
  for (const [db, ...args] of TOPOLOGY) await (db === 'nb' ? nbctl(nb, ...args) : sbctl(sb, ...args));
}

/** The monitored columns of every monitored table, as `ovsdb-client dump` prints them (JSON cells). */
export async function snapshot(
  remote: string,
  database: string,
  spec: Record<string, { columns: readonly string[] }>,
) {
  const dump = await dumpDatabase(remote, database, Object.keys(spec));
  const tables: Record<string, Record<string, Record<string, unknown>>> = {};
  for (const [table, { columns }] of Object.entries(spec)) {
    tables[table] = {};
    for (const [uuid, row] of dump.get(table) ?? []) {
      tables[table][uuid] = Object.fromEntries(columns.map((c) => [c, row[c]]));
    }
  }
  return tables;
}

async function main(): Promise<void> {
  const out = process.argv[2] ?? 'fixtures/ovn';
  const lab = OvsdbLab.create('ovn-snapshot-');
  try {
    const nb = await lab.startServer('nb', await lab.createDb('nb', NB_SCHEMA));
    const sb = await lab.startServer('sb', await lab.createDb('sb', SB_SCHEMA));
    await nbctl(nb.unix, 'init');
    await sbctl(sb.unix, 'init');
    await lab.startNorthd(nb.unix, sb.unix);
    await buildTopology(nb.unix, sb.unix);
    const version = (await run('ovn-northd', ['--version'])).split('\n')[0];
    for (const [file, remote, db, spec] of [
      ['nb.json', nb.unix, NB_DATABASE, NB_MONITOR],
      ['sb.json', sb.unix, SB_DATABASE, SB_MONITOR],
    ] as const) {
      const body = {
        made_by: 'frr-interop/capture/ovn-snapshot.ts',
        version,
        database: db,
        tables: await snapshot(remote, db, spec),
      };
      writeFileSync(join(out, file), `${JSON.stringify(body, null, 1)}\n`);
    }
  } finally {
    await lab.close();
  }
}

if (process.argv[1]?.endsWith('ovn-snapshot.ts')) await main();
