import { afterEach, describe, expect, it } from 'vitest';
import { Afi, RouteRefreshSubtype } from '../../src/bgp/wire/constants.js';
import { capabilitiesOf } from '../../src/bgp/wire/open.js';
import { ACCEPT_ALL, Probe, probePeer, speakerSection, startSpeaker, tempDir, until } from './support.js';

// peers[].enhanced_route_refresh: the RFC 7313 capability is in our OPEN only when configured,
// and agreed only when the peer offers it too.

let cleanups: (() => Promise<void> | void)[] = [];
afterEach(async () => {
  for (const c of cleanups.reverse()) await c();
  cleanups = [];
});

async function session(probeOffers: boolean, extra: Record<string, unknown>) {
  const a = await Probe.start('127.0.0.2', 65001, '198.18.0.12', { enhancedRouteRefresh: probeOffers });
  cleanups.push(() => a.close());
  const t = tempDir();
  cleanups.push(t.cleanup);
  const speaker = await startSpeaker({
    speaker: speakerSection(t.dir),
    peers: [probePeer(a, { import: ['all'], export: ['all'], ...extra })],
    policies: { all: ACCEPT_ALL },
    routes: [{ prefix: '198.18.60.0/24' }],
  });
  cleanups.push(() => speaker.close());
  await until(() => a.established && speaker.neighbors('p2')[0]?.state === 'Established', 'the session up');
  return { a, speaker };
}

const offered = (a: Probe) =>
  capabilitiesOf(a.rec.established[0].remoteOpen).some((c) => c.name === 'enhanced-route-refresh');

describe('enhanced_route_refresh', () => {
  it('is off by default: not in our OPEN, not agreed', async () => {
    const { a, speaker } = await session(true, {});
    expect(offered(a)).toBe(false);
    expect(a.rec.established[0].negotiated.enhancedRouteRefresh).toBe(false);
    expect(speaker.neighbors('p2')[0]!.capabilities).not.toContain('enhanced-route-refresh');
  });

  it('true: offered in our OPEN and agreed with a peer that offers it, shown by show neighbors', async () => {
    const { a, speaker } = await session(true, { enhanced_route_refresh: true });
    expect(offered(a)).toBe(true);
    expect(a.rec.established[0].negotiated.enhancedRouteRefresh).toBe(true);
    expect(speaker.neighbors('p2')[0]!.capabilities).toContain('enhanced-route-refresh');
  });

  it('agreed: the answer to a refresh comes between a BoRR and an EoRR (RFC 7313 section 4)', async () => {
    const { a } = await session(true, { enhanced_route_refresh: true });
    await until(() => a.table().has('198.18.60.0/24'), 'the route at the peer');
    const order: string[] = [];
    a.peer.on('route-refresh', (m) => order.push(`refresh ${m.subtype}`));
    a.peer.on('update', (u) => {
      if (u.nlri.count > 0) order.push('routes');
    });
    a.peer.refresh(Afi.IPV4);
    await until(() => order.includes(`refresh ${RouteRefreshSubtype.EORR}`), 'the EoRR');
    expect(order).toEqual([
      `refresh ${RouteRefreshSubtype.BORR}`,
      'routes',
      `refresh ${RouteRefreshSubtype.EORR}`,
    ]);
  });

  it('not agreed: a refresh is answered with the routes alone', async () => {
    const { a } = await session(false, { enhanced_route_refresh: true });
    await until(() => a.table().has('198.18.60.0/24'), 'the route at the peer');
    const before = a.rec.updates.length;
    a.peer.refresh(Afi.IPV4);
    await until(() => a.rec.updates.length > before, 'the routes again');
    expect(a.rec.refreshes).toEqual([]);
  });
});
