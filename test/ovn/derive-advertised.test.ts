/*
 * OVN's own routes (SB Advertised_Route, OVN 25.03+): which router they stand for, their kind,
 * their next hop, and how auto mode hands a router between derivation and them.
 */
import { describe, expect, it } from 'vitest';
import {
  type Advertisement,
  type AdvertisementDiff,
  DEFAULT_OVN_DERIVE_CONFIG,
  deriveOvnRoutes,
  type OvnDeriveConfig,
  OvnDeriver,
  type OvnSource,
} from '../../src/ovn/index.js';
import { drModel, labModel } from './model.js';

const table = (ads: readonly Advertisement[]) => ads.map((a) => `${a.kind} ${a.prefix} via ${a.nextHop}`);
const cfg = (source: OvnSource, over: Partial<OvnDeriveConfig> = {}): OvnDeriveConfig => ({
  ...DEFAULT_OVN_DERIVE_CONFIG,
  source,
  ...over,
});
const changes = (d: AdvertisementDiff) => ({
  announce: table(d.announce),
  withdraw: d.withdraw.map((a) => a.prefix),
});

/** router1 as OVN advertises it; pvm1 is a provider-network port, derived whatever the router does. */
const OVN_ROUTES = [
  'nat 198.18.64.100/32 via 198.18.100.12',
  'nat 198.18.64.101/32 via 198.18.100.11',
  'lb 198.18.64.200/32 via 198.18.100.11',
  'connected 198.18.64.0/24 via 198.18.64.1',
  'providerPorts 198.18.64.50/32 via 198.18.100.13',
  'static 198.18.90.0/24 via 198.18.64.1',
  'connected 198.19.1.0/24 via 198.18.64.1',
  'connected 2001:db8:64::/64 via 2001:db8:64::1',
  'static 2001:db8:90::/64 via 2001:db8:64::1',
];
const sorted = (lines: string[]) => [...lines].sort((a, b) => a.split(' ')[1].localeCompare(b.split(' ')[1]));

