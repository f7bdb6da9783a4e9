/**
 * Central mode on OVN 25.03's own routes: ovn-northd fills SB Advertised_Route for router lr0
 * (options:dynamic-routing=true, every kind redistributed), our speaker in the lab's central
 * namespace (`ovn-bgp-speaker run --config`, source auto, AS 65171) reads it and peers with the
 * fabric's FRR 10.3 (AS 65001). Every assertion is on what FRR holds or on the UPDATEs captured
 * on its bridge: the advertised set exactly, IPv4 and IPv6, each with its next hop (the chassis
 * where the tracked port lives, else lr0's gateway address); a NAT, a load balancer and a static
 * route added and removed in NB arrive and leave; the gateway port moved to the other chassis
 * and dynamic routing switched off and on move next hops and sources with no withdrawal of a
 * prefix that stays.
 */
import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { eventually } from '../speaker/lab-speaker.js';
import { Capture, type CapturedUpdate, historyOf } from './support/bgp-capture.js';
import { CENTRAL, CHASSIS_AS, chassisAddress, FABRIC, OvnDrLab } from './support/ovn-dr-lab.js';
import { SpeakerProcess } from './support/ovn-speaker.js';

const IS_ROOT = process.getuid?.() === 0;
const FLOW_MS = 20_000;
const POLL_MS = 100;
const hv1 = chassisAddress(1);
const hv2 = chassisAddress(2);
const GW = { ipv4: '198.18.171.1', ipv6: '2001:db8:171::1' };

/** What OVN advertises for lr0 in the lab topology, and the next hop each must have at FRR. */
const OVN_ROUTES: Readonly<Record<string, string>> = {
  '198.18.171.0/24': GW.ipv4,
  '198.19.71.0/24': GW.ipv4,
  '198.18.171.10/32': hv1.ipv4,
  '198.18.171.20/32': hv1.ipv4,
  '198.18.190.0/24': GW.ipv4,
  '2001:db8:171::/64': GW.ipv6,
  '2001:db8:71::/64': GW.ipv6,
  '2001:db8:171::10/128': hv1.ipv6,
  '2001:db8:171::20/128': hv1.ipv6,
  '2001:db8:190::/64': GW.ipv6,
};
/** The routes that follow lr0's gateway port (tracked_port lr0-ext). */
const TRACKED = ['198.18.171.10/32', '198.18.171.20/32', '2001:db8:171::10/128', '2001:db8:171::20/128'];

