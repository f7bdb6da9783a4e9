/**
 * Per-chassis mode on OVN 25.03, in FRR's seat: a speaker on each chassis reads the kernel
 * table a real ovn-controller fills for router lr0 (its datapath tunnel key, found in the
 * Southbound by the router's name), advertises it to FRR 10.3 with itself as next hop and the
 * table's metric as MED, and writes what it learns from FRR into that table, where
 * ovn-controller turns it into Learned_Route rows. The gateway port is on hv1 at first.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { ReceivedRoute } from '../../frr-interop/lab/index.js';
import { eventually } from '../speaker/lab-speaker.js';
import { chassisAddress, FABRIC, FABRIC_ROUTES, OvnDrLab } from './support/ovn-dr-lab.js';
import type { SpeakerProcess } from './support/ovn-speaker.js';

const WAIT_MS = 30_000;
const HOLD_S = 10;
const FIP = '198.18.171.10/32';

/** What FRR holds from one chassis: prefix -> "next hop med". */
async function fromChassis(lab: OvnDrLab, i: number): Promise<Map<string, string>> {
  const out = new Map<string, string>();
  const a = chassisAddress(i);
  for (const f of ['ipv4', 'ipv6'] as const)
    for (const r of await lab.fabric.routes(f, { from: a.ipv4 }))
      out.set(r.prefix, `${r.nextHops.find((h) => !h.startsWith('fe80')) ?? ''} ${r.med ?? '-'}`);
  return out;
}

/** FRR's best path for one prefix: "next hop med" or "none". */
async function best(lab: OvnDrLab, prefix: string): Promise<string> {
  const f = prefix.includes(':') ? 'ipv6' : 'ipv4';
  const r: ReceivedRoute | undefined = (await lab.fabric.routes(f)).find(
    (x) => x.prefix === prefix && x.best,
  );
  return r ? `${r.nextHops.find((h) => !h.startsWith('fe80'))} ${r.med ?? '-'}` : 'none';
}

/** Polls FRR's best path for `prefix` until `done` says so, recording every answer seen. */
async function watchBest(lab: OvnDrLab, prefix: string, done: (now: string) => boolean): Promise<string[]> {
  const seen: string[] = [];
  await eventually(
    async () => {
      const now = await best(lab, prefix);
      if (seen.at(-1) !== now) seen.push(now);
      return done(now) ? true : undefined;
    },
    `FRR's best path for ${prefix}`,
    WAIT_MS,
    50,
  );
  return seen;
}

