/* Derivation from NB/SB snapshots captured from a real ovsdb-server after ovn-northd (fixtures/ovn). */
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import {
  DEFAULT_OVN_DERIVE_CONFIG,
  deriveOvnRoutes,
  type OvnDeriveConfig,
  type OvnSnapshot,
} from '../../src/ovn/index.js';
import { type Row, TableCodec } from '../../src/ovsdb/index.js';
import { loadSchema, NB_SCHEMA, SB_SCHEMA } from '../support/ovsdb-lab.js';

function load(file: string, schemaFile: string): Record<string, ReadonlyMap<string, Row>> {
  const schema = loadSchema(schemaFile);
  const body = JSON.parse(readFileSync(file, 'utf8')) as {
    tables: Record<string, Record<string, Record<string, unknown>>>;
  };
  const out: Record<string, ReadonlyMap<string, Row>> = {};
  for (const [table, rows] of Object.entries(body.tables)) {
    const first = Object.values(rows)[0] ?? {};
    const codec = new TableCodec(schema.tables.get(table)!, Object.keys(first));
    out[table] = new Map(Object.entries(rows).map(([uuid, json]) => [uuid, codec.decodeRow(uuid, json)]));
  }
  return out;
}

const snapshot: OvnSnapshot = {
  nb: load('fixtures/ovn/nb.json', NB_SCHEMA),
  sb: load('fixtures/ovn/sb.json', SB_SCHEMA),
};
const rows = (config: OvnDeriveConfig) => {
  const r = deriveOvnRoutes(snapshot, config);
  return {
    ads: r.advertisements.map(
      (a) =>
        `${a.kind.padEnd(16)} ${a.prefix.padEnd(22)} ${a.nextHop.padEnd(17)} ${a.origin.name} | ${a.why}`,
    ),
    problems: r.problems.map((p) => `${p.kind} ${p.origin.table} ${p.origin.name}`),
  };
};

describe('fixtures/ovn snapshot', () => {
  it('central mode', () => {
    expect(rows(DEFAULT_OVN_DERIVE_CONFIG)).toMatchInlineSnapshot(`
      {
        "ads": [
          "floatingIps      198.18.64.100/32       198.18.100.12     router1/198.18.64.100 | chassis hv1 (Port_Binding vm1), Encap ip",
          "floatingIps      198.18.64.101/32       198.18.100.11     router1/198.18.64.101 | chassis gw1 (Port_Binding cr-lrp-public), Encap ip",
          "floatingIps      198.18.64.110/32       198.18.100.11     gr1/198.18.64.110 | chassis gw1 (gateway router gr1 options:chassis=gw1), Encap ip",
          "loadBalancerVips 198.18.64.200/32       198.18.100.11     lb1 | chassis gw1 (Port_Binding cr-lrp-public), Encap ip",
          "providerPorts    198.18.64.50/32        198.18.100.13     pvm1 | chassis hv2 (Port_Binding pvm1), Encap ip",
          "serviceVips      198.18.65.10/32        198.18.100.21     svc1 | chassis node-a-6f2c (node node-a, gateway router GR_node-a options:chassis=node-a-6f2c), Encap ip",
          "tenantNetworks   198.19.3.0/24          198.18.64.1       router1/lrp-tenant3 | gateway port lrp-public of router router1 (198.18.64.1/24)",
          "podSubnets       198.19.8.0/24          198.18.100.21     node-a | chassis node-a-6f2c (node node-a, GR_node-a options:chassis), Encap ip",
          "tenantNetworks   2001:db8:1::/64        2001:db8:64::1    router1/lrp-tenant1 | gateway port lrp-public of router router1 (2001:db8:64::1/64)",
          "tenantNetworks   2001:db8:3::/64        2001:db8:64::1    router1/lrp-tenant3 | gateway port lrp-public of router router1 (2001:db8:64::1/64)",
          "floatingIps      2001:db8:64::100/128   2001:db8:100::12  router1/2001:db8:64::100 | chassis hv1 (Port_Binding vm1), other_config:ovn-bgp-speaker-nexthop-ipv6",
        ],
        "problems": [
          "chassis-no-address Logical_Switch_Port pvm1",
          "chassis-no-address Load_Balancer lb2",
        ],
      }
    `);
  });
  it('local mode on gw1', () => {
    expect(
      rows({
        ...DEFAULT_OVN_DERIVE_CONFIG,
        mode: 'local',
        localChassis: 'gw1',
        localNextHop: { ipv4: '198.18.0.11', ipv6: '2001:db8::11' },
      }),
    ).toMatchInlineSnapshot(`
      {
        "ads": [
          "floatingIps      198.18.64.101/32       198.18.0.11       router1/198.18.64.101 | local chassis gw1 (Port_Binding cr-lrp-public), own IPv4 next hop",
          "floatingIps      198.18.64.110/32       198.18.0.11       gr1/198.18.64.110 | local chassis gw1 (gateway router gr1 options:chassis=gw1), own IPv4 next hop",
          "loadBalancerVips 198.18.64.200/32       198.18.0.11       lb1 | local chassis gw1 (Port_Binding cr-lrp-public), own IPv4 next hop",
          "tenantNetworks   198.19.3.0/24          198.18.64.1       router1/lrp-tenant3 | gateway port lrp-public of router router1 (198.18.64.1/24)",
          "tenantNetworks   2001:db8:1::/64        2001:db8:64::1    router1/lrp-tenant1 | gateway port lrp-public of router router1 (2001:db8:64::1/64)",
          "tenantNetworks   2001:db8:3::/64        2001:db8:64::1    router1/lrp-tenant3 | gateway port lrp-public of router router1 (2001:db8:64::1/64)",
          "loadBalancerVips 2001:db8:64::200/128   2001:db8::11      lb2 | local chassis gw1 (Port_Binding cr-lrp-public), own IPv6 next hop",
        ],
        "problems": [],
      }
    `);
  });
});
