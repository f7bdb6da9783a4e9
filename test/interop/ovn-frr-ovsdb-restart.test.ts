import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  CHASSIS,
  eventually,
  OvnFrrLab,
  type SpeakerProcess,
  TOPOLOGY_ROUTES,
} from './support/ovn-frr-lab.js';

// Both OVN databases go away and come back (ovsdb-server NB and SB stopped, then started
// again on the same files) while our speaker is advertising OVN's routes to FRR. The speaker
// holds its routes while OVN is gone and resyncs without a difference when it is back: FRR
// receives no UPDATE at all, by its own counter and on the captured wire.

const IS_ROOT = process.getuid?.() === 0;
const FLOW_MS = 20_000;

describe.skipIf(!IS_ROOT)('OVN → our speaker → FRR: ovsdb-server restarts', () => {
  let lab: OvnFrrLab;
  let speaker: SpeakerProcess;

  beforeAll(async () => {
    lab = await OvnFrrLab.create({ id: 'rs' });
    speaker = await lab.startSpeaker(1);
    await lab.waitRoutes(TOPOLOGY_ROUTES, 'the topology’s routes at FRR');
  }, 90_000);

  afterAll(async () => {
    await lab?.destroy();
  });

  it('NB and SB restarted: routes stay at FRR through the outage and FRR receives no UPDATE', async () => {
    const nb = lab.nbServer!;
    const sb = lab.sbServer!;
    const before = await lab.updatesReceived(1);
    const mark = speaker.logMark();
    const cap = await lab.capture('restart');

    await Promise.all([lab.ovsdb.stop(nb), lab.ovsdb.stop(sb)]);
    await eventually(
      async () => ((await speaker.ovn())?.mode.includes('holding') ? true : undefined),
      'the speaker holding its OVN routes',
      FLOW_MS,
    );
    // While OVN is gone, FRR still has everything.
    expect(Object.fromEntries(await lab.table())).toEqual(TOPOLOGY_ROUTES);

    await lab.ovsdb.restart(nb);
    await lab.ovsdb.restart(sb);
    await eventually(
      async () => ((await speaker.ovnSynced()) ? true : undefined),
      'the speaker synced again',
      FLOW_MS,
    );
    const ended = speaker.logLines(mark).filter((l) => l.msg === 'ovsdb: session ended');
    expect(new Set(ended.map((l) => l.remote))).toEqual(new Set([nb.unix, sb.unix]));
    // Give a wrong resync time to show on the wire: the coalesce window is 10 ms.
    await new Promise((r) => setTimeout(r, 500));

    const updates = await cap.stop();
    expect(updates).toEqual([]);
    expect(await lab.updatesReceived(1)).toBe(before);
    expect(Object.fromEntries(await lab.table())).toEqual(TOPOLOGY_ROUTES);
  });

  it('after the restart, OVN changes flow again: a new FIP reaches FRR', async () => {
    await lab.nbctl('--wait=sb', 'sync');
    await lab.nbctl('lr-nat-add', 'router1', 'dnat_and_snat', '198.18.64.130', '198.19.1.30');
    await lab.waitRoutes({ '198.18.64.130/32': CHASSIS.gw1.ipv4 }, 'the new FIP via gw1 at FRR');
  });
});