describe('per-chassis mode: OVN 25.03 route tables advertised to FRR 10.3, learned routes into OVN', () => {
  let lab: OvnDrLab;
  let table: number;
  const speakers: SpeakerProcess[] = [];

  beforeAll(async () => {
    lab = await OvnDrLab.create({ id: 'ch', chassis: 2 });
    table = await lab.tableOf('lr0');
    const sections = {
      ovn_route_tables: { sb: lab.sb, tables: [{ router: 'lr0', learn: ['all'] }], hold_time: HOLD_S },
    };
    speakers.push(await lab.startSpeaker(1, sections), await lab.startSpeaker(2, sections));
  }, 600_000);

  afterAll(async () => {
    for (const s of speakers) await s.stop();
    await lab?.destroy();
  });

  it('FRR holds exactly the table of the gateway chassis, next hop that chassis, the metric as MED', async () => {
    const hv1 = chassisAddress(1);
    const want = new Map<string, string>();
    for (const p of await lab.advertisedPrefixes()) {
      // The provider network is connected on the chassis: not advertised (as FRR would not).
      if (p === '198.18.171.0/24' || p === '2001:db8:171::/64') continue;
      const v6 = p.includes(':');
      const prefix = p.includes('/') ? p : `${p}/${v6 ? 128 : 32}`;
      // NAT and LB addresses track the gateway port, bound on hv1: 100; networks and static routes 1000.
      want.set(prefix, `${v6 ? hv1.ipv6 : hv1.ipv4} ${p.includes('/') ? 1000 : 100}`);
    }
    expect(want.size).toBe(8);
    const got = await eventually(
      async () => {
        const t = await fromChassis(lab, 1);
        return t.size === want.size && [...want].every(([p, v]) => t.get(p) === v) ? t : undefined;
      },
      'FRR holding hv1 table',
      WAIT_MS,
    );
    expect(got).toEqual(want);
    // hv2 holds no gateway port of lr0: ovn-controller keeps no table there, nothing comes from it.
    expect(await fromChassis(lab, 2)).toEqual(new Map());
    const view = await speakers[0]!.ovn();
    expect(view?.tables?.[0]).toMatchObject({ name: 'lr0', table });
    expect(view?.tables?.[0]?.routes).toHaveLength(10);
  });

  it('a NAT, a load balancer and a static route added in NB arrive at FRR, and leave when removed', async () => {
    const hv1 = chassisAddress(1).ipv4;
    await lab.nbctl('lr-nat-add', 'lr0', 'dnat_and_snat', '198.18.171.30', '198.19.71.30');
    await lab.nbctl('lb-add', 'lb30', '198.18.171.40', '198.19.71.10', '--', 'lr-lb-add', 'lr0', 'lb30');
    await lab.nbctl('lr-route-add', 'lr0', '198.18.191.0/24', '198.19.71.10');
    const added = {
      '198.18.171.30/32': `${hv1} 100`,
      '198.18.171.40/32': `${hv1} 100`,
      '198.18.191.0/24': `${hv1} 1000`,
    };
    await eventually(
      async () => {
        const t = await fromChassis(lab, 1);
        return Object.entries(added).every(([p, v]) => t.get(p) === v) ? true : undefined;
      },
      'the NAT, LB and static route at FRR',
      WAIT_MS,
    );
    await lab.nbctl('lr-nat-del', 'lr0', 'dnat_and_snat', '198.18.171.30');
    await lab.nbctl('lr-lb-del', 'lr0', 'lb30', '--', 'lb-del', 'lb30');
    await lab.nbctl('lr-route-del', 'lr0', '198.18.191.0/24');
    await eventually(
      async () => {
        const t = await fromChassis(lab, 1);
        return Object.keys(added).some((p) => t.has(p)) ? undefined : true;
      },
      'the NAT, LB and static route gone from FRR',
      WAIT_MS,
    );
    // The rest of the table stayed.
    expect((await fromChassis(lab, 1)).size).toBe(8);
  });

  it('a route FRR announces becomes a Learned_Route row, and leaves when FRR withdraws it', async () => {
    const learned = async () => (await lab.learnedRoutes()).filter((r) => r.prefix === FABRIC_ROUTES.ipv4);
    const rows = await eventually(
      async () => ((await learned()).length > 0 ? learned() : undefined),
      'Learned_Route row',
      WAIT_MS,
    );
    expect(rows).toEqual([{ prefix: FABRIC_ROUTES.ipv4, nextHop: FABRIC.ipv4 }]);
    // In the router's table as a route of ours, which ovn-controller learned from.
    expect((await lab.tableRoutes(1, table)).find((l) => l.startsWith(FABRIC_ROUTES.ipv4))).toMatch(
      new RegExp(`via ${FABRIC.ipv4.replaceAll('.', '\\.')} dev eth0 proto bgp metric 20`),
    );
    await eventually(
      async () =>
        (await lab.learnedRoutes()).some((r) => r.prefix === FABRIC_ROUTES.ipv6) ? true : undefined,
      'Learned_Route row of the IPv6 route',
      WAIT_MS,
    );
    await lab.fabric.withdraw([FABRIC_ROUTES.ipv4, FABRIC_ROUTES.ipv6]);
    await eventually(
      async () =>
        (await lab.learnedRoutes()).some(
          (r) => r.prefix === FABRIC_ROUTES.ipv4 || r.prefix === FABRIC_ROUTES.ipv6,
        )
          ? undefined
          : true,
      'Learned_Route rows gone',
      WAIT_MS,
    );
    await lab.fabric.announce([FABRIC_ROUTES.ipv4, FABRIC_ROUTES.ipv6]);
  });

  it('ovn-controller stopped and started again: its table empties and fills again, FRR never loses a route', async () => {
    const hv1 = chassisAddress(1).ipv4;
    await eventually(
      async () => ((await best(lab, FIP)) === `${hv1} 100` ? true : undefined),
      'FIP at FRR',
      WAIT_MS,
    );
    await lab.stopController(1);
    // Its routes go with it (`exit` cleans its tables) and come back when it is back.
    await eventually(
      async () => ((await lab.tableRoutes(1, table)).some((l) => l.includes('proto 84')) ? undefined : true),
      'hv1 table emptied',
      WAIT_MS,
    );
    const during = await best(lab, FIP);
    await lab.startController(1);
    const seen = await watchBest(lab, FIP, (now) => now === `${hv1} 100`);
    expect([during, ...seen].filter((s) => s === 'none')).toEqual([]);
    expect(during).toBe(`${hv1} 4294967295`);
  });

  it('the gateway port moved to hv2: the preferred path moves to hv2 with no withdrawal in between', async () => {
    const hv1 = chassisAddress(1).ipv4;
    const hv2 = chassisAddress(2).ipv4;
    expect(await best(lab, FIP)).toBe(`${hv1} 100`);
    // Watched from the move on: FRR has a path for the FIP at every look.
    const watching = watchBest(lab, FIP, (now) => now === `${hv2} 100`);
    await lab.nbctl(
      'lrp-del-gateway-chassis',
      'lr0-ext',
      'hv1',
      '--',
      'lrp-set-gateway-chassis',
      'lr0-ext',
      'hv2',
      '20',
    );
    const seen = await watching;
    expect(seen.filter((s) => s === 'none')).toEqual([]);
    // hv1 still hosts vm1, so lr0 stays local there: ovn-controller keeps its table, the
    // routes tracking the gateway port now at 1000. Both chassis advertise; hv2 is preferred.
    await eventually(
      async () => ((await fromChassis(lab, 1)).get(FIP) === `${hv1} 1000` ? true : undefined),
      'hv1 FIP at metric 1000',
      WAIT_MS,
    );
    expect((await fromChassis(lab, 2)).get(FIP)).toBe(`${hv2} 100`);
    expect((await fromChassis(lab, 2)).size).toBe(8);
    expect((await fromChassis(lab, 2)).get('2001:db8:171::10/128')).toBe(`${chassisAddress(2).ipv6} 100`);
  }, 120_000);
});
