import { networkInterfaces } from 'node:os';
import { afterEach, describe, expect, it } from 'vitest';
import { formatIpv4 } from '../../src/address/index.js';
import type { InterfaceTable } from '../../src/routing/index.js';
import type { Speaker } from '../../src/speaker/index.js';
import {
  ACCEPT_ALL,
  Probe,
  probePeer,
  SPEAKER_IP,
  speakerSection,
  startSpeaker,
  tempDir,
  until,
} from './support.js';

// A session that comes up before its interface is listed (the kernel lists a link that just
// came up only once it marks it running): its next hops are ours until the interface shows
// up, then the third-party next hop on the shared subnet (RFC 4271 5.1.3) goes out.

let cleanups: (() => Promise<void> | void)[] = [];
afterEach(async () => {
  for (const c of cleanups.reverse()) await c();
  cleanups = [];
});

async function probe(n: number, as: number) {
  const p = await Probe.start(`127.0.0.${n}`, as, `198.18.0.${10 + n}`);
  cleanups.push(() => p.close());
  return p;
}

describe('a session whose interface is listed late', () => {
  it('sends our own next hop first, then the shared-subnet next hop once the interface is listed', async () => {
    let listed = false;
    const interfaces = (): InterfaceTable => (listed ? networkInterfaces() : {});
    const a = await probe(2, 65001);
    const b = await probe(3, 65002);
    const t = tempDir();
    cleanups.push(t.cleanup);
    const s: Speaker = await startSpeaker(
      {
        speaker: speakerSection(t.dir),
        peers: [
          probePeer(a, { import: ['all'], export: ['all'] }),
          probePeer(b, { import: ['all'], export: ['all'] }),
        ],
        policies: { all: ACCEPT_ALL },
      },
      { interfaces },
    );
    cleanups.push(() => s.close());
    await until(() => a.established && b.established, 'both sessions up');
    b.announce(['198.18.200.0/24']);
    await until(() => a.table().has('198.18.200.0/24'), 'b’s route at a');
    // No interface holds 127.0.0.1 as far as the speaker can tell: the next hop is ours.
    expect(formatIpv4(a.table().get('198.18.200.0/24')!.nextHop!)).toBe(SPEAKER_IP);
    listed = true;
    await until(
      () => formatIpv4(a.table().get('198.18.200.0/24')?.nextHop ?? 0) === '127.0.0.3',
      'the third-party next hop at a',
    );
    // Sent again in place: no withdrawal in between.
    expect(
      a
        .events()
        .filter((e) => e.prefix === '198.18.200.0/24')
        .map((e) => e.kind),
    ).toEqual(['announce', 'announce']);
  });
});
