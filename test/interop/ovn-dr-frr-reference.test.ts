/**
 * Beside OVN's reference design: on chassis hv1, first FRR 10.3 configured as OVN's
 * documentation describes it, for a chassis without VRF devices (zebra `ip import-table N` and
 * `ipv6 import-table N`, bgpd `redistribute table N`, the table's metric carried as MED), then
 * our speaker in per-chassis mode: the fabric router must get the same routes, with the same
 * next hops and MEDs, from both.
 */
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { eventually } from '../speaker/lab-speaker.js';
import { chassisAddress, OvnDrLab } from './support/ovn-dr-lab.js';

const WAIT_MS = 30_000;

/** prefix -> "next hop med" of what FRR (the fabric) holds from hv1. */
async function fromHv1(lab: OvnDrLab): Promise<Map<string, string>> {
  const out = new Map<string, string>();
  for (const f of ['ipv4', 'ipv6'] as const)
    for (const r of await lab.fabric.routes(f, { from: chassisAddress(1).ipv4 }))
      out.set(r.prefix, `${r.nextHops.find((h) => !h.startsWith('fe80')) ?? ''} ${r.med ?? '-'}`);
  return out;
}

describe("OVN 25.03 route exchange: FRR 10.3 in OVN's reference design and our speaker give the fabric the same routes", () => {
  let lab: OvnDrLab;
  let table: number;
  let wanted: number;

  beforeAll(async () => {
    lab = await OvnDrLab.create({ id: 'ref', chassis: 1 });
    table = await lab.tableOf('lr0');
    // The provider network (connected on hv1) is left out by both: zebra's connected route wins.
    wanted = (await lab.advertisedPrefixes()).length - 2;
  }, 600_000);

  afterAll(async () => {
    await lab?.destroy();
  });

  const settled = () =>
    eventually(
      async () => {
        const t = await fromHv1(lab);
        return t.size === wanted ? t : undefined;
      },
      `the fabric holding ${wanted} routes from hv1`,
      WAIT_MS,
    );

  it('gives the same prefixes, next hops and MEDs', async () => {
    const a = chassisAddress(1);
    const frr = lab.frrReference(1, table, 'hv1frr', join(lab.dir, 'hv1frr'));
    let theirs: Map<string, string>;
    try {
      await frr.start();
      theirs = await settled();
    } finally {
      await frr.stop();
    }
    await eventually(
      async () => ((await fromHv1(lab)).size === 0 ? true : undefined),
      'FRR of hv1 gone',
      WAIT_MS,
    );
    const ours = await lab.startSpeaker(1, {
      ovn_route_tables: { sb: lab.sb, tables: [{ router: 'lr0' }] },
    });
    try {
      expect(await settled()).toEqual(theirs);
    } finally {
      await ours.stop();
    }
    // Both: every advertised route, from the chassis' own addresses, OVN's metric as MED.
    expect(theirs.get('198.18.171.10/32')).toBe(`${a.ipv4} 100`);
    expect(theirs.get('2001:db8:190::/64')).toBe(`${a.ipv6} 1000`);
    expect(theirs.has('198.18.171.0/24')).toBe(false);
  });
});
