import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { birdProtocolName, Lab } from '../../frr-interop/lab/index.js';
import type { NeighborSummary } from '../../src/api/index.js';
import { eventually, LabSpeaker, type LogLine } from '../speaker/lab-speaker.js';

// Enhanced route refresh (RFC 7313 section 4), the receiving side, with BIRD 2.0 (host) and
// BIRD 3.1 (trixie root), which re-send their routes framed by BoRR and EoRR on `reload out`
// (BIRD 3: `reload bgp out`) once enhanced route refresh is agreed. Each BIRD reaches the
// speaker through a relay in the speaker's namespace (support/bgp-relay.ts) that passes the
// session through but takes out the withdrawal of one route: BIRD withdraws what leaves its
// configuration, so without the relay no route would ever be left behind. That route, gone
// from BIRD and never withdrawn here, is what the speaker must purge at BIRD's EoRR; the
// other BIRD, our other peer, sees that withdrawal and nothing else. A refresh that sends
// everything again changes nothing at the other BIRD.

const IS_ROOT = process.getuid?.() === 0;
const SPEAKER = { as: 65000, routerId: '198.18.0.1' } as const;
const UP_MS = 60_000;
const FLOW_MS = 30_000;
/** How long after a refresh nothing more may reach the other BIRD. */
const QUIET_MS = 2_000;
const RELAY = fileURLToPath(new URL('./support/bgp-relay.ts', import.meta.url));
/** The relay's port on the speaker's link address, per BIRD. */
const RELAY_PORT = 1790;

const BIRDS = [
  {
    title: 'BIRD 2.0',
    name: 'bird2',
    release: 'bookworm',
    as: 65001,
    theirs: ['198.19.101.0/24', '198.19.102.0/24', '198.19.103.0/24'],
  },
  {
    title: 'BIRD 3.1',
    name: 'bird3',
    release: 'trixie',
    as: 65002,
    theirs: ['198.19.111.0/24', '198.19.112.0/24', '198.19.113.0/24'],
  },
] as const;
type Bird = (typeof BIRDS)[number];
/** The route each BIRD drops from its configuration, whose withdrawal the relay takes out. */
const silent = (b: Bird) => b.theirs[2];

