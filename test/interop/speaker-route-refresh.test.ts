import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Lab } from '../../frr-interop/lab/index.js';
import type { NeighborDetail, NeighborSummary } from '../../src/api/index.js';
import { eventually, LabSpeaker } from '../speaker/lab-speaker.js';

// Route refresh (RFC 2918) and enhanced route refresh (RFC 7313) between the running speaker
// and BIRD 2.0 (host) and BIRD 3.1 (trixie root), which offer enhanced route refresh by
// default and use it both ways. BIRD's `reload in` asks us for our routes again: we answer
// BoRR, the routes, EoRR, and BIRD, which marks our routes stale at the BoRR and drops at the
// EoRR those not sent again, still holds them. Our `neighbor PEER refresh` asks BIRD: it
// answers the same way, and its routes stay ours. sessions-lifecycle.test.ts shows plain
// route refresh both ways with FRR, GoBGP and BIRD 2 through a bare session.

const IS_ROOT = process.getuid?.() === 0;
const SPEAKER = { as: 65000, routerId: '198.18.0.1' } as const;
const UP_MS = 60_000;
const FLOW_MS = 30_000;
const V4 = { transports: ['ipv4' as const] };
/** How long our route is watched to stay at BIRD after the EoRR went out. */
const HOLD_MS = 2_000;
/** Our static route, which each BIRD must still hold after asking for it again. */
const OURS = '198.19.90.0/24';

const BIRDS = [
  { title: 'BIRD 2.0', name: 'bird2', release: 'bookworm', as: 65001, theirs: '198.19.91.0/24' },
  { title: 'BIRD 3.1', name: 'bird3', release: 'trixie', as: 65002, theirs: '198.19.92.0/24' },
] as const;

describe.skipIf(!IS_ROOT)('route refresh with BIRD, enhanced (RFC 7313) both ways', () => {
  let lab: Lab;
  let speaker: LabSpeaker;

  const counts = async (name: string): Promise<NeighborSummary['messages']> => {
    const n = await speaker.neighbor(name);
    if (!n) throw new Error(`no neighbor ${name}`);
    return n.messages;
  };

  beforeAll(async () => {
    lab = await Lab.create({
      id: 'rrefresh',
      speaker: SPEAKER,
      peers: BIRDS.map((b) => ({
        name: b.name,
        impl: 'bird' as const,
        release: b.release,
        as: b.as,
        speakerSessions: V4,
        originate: { ipv4: [b.theirs] },
      })),
    });
    speaker = await LabSpeaker.start(lab, {
      speaker: {
        name: 'refresh',
        local_as: SPEAKER.as,
        router_id: SPEAKER.routerId,
        listen: { address: '::', port: 179 },
        hold_time: 9,
        connect_retry: 2,
        log: { level: 'info' },
      },
      peers: BIRDS.map((b) => ({
        name: b.name,
        peer_ip: lab.peer(b.name).address.ipv4,
        remote_as: b.as,
        import: ['accept-all'],
        export: ['accept-all'],
        enhanced_route_refresh: true,
      })),
      routes: [{ prefix: OURS }],
    });
    await speaker.waitEstablished(
      BIRDS.map((b) => b.name),
      UP_MS,
    );
  });

  afterAll(async () => {
    await lab?.destroy();
  });

  describe.each(BIRDS.map((b) => [b.title, b] as const))('%s', (_title, b) => {
    /** OURS as the BIRD holds it from us. */
    const oursAtBird = async () => {
      const from = lab.peer(b.name).speakerAddress.ipv4;
      return (await lab.bird(b.name).routes('ipv4', { from })).find((r) => r.prefix === OURS);
    };

    it('agrees on route refresh and enhanced route refresh', async () => {
      const [detail] = (await speaker.show<NeighborDetail[]>(['neighbors', b.name])) ?? [];
      expect(detail?.capabilities).toEqual(
        expect.arrayContaining(['route-refresh', 'enhanced-route-refresh']),
      );
      expect(detail?.remoteCapabilities).toEqual(expect.arrayContaining(['enhanced-route-refresh']));
      await eventually(oursAtBird, `${OURS} at ${b.title}`, FLOW_MS);
    });

    it(`answers ${b.title}'s reload in with BoRR, our routes and EoRR; it keeps them`, async () => {
      const before = await counts(b.name);
      await lab.bird(b.name).refreshIn(lab.peer(b.name).speakerAddress.ipv4);
      // One ROUTE-REFRESH in; out: its BoRR and EoRR with at least one UPDATE between them.
      const after = await eventually(
        async () => {
          const c = await counts(b.name);
          return c.received.routeRefresh > before.received.routeRefresh &&
            c.sent.routeRefresh >= before.sent.routeRefresh + 2
            ? c
            : undefined;
        },
        `the refresh ${b.title} asked for, answered`,
        FLOW_MS,
      );
      expect(after.received.routeRefresh - before.received.routeRefresh).toBe(1);
      expect(after.sent.routeRefresh - before.sent.routeRefresh).toBe(2);
      expect(after.sent.update).toBeGreaterThan(before.sent.update);
      // At our EoRR BIRD purges what we did not send again: our route stays, also a while after.
      for (const deadline = Date.now() + HOLD_MS; Date.now() < deadline; ) {
        expect(await oursAtBird()).toMatchObject({ prefix: OURS, asPath: [SPEAKER.as] });
        await new Promise((r) => setTimeout(r, 250));
      }
      expect((await speaker.neighbor(b.name))?.state).toBe('Established');
    });

    it(`asks ${b.title} again (neighbor refresh): BoRR, its routes, EoRR; they stay ours`, async () => {
      const before = await counts(b.name);
      await speaker.neighborAction(b.name, 'refresh');
      const after = await eventually(
        async () => {
          const c = await counts(b.name);
          return c.received.routeRefresh >= before.received.routeRefresh + 2 ? c : undefined;
        },
        `${b.title}'s answer framed by BoRR and EoRR`,
        FLOW_MS,
      );
      expect(after.sent.routeRefresh - before.sent.routeRefresh).toBe(1);
      expect(after.received.routeRefresh - before.received.routeRefresh).toBe(2);
      expect(after.received.update).toBeGreaterThan(before.received.update);
      const [entry] = await speaker.rib(b.theirs);
      expect(entry?.paths.some((p) => p.best)).toBe(true);
      expect((await speaker.neighbor(b.name))?.state).toBe('Established');
    });
  });
});
