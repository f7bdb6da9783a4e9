import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { CHASSIS, OvnFrrLab, TOPOLOGY_ROUTES } from './support/ovn-frr-lab.js';

// The same OVN → speaker path with GoBGP 3.10 as the router instead of FRR: what GoBGP holds
// (`gobgp global rib -a ipv4|ipv6 -j`) follows OVN.

const IS_ROOT = process.getuid?.() === 0;

describe.skipIf(!IS_ROOT)('OVN → our speaker → GoBGP', () => {
  let lab: OvnFrrLab;

  beforeAll(async () => {
    lab = await OvnFrrLab.create({ id: 'gb', router: 'gobgp' });
    await lab.startSpeaker(1);
    await lab.waitRoutes(TOPOLOGY_ROUTES, 'the topology’s routes at GoBGP');
  }, 90_000);

  afterAll(async () => {
    await lab?.destroy();
  });

  it('GoBGP holds exactly the routes OVN gives, IPv4 and IPv6, each via the chassis that hosts it', async () => {
    expect(Object.fromEntries(await lab.table())).toEqual(TOPOLOGY_ROUTES);
    const fip = (await lab.routes('ipv4')).find((r) => r.prefix === '198.18.64.100/32');
    expect(fip).toMatchObject({ asPath: [65000], best: true, nextHops: [CHASSIS.hv1.ipv4] });
  });

  it('a new floating IP reaches GoBGP via the gateway chassis; deleted, GoBGP loses it', async () => {
    await lab.nbctl(
      'lr-nat-add',
      'router1',
      'dnat_and_snat',
      '198.18.64.140',
      '198.19.1.40',
      '--',
      'lr-nat-add',
      'router1',
      'dnat_and_snat',
      '2001:db8:64::140',
      '2001:db8:1::40',
    );
    const fip = { '198.18.64.140/32': CHASSIS.gw1.ipv4, '2001:db8:64::140/128': CHASSIS.gw1.ipv6 };
    await lab.waitRoutes(fip, 'the new FIPs at GoBGP');
    await lab.nbctl(
      'lr-nat-del',
      'router1',
      'dnat_and_snat',
      '198.18.64.140',
      '--',
      'lr-nat-del',
      'router1',
      'dnat_and_snat',
      '2001:db8:64::140',
    );
    const after = await lab.waitGone(Object.keys(fip), 'the FIPs withdrawn at GoBGP');
    expect(Object.fromEntries(after)).toEqual(TOPOLOGY_ROUTES);
  });

  it('the VM bound to another chassis: GoBGP’s next hop follows', async () => {
    await lab.sbctl('lsp-unbind', 'vm1', '--', 'lsp-bind', 'vm1', 'hv2');
    const moved = { '198.18.64.100/32': CHASSIS.hv2.ipv4, '2001:db8:64::100/128': CHASSIS.hv2.ipv6 };
    const t = await lab.waitRoutes(moved, 'the FIPs via hv2 at GoBGP');
    expect(Object.fromEntries(t)).toEqual({ ...TOPOLOGY_ROUTES, ...moved });
  });
});
