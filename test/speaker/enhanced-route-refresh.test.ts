import { afterEach, describe, expect, it } from 'vitest';
import { Afi, RouteRefreshSubtype } from '../../src/bgp/wire/constants.js';
import { capabilitiesOf } from '../../src/bgp/wire/open.js';
import { ACCEPT_ALL, Probe, probePeer, speakerSection, startSpeaker, tempDir, until } from './support.js';

// peers[].enhanced_route_refresh: the RFC 7313 capability is in our OPEN only when configured,
// and agreed only when the peer offers it too. Agreed, our answer to a refresh is framed by
// BoRR/EoRR, and the peer's own refresh is: what it does not send again between its BoRR and
// its EoRR goes, and nothing else moves at our other peers.

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

const R = ['198.18.70.0/24', '198.18.71.0/24', '198.18.72.0/24'] as const;
const SETTLE_MS = 300;

/**
 * Probe a (127.0.0.2) sends routes with enhanced route refresh agreed, probe b (127.0.0.3)
 * only listens: what b is told is what our other peers see of a's refreshes.
 */
/** `gracefulRestart`: a advertises graceful restart. */
async function twoProbes(opts: { staleRoutesTime?: number; gracefulRestart?: boolean } = {}) {
  const gr = opts.gracefulRestart ?? false;
  const a = await Probe.start(
    '127.0.0.2',
    65001,
    '198.18.0.12',
    { enhancedRouteRefresh: true },
    gr ? { gracefulRestart: () => ({ restartTime: 90, restarting: false, forwarding: new Set() }) } : {},
  );
  cleanups.push(() => a.close());
  const b = await Probe.start('127.0.0.3', 65002, '198.18.0.13');
  cleanups.push(() => b.close());
  const t = tempDir();
  cleanups.push(t.cleanup);
  const speaker = await startSpeaker({
    speaker: speakerSection(t.dir, {
      // Ours stays off (our own restart would hold every UPDATE until the peers' End-of-RIBs).
      graceful_restart: { enabled: false, stale_routes_time: opts.staleRoutesTime ?? 60 },
    }),
    peers: [
      probePeer(a, { import: ['all'], export: ['all'], enhanced_route_refresh: true }),
      probePeer(b, { import: ['all'], export: ['all'] }),
    ],
    policies: { all: ACCEPT_ALL },
  });
  cleanups.push(() => speaker.close());
  await until(
    () => a.established && b.established && speaker.neighbors('p2')[0]?.state === 'Established',
    'both sessions up',
  );
  a.announce([...R]);
  await until(() => R.every((p) => b.table().has(p)), "a's routes at b");
  const mark = b.events().length;
  /** What b was told since a's routes arrived. */
  const since = () => b.events().slice(mark);
  return { a, b, speaker, since };
}

const borr = (p: Probe) => p.peer.sendRefreshMarker(Afi.IPV4, 1, RouteRefreshSubtype.BORR);
const eorr = (p: Probe) => p.peer.sendRefreshMarker(Afi.IPV4, 1, RouteRefreshSubtype.EORR);
const pause = (ms: number) => new Promise((r) => setTimeout(r, ms));

describe("the peer's own refresh (RFC 7313 section 4)", () => {
  it('everything sent again: nothing moves at our other peers, nothing leaves the RIB', async () => {
    const { a, speaker, since } = await twoProbes();
    borr(a);
    a.announce([...R]);
    eorr(a);
    await until(() => speaker.neighbors('p2')[0]!.messages.received.routeRefresh === 2, 'BoRR and EoRR in');
    await pause(SETTLE_MS);
    expect(since()).toEqual([]);
    for (const p of R) expect(speaker.rib({ prefix: p })[0]?.paths[0]?.from).toBe('p2');
  });

  it('part sent again: the rest is withdrawn at the EoRR, and only that', async () => {
    const { a, b, speaker, since } = await twoProbes();
    borr(a);
    a.announce([R[0], R[2]]);
    await pause(SETTLE_MS);
    // Before the EoRR the route not sent again is still there, and still best.
    expect(since()).toEqual([]);
    expect(speaker.rib({ prefix: R[1] })[0]?.paths[0]).toMatchObject({ from: 'p2', best: true });
    eorr(a);
    await until(() => !b.table().has(R[1]), `${R[1]} withdrawn at b`);
    await pause(SETTLE_MS);
    expect(since()).toEqual([{ kind: 'withdraw', prefix: R[1], attrs: null }]);
    expect(speaker.rib({ prefix: R[1] })).toEqual([]);
    expect(a.established).toBe(true);
  });

  it('no EoRR: what was not sent again goes after stale_routes_time', async () => {
    const { a, b, since } = await twoProbes({ staleRoutesTime: 1 });
    const start = Date.now();
    borr(a);
    a.announce([R[0]]);
    await until(() => !b.table().has(R[1]), 'the purge');
    expect(Date.now() - start).toBeGreaterThanOrEqual(900);
    await pause(SETTLE_MS);
    expect(
      since()
        .map((e) => `${e.kind} ${e.prefix}`)
        .sort(),
    ).toEqual([`withdraw ${R[1]}`, `withdraw ${R[2]}`]);
  });

  it('a session that drops mid-refresh leaves no purge behind for the next one', async () => {
    const { a, b, speaker } = await twoProbes({ staleRoutesTime: 1 });
    borr(a);
    a.peer.reset('gone mid-refresh');
    await until(() => R.every((p) => !b.table().has(p)), "a's routes withdrawn with its session");
    await until(() => a.established && speaker.neighbors('p2')[0]?.state === 'Established', 'a back');
    a.announce([...R]);
    await until(() => R.every((p) => b.table().has(p)), "a's routes back at b");
    await pause(1_500);
    expect(R.every((p) => b.table().has(p))).toBe(true);
  });

  it('a peer with graceful restart: its BoRR counts only after its End-of-RIB', async () => {
    const { a, b, speaker, since } = await twoProbes({ gracefulRestart: true });
    expect(speaker.neighbors('p2')[0]!.capabilities).toContain('enhanced-route-refresh');
    borr(a);
    eorr(a);
    await until(() => speaker.neighbors('p2')[0]!.messages.received.routeRefresh === 2, 'BoRR and EoRR in');
    await pause(SETTLE_MS);
    expect(since()).toEqual([]);
    a.peer.sendEndOfRib(Afi.IPV4);
    borr(a);
    a.announce([R[0], R[1]]);
    eorr(a);
    await until(() => !b.table().has(R[2]), `${R[2]} withdrawn at b`);
    expect(since()).toEqual([{ kind: 'withdraw', prefix: R[2], attrs: null }]);
  });
});
