import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Lab } from '../../frr-interop/lab/index.js';
import type { NeighborDetail, RibEntryView } from '../../src/api/index.js';
import { eventually, LabSpeaker } from '../speaker/lab-speaker.js';

// BFD (RFC 5880, RFC 5881 single hop) against FRR's bfdd (8.4 from the host, 10.3 from the
// trixie root) with `neighbor X bfd`, and BIRD (2.0 host, 3.1 root) with `bfd on` and
// `protocol bfd`. For each: BFD comes Up at 300 ms x 3 on both ends; the peer's link goes down
// and the BGP session is closed within the Detection Time, its routes withdrawn; the link back,
// BFD and BGP come Up again and the routes return. With graceful restart negotiated, the peer's
// C bit decides (RFC 5882 4.3): clear (its BFD shares fate with its control plane), its routes
// are kept stale until it is back; set (FRR's check-control-plane-failure), they go at once.

const IS_ROOT = process.getuid?.() === 0;
const SPEAKER = { as: 65000, routerId: '198.18.0.1' } as const;
const BFD = { minRx: 300, minTx: 300, multiplier: 3 } as const;
const DETECTION_MS = BFD.minRx * BFD.multiplier;
/**
 * What a loaded machine may add to the Detection Time: the main thread's turn to close the
 * session and stamp it. Far below the 90 s hold time, so only BFD can have closed it; the
 * bench (bench/bfd) measures the detection itself.
 */
const SLACK_MS = 400;
const UP_MS = 60_000;

interface BfdPeer {
  readonly name: string;
  readonly impl: 'frr' | 'bird';
  readonly release: 'bookworm' | 'trixie';
  readonly as: number;
  readonly prefix: string;
  /** RFC 4724 on the session. */
  readonly gr?: boolean;
  /** The peer sets the C bit (FRR: `neighbor X bfd check-control-plane-failure`). */
  readonly cBit?: boolean;
}

const PLAIN: readonly BfdPeer[] = [
  { name: 'frr84', impl: 'frr', release: 'bookworm', as: 65001, prefix: '198.19.101.0/24' },
  { name: 'frr103', impl: 'frr', release: 'trixie', as: 65002, prefix: '198.19.102.0/24' },
  { name: 'bird20', impl: 'bird', release: 'bookworm', as: 65003, prefix: '198.19.103.0/24' },
  { name: 'bird31', impl: 'bird', release: 'trixie', as: 65004, prefix: '198.19.104.0/24' },
];
const GR: readonly BfdPeer[] = [
  { name: 'frrgr', impl: 'frr', release: 'trixie', as: 65005, prefix: '198.19.105.0/24', gr: true },
  { name: 'birdgr', impl: 'bird', release: 'bookworm', as: 65006, prefix: '198.19.106.0/24', gr: true },
  {
    name: 'frrgrc',
    impl: 'frr',
    release: 'trixie',
    as: 65007,
    prefix: '198.19.107.0/24',
    gr: true,
    cBit: true,
  },
];
const PEERS = [...PLAIN, ...GR];

