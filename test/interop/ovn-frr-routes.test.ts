import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { historyOf } from './support/bgp-capture.js';
import {
  CHASSIS,
  eventually,
  OvnFrrLab,
  type SpeakerProcess,
  TOPOLOGY_ROUTES,
} from './support/ovn-frr-lab.js';

// Real OVN (NB and SB ovsdb-server, ovn-northd, the sample topology) feeds our speaker, which
// peers with FRR 8.4 over the provider network; every assertion is on what FRR holds
// (`show bgp ipv4|ipv6 unicast json`) or on the UPDATEs captured on FRR's side of the link.

const IS_ROOT = process.getuid?.() === 0;
const FLOW_MS = 20_000;
const SCALE_MS = 60_000;

describe.skipIf(!IS_ROOT)('OVN → our speaker → FRR: routes follow OVN', () => {
  let lab: OvnFrrLab;
  let speaker: SpeakerProcess;

  beforeAll(async () => {
    lab = await OvnFrrLab.create({ id: 'rt' });
    speaker = await lab.startSpeaker(1);
    await lab.waitRoutes(TOPOLOGY_ROUTES, 'the topology’s routes at FRR');
  }, 90_000);

  afterAll(async () => {
    await lab?.destroy();
  });

  it('FRR holds exactly the routes OVN gives, IPv4 and IPv6, each via the chassis that hosts it', async () => {
    expect(Object.fromEntries(await lab.table())).toEqual(TOPOLOGY_ROUTES);
    // ... and that is what the speaker derived, row for row.
    expect(Object.fromEntries(await speaker.ovnRoutes())).toEqual(TOPOLOGY_ROUTES);
    const v4 = await lab.routes('ipv4');
    expect(v4.find((r) => r.prefix === '198.18.64.100/32')).toMatchObject({
      asPath: [65000],
      best: true,
      nextHops: [CHASSIS.hv1.ipv4],
    });
  });

  it('a new floating IP reaches FRR as a host route via its VM’s chassis; deleted, FRR loses it', async () => {
    const vm4 = '50:54:00:00:01:20 198.19.1.20 2001:db8:1::20';
    await lab.nbctl('lsp-add', 'tenant1', 'vm4', '--', 'lsp-set-addresses', 'vm4', vm4);
    await lab.nbctl('--wait=sb', 'sync');
    await lab.sbctl('lsp-bind', 'vm4', 'hv2');
    const nat = (ip: string, logical: string, mac: string) => [
      'lr-nat-add',
      'router1',
      'dnat_and_snat',
      ip,
      logical,
      'vm4',
      mac,
    ];
    await lab.nbctl(
      ...nat('198.18.64.120', '198.19.1.20', '50:54:00:00:fe:20'),
      '--',
      ...nat('2001:db8:64::120', '2001:db8:1::20', '50:54:00:00:fe:21'),
    );
    const fip = { '198.18.64.120/32': CHASSIS.hv2.ipv4, '2001:db8:64::120/128': CHASSIS.hv2.ipv6 };
    await lab.waitRoutes(fip, 'the new FIPs at FRR');

    const del = (ip: string) => ['lr-nat-del', 'router1', 'dnat_and_snat', ip];
    await lab.nbctl(...del('198.18.64.120'), '--', ...del('2001:db8:64::120'));
    const frr = await lab.waitGone(Object.keys(fip), 'the FIPs withdrawn at FRR');
    // Nothing else moved.
    expect(Object.fromEntries(frr)).toEqual(TOPOLOGY_ROUTES);
  });

  it('the VM bound to another chassis: FRR’s next hop changes in one UPDATE per family, no withdrawal', async () => {
    const cap = await lab.capture('move');
    await lab.sbctl('lsp-unbind', 'vm1', '--', 'lsp-bind', 'vm1', 'hv2');
    const moved = { '198.18.64.100/32': CHASSIS.hv2.ipv4, '2001:db8:64::100/128': CHASSIS.hv2.ipv6 };
    await lab.waitRoutes(moved, 'the FIPs via hv2');
    const updates = await cap.stop();
    expect(historyOf(updates, '198.18.64.100/32')).toEqual([`announce ${CHASSIS.hv2.ipv4}`]);
    expect(historyOf(updates, '2001:db8:64::100/128')).toEqual([`announce ${CHASSIS.hv2.ipv6}`]);
    // Back, for the tests below.
    await lab.sbctl('lsp-unbind', 'vm1', '--', 'lsp-bind', 'vm1', 'hv1');
    await lab.waitRoutes(TOPOLOGY_ROUTES, 'the FIPs back on hv1');
  });

  it('gateway failover: cr-lrp-public moves gw1 → hv1 and every route behind the gateway changes next hop at FRR, never absent, no withdrawal', async () => {
    const behindGateway = {
      '198.18.64.101/32': CHASSIS.hv1.ipv4,
      '198.18.64.200/32': CHASSIS.hv1.ipv4,
      '2001:db8:64::200/128': CHASSIS.hv1.ipv6,
    };
    const cap = await lab.capture('failover');
    // FRR's view of the centralized FIP, sampled back to back for the whole failover.
    const samples: string[] = [];
    let sampling = true;
    const sampler = (async () => {
      while (sampling) samples.push(await lab.frrNextHop('198.18.64.101/32'));
    })();
    await eventually(() => (samples.length > 0 ? true : undefined), 'a first sample', FLOW_MS);
    // As the claiming chassis does it: one SB transaction rebinds the chassisredirect port.
    await lab.sbctl('lsp-unbind', 'cr-lrp-public', '--', 'lsp-bind', 'cr-lrp-public', 'hv1');
    let frr: Map<string, string>;
    try {
      frr = await lab.waitRoutes(behindGateway, 'the gateway routes via hv1');
      // One more whole sample after FRR switched, so the sampler saw the new next hop too.
      const seen = samples.length;
      await eventually(
        () => (samples.length >= seen + 2 ? true : undefined),
        'a sample after the switch',
        FLOW_MS,
      );
    } finally {
      sampling = false;
      await sampler;
    }
    const updates = await cap.stop();
    for (const [prefix, nextHop] of Object.entries(behindGateway))
      expect(historyOf(updates, prefix), prefix).toEqual([`announce ${nextHop}`]);
    expect(updates.flatMap((u) => u.withdrawn)).toEqual([]);
    expect(samples.length).toBeGreaterThan(1);
    expect(new Set(samples)).toEqual(new Set([CHASSIS.gw1.ipv4, CHASSIS.hv1.ipv4]));
    // The rest stays: the gateway router gr1 is pinned to gw1, distributed FIPs follow their VMs.
    expect(Object.fromEntries(frr)).toEqual({ ...TOPOLOGY_ROUTES, ...behindGateway });

    await lab.sbctl('lsp-unbind', 'cr-lrp-public', '--', 'lsp-bind', 'cr-lrp-public', 'gw1');
    await lab.waitRoutes(TOPOLOGY_ROUTES, 'the gateway back on gw1');
  });

  it('1,000 floating IPs in one ovn-nbctl transaction all reach FRR with their next hops, follow a failover without a withdrawal, and all go when deleted in one', async () => {
    // A third each: centralized (via the gateway, gw1), distributed on vm1 (hv1), on vm3 (hv2).
    const fips = Array.from({ length: 1000 }, (_, i) => {
      const external = `198.18.${66 + Math.floor(i / 200)}.${1 + (i % 200)}`;
      const logical = `198.19.${100 + Math.floor(i / 200)}.${1 + (i % 200)}`;
      const mac = `50:54:00:aa:${(i >> 8).toString(16).padStart(2, '0')}:${(i & 0xff).toString(16).padStart(2, '0')}`;
      const where = (['gw1', 'hv1', 'hv2'] as const)[i % 3]!;
      const args = ['lr-nat-add', 'router1', 'dnat_and_snat', external, logical];
      if (where === 'hv1') args.push('vm1', mac);
      if (where === 'hv2') args.push('vm3', mac);
      return { external, prefix: `${external}/32`, nextHop: CHASSIS[where].ipv4, args };
    });
    await lab.nbctl(...fips.flatMap((f, i) => (i === 0 ? f.args : ['--', ...f.args])));
    const want = Object.fromEntries(fips.map((f) => [f.prefix, f.nextHop]));
    const frr = await lab.waitRoutes(want, 'the 1,000 FIPs at FRR', { timeoutMs: SCALE_MS });
    expect(Object.fromEntries(frr)).toEqual({ ...TOPOLOGY_ROUTES, ...want });

    // A gateway failover now moves the centralized third at once, still without a withdrawal.
    const cap = await lab.capture('failover-1000');
    await lab.sbctl('lsp-unbind', 'cr-lrp-public', '--', 'lsp-bind', 'cr-lrp-public', 'hv1');
    const central = fips.filter((f) => f.nextHop === CHASSIS.gw1.ipv4);
    const movedCentral = Object.fromEntries(central.map((f) => [f.prefix, CHASSIS.hv1.ipv4]));
    await lab.waitRoutes(movedCentral, 'the centralized FIPs via hv1', { timeoutMs: SCALE_MS });
    const updates = await cap.stop();
    expect(updates.flatMap((u) => u.withdrawn)).toEqual([]);
    const announced = updates.flatMap((u) => u.announced);
    expect(new Set(announced)).toEqual(
      new Set([...Object.keys(movedCentral), '198.18.64.101/32', '198.18.64.200/32', '2001:db8:64::200/128']),
    );
    expect(announced).toHaveLength(new Set(announced).size);
    await lab.sbctl('lsp-unbind', 'cr-lrp-public', '--', 'lsp-bind', 'cr-lrp-public', 'gw1');
    await lab.waitRoutes(want, 'the centralized FIPs back on gw1', { timeoutMs: SCALE_MS });

    const del = fips.flatMap((f, i) => [
      ...(i === 0 ? [] : ['--']),
      'lr-nat-del',
      'router1',
      'dnat_and_snat',
      f.external,
    ]);
    await lab.nbctl(...del);
    const after = await lab.waitGone(Object.keys(want), 'the 1,000 FIPs withdrawn at FRR', {
      timeoutMs: SCALE_MS,
    });
    expect(Object.fromEntries(after)).toEqual(TOPOLOGY_ROUTES);
  });
});
