import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Lab } from '../../frr-interop/lab/index.js';
import type { NeighborDetail } from '../../src/api/index.js';
import { eventually, LabSpeaker } from '../speaker/lab-speaker.js';

// The reconnect back-off with GoBGP flapping the session: after GoBGP's Cease the speaker
// waits idle_hold_time (show neighbors says how long is left), and a reload to
// idle_hold_time 0 brings the session back up without waiting the rest.

const IS_ROOT = process.getuid?.() === 0;
const SPEAKER = { as: 65000, routerId: '198.18.0.1' } as const;
const UP_MS = 60_000;
/** Well under the 120 s wait: coming up within it shows the reload cut the wait short. */
const BACK_MS = 40_000;
const V4 = { transports: ['ipv4' as const] };

describe.skipIf(!IS_ROOT)('reconnect back-off with GoBGP flapping', () => {
  let lab: Lab;
  let speaker: LabSpeaker;
  const doc = (idleHold: number) => ({
    speaker: {
      name: 'interop',
      local_as: SPEAKER.as,
      router_id: SPEAKER.routerId,
      listen: { address: '::', port: 179 },
      hold_time: 9,
      connect_retry: 2,
      log: { level: 'info' },
    },
    peers: [
      {
        name: 'flappy',
        peer_ip: lab.peer('flappy').address.ipv4,
        remote_as: lab.peer('flappy').as,
        idle_hold_time: idleHold,
        import: ['reject-all'],
        export: ['reject-all'],
      },
    ],
  });
  const detail = async () => (await speaker.show<NeighborDetail[]>(['neighbors', 'flappy']))?.[0];

  beforeAll(async () => {
    lab = await Lab.create({
      id: 'pgflap',
      speaker: SPEAKER,
      peers: [{ name: 'flappy', impl: 'gobgp', as: 65001, speakerSessions: V4 }],
    });
    speaker = await LabSpeaker.start(lab, doc(120));
    await speaker.waitEstablished(['flappy'], UP_MS);
  });

  afterAll(async () => {
    await lab?.destroy();
  });

  it('waits after the peer’s Cease, says how long, and a reload to 0 ends the wait', async () => {
    const gobgp = lab.gobgp('flappy');
    const ours = lab.peer('flappy').speakerAddress.ipv4;
    await gobgp.shutdownNeighbor(ours, 'flap');
    const waiting = await eventually(
      async () => {
        const d = await detail();
        return d?.reconnectIn !== undefined ? d : undefined;
      },
      'the speaker waiting after the Cease',
      BACK_MS,
    );
    expect(waiting.idleHoldTime).toBe(120);
    expect(waiting.reconnectIn).toBeGreaterThan(0);
    expect(waiting.reconnectIn).toBeLessThanOrEqual(120);
    await gobgp.enableNeighbor(ours);

    await speaker.reload(doc(0));
    await eventually(
      async () => ((await detail())?.state === 'Established' ? true : undefined),
      'the session up again after the reload',
      BACK_MS,
    );
    expect((await detail())?.idleHoldTime).toBe(0);
  });
});
