import { afterEach, describe, expect, it } from 'vitest';
import { CeaseSubcode, ErrorCode } from '../../src/bgp/wire/constants.js';
import type { Speaker } from '../../src/speaker/index.js';
import {
  ACCEPT_ALL,
  Probe,
  probePeer,
  SPEAKER_AS,
  speakerSection,
  startSpeaker,
  tempDir,
  until,
} from './support.js';

// Import and export policy, RFC 8212 and max-prefix, seen from the peers' side of real sessions.

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

async function speaker(doc: Record<string, unknown>): Promise<Speaker> {
  const t = tempDir();
  cleanups.push(t.cleanup);
  const s = await startSpeaker({
    ...doc,
    speaker: speakerSection(t.dir, doc.speaker as Record<string, unknown> | undefined),
  });
  cleanups.push(() => s.close());
  return s;
}

const community = (a: number, b: number) => ((a << 16) | b) >>> 0;

describe('policy', () => {
  it('an import prefix list drops one prefix; an export policy sets a community the peer sees', async () => {
    const a = await probe(2, 65001);
    const b = await probe(3, 65002);
    const s = await speaker({
      peers: [probePeer(a, { import: ['from-a'], export: ['all'] }), probePeer(b, { export: ['to-b'] })],
      prefix_lists: { dropped: [{ action: 'permit', prefix: '198.18.70.0/24' }] },
      policies: {
        'from-a': {
          statements: [{ match: { prefix_list: 'dropped' }, action: 'reject' }, { action: 'accept' }],
        },
        'to-b': { statements: [{ set: { communities: { add: ['65000:777'] } }, action: 'accept' }] },
        all: ACCEPT_ALL,
      },
    });
    await until(() => a.established && b.established, 'sessions up');
    a.announce(['198.18.70.0/24', '198.18.71.0/24', '198.18.72.0/24']);
    await until(() => b.table().has('198.18.72.0/24'), 'accepted routes at b');
    expect(s.rib({ afi: 4 }).map((e) => e.prefix)).toEqual(['198.18.71.0/24', '198.18.72.0/24']);
    // What a sent, before policy, still shows.
    expect(s.received('p2', { afi: 4 }).map((e) => e.prefix)).toEqual([
      '198.18.70.0/24',
      '198.18.71.0/24',
      '198.18.72.0/24',
    ]);
    expect(s.summary().neighbors[0]!.prefixes['ipv4-unicast']).toMatchObject({ received: 3, accepted: 2 });
    // The rejected route is marked so, never as a valid best path; the accepted ones agree with summary.
    const verdicts = s.received('p2', { afi: 4 }).map((e) => [e.paths[0]!.verdict, e.paths[0]!.best]);
    expect(verdicts).toEqual([
      ['policy-rejected', false],
      ['accepted', true],
      ['accepted', true],
    ]);
    expect([...b.table().keys()].sort()).toEqual(['198.18.71.0/24', '198.18.72.0/24']);
    expect(b.table().get('198.18.71.0/24')!.communities).toEqual([community(65000, 777)]);
    expect(s.advertised('p3', { prefix: '198.18.71.0/24' })[0]!.paths[0]!.communities).toEqual(['65000:777']);
  });

  it('RFC 8212: an eBGP peer without policy gets nothing and gives nothing', async () => {
    const a = await probe(2, 65001);
    const b = await probe(3, 65002);
    const s = await speaker({
      peers: [probePeer(a, { import: ['all'], export: ['all'] }), probePeer(b)],
      routes: [{ prefix: '198.18.80.0/24' }],
      policies: { all: ACCEPT_ALL },
    });
    await until(() => a.established && b.established, 'sessions up');
    b.announce(['198.18.81.0/24']);
    a.announce(['198.18.82.0/24']);
    await until(() => s.rib({ prefix: '198.18.82.0/24' }).length === 1, 'a’s route');
    await until(() => b.rec.endOfRib.length === 2, 'End-of-RIB at b');
    await until(() => s.received('p3', {}).length === 1, 'b’s route received');
    expect(s.rib({ prefix: '198.18.81.0/24' })).toEqual([]);
    expect(a.table().has('198.18.80.0/24')).toBe(true);
    expect(b.events()).toEqual([]);
    expect(s.advertised('p3', {})).toEqual([]);
  });

  it('max-prefix: over the limit the session is closed with Cease/1 and comes back after restart_after', async () => {
    const a = await probe(2, 65001);
    const s = await speaker({
      peers: [probePeer(a, { import: ['all'], max_prefixes: { limit: 2, restart_after: 1 } })],
      policies: { all: ACCEPT_ALL },
    });
    await until(() => a.established, 'session up');
    a.announce(['198.18.90.0/24', '198.18.91.0/24']);
    await until(() => s.rib({ afi: 4 }).length === 2, 'two routes within the limit');
    expect(a.rec.notifications).toEqual([]);
    a.announce(['198.18.92.0/24']);
    await until(() => a.rec.notifications.length === 1, 'the NOTIFICATION');
    expect(a.rec.notifications[0]).toMatchObject({
      direction: 'received',
      code: ErrorCode.CEASE,
      subcode: CeaseSubcode.MAXIMUM_NUMBER_OF_PREFIXES_REACHED,
    });
    // RFC 4486 section 4: AFI 1, SAFI 1, the upper bound 2.
    expect(Array.from(a.rec.notifications[0]!.data)).toEqual([0, 1, 1, 0, 0, 0, 2]);
    await until(() => s.rib({ afi: 4 }).length === 0, 'its routes withdrawn');
    const [n] = s.neighbors('p2');
    expect(n!.lastNotification).toMatchObject({ direction: 'sent', code: 6, subcode: 1 });
    expect(n!.adminDown).toBe(false);
    // restart_after: 1 s later the speaker connects again.
    await until(() => a.rec.established.length === 2, 'the session again', 10_000);
    // Our side counts the transition when its own FSM gets there, which may be a moment later.
    await until(() => s.neighbors('p2')[0]!.establishedTransitions === 2, 'our second Established', 10_000);
  });

  it('iBGP without policy accepts everything and advertises to eBGP with our AS prepended', async () => {
    const ibgp = await probe(2, SPEAKER_AS);
    const ebgp = await probe(3, 65003);
    const s = await speaker({
      peers: [probePeer(ibgp), probePeer(ebgp, { export: ['all'] })],
      policies: { all: ACCEPT_ALL },
    });
    await until(() => ibgp.established && ebgp.established, 'sessions up');
    ibgp.announce(['198.18.95.0/24'], { asPath: [65050] });
    await until(() => ebgp.table().has('198.18.95.0/24'), 'the route at the eBGP peer');
    expect(ebgp.table().get('198.18.95.0/24')!.asPath![0]!.asns).toEqual([SPEAKER_AS, 65050]);
    expect(s.rib({ prefix: '198.18.95.0/24' })[0]!.paths[0]).toMatchObject({ from: 'p2', localPref: 100 });
  });
});
