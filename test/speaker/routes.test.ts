import { afterEach, describe, expect, it } from 'vitest';
import { formatIpv4 } from '../../src/address/index.js';
import { Afi, AsPathSegmentType } from '../../src/bgp/wire/constants.js';
import type { Speaker } from '../../src/speaker/index.js';
import {
  ACCEPT_ALL,
  Probe,
  probePeer,
  SPEAKER_AS,
  SPEAKER_IP,
  speakerSection,
  startSpeaker,
  tempDir,
  until,
} from './support.js';

// The speaker against bare sessions on loopback: routes both ways, next hops, End-of-RIB,
// withdrawals, the best path and why, split horizon and loop detection.

let cleanups: (() => Promise<void> | void)[] = [];
afterEach(async () => {
  for (const c of cleanups.reverse()) await c();
  cleanups = [];
});

async function probe(n: number, as: number, routerId = `198.18.0.${10 + n}`) {
  const p = await Probe.start(`127.0.0.${n}`, as, routerId);
  cleanups.push(() => p.close());
  return p;
}

async function speaker(doc: Record<string, unknown>): Promise<Speaker> {
  const s = await startSpeaker(doc);
  cleanups.push(() => s.close());
  return s;
}

function workdir(): string {
  const t = tempDir();
  cleanups.push(t.cleanup);
  return t.dir;
}

const policies = { policies: { all: ACCEPT_ALL } };

