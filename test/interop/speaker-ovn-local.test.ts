/*
 * Local mode without ovn.chassis: the speaker reads its chassis name from the local
 * Open_vSwitch row (external_ids:system-id), as ovn-controller registers it, keeps asking while
 * it is not set, and then advertises only what is bound to that chassis, with itself as next hop.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildTopology } from '../../frr-interop/capture/ovn-snapshot.js';
import type { Speaker } from '../../src/speaker/index.js';
import { speakerSection, startSpeaker, tempDir, until } from '../speaker/support.js';
import {
  NB_SCHEMA,
  nbctl,
  OvsdbLab,
  run,
  SB_SCHEMA,
  type ServerHandle,
  sbctl,
} from '../support/ovsdb-lab.js';

const VSWITCH_SCHEMA = '/usr/share/openvswitch/vswitch.ovsschema';
/** vm1's FIP, bound to hv1 (distributed); the others live on gw1 and hv2. */
const HV1_FIP = '198.18.64.100/32';
const GW1_FIP = '198.18.64.101/32';

let lab: OvsdbLab;
let ovs: ServerHandle;
let speaker: Speaker;
const cleanups: (() => unknown)[] = [];

const vsctl = (...args: string[]) => run('ovs-vsctl', [`--db=${ovs.unix}`, '--no-wait', ...args]);
const prefixes = () => {
  speaker.flush();
  return speaker
    .rib({})
    .filter((e) => e.paths.some((p) => p.from === 'ovn'))
    .map((e) => e.prefix);
};

beforeAll(async () => {
  lab = OvsdbLab.create('speaker-ovn-local-');
  cleanups.push(() => lab.close());
  const nb = await lab.startServer('nb', await lab.createDb('nb', NB_SCHEMA));
  const sb = await lab.startServer('sb', await lab.createDb('sb', SB_SCHEMA));
  ovs = await lab.startServer('ovs', await lab.createDb('ovs', VSWITCH_SCHEMA));
  await nbctl(nb.unix, 'init');
  await sbctl(sb.unix, 'init');
  await vsctl('init');
  await lab.startNorthd(nb.unix, sb.unix);
  await buildTopology(nb.unix, sb.unix);
  const t = tempDir();
  cleanups.push(t.cleanup);
  speaker = await startSpeaker({
    speaker: speakerSection(t.dir),
    ovn: { nb: nb.unix, sb: sb.unix, ovs: ovs.unix, mode: 'local', coalesce_ms: 10 },
  });
  cleanups.push(() => speaker.close());
}, 60_000);

afterAll(async () => {
  for (const c of cleanups.reverse()) await c();
});

describe('the speaker in local mode, its chassis from the local Open_vSwitch row', () => {
  it('says it is waiting for the chassis name while system-id is not set, and advertises nothing', async () => {
    await until(() => /system-id/.test(speaker.ovn()?.mode ?? ''), 'the missing system-id reported', 10_000);
    expect(speaker.ovn()?.mode).toMatch(/^local \(reading our chassis name from unix:.*ovs\.sock/);
    expect(prefixes()).toEqual([]);
  });

  it('once ovn-controller would have set system-id, advertises only what hv1 hosts, next hop self', async () => {
    await vsctl('set', 'Open_vSwitch', '.', 'external_ids:system-id=hv1');
    await until(() => prefixes().includes(HV1_FIP), `${HV1_FIP} from the ovn origin`, 15_000);
    expect(prefixes()).not.toContain(GW1_FIP);
    const route = speaker.ovn()!.routes.find((r) => r.prefix === HV1_FIP)!;
    expect(route).toMatchObject({ kind: 'floating-ip', nextHop: 'self' });
    expect(route.why).toMatch(/local chassis hv1/);
    for (const r of speaker.ovn()!.routes) expect(r.why).toMatch(/hv1/);
  });
});
