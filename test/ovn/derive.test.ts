import { describe, expect, it } from 'vitest';
import {
  type Advertisement,
  DEFAULT_OVN_DERIVE_CONFIG,
  deriveOvnRoutes,
  type OvnDeriveConfig,
  OvnDeriver,
} from '../../src/ovn/index.js';
import { labModel, Model, uuid } from './model.js';

const table = (ads: readonly Advertisement[]) => ads.map((a) => `${a.kind} ${a.prefix} via ${a.nextHop}`);
const cfg = (over: Partial<OvnDeriveConfig> = {}): OvnDeriveConfig => ({
  ...DEFAULT_OVN_DERIVE_CONFIG,
  ...over,
});

describe('derivation from scratch (central mode)', () => {
  it('gives every kind of the lab topology its next hop', () => {
    const { m } = labModel();
    const { advertisements, problems } = deriveOvnRoutes(m.snapshot(), cfg());
    expect(table(advertisements)).toEqual([
      'floatingIps 198.18.64.100/32 via 198.18.100.12',
      'floatingIps 198.18.64.101/32 via 198.18.100.11',
      'loadBalancerVips 198.18.64.200/32 via 198.18.100.11',
      'providerPorts 198.18.64.50/32 via 198.18.100.13',
      'tenantNetworks 198.19.3.0/24 via 198.18.64.1',
      'tenantNetworks 2001:db8:3::/64 via 2001:db8:64::1',
    ]);
    // pvm1's IPv6 address: hv2 has no IPv6 address at all.
    expect(problems.map((p) => `${p.kind} ${p.origin.name}`)).toEqual(['chassis-no-address pvm1']);
    const fip = advertisements.find((a) => a.prefix === '198.18.64.100/32')!;
    expect(fip.why).toBe('chassis hv1 (Port_Binding vm1), Encap ip');
    expect(fip.origin).toMatchObject({ db: 'nb', table: 'NAT', name: 'router1/198.18.64.100' });
  });

  it('prefers configured next hops, then the chassis key, then the Encap ip', () => {
    const { m, ids } = labModel();
    m.update('sb', 'Chassis', ids.hv2, {
      other_config: { 'ovn-bgp-speaker-nexthop-ipv6': '2001:db8:100::13' },
    });
    const c = cfg({ chassisNextHops: { hv1: { ipv4: '198.18.200.1' } } });
    const ads = deriveOvnRoutes(m.snapshot(), c).advertisements;
    const by = (p: string) => ads.find((a) => a.prefix === p)!;
    expect(by('198.18.64.100/32')).toMatchObject({
      nextHop: '198.18.200.1',
      why: 'chassis hv1 (Port_Binding vm1), configured next hop',
    });
    expect(by('2001:db8:64::50/128')).toMatchObject({
      nextHop: '2001:db8:100::13',
      why: 'chassis hv2 (Port_Binding pvm1), other_config:ovn-bgp-speaker-nexthop-ipv6',
    });
  });

  it('reports an unbound port and an unbound gateway instead of advertising', () => {
    const { m, ids } = labModel();
    m.update('sb', 'Port_Binding', ids.pbVm1, { chassis: null });
    m.update('sb', 'Port_Binding', ids.pbCr, { chassis: null });
    const { advertisements, problems } = deriveOvnRoutes(m.snapshot(), cfg());
    expect(table(advertisements)).not.toContain('floatingIps 198.18.64.100/32 via 198.18.100.12');
    expect(advertisements.some((a) => a.prefix === '198.18.64.101/32')).toBe(false);
    expect(problems.map((p) => p.kind)).toEqual(
      expect.arrayContaining(['port-unbound', 'gateway-unbound', 'gateway-unbound']),
    );
  });

  it('selects tenant networks by prefix list and by marker', () => {
    const { m } = labModel();
    const with_ = (select: OvnDeriveConfig['kinds']['tenantNetworks']['select']) =>
      deriveOvnRoutes(
        m.snapshot(),
        cfg({
          kinds: {
            ...DEFAULT_OVN_DERIVE_CONFIG.kinds,
            tenantNetworks: { ...DEFAULT_OVN_DERIVE_CONFIG.kinds.tenantNetworks, select },
          },
        }),
      )
        .advertisements.filter((a) => a.kind === 'tenantNetworks')
        .map((a) => a.prefix);
    expect(with_({ prefixes: ['2001:db8::/32'] })).toEqual(['2001:db8:3::/64']);
    expect(with_({ marker: 'bgp-expose' })).toEqual(['198.19.3.0/24', '2001:db8:3::/64']);
    expect(with_({ marker: 'other' })).toEqual([]);
  });

  it('turns kinds off and carries per-kind communities', () => {
    const { m } = labModel();
    const k = DEFAULT_OVN_DERIVE_CONFIG.kinds;
    const ads = deriveOvnRoutes(
      m.snapshot(),
      cfg({
        kinds: {
          ...k,
          tenantNetworks: { ...k.tenantNetworks, enabled: false },
          providerPorts: { ...k.providerPorts, enabled: false },
          floatingIps: {
            enabled: true,
            communities: [65000 * 65536 + 100],
            largeCommunities: [[65000, 1, 2]],
          },
        },
      }),
    ).advertisements;
    expect(ads.map((a) => a.kind).sort()).toEqual(['floatingIps', 'floatingIps', 'loadBalancerVips']);
    expect(ads[0]).toMatchObject({ communities: [65000 * 65536 + 100], largeCommunities: [[65000, 1, 2]] });
  });

  it('settles a prefix claimed twice deterministically and reports the loser', () => {
    const { m, ids } = labModel();
    // A VIP equal to the centralized FIP.
    m.update('nb', 'Load_Balancer', ids.lb1, { vips: { '198.18.64.101:443': '198.19.1.10:443' } });
    const { advertisements, problems } = deriveOvnRoutes(m.snapshot(), cfg());
    expect(advertisements.find((a) => a.prefix === '198.18.64.101/32')!.kind).toBe('floatingIps');
    expect(problems.filter((p) => p.kind === 'duplicate-prefix').map((p) => p.origin.name)).toEqual(['lb1']);
  });

  it('routes a gateway router and its FIP via options:chassis', () => {
    const m = new Model();
    const gw = m.chassis('gw1', '198.18.100.11');
    const ln = m.put('nb', 'Logical_Switch_Port', { name: 'ln', type: 'localnet' });
    const pg = m.put('nb', 'Logical_Switch_Port', {
      name: 'p-gr1',
      type: 'router',
      options: { 'router-port': 'gr1-pub' },
    });
    m.put('nb', 'Logical_Switch', { name: 'public', ports: [ln, pg] });
    const lrp = m.put('nb', 'Logical_Router_Port', { name: 'gr1-pub', networks: ['198.18.64.3/24'] });
    const lrpIn = m.put('nb', 'Logical_Router_Port', { name: 'gr1-in', networks: ['198.19.4.1/24'] });
    const fip = m.put('nb', 'NAT', {
      type: 'dnat_and_snat',
      external_ip: '198.18.64.110',
      logical_ip: '198.19.4.5',
    });
    m.put('nb', 'Logical_Router', {
      name: 'gr1',
      ports: [lrp, lrpIn],
      nat: [fip],
      options: { chassis: 'gw1' },
    });
    expect(gw).toBeTruthy();
    const ads = deriveOvnRoutes(m.snapshot(), cfg()).advertisements;
    expect(table(ads)).toEqual([
      'floatingIps 198.18.64.110/32 via 198.18.100.11',
      'tenantNetworks 198.19.4.0/24 via 198.18.64.3',
    ]);
    expect(ads[0].why).toBe('chassis gw1 (gateway router gr1 options:chassis=gw1), Encap ip');
  });

  it('gives centralized FIPs of one router the gateway hop of their own family and gateway port', () => {
    const { m, ids } = labModel();
    m.update('sb', 'Chassis', ids.gw1, {
      other_config: { 'ovn-bgp-speaker-nexthop-ipv6': '2001:db8:100::11' },
    });
    // A second DGP, bound on hv2; lrp-public sorts first, so it is the default one.
    const lrp2 = m.put('nb', 'Logical_Router_Port', {
      name: 'lrp-public2',
      networks: ['198.18.65.1/24'],
      gateway_chassis: [uuid()],
    });
    m.binding('cr-lrp-public2', ids.hv2, 'chassisredirect');
    const nat = (external_ip: string, gateway_port?: string) =>
      m.put('nb', 'NAT', {
        type: 'dnat_and_snat',
        external_ip,
        logical_ip: '198.19.3.10',
        ...(gateway_port && { gateway_port }),
      });
    const r = m.get('nb', 'Logical_Router', ids.router1);
    m.update('nb', 'Logical_Router', ids.router1, {
      ports: [...(r.ports as string[]), lrp2],
      nat: [
        ...(r.nat as string[]),
        nat('2001:db8:64::101'),
        nat('198.18.65.101', lrp2),
        nat('2001:db8:65::101', lrp2),
      ],
    });
    const fips = deriveOvnRoutes(m.snapshot(), cfg()).advertisements.filter((a) => a.kind === 'floatingIps');
    expect(table(fips)).toEqual([
      'floatingIps 198.18.64.100/32 via 198.18.100.12',
      'floatingIps 198.18.64.101/32 via 198.18.100.11',
      'floatingIps 198.18.65.101/32 via 198.18.100.13',
      'floatingIps 2001:db8:64::101/128 via 2001:db8:100::11',
    ]);
    // hv2 has no IPv6 address: the IPv6 FIP behind lrp-public2 is a problem, not a route.
    const problems = deriveOvnRoutes(m.snapshot(), cfg()).problems.filter((p) => p.origin.table === 'NAT');
    expect(problems.map((p) => `${p.kind} ${p.origin.name}`)).toEqual([
      'chassis-no-address router1/2001:db8:65::101',
    ]);
  });

  it('derives ovn-kubernetes pod subnets and service VIPs via the node', () => {
    const m = new Model();
    m.chassis('6f2c-node-a', '198.18.100.21', { hostname: 'node-a' });
    const lb = m.put('nb', 'Load_Balancer', {
      name: 'svc',
      vips: { '198.18.65.10:80': '198.19.8.5:8080', '[2001:db8:65::10]:80': '[2001:db8:8::5]:8080' },
    });
    m.put('nb', 'Logical_Router', {
      name: 'GR_node-a',
      options: { chassis: '6f2c-node-a' },
      load_balancer: [lb],
    });
    m.put('nb', 'Logical_Switch', { name: 'node-a', other_config: { subnet: '198.19.8.0/24' } });
    const { advertisements, problems } = deriveOvnRoutes(m.snapshot(), cfg());
    expect(table(advertisements)).toEqual([
      'serviceVips 198.18.65.10/32 via 198.18.100.21',
      'podSubnets 198.19.8.0/24 via 198.18.100.21',
    ]);
    expect(problems.map((p) => p.kind)).toEqual(['chassis-no-address']);
  });
});