describe('Advertised_Route rows (source auto, router1 with dynamic routing on)', () => {
  it('are router1’s routes: kinds told by NB, host routes given their length, one route per prefix', () => {
    const { m } = drModel();
    const { advertisements, problems } = deriveOvnRoutes(m.snapshot(), cfg('auto'));
    expect(sorted(table(advertisements))).toEqual(sorted(OVN_ROUTES));
    // The FIP written once per router port is one route, not a duplicate; pvm1's IPv6 address
    // has no IPv6 next hop (hv2 has none), as when derived.
    expect(problems.map((p) => `${p.kind} ${p.origin.name}`)).toEqual(['chassis-no-address pvm1']);
  });

  it('name the SB row, the router and the port, and say how the next hop was chosen', () => {
    const { m, ids } = drModel();
    const ads = deriveOvnRoutes(m.snapshot(), cfg('auto')).advertisements;
    const by = (p: string) => ads.find((a) => a.prefix === p)!;
    const fip = by('198.18.64.101/32');
    // The lower uuid of the two rows speaks for the prefix.
    expect(fip.origin).toEqual({
      db: 'sb',
      table: 'Advertised_Route',
      uuid: ids.arFipC1,
      name: 'router1/lrp-public',
    });
    expect(fip.why).toBe('chassis gw1 (tracked port lrp-public via cr-lrp-public), Encap ip');
    expect(by('198.18.64.100/32').why).toBe('chassis hv1 (tracked port vm1), Encap ip');
    expect(by('198.18.90.0/24')).toMatchObject({
      origin: { uuid: ids.arStatic, name: 'router1/lrp-t1' },
      why: 'gateway port lrp-public of router router1 (198.18.64.1/24)',
    });
  });

  it('carry the communities of their kind; nat and lb as configured for them', () => {
    const { m } = drModel();
    const k = DEFAULT_OVN_DERIVE_CONFIG.kinds;
    const c = cfg('auto', {
      kinds: {
        ...k,
        nat: { ...k.nat, communities: [101] },
        lb: { ...k.lb, communities: [102] },
        connected: { ...k.connected, communities: [103] },
        static: { ...k.static, enabled: false },
      },
    });
    const ads = deriveOvnRoutes(m.snapshot(), c).advertisements;
    const communities = Object.fromEntries(ads.map((a) => [a.prefix, a.communities]));
    expect(communities['198.18.64.101/32']).toEqual([101]);
    expect(communities['198.18.64.200/32']).toEqual([102]);
    expect(communities['198.19.1.0/24']).toEqual([103]);
    expect(ads.some((a) => a.kind === 'static')).toBe(false);
  });

  it('follow the gateway: a rebinding of cr-lrp-public moves the next hops in place; bound nowhere, the router’s address stands in', () => {
    const { m, ids } = drModel();
    const d = new OvnDeriver(cfg('auto'));
    d.load(m.snapshot());
    expect(changes(d.apply([m.update('sb', 'Port_Binding', ids.pbCr, { chassis: ids.hv2 })]))).toEqual({
      announce: ['nat 198.18.64.101/32 via 198.18.100.13', 'lb 198.18.64.200/32 via 198.18.100.13'],
      withdraw: [],
    });
    const unbound = d.apply([m.update('sb', 'Port_Binding', ids.pbCr, { chassis: null })]);
    expect(changes(unbound)).toEqual({
      announce: ['nat 198.18.64.101/32 via 198.18.64.1', 'lb 198.18.64.200/32 via 198.18.64.1'],
      withdraw: [],
    });
    expect(unbound.announce[0].why).toBe(
      'tracked port lrp-public via cr-lrp-public is bound to no chassis; gateway port lrp-public of router router1 (198.18.64.1/24)',
    );
  });

  it('a NAT or VIP of NB that goes turns its prefix into a static one; a row deleted withdraws its prefix', () => {
    const { m, ids } = drModel();
    const d = new OvnDeriver(cfg('auto'));
    d.load(m.snapshot());
    expect(changes(d.apply([m.update('nb', 'Load_Balancer', ids.lb1, { vips: {} })]))).toEqual({
      announce: ['static 198.18.64.200/32 via 198.18.100.11'],
      withdraw: [],
    });
    // One of the two rows of the FIP goes: the other speaks for it, nothing changes.
    expect(changes(d.apply([m.remove('sb', 'Advertised_Route', ids.arFipC1)]))).toEqual({
      announce: [],
      withdraw: [],
    });
    expect(d.advertisements.find((a) => a.prefix === '198.18.64.101/32')?.origin.uuid).toBe(ids.arFipC2);
    expect(changes(d.apply([m.remove('sb', 'Advertised_Route', ids.arFipC2)]))).toEqual({
      announce: [],
      withdraw: ['198.18.64.101/32'],
    });
  });
});

describe('Advertised_Route rows in local mode', () => {
  it('give what lives on our chassis, next hop ourselves: tracked routes where the port is bound, the rest where the gateway is', () => {
    const { m } = drModel();
    const local = (chassis: string) =>
      table(
        deriveOvnRoutes(m.snapshot(), cfg('auto', { mode: 'local', localChassis: chassis })).advertisements,
      );
    // gw1 holds cr-lrp-public: the gateway's routes, and the networks behind it via the gateway address.
    expect(sorted(local('gw1'))).toEqual(
      sorted([
        'nat 198.18.64.101/32 via self',
        'lb 198.18.64.200/32 via self',
        'connected 198.18.64.0/24 via 198.18.64.1',
        'static 198.18.90.0/24 via 198.18.64.1',
        'connected 198.19.1.0/24 via 198.18.64.1',
        'connected 2001:db8:64::/64 via 2001:db8:64::1',
        'static 2001:db8:90::/64 via 2001:db8:64::1',
      ]),
    );
    // hv1 hosts vm1: its distributed FIP only.
    expect(local('hv1')).toEqual(['nat 198.18.64.100/32 via self']);
  });
});