describe.skipIf(!IS_ROOT)('central mode on OVN 25.03’s Advertised_Route, FRR 10.3 as the fabric', () => {
  let lab: OvnDrLab;
  let speaker: SpeakerProcess;

  /** FRR's best paths from our speaker, both families: prefix → next hop. */
  const frrTable = async (): Promise<Map<string, string>> => {
    const out = new Map<string, string>();
    for (const f of ['ipv4', 'ipv6'] as const)
      for (const r of await lab.fabric.routes(f))
        if (r.from === CENTRAL.ipv4 && r.best)
          out.set(r.prefix, r.nextHops.filter((h) => !h.startsWith('fe80'))[0] ?? '');
    return out;
  };
  const waitTable = (want: Readonly<Record<string, string>>, what: string) =>
    eventually(
      async () => {
        const t = await frrTable();
        return Object.entries(want).every(([p, nh]) => t.get(p) === nh) ? t : undefined;
      },
      what,
      FLOW_MS,
      POLL_MS,
    );
  const waitGone = (prefixes: readonly string[], what: string) =>
    eventually(
      async () => {
        const t = await frrTable();
        return prefixes.some((p) => t.has(p)) ? undefined : t;
      },
      what,
      FLOW_MS,
      POLL_MS,
    );
  /** The UPDATEs FRR receives from here on. */
  const capture = async (name: string): Promise<{ stop(): Promise<CapturedUpdate[]> }> => {
    const c = await Capture.start(lab.fabricNs, 'br0', join(lab.dir, `${name}.pcap`), (r) => lab.adopt(r));
    return { stop: async () => (await c.stop()).filter((u) => u.dst === FABRIC.ipv4) };
  };

  beforeAll(async () => {
    lab = await OvnDrLab.create({ id: 'cen', chassis: 2, central: true });
    const dir = join(lab.dir, 'speaker');
    mkdirSync(dir, { recursive: true });
    speaker = SpeakerProcess.spawn(
      {
        index: 1,
        ns: lab.centralNs,
        dir,
        address: CENTRAL,
        routerAddress: FABRIC.ipv4,
        localAs: CHASSIS_AS,
        routerAs: 65001,
        ovn: {
          nb: lab.nb,
          sb: lab.sb,
          source: 'auto',
          coalesce_ms: 10,
          // IPv4 next hops from each chassis' Encap ip; IPv6 ones configured (Encap is IPv4 here).
          chassis_next_hops: { hv1: { ipv6: hv1.ipv6 }, hv2: { ipv6: hv2.ipv6 } },
          routes: { nat: { communities: ['65171:10'] }, connected: { communities: ['65171:30'] } },
        },
      },
      (r) => lab.adopt(r),
    );
    await eventually(
      async () => {
        if (!speaker.running) throw new Error(`speaker exited: ${speaker.logTail()}`);
        const sum = await speaker.summary();
        return sum.neighbors.every((n) => n.state === 'Established') ? true : undefined;
      },
      'the speaker Established with FRR',
      FLOW_MS,
      200,
    );
    await waitTable(OVN_ROUTES, 'lr0’s advertised routes at FRR');
  }, 600_000);

  afterAll(async () => {
    await speaker?.stop();
    await lab?.destroy();
  });

  it('FRR holds exactly what OVN advertises for lr0, each via the chassis of its tracked port or lr0’s gateway address', async () => {
    expect(Object.fromEntries(await frrTable())).toEqual(OVN_ROUTES);
    const view = (await speaker.ovn())!;
    expect(view.source).toBe('auto (Advertised_Route in SB)');
    const kinds = Object.fromEntries(view.routes.map((r) => [r.prefix, r.kind]));
    expect(kinds).toEqual({
      '198.18.171.0/24': 'connected',
      '198.19.71.0/24': 'connected',
      '198.18.171.10/32': 'nat',
      '198.18.171.20/32': 'lb',
      '198.18.190.0/24': 'static',
      '2001:db8:171::/64': 'connected',
      '2001:db8:71::/64': 'connected',
      '2001:db8:171::10/128': 'nat',
      '2001:db8:171::20/128': 'lb',
      '2001:db8:190::/64': 'static',
    });
    // Each names its SB row: a real Advertised_Route uuid, the router and the port.
    const rows = (await lab.sbctl('--bare', '--columns=_uuid', 'list', 'Advertised_Route')).split(/\s+/);
    for (const r of view.routes) {
      expect(r.origin).toMatchObject({
        db: 'sb',
        table: 'Advertised_Route',
        name: expect.stringMatching(/^lr0\/lr0-(ext|t1)$/),
      });
      expect(rows).toContain(r.origin.uuid);
    }
    expect(view.routes.find((r) => r.prefix === '198.18.171.10/32')?.why).toBe(
      'chassis hv1 (tracked port lr0-ext via cr-lr0-ext), Encap ip',
    );
    // The kind's communities reach FRR.
    const nat = JSON.parse(await lab.fabric.vtysh(['show bgp ipv4 unicast 198.18.171.10/32 json'])) as {
      paths: { community?: { string: string } }[];
    };
    expect(nat.paths[0]?.community?.string).toBe('65171:10');
  });

  it('a NAT, a load balancer and a static route added in NB arrive at FRR, IPv4 and IPv6, and leave when removed', async () => {
    await lab.nbctl(
      ...['lr-nat-add', 'lr0', 'dnat_and_snat', '198.18.171.30', '198.19.71.11'],
      ...['--', 'lr-nat-add', 'lr0', 'dnat_and_snat', '2001:db8:171::30', '2001:db8:71::11'],
    );
    await lab.nbctl('lb-add', 'lb1', '198.18.171.40', '198.19.71.10');
    await lab.nbctl('lb-add', 'lb16', '[2001:db8:171::40]:80', '[2001:db8:71::10]:80', 'tcp');
    await lab.nbctl('lr-lb-add', 'lr0', 'lb1', '--', 'lr-lb-add', 'lr0', 'lb16');
    await lab.nbctl(
      ...['lr-route-add', 'lr0', '198.18.191.0/24', '198.19.71.10'],
      ...['--', 'lr-route-add', 'lr0', '2001:db8:191::/64', '2001:db8:71::10'],
    );
    const added = {
      '198.18.171.30/32': hv1.ipv4,
      '2001:db8:171::30/128': hv1.ipv6,
      '198.18.171.40/32': hv1.ipv4,
      '2001:db8:171::40/128': hv1.ipv6,
      '198.18.191.0/24': GW.ipv4,
      '2001:db8:191::/64': GW.ipv6,
    };
    const t = await waitTable(added, 'the new NAT, VIP and static route at FRR');
    expect(Object.fromEntries(t)).toEqual({ ...OVN_ROUTES, ...added });
    const kinds = new Map((await speaker.ovn())!.routes.map((r) => [r.prefix, r.kind]));
    expect(['198.18.171.30/32', '198.18.171.40/32', '198.18.191.0/24'].map((p) => kinds.get(p))).toEqual([
      'nat',
      'lb',
      'static',
    ]);

    await lab.nbctl(
      ...['lr-nat-del', 'lr0', 'dnat_and_snat', '198.18.171.30'],
      ...['--', 'lr-nat-del', 'lr0', 'dnat_and_snat', '2001:db8:171::30'],
    );
    await lab.nbctl('lb-del', 'lb1', '--', 'lb-del', 'lb16');
    await lab.nbctl(
      ...['lr-route-del', 'lr0', '198.18.191.0/24'],
      ...['--', 'lr-route-del', 'lr0', '2001:db8:191::/64'],
    );
    const after = await waitGone(Object.keys(added), 'the NAT, VIP and static route gone from FRR');
    expect(Object.fromEntries(after)).toEqual(OVN_ROUTES);
  });

  it('the gateway port moved to hv2 moves the next hop of every tracked route, with no withdrawal in between', async () => {
    const cap = await capture('gateway-move');
    await lab.nbctl(
      ...['lrp-del-gateway-chassis', 'lr0-ext', 'hv1'],
      ...['--', 'lrp-set-gateway-chassis', 'lr0-ext', 'hv2', '20'],
    );
    const onHv2 = Object.fromEntries(TRACKED.map((p) => [p, p.includes(':') ? hv2.ipv6 : hv2.ipv4]));
    let t: Map<string, string> | undefined;
    let updates: CapturedUpdate[] = [];
    try {
      t = await waitTable(onHv2, 'the tracked routes via hv2');
    } finally {
      updates = await cap.stop();
    }
    expect(Object.fromEntries(t!)).toEqual({ ...OVN_ROUTES, ...onHv2 });
    expect(updates.flatMap((u) => u.withdrawn)).toEqual([]);
    for (const p of TRACKED) {
      const h = historyOf(updates, p);
      // A replace straight to hv2, or through lr0's gateway address while the port was bound nowhere.
      expect(h.at(-1), p).toBe(`announce ${onHv2[p]}`);
      expect(
        h.every((e) => e.startsWith('announce ')),
        p,
      ).toBe(true);
    }
    // And back, for the tests after this one.
    await lab.nbctl(
      ...['lrp-del-gateway-chassis', 'lr0-ext', 'hv2'],
      ...['--', 'lrp-set-gateway-chassis', 'lr0-ext', 'hv1', '20'],
    );
    await waitTable(OVN_ROUTES, 'the tracked routes back via hv1');
  });

  it('dynamic routing switched off moves lr0 to derivation and back on to OVN’s rows: a prefix that stays is never withdrawn', async () => {
    const cap = await capture('switch-source');
    await lab.nbctl('remove', 'Logical_Router', 'lr0', 'options', 'dynamic-routing');
    // Derived: the FIP and the VIP via the gateway chassis; tenant networks are off by default,
    // and connected networks and static routes are not derived.
    const derived = {
      '198.18.171.10/32': hv1.ipv4,
      '198.18.171.20/32': hv1.ipv4,
      '2001:db8:171::10/128': hv1.ipv6,
      '2001:db8:171::20/128': hv1.ipv6,
    };
    const off = await eventually(
      async () => {
        const v = await speaker.ovn();
        const t = await frrTable();
        return t.size === 4 && v?.routes.every((r) => r.origin.db === 'nb') ? t : undefined;
      },
      'lr0 derived, OVN’s own routes gone',
      FLOW_MS,
      POLL_MS,
    );
    expect(Object.fromEntries(off)).toEqual(derived);
    const kinds = new Set((await speaker.ovn())!.routes.map((r) => r.kind));
    expect(kinds).toEqual(new Set(['floating-ip', 'lb-vip']));

    await lab.nbctl('set', 'Logical_Router', 'lr0', 'options:dynamic-routing=true');
    await eventually(
      async () => {
        const v = await speaker.ovn();
        return v?.routes.length === 10 && v.routes.every((r) => r.origin.db === 'sb') ? true : undefined;
      },
      'lr0 on OVN’s rows again',
      FLOW_MS,
      POLL_MS,
    );
    await waitTable(OVN_ROUTES, 'OVN’s routes back at FRR');
    const updates = await cap.stop();
    for (const p of TRACKED) expect(historyOf(updates, p), p).not.toContain('withdraw');
    // What only OVN advertises left while lr0 was derived, and came back.
    expect(historyOf(updates, '198.18.190.0/24')).toEqual(['withdraw', `announce ${GW.ipv4}`]);
    expect(Object.fromEntries(await frrTable())).toEqual(OVN_ROUTES);
  });
});