describe('local mode', () => {
  it('keeps only what our chassis hosts, with our own next hop', () => {
    const { m } = labModel();
    const local = cfg({
      mode: 'local',
      localChassis: 'gw1',
      localNextHop: { ipv4: '198.18.0.9', ipv6: '2001:db8::9' },
    });
    expect(table(deriveOvnRoutes(m.snapshot(), local).advertisements)).toEqual([
      'floatingIps 198.18.64.101/32 via 198.18.0.9',
      'loadBalancerVips 198.18.64.200/32 via 198.18.0.9',
      'tenantNetworks 198.19.3.0/24 via 198.18.64.1',
      'tenantNetworks 2001:db8:3::/64 via 2001:db8:64::1',
    ]);
    const hv1 = cfg({ mode: 'local', localChassis: 'hv1', localNextHop: { ipv4: '198.18.0.12' } });
    const r = deriveOvnRoutes(m.snapshot(), hv1);
    expect(table(r.advertisements)).toEqual(['floatingIps 198.18.64.100/32 via 198.18.0.12']);
    expect(r.problems).toEqual([]);
  });

  it('without an own address of the family, the next hop is self: ours on each session', () => {
    const { m } = labModel();
    const r = deriveOvnRoutes(m.snapshot(), cfg({ mode: 'local', localChassis: 'gw1' }));
    expect(table(r.advertisements)).toContain('floatingIps 198.18.64.101/32 via self');
    expect(r.advertisements.find((a) => a.prefix === '198.18.64.101/32')?.why).toMatch(/gw1.*next hop self/);
    expect(r.problems).toEqual([]);
  });
});