describe('the sources', () => {
  it('auto derives a router with dynamic routing off, whatever rows SB still holds', () => {
    const { m, ids } = drModel();
    m.update('nb', 'Logical_Router', ids.router1, { options: {} });
    const auto = deriveOvnRoutes(m.snapshot(), cfg('auto')).advertisements;
    expect(table(auto)).toEqual(
      table(deriveOvnRoutes(labModel().m.snapshot(), cfg('derive')).advertisements),
    );
  });

  it('derive ignores Advertised_Route; advertised_routes gives nothing else', () => {
    const { m } = drModel();
    const derived = table(deriveOvnRoutes(m.snapshot(), cfg('derive')).advertisements);
    expect(derived).toContain('floatingIps 198.18.64.101/32 via 198.18.100.11');
    expect(derived.some((l) => /^(nat|lb|connected|static) /.test(l))).toBe(false);
    const only = table(deriveOvnRoutes(m.snapshot(), cfg('advertised_routes')).advertisements);
    expect(sorted(only)).toEqual(sorted(OVN_ROUTES.filter((l) => !l.startsWith('providerPorts'))));
  });

  it('an OVN without Advertised_Route (23.03) gives in auto exactly what derive gives', () => {
    const { m } = labModel();
    const r = (s: OvnSource) => deriveOvnRoutes(m.snapshot(), cfg(s));
    expect(r('auto')).toEqual(r('derive'));
  });
});

describe('a router switching dynamic routing on and off (source auto)', () => {
  it('on: its derived routes stay until ovn-northd has written its rows, then each prefix that stays is replaced in place', () => {
    const { m, ids } = drModel();
    const rows = m.sb.get('Advertised_Route')!;
    const held = [...rows.keys()].map((id) => m.remove('sb', 'Advertised_Route', id));
    m.update('nb', 'Logical_Router', ids.router1, { options: {} });
    const d = new OvnDeriver(cfg('auto'));
    d.load(m.snapshot());
    const before = table(d.advertisements);
    // NB first: nothing moves while SB has no rows for the router.
    const on = { 'dynamic-routing': 'true' };
    expect(changes(d.apply([m.update('nb', 'Logical_Router', ids.router1, { options: on })]))).toEqual({
      announce: [],
      withdraw: [],
    });
    expect(table(d.advertisements)).toEqual(before);
    // Then northd's one SB transaction: the prefixes both sides have are announced again (a
    // replace), the derived-only tenant networks go, OVN's new ones come.
    const back = held.map((c) => ({ ...c, old: null, new: c.old }));
    for (const c of back) m.sb.get('Advertised_Route')!.set(c.uuid, c.new!);
    const diff = d.apply(back);
    expect(diff.withdraw.map((a) => a.prefix).sort()).toEqual(['198.19.3.0/24', '2001:db8:3::/64']);
    expect(diff.announce.map((a) => a.prefix)).toEqual(
      expect.arrayContaining(['198.18.64.100/32', '198.18.64.101/32', '198.18.64.200/32']),
    );
    expect(sorted(table(d.advertisements))).toEqual(sorted(OVN_ROUTES));
  });

  it('off: NB alone moves every prefix back to derivation in one step, before northd deletes the rows', () => {
    const { m, ids } = drModel();
    const d = new OvnDeriver(cfg('auto'));
    d.load(m.snapshot());
    const diff = d.apply([m.update('nb', 'Logical_Router', ids.router1, { options: {} })]);
    const derived = deriveOvnRoutes(labModel().m.snapshot(), cfg('derive')).advertisements;
    expect(table(d.advertisements)).toEqual(table(derived));
    // Withdrawn: only what OVN advertised and derivation does not.
    expect(diff.withdraw.map((a) => a.prefix).sort()).toEqual([
      '198.18.64.0/24',
      '198.18.90.0/24',
      '198.19.1.0/24',
      '2001:db8:64::/64',
      '2001:db8:90::/64',
    ]);
    const rows = [...m.sb.get('Advertised_Route')!.keys()];
    expect(changes(d.apply(rows.map((id) => m.remove('sb', 'Advertised_Route', id))))).toEqual({
      announce: [],
      withdraw: [],
    });
  });
});