describe('routes between the speaker and its peers', () => {
  it('sends static routes with our AS and next hop self, then End-of-RIB; learns the peers’ routes', async () => {
    const a = await probe(2, 65001);
    const b = await probe(3, 65002);
    const s = await speaker({
      speaker: speakerSection(workdir()),
      peers: [
        probePeer(a, { import: ['all'], export: ['all'] }),
        probePeer(b, { import: ['all'], export: ['all'] }),
      ],
      routes: [{ prefix: '198.18.100.0/24', communities: ['65000:100'], med: 5 }],
      networks: ['2001:db8:100::/48'],
      ...policies,
    });
    await until(() => a.established && b.established, 'both sessions up');
    await until(() => a.rec.endOfRib.length === 2, 'End-of-RIB for both families at a');
    const t = a.table();
    expect([...t.keys()].sort()).toEqual(['198.18.100.0/24', '2001:db8:100::/48']);
    const v4 = t.get('198.18.100.0/24')!;
    expect(v4.asPath).toEqual([{ type: AsPathSegmentType.AS_SEQUENCE, asns: [SPEAKER_AS] }]);
    expect(formatIpv4(v4.nextHop!)).toBe(SPEAKER_IP);
    expect(v4.communities).toEqual([((65000 << 16) | 100) >>> 0]);
    expect(v4.med).toBe(5);
    expect(v4.localPref).toBeUndefined();
    // The IPv6 route over an IPv4 session: the interface's IPv6 address as next hop.
    const v6 = t.get('2001:db8:100::/48')!;
    expect(v6.mpReach?.afi).toBe(Afi.IPV6);
    expect(Buffer.from(v6.mpReach!.nextHop).toString('hex')).toBe(`${'0'.repeat(31)}1`);
    // Both End-of-RIBs after the initial routes.
    expect(Math.min(...a.rec.endOfRibAt)).toBe(a.rec.updates.length);

    b.announce(['198.18.200.0/24', '198.18.201.0/24']);
    await until(() => a.table().has('198.18.201.0/24'), 'b’s routes at a');
    const fromB = a.table().get('198.18.200.0/24')!;
    expect(fromB.asPath).toEqual([{ type: AsPathSegmentType.AS_SEQUENCE, asns: [SPEAKER_AS, 65002] }]);
    // b's next hop shares a subnet with a (all of 127.0.0.0/8 is on lo): RFC 4271 5.1.3 keeps it.
    expect(formatIpv4(fromB.nextHop!)).toBe('127.0.0.3');
    // A next hop a cannot reach directly (2001:db8:ffff::1 is on no interface) becomes ours.
    b.announce(['2001:db8:200::/48']);
    await until(() => a.table().has('2001:db8:200::/48'), 'b’s IPv6 route at a');
    expect(Buffer.from(a.table().get('2001:db8:200::/48')!.mpReach!.nextHop).toString('hex')).toBe(
      `${'0'.repeat(31)}1`,
    );
    // Never back to the peer it came from.
    expect(b.table().has('198.18.200.0/24')).toBe(false);

    const rib = s.rib({ prefix: '198.18.200.0/24' });
    expect(rib).toEqual([
      {
        prefix: '198.18.200.0/24',
        paths: [
          {
            from: 'p3',
            nextHop: '127.0.0.3',
            asPath: '65002',
            origin: 'igp',
            communities: [],
            largeCommunities: [],
            extendedCommunities: [],
            best: true,
            multipath: true,
            reason: 'First path received',
          },
        ],
      },
    ]);
    expect(s.summary().rib).toEqual({ 'ipv4-unicast': 3, 'ipv6-unicast': 2 });
    const nb = s.summary().neighbors.find((n) => n.name === 'p3')!;
    expect(nb.state).toBe('Established');
    expect(nb.prefixes['ipv4-unicast']).toEqual({ received: 2, accepted: 2, advertised: 1 });

    b.withdraw(['198.18.200.0/24']);
    await until(() => !a.table().has('198.18.200.0/24'), 'the withdrawal at a');
    expect(s.rib({ prefix: '198.18.200.0/24' })).toEqual([]);
    expect(a.table().has('198.18.201.0/24')).toBe(true);
  });

  it('picks the shorter AS path and says so; an address finds its longest prefix', async () => {
    const a = await probe(2, 65001);
    const b = await probe(3, 65002);
    const s = await speaker({
      speaker: speakerSection(workdir()),
      peers: [probePeer(a, { import: ['all'] }), probePeer(b, { import: ['all'] })],
      ...policies,
    });
    await until(() => a.established && b.established, 'both sessions up');
    a.announce(['198.18.50.0/24'], { asPath: [65001, 65010] });
    b.announce(['198.18.50.0/24']);
    b.announce(['198.18.50.128/25'], { asPath: [65002, 65011, 65012] });
    await until(() => s.rib({ prefix: '198.18.50.0/24' })[0]?.paths.length === 2, 'two paths');
    await until(() => s.rib({ prefix: '198.18.50.128/25' }).length === 1, 'the /25');
    const [entry] = s.rib({ prefix: '198.18.50.0/24' });
    const best = entry!.paths.find((p) => p.best)!;
    expect(best).toMatchObject({ from: 'p3', asPath: '65002', reason: 'AS Path' });
    expect(entry!.paths.filter((p) => !p.best).map((p) => p.from)).toEqual(['p2']);
    expect(s.rib({ prefix: '198.18.50.7' }).map((e) => e.prefix)).toEqual(['198.18.50.0/24']);
    expect(s.rib({ prefix: '198.18.50.200' }).map((e) => e.prefix)).toEqual(['198.18.50.128/25']);
    expect(s.rib({ prefix: '198.18.51.1' })).toEqual([]);
    expect(s.rib({ afi: 4, limit: 1 }).map((e) => e.prefix)).toEqual(['198.18.50.0/24']);
  });

  it('drops routes that carry our own AS (RFC 4271 9.1.2)', async () => {
    const a = await probe(2, 65001);
    const s = await speaker({
      speaker: speakerSection(workdir()),
      peers: [probePeer(a, { import: ['all'] })],
      ...policies,
    });
    await until(() => a.established, 'session up');
    a.announce(['198.18.60.0/24'], { asPath: [65001, SPEAKER_AS, 65020] });
    a.announce(['198.18.61.0/24']);
    await until(() => s.rib({ prefix: '198.18.61.0/24' }).length === 1, 'the clean route');
    expect(s.rib({ prefix: '198.18.60.0/24' })).toEqual([]);
    expect(s.received('p2', {}).map((e) => e.prefix)).toEqual(['198.18.60.0/24', '198.18.61.0/24']);
    const [loop, clean] = s.received('p2', {}).map((e) => e.paths[0]!);
    expect(loop).toMatchObject({ verdict: 'as-path-loop', best: false });
    expect(clean).toMatchObject({ verdict: 'accepted', best: true });
  });
});