describe('incremental derivation', () => {
  it('moves a port to another chassis as one announce, and withdraws on delete', () => {
    const { m, ids } = labModel();
    const d = new OvnDeriver(cfg());
    d.load(m.snapshot());
    let diff = d.apply([m.update('sb', 'Port_Binding', ids.pbVm1, { chassis: ids.hv2 })]);
    expect(table(diff.announce)).toEqual(['floatingIps 198.18.64.100/32 via 198.18.100.13']);
    expect(diff.withdraw).toEqual([]);
    expect(d.lastApply.units).toBe(1);
    diff = d.apply([
      m.update('nb', 'Logical_Router', ids.router1, { nat: [ids.fipC, ids.snat1] }),
      m.remove('nb', 'NAT', ids.fipD),
    ]);
    expect(diff.announce).toEqual([]);
    expect(diff.withdraw.map((a) => a.prefix)).toEqual(['198.18.64.100/32']);
  });

  it('follows a gateway failover with a new next hop and no withdraw', () => {
    const { m, ids } = labModel();
    const d = new OvnDeriver(cfg());
    d.load(m.snapshot());
    const diff = d.apply([m.update('sb', 'Port_Binding', ids.pbCr, { chassis: ids.hv1 })]);
    expect(table(diff.announce)).toEqual([
      'floatingIps 198.18.64.101/32 via 198.18.100.12',
      'loadBalancerVips 198.18.64.200/32 via 198.18.100.12',
    ]);
    expect(diff.withdraw).toEqual([]);
  });

  it('lets go of everything a FIP made it hold once the FIP is gone', () => {
    const { m, ids } = labModel();
    const d = new OvnDeriver(cfg());
    d.load(m.snapshot());
    const before = d.held;
    const nats = m.get('nb', 'Logical_Router', ids.router1).nat as string[];
    for (let round = 0; round < 3; round++) {
      // Centralized, distributed on a bound VM, distributed on a port with no binding at all.
      const added = [
        { external_ip: '198.18.64.120', logical_ip: '198.19.3.20' },
        {
          external_ip: '198.18.64.121',
          logical_ip: '198.19.1.10',
          logical_port: 'vm1',
          external_mac: '50:54:00:00:fe:21',
        },
        {
          external_ip: '198.18.64.122',
          logical_ip: '198.19.1.12',
          logical_port: 'vm9',
          external_mac: '50:54:00:00:fe:22',
        },
      ].map((cells) => m.put('nb', 'NAT', { type: 'dnat_and_snat', ...cells }));
      const diff = d.apply([
        ...added.map((id) => ({
          db: 'nb' as const,
          table: 'NAT',
          uuid: id,
          old: null,
          new: m.get('nb', 'NAT', id),
        })),
        m.update('nb', 'Logical_Router', ids.router1, { nat: [...nats, ...added] }),
      ]);
      expect(diff.announce.map((a) => a.prefix)).toEqual(['198.18.64.120/32', '198.18.64.121/32']);
      expect(d.held.units).toBe(before.units + 3);
      d.apply([
        m.update('nb', 'Logical_Router', ids.router1, { nat: nats }),
        ...added.map((id) => m.remove('nb', 'NAT', id)),
      ]);
      expect(d.held).toEqual(before);
    }
  });

  it('a FIP added to a router of many computes that FIP and the router again, not the others', () => {
    const { m, ids } = labModel();
    const nats = [...(m.get('nb', 'Logical_Router', ids.router1).nat as string[])];
    for (let i = 0; i < 500; i++)
      nats.push(
        m.put('nb', 'NAT', {
          type: 'dnat_and_snat',
          external_ip: `198.18.${70 + (i >> 8)}.${i & 255}`,
          logical_ip: '198.19.3.10',
        }),
      );
    m.update('nb', 'Logical_Router', ids.router1, { nat: nats });
    const d = new OvnDeriver(cfg());
    d.load(m.snapshot());
    const fip = m.put('nb', 'NAT', {
      type: 'dnat_and_snat',
      external_ip: '198.18.72.1',
      logical_ip: '198.19.3.11',
    });
    const diff = d.apply([
      { db: 'nb', table: 'NAT', uuid: fip, old: null, new: m.get('nb', 'NAT', fip) },
      m.update('nb', 'Logical_Router', ids.router1, { nat: [...nats, fip] }),
    ]);
    expect(table(diff.announce)).toEqual(['floatingIps 198.18.72.1/32 via 198.18.100.11']);
    expect(d.lastApply.units).toBe(2);
    // The router's name is read by every FIP (it names their origin): all 503 again, and the router.
    d.apply([m.update('nb', 'Logical_Router', ids.router1, { name: 'router-one' })]);
    expect(d.lastApply.units).toBe(504);
    expect(d.advertisements.find((a) => a.prefix === '198.18.72.1/32')?.origin.name).toBe(
      'router-one/198.18.72.1',
    );
  });
});
