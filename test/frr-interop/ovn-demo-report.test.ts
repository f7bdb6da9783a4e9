import { describe, expect, it } from 'vitest';
import type { ReceivedRoute } from '../../frr-interop/lab/index.js';
import {
  formatCounts,
  frrReceivedAt,
  joinRoutes,
  ovsdbNotifiedAt,
  parseFrrBestPath,
  shortUuids,
} from '../../frr-interop/ovn-demo/report.js';
import type { OvnRouteView, OvnView } from '../../src/api/index.js';

const SPEAKER = ['198.18.10.2', '2001:db8:10::2'];

const ovnRoute = (prefix: string, nextHop: string, kind: string): OvnRouteView => ({
  prefix,
  nextHop,
  kind,
  origin: { db: 'nb', table: 'NAT', uuid: 'u', name: `router1/${prefix}` },
  why: 'chassis hv1 (Port_Binding vm1), Encap ip',
});
const view = (routes: OvnRouteView[]): OvnView => ({
  mode: 'central (synced)',
  nb: 'synced',
  sb: 'synced',
  routes,
  problems: [],
  counts: {},
});
const frrRoute = (prefix: string, nextHops: string[], from = SPEAKER[0]!, best = true): ReceivedRoute => ({
  prefix,
  family: prefix.includes(':') ? 'ipv6' : 'ipv4',
  from,
  nextHops,
  asPath: [65000],
  best,
});

describe('the demo report: FRR routes joined with show ovn', () => {
  it('counts a route as at FRR only when FRR’s best path from the speaker has the derived next hop', () => {
    const ovn = view([
      ovnRoute('198.18.64.10/32', '198.18.10.21', 'floating-ip'),
      ovnRoute('198.18.64.20/32', '198.18.10.11', 'floating-ip'),
      ovnRoute('198.18.64.100/32', '198.18.10.11', 'lb-vip'),
      ovnRoute('2001:db8:64::10/128', '2001:db8:10::21', 'floating-ip'),
    ]);
    const frr = [
      frrRoute('198.18.64.10/32', ['198.18.10.21']),
      // next hop self instead of the chassis: not what the speaker meant to send
      frrRoute('198.18.64.20/32', ['198.18.10.2']),
      // learned from someone else
      frrRoute('198.18.64.100/32', ['198.18.10.11'], '198.18.10.9'),
      // a link-local next hop beside the global one is not the route's next hop
      frrRoute('2001:db8:64::10/128', ['fe80::1', '2001:db8:10::21'], SPEAKER[1]),
      frrRoute('198.51.100.0/24', ['198.18.10.2']),
    ];
    const j = joinRoutes(frr, ovn, SPEAKER);
    expect(j.routes.map((r) => [r.prefix, r.frrNextHop])).toEqual([
      ['198.18.64.10/32', '198.18.10.21'],
      ['2001:db8:64::10/128', '2001:db8:10::21'],
    ]);
    expect(j.missing.map((m) => m.prefix)).toEqual(['198.18.64.20/32', '198.18.64.100/32']);
    expect(j.other.map((o) => o.prefix)).toEqual(['198.51.100.0/24']);
    expect(formatCounts(j.routes)).toBe('2 routes (1 IPv4, 1 IPv6): floating-ip 2');
  });

  it('reads the best path of a one-prefix vtysh answer, and nothing from an empty one', () => {
    const text = JSON.stringify({
      prefix: '198.18.64.30/32',
      paths: [
        { bestpath: { overall: false }, peer: { peerId: '198.18.10.9' }, nexthops: [{ ip: '198.18.10.9' }] },
        { bestpath: { overall: true }, peer: { peerId: '198.18.10.2' }, nexthops: [{ ip: '198.18.10.22' }] },
      ],
    });
    expect(parseFrrBestPath(text)).toEqual({ from: '198.18.10.2', nextHops: ['198.18.10.22'] });
    expect(parseFrrBestPath('{\n}\n')).toBeUndefined();
  });

  it('finds when bgpd logged a prefix, to the millisecond, in local time', () => {
    const log = [
      '2026/12/03 17:08:18.445 BGP: [T5AAP-5GA85] 198.18.10.2(Unknown) rcvd UPDATE w/ attr: nexthop 198.18.10.22',
      '2026/12/03 17:08:18.446 BGP: [YCKEM-GB33T] 198.18.10.2(Unknown) rcvd 198.18.64.3/32 IPv4 unicast',
      '2026/12/03 17:08:18.447 BGP: [YCKEM-GB33T] 198.18.10.2(Unknown) rcvd 198.18.64.30/32 IPv4 unicast',
    ].join('\n');
    expect(frrReceivedAt(log, '198.18.64.30/32')).toEqual({
      at: new Date(2026, 11, 3, 17, 8, 18, 447).getTime(),
      stamp: '2026/12/03 17:08:18.447',
    });
    expect(frrReceivedAt(log, '198.18.64.31/32')).toBeUndefined();
  });

  it('finds when ovsdb-server sent the update notification of a NAT row, not the request or another row', () => {
    const log = [
      '2026-12-03T17:51:27.252Z|00012|jsonrpc|DBG|unix#41: received request, method="transact", params=["OVN_Northbound",{"table":"NAT","op":"insert","row":{"external_ip":"198.18.64.41"}}], id=4',
      '2026-12-03T17:51:27.253Z|00013|jsonrpc|DBG|unix#1: send notification, method="update3", params=["replica","0",{"NAT":{"a":{"insert":{"external_ip":"198.18.64.4"}}}}]',
      '2026-12-03T17:51:27.254Z|00014|jsonrpc|DBG|unix#35: send notification, method="update3", params=["replica","0",{"NAT":{"b":{"insert":{"external_ip":"198.18.64.41"}}}}]',
    ].join('\n');
    expect(ovsdbNotifiedAt(log, '198.18.64.41')).toEqual({
      at: Date.UTC(2026, 11, 3, 17, 51, 27, 254),
      stamp: '2026-12-03T17:51:27.254Z',
    });
    expect(ovsdbNotifiedAt(log, '198.18.64.42')).toBeUndefined();
  });

  it('cuts UUIDs in a reason to 8 digits', () => {
    expect(shortUuids('chassis 5f3c2a1e-8d4b-4e6a-9c7f-0b1d2e3f4a5b (node node-a)')).toBe(
      'chassis 5f3c2a1e… (node node-a)',
    );
  });
});
