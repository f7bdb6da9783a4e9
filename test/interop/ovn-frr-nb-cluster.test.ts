import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { ServerHandle } from '../support/ovsdb-lab.js';
import {
  CHASSIS,
  eventually,
  OvnFrrLab,
  type SpeakerProcess,
  TOPOLOGY_ROUTES,
} from './support/ovn-frr-lab.js';

// The NB as a 3-member RAFT cluster (the speaker, ovn-northd and ovn-nbctl all given the three
// members). The leader goes away, once stopped (it hands leadership over as it exits) and once
// killed (the others elect a new leader after the election timeout). Each time the speaker
// finds the new leader, resumes, and FRR receives nothing: no UPDATE by its counter, none on
// the wire, every route in place.

const IS_ROOT = process.getuid?.() === 0;
const NB_DATABASE = 'OVN_Northbound';
const FLOW_MS = 20_000;

describe.skipIf(!IS_ROOT)('OVN → our speaker → FRR: NB RAFT leader changes', () => {
  let lab: OvnFrrLab;
  let speaker: SpeakerProcess;

  /** The member that says it is leader now (bounded wait: an election may be under way). */
  const leader = (exclude?: ServerHandle) =>
    eventually(
      async () => {
        for (const m of lab.cluster!.members) {
          if (m === exclude) continue;
          if ((await lab.ovsdb.clusterRole(m, NB_DATABASE).catch(() => '')) === 'leader') return m;
        }
        return undefined;
      },
      'an NB leader',
      FLOW_MS,
    );

  /** Takes the leader away with `signal`; asserts FRR saw nothing; brings the member back. */
  async function leaderGoes(signal: 'SIGTERM' | 'SIGKILL', name: string): Promise<void> {
    const old = await leader();
    const before = await lab.updatesReceived(1);
    const mark = speaker.logMark();
    const cap = await lab.capture(name);

    await lab.ovsdb.stop(old, signal);
    const next = await leader(old);
    await eventually(
      () =>
        speaker.logLines(mark).some((l) => l.msg === 'ovsdb: session ended' && l.remote === old.unix)
          ? true
          : undefined,
      'the speaker losing the old leader',
      FLOW_MS,
    );
    await eventually(
      async () => ((await speaker.ovnSynced()) ? true : undefined),
      'the speaker synced again',
      FLOW_MS,
    );
    expect(next).not.toBe(old);
    // Give a wrong resync time to show on the wire: the coalesce window is 10 ms.
    await new Promise((r) => setTimeout(r, 500));

    const updates = await cap.stop();
    expect(updates).toEqual([]);
    expect(await lab.updatesReceived(1)).toBe(before);
    expect(Object.fromEntries(await lab.table())).toEqual(TOPOLOGY_ROUTES);

    await lab.ovsdb.restart(old);
    await eventually(
      async () =>
        (await lab.ovsdb.clusterRole(old, NB_DATABASE).catch(() => '')) === 'follower' ? true : undefined,
      'the old leader back as a follower',
      FLOW_MS,
    );
  }

  beforeAll(async () => {
    lab = await OvnFrrLab.create({ id: 'cl', nbCluster: true });
    speaker = await lab.startSpeaker(1);
    await lab.waitRoutes(TOPOLOGY_ROUTES, 'the topology’s routes at FRR');
  }, 90_000);

  afterAll(async () => {
    await lab?.destroy();
  });

  it('the leader stopped (leadership handed over): no route flap at FRR', async () => {
    await leaderGoes('SIGTERM', 'transfer');
  });

  it('the leader killed (a new one elected): no route flap at FRR', async () => {
    await leaderGoes('SIGKILL', 'crash');
  });

  it('with the new leader, NB changes still reach FRR', async () => {
    await lab.nbctl('lr-nat-add', 'router1', 'dnat_and_snat', '198.18.64.131', '198.19.1.31');
    await lab.waitRoutes({ '198.18.64.131/32': CHASSIS.gw1.ipv4 }, 'the new FIP via gw1 at FRR');
    await lab.nbctl('lr-nat-del', 'router1', 'dnat_and_snat', '198.18.64.131');
    await lab.waitGone(['198.18.64.131/32'], 'the FIP withdrawn at FRR');
  });
});
