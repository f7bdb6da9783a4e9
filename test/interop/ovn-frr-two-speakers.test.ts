import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { CHASSIS, eventually, OvnFrrLab, speakerAddress, TOPOLOGY_ROUTES } from './support/ovn-frr-lab.js';

// Two of our speakers on the provider network, both peering with FRR and fed by the same OVN.
// In central mode both advertise everything, so stopping one leaves every route at FRR. In
// local mode each runs on a chassis of its own and advertises only what that chassis hosts;
// FRR's table is checked per neighbor.

const IS_ROOT = process.getuid?.() === 0;
const FLOW_MS = 20_000;
const S2 = speakerAddress(2);

describe.skipIf(!IS_ROOT)('OVN → two of our speakers → FRR', () => {
  let lab: OvnFrrLab;

  beforeAll(async () => {
    lab = await OvnFrrLab.create({ id: 'two', speakers: 2 });
  }, 90_000);

  afterEach(async () => {
    await lab?.stopSpeakers();
  });

  afterAll(async () => {
    await lab?.destroy();
  });

  it('central mode: both advertise every route; stopping one leaves every route at FRR the whole time', async () => {
    const [s1, s2] = await Promise.all([lab.startSpeaker(1), lab.startSpeaker(2)]);
    await lab.waitRoutes(TOPOLOGY_ROUTES, 'every route from s1', { from: 1 });
    await lab.waitRoutes(TOPOLOGY_ROUTES, 'every route from s2', { from: 2 });

    const cap = await lab.capture('central');
    // FRR's paths, sampled back to back while s1 goes: every prefix must keep one via its chassis.
    const gaps: string[] = [];
    let samples = 0;
    let sampling = true;
    const sampler = (async () => {
      while (sampling) {
        const held = await lab.pathNextHops();
        samples++;
        for (const [prefix, nh] of Object.entries(TOPOLOGY_ROUTES))
          if (!held.get(prefix)?.has(nh)) gaps.push(`sample ${samples}: ${prefix}`);
      }
    })();
    await s1.stop();
    try {
      await eventually(
        async () => ((await lab.routes('ipv4', 1)).length === 0 ? true : undefined),
        's1’s routes gone',
        FLOW_MS,
      );
      await new Promise((r) => setTimeout(r, 300));
    } finally {
      sampling = false;
      await sampler;
    }
    const updates = await cap.stop();

    expect(gaps).toEqual([]);
    expect(samples).toBeGreaterThan(1);
    // s2 had nothing to change: it sent no UPDATE at all.
    expect(updates.filter((u) => u.src === S2.ipv4)).toEqual([]);
    expect(Object.fromEntries(await lab.table())).toEqual(TOPOLOGY_ROUTES);
    expect(Object.fromEntries(await lab.table(2))).toEqual(TOPOLOGY_ROUTES);
    await s2.stop();
    await lab.waitGone(Object.keys(TOPOLOGY_ROUTES), 'both speakers’ routes gone');
  });

  it('local mode: each speaker advertises only what its own chassis hosts, and a moved VM moves speakers', async () => {
    // s1 runs on hv1 and names hv1's tunnel address as its next hop; s2 on hv2 gives its own.
    await Promise.all([
      lab.startSpeaker(1, { mode: 'local', chassis: 'hv1', local_next_hop: CHASSIS.hv1 }),
      lab.startSpeaker(2, { mode: 'local', chassis: 'hv2' }),
    ]);
    const hv1 = { '198.18.64.100/32': CHASSIS.hv1.ipv4, '2001:db8:64::100/128': CHASSIS.hv1.ipv6 };
    const hv2 = { '198.18.64.50/32': S2.ipv4, '2001:db8:64::50/128': S2.ipv6 };
    await lab.waitRoutes(hv1, 'hv1’s routes from s1', { from: 1 });
    await lab.waitRoutes(hv2, 'hv2’s routes from s2', { from: 2 });
    expect(Object.fromEntries(await lab.table(1))).toEqual(hv1);
    expect(Object.fromEntries(await lab.table(2))).toEqual(hv2);
    // Nobody runs on gw1 or node-a: their routes are nobody's here.
    expect(Object.fromEntries(await lab.table())).toEqual({ ...hv1, ...hv2 });

    await lab.sbctl('lsp-unbind', 'vm1', '--', 'lsp-bind', 'vm1', 'hv2');
    const moved = { '198.18.64.100/32': S2.ipv4, '2001:db8:64::100/128': S2.ipv6 };
    await lab.waitRoutes({ ...hv2, ...moved }, 'vm1’s FIPs from s2', { from: 2 });
    await lab.waitGone(Object.keys(hv1), 'vm1’s FIPs gone from s1', { from: 1 });
    expect(Object.fromEntries(await lab.table(1))).toEqual({});
    expect(Object.fromEntries(await lab.table(2))).toEqual({ ...hv2, ...moved });
  });
});