describe.skipIf(!IS_ROOT)('BFD with FRR bfdd and BIRD', () => {
  let lab: Lab;
  let speaker: LabSpeaker;

  const detail = async (name: string) => (await speaker.show<NeighborDetail[]>(['neighbors', name]))?.[0];
  const has = async (prefix: string) =>
    ((await speaker.rib(prefix, 4)) as RibEntryView[]).some((e) => e.paths.length > 0);

  beforeAll(async () => {
    lab = await Lab.create({
      id: 'bfd',
      speaker: SPEAKER,
      peers: PEERS.map((p) => ({
        name: p.name,
        impl: p.impl,
        as: p.as,
        release: p.release,
        originate: { ipv4: [p.prefix] },
        speakerSessions: {
          transports: ['ipv4'],
          connectRetry: 2,
          bfd: { ...BFD, checkControlPlaneFailure: p.cBit },
          ...(p.gr && { gracefulRestart: { restartTime: 120 } }),
        },
      })),
    });
    speaker = await LabSpeaker.start(lab, {
      speaker: {
        name: 'bfd',
        local_as: SPEAKER.as,
        router_id: SPEAKER.routerId,
        listen: { address: '::', port: 179 },
        // Far beyond the Detection Time: only BFD can take the sessions down this fast.
        hold_time: 90,
        connect_retry: 2,
        // Only the GR peers advertise it back, so only their sessions negotiate it.
        graceful_restart: { enabled: true, restart_time: 120, stale_routes_time: 60 },
        log: { level: 'info' },
      },
      peers: PEERS.map((p) => ({
        name: p.name,
        peer_ip: lab.peer(p.name).address.ipv4,
        remote_as: p.as,
        idle_hold_time: 0,
        bfd: { min_rx: BFD.minRx, min_tx: BFD.minTx, multiplier: BFD.multiplier },
        import: ['accept-all'],
        export: ['reject-all'],
      })),
    });
    await speaker.waitEstablished(
      PEERS.map((p) => p.name),
      UP_MS,
    );
  }, 180_000);

  afterAll(async () => {
    await speaker?.stop();
    await lab?.destroy();
  });

  /** Up on our side at the configured timers, the peer's Poll answered both ways. */
  const bfdUp = (name: string) =>
    eventually(
      async () => {
        const d = await detail(name);
        const b = d?.bfd;
        return b?.state === 'Up' && b.remoteState === 'Up' && b.detectionTime === DETECTION_MS
          ? d
          : undefined;
      },
      `${name}: BFD Up at ${DETECTION_MS} ms`,
      UP_MS,
    );

  it.each(PEERS)('$name: BFD Up, a dead link closes BGP within the Detection Time, and back', async (p) => {
    const up = await bfdUp(p.name);
    expect(up.state).toBe('Established');
    expect(up.bfd).toMatchObject({
      multihop: false,
      txInterval: BFD.minTx,
      remote: { minRx: BFD.minRx, minTx: BFD.minTx, multiplier: BFD.multiplier },
    });
    expect(up.bfd!.remoteDiscriminator).not.toBe(0);
    expect(up.bfd!.remoteControlPlaneIndependent).toBe(p.cBit === true);
    await eventually(async () => ((await has(p.prefix)) ? true : undefined), `${p.prefix} learned`, UP_MS);
    if (p.impl === 'frr') {
      const peers = JSON.parse(await lab.frr(p.name).bfdVtysh(['show bfd peers json'])) as {
        status: string;
        'remote-id': number;
      }[];
      expect(peers).toMatchObject([{ status: 'up', 'remote-id': up.bfd!.localDiscriminator }]);
    } else {
      expect(await lab.bird(p.name).birdc(['show', 'bfd', 'sessions'])).toMatch(/\bUp\b/);
    }

    // The peer's end of the link goes down: nothing reaches us, and no NOTIFICATION either.
    const peer = lab.peer(p.name);
    const cut = Date.now();
    await lab.exec(peer.ns, ['ip', 'link', 'set', peer.link.b.ifname, 'down']);
    const cutDone = Date.now();
    const down = await eventually(
      async () => {
        const d = await detail(p.name);
        return d && d.state !== 'Established' ? d : undefined;
      },
      `${p.name}: BGP closed by BFD`,
      10_000,
    );
    const closedAt = Date.parse(down.bfd!.lastSessionDrop!.at);
    expect(down.bfd!.lastSessionDrop!.reason).toBe('BFD down: control detection time expired');
    // The link went down between cut and cutDone; the peer's last packet came at most one
    // transmit interval before that, and the Detection Time runs from it (RFC 5880 6.8.4).
    expect(closedAt - cutDone).toBeLessThan(DETECTION_MS + SLACK_MS);
    expect(closedAt - cut).toBeGreaterThan(DETECTION_MS - BFD.minTx);
    // RFC 5882 4.3: its routes stay, stale, only when graceful restart was negotiated and BFD
    // shares fate with the peer's control plane; otherwise they go at once.
    const kept = p.gr === true && p.cBit !== true;
    if (kept) {
      const stale = await eventually(
        async () => (await detail(p.name))?.gracefulRestart?.stale,
        `${p.prefix} kept stale`,
        5000,
      );
      expect(stale).toMatchObject({ phase: 'restarting', 'ipv4-unicast': 1 });
      expect(await has(p.prefix)).toBe(true);
    } else {
      await eventually(async () => ((await has(p.prefix)) ? undefined : true), `${p.prefix} withdrawn`, 5000);
      expect((await detail(p.name))?.gracefulRestart?.stale).toBeUndefined();
    }

    await lab.exec(peer.ns, ['ip', 'link', 'set', peer.link.b.ifname, 'up']);
    const back = await bfdUp(p.name);
    await eventually(
      async () => ((await detail(p.name))?.state === 'Established' ? true : undefined),
      `${p.name}: BGP back`,
      UP_MS,
    );
    // Up -> Down, then Down -> Up (through Init or not, as the peer's state allows).
    expect(back.bfd!.transitions).toBeGreaterThanOrEqual(up.bfd!.transitions + 2);
    await eventually(async () => ((await has(p.prefix)) ? true : undefined), `${p.prefix} back`, UP_MS);
    // Kept routes are refreshed by the new session, and no longer stale.
    await eventually(
      async () => ((await detail(p.name))?.gracefulRestart?.stale === undefined ? true : undefined),
      `${p.name}: nothing stale`,
      UP_MS,
    );
  });
});
