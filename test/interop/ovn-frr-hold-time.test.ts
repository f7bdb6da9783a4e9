import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { eventually, OvnFrrLab, type SpeakerProcess, TOPOLOGY_ROUTES } from './support/ovn-frr-lab.js';

// ovn.hold_time (docs/ovn.md): when OVN's databases stay away longer than the hold time, the
// speaker withdraws every OVN route (they may no longer be true), and announces them again
// once OVN is back. A real ovsdb-server is stopped under a speaker advertising to FRR.

const IS_ROOT = process.getuid?.() === 0;
const HOLD_S = 3;
const FLOW_MS = 30_000;

describe.skipIf(!IS_ROOT)('OVN → our speaker → FRR: OVN away past ovn.hold_time', () => {
  let lab: OvnFrrLab;
  let speaker: SpeakerProcess;

  beforeAll(async () => {
    lab = await OvnFrrLab.create({ id: 'ht' });
    speaker = await lab.startSpeaker(1, { hold_time: HOLD_S });
    await lab.waitRoutes(TOPOLOGY_ROUTES, 'the topology’s routes at FRR');
  }, 90_000);

  afterAll(async () => {
    await lab?.destroy();
  });

  it('held through the hold time, withdrawn at FRR after it, announced again when OVN is back', async () => {
    const nb = lab.nbServer!;
    const mark = speaker.logMark();
    const stoppedAt = performance.now();
    await lab.ovsdb.stop(nb);
    await eventually(
      async () => ((await speaker.ovn())?.mode.includes('holding') ? true : undefined),
      'the speaker holding its OVN routes',
      FLOW_MS,
    );
    // Holding: FRR still has every route.
    expect(Object.fromEntries(await lab.table())).toEqual(TOPOLOGY_ROUTES);

    await eventually(
      async () => ((await lab.table()).size === 0 ? true : undefined),
      'every OVN route withdrawn at FRR',
      FLOW_MS,
    );
    // Not before the hold time: the timer started once the loss was seen, after stoppedAt.
    expect(performance.now() - stoppedAt).toBeGreaterThanOrEqual(HOLD_S * 1000);
    expect((await speaker.ovn())?.mode).toContain('down');
    const over = speaker.logLines(mark).find((l) => l.msg === 'ovn: hold time over, routes withdrawn');
    expect(over).toMatchObject({ routes: Object.keys(TOPOLOGY_ROUTES).length });
    const held = speaker.logLines(mark).find((l) => l.msg === 'ovn: database lost, holding routes');
    expect(held).toMatchObject({ holdMs: HOLD_S * 1000 });
    // The session to FRR is untouched: only OVN's routes went.
    expect((await speaker.summary()).neighbors.map((n) => n.state)).toEqual(['Established']);

    await lab.ovsdb.restart(nb);
    await lab.waitRoutes(TOPOLOGY_ROUTES, 'the routes at FRR again once OVN is back');
    expect(await speaker.ovnSynced()).toBe(true);
  });
});