describe.skipIf(!IS_ROOT)('enhanced route refresh from BIRD: stale at the BoRR, purged at the EoRR', () => {
  let lab: Lab;
  let speaker: LabSpeaker;

  const messages = async (name: string): Promise<NeighborSummary['messages']> => {
    const n = await speaker.neighbor(name);
    if (!n) throw new Error(`no neighbor ${name}`);
    return n.messages;
  };
  const relayLog = (b: Bird) => join(lab.dir, `relay-${b.name}.log`);
  const dropped = (b: Bird) =>
    existsSync(relayLog(b))
      ? readFileSync(relayLog(b), 'utf8')
          .split('\n')
          .filter((l) => l.startsWith('dropped'))
      : [];
  /** The speaker's log lines about `b`'s refreshes, from index `from` on. */
  const refreshLog = (b: Bird, from: number): LogLine[] =>
    speaker
      .logLines()
      .slice(from)
      .filter((l) => l.peer === b.name && /^route refresh/.test(l.msg));
  /** `reload out`: BIRD sends its routes again, framed by BoRR and EoRR. */
  const reloadOut = async (b: Bird) => {
    const bird = lab.bird(b.name);
    const words = (await bird.major()) >= 3 ? ['reload', 'bgp', 'out'] : ['reload', 'out'];
    await bird.birdc([...words, birdProtocolName(lab.peer(b.name).speakerAddress.ipv4)]);
  };
  /** Prefixes the BIRD holds from us. */
  const fromUs = async (b: Bird) => {
    const from = lab.peer(b.name).speakerAddress.ipv4;
    return (await lab.bird(b.name).routes('ipv4', { from })).map((r) => r.prefix).sort();
  };
  const other = (b: Bird) => BIRDS.find((x) => x !== b)!;

  beforeAll(async () => {
    lab = await Lab.create({
      id: 'errin',
      speaker: SPEAKER,
      peers: BIRDS.map((b) => ({
        name: b.name,
        impl: 'bird' as const,
        release: b.release,
        as: b.as,
        // Passive: the session is the one the relay opens on the speaker's behalf.
        speakerSessions: { transports: ['ipv4' as const], passive: true },
        originate: { ipv4: [...b.theirs] },
      })),
    });
    BIRDS.forEach((b, i) => {
      const p = lab.peer(b.name);
      lab.spawn(
        lab.speakerNs,
        [
          process.execPath,
          '--import',
          'tsx',
          RELAY,
          p.speakerAddress.ipv4,
          String(RELAY_PORT + i),
          p.address.ipv4,
          '179',
          silent(b),
        ],
        { name: `relay-${b.name}`, logFile: relayLog(b) },
      );
    });
    for (const b of BIRDS)
      await eventually(
        () => (readFileSync(relayLog(b), 'utf8').includes('listening') ? true : undefined),
        `the relay for ${b.title}`,
        FLOW_MS,
      );
    speaker = await LabSpeaker.start(lab, {
      speaker: {
        name: 'refresh-in',
        local_as: SPEAKER.as,
        router_id: SPEAKER.routerId,
        listen: { address: '::', port: 179 },
        hold_time: 9,
        connect_retry: 2,
        log: { level: 'info' },
      },
      // Each BIRD through its relay: our own link address, the relay's port.
      peers: BIRDS.map((b, i) => ({
        name: b.name,
        peer_ip: lab.peer(b.name).speakerAddress.ipv4,
        port: RELAY_PORT + i,
        remote_as: b.as,
        import: ['accept-all'],
        export: ['accept-all'],
        enhanced_route_refresh: true,
      })),
    });
    await speaker.waitEstablished(
      BIRDS.map((b) => b.name),
      UP_MS,
    );
    // Every BIRD's routes at the speaker and, through it, at the other BIRD.
    for (const b of BIRDS)
      await eventually(
        async () => ((await fromUs(other(b))).join() === [...b.theirs].sort().join() ? true : undefined),
        `${b.title}'s routes at ${other(b).title}`,
        FLOW_MS,
      );
  }, UP_MS * 2);

  afterAll(async () => {
    await lab?.destroy();
  });

  describe.each(BIRDS.map((b) => [b.title, b] as const))('%s', (_title, b) => {
    it('agrees on enhanced route refresh through the relay', async () => {
      const [detail] = (await speaker.show<{ capabilities: string[] }[]>(['neighbors', b.name])) ?? [];
      expect(detail?.capabilities).toContain('enhanced-route-refresh');
    });

    it('everything sent again: stale at the BoRR, nothing purged, nothing sent to the other BIRD', async () => {
      const log = speaker.logLines().length;
      const before = await messages(b.name);
      const toOther = (await messages(other(b).name)).sent.update;
      await reloadOut(b);
      const lines = await eventually(
        () => {
          const l = refreshLog(b, log);
          return l.some((x) => x.why === 'EoRR received') ? l : undefined;
        },
        `${b.title}'s EoRR at the speaker`,
        FLOW_MS,
      );
      expect(lines.map((l) => [l.stale, l.why ?? 'BoRR'])).toEqual([
        [3, 'BoRR'],
        [0, 'EoRR received'],
      ]);
      const after = await messages(b.name);
      expect(after.received.routeRefresh - before.received.routeRefresh).toBe(2);
      expect(after.received.update).toBeGreaterThan(before.received.update);
      await new Promise((r) => setTimeout(r, QUIET_MS));
      expect((await messages(other(b).name)).sent.update).toBe(toOther);
      expect(await fromUs(other(b))).toEqual([...b.theirs].sort());
    });

    it('a route it dropped without a withdrawal reaching us is purged at its EoRR, and only that', async () => {
      // BIRD withdraws the route from its configuration; the relay takes the withdrawal out.
      await lab.bird(b.name).withdraw([silent(b)]);
      await eventually(() => (dropped(b).length > 0 ? true : undefined), 'the withdrawal taken out', FLOW_MS);
      await new Promise((r) => setTimeout(r, QUIET_MS));
      const [held] = await speaker.rib(silent(b));
      expect(held?.paths.map((p) => p.from)).toEqual([b.name]);
      expect(await fromUs(other(b))).toContain(silent(b));

      const log = speaker.logLines().length;
      const toOther = (await messages(other(b).name)).sent.update;
      await reloadOut(b);
      const lines = await eventually(
        () => {
          const l = refreshLog(b, log);
          return l.some((x) => x.why === 'EoRR received') ? l : undefined;
        },
        `${b.title}'s EoRR at the speaker`,
        FLOW_MS,
      );
      // Marked at the BoRR: all three; left at the EoRR: the one BIRD no longer has.
      expect(lines.map((l) => [l.stale, l.why ?? 'BoRR'])).toEqual([
        [3, 'BoRR'],
        [1, 'EoRR received'],
      ]);
      await eventually(
        async () => ((await speaker.rib(silent(b))).length === 0 ? true : undefined),
        `${silent(b)} purged from the RIB`,
        FLOW_MS,
      );
      const kept = b.theirs.filter((p) => p !== silent(b)).sort();
      await eventually(
        async () => ((await fromUs(other(b))).join() === kept.join() ? true : undefined),
        `${silent(b)} withdrawn at ${other(b).title}`,
        FLOW_MS,
      );
      // The other BIRD got that withdrawal and nothing more: the routes sent again did not move.
      await new Promise((r) => setTimeout(r, QUIET_MS));
      expect((await messages(other(b).name)).sent.update - toOther).toBe(1);
      expect(await fromUs(other(b))).toEqual(kept);
      expect((await speaker.neighbor(b.name))?.state).toBe('Established');
    });
  });
});
