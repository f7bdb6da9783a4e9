/*
 * RFC 4724 graceful restart with BIRD 2.0 (host) and BIRD 3.1 (trixie root) in both roles,
 * forwarding checked with pings (never timings), as graceful-restart.test.ts does with FRR and
 * GoBGP: each BIRD keeps our routes, in its table and its kernel, while our speaker restarts,
 * and sweeps the one we no longer announce after our End-of-RIB; we keep each BIRD's routes
 * while it crashes and comes back with `bird -R`, and sweep what it did not announce again
 * after its End-of-RIB.
 *
 *   bird2    lo 198.19.71.1, announces 198.19.71.0/24 (+ 198.19.74.0/24 until its crash)
 *   bird3    lo 198.19.72.1, announces 198.19.72.0/24 (+ 198.19.75.0/24 until its crash)
 *   speaker  lo 198.19.70.1, announces 198.19.70.0/24 (+ 198.19.73.0/24 until a restart);
 *            the kernel sink installs what it learns in the main table, on_stop keep
 *
 * Each BIRD exports what it learns by BGP into its namespace's kernel (protocol kernel), so its
 * loopback reaches ours through BIRD's routes and ours through our kernel sink's.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Lab } from '../../frr-interop/lab/index.js';
import { eventually, LabSpeaker } from '../speaker/lab-speaker.js';
import { Ping } from './support/ping.js';

const IS_ROOT = process.getuid?.() === 0;
const AS = 65000;
const OUR_NET = '198.19.70.0/24';
const OUR_LO = '198.19.70.1';
/** Announced by us before a restart, not after it: swept at the BIRDs after our End-of-RIB. */
const OUR_GONE = '198.19.73.0/24';
const UP_MS = 60_000;
const FLOW_MS = 45_000;

const BIRDS = [
  {
    title: 'BIRD 2.0',
    name: 'bird2',
    release: 'bookworm',
    as: 65001,
    net: '198.19.71.0/24',
    lo: '198.19.71.1',
    gone: '198.19.74.0/24',
  },
  {
    title: 'BIRD 3.1',
    name: 'bird3',
    release: 'trixie',
    as: 65002,
    net: '198.19.72.0/24',
    lo: '198.19.72.1',
    gone: '198.19.75.0/24',
  },
] as const;
type BirdDef = (typeof BIRDS)[number];
const NAMES = BIRDS.map((b) => b.name);

/** BIRD's routes learned by BGP into its namespace's kernel, kept there across its own restart. */
const KERNEL_EXPORT = [
  'protocol kernel lab_kernel4 {',
  '  graceful restart on;',
  '  ipv4 { export where source = RTS_BGP; };',
  '}',
];

describe.skipIf(!IS_ROOT)('graceful restart with BIRD 2.0 and BIRD 3.1, forwarding checked by ping', () => {
  let lab: Lab;
  let speaker: LabSpeaker;

  const doc = (networks: readonly string[] = [OUR_NET]) => ({
    speaker: {
      name: 'grbird',
      local_as: AS,
      router_id: '198.18.0.1',
      listen: { address: '::', port: 179 },
      hold_time: 9,
      connect_retry: 2,
      graceful_restart: { enabled: true, restart_time: 120, stale_routes_time: 60 },
      log: { level: 'info' },
    },
    peers: BIRDS.map((b) => ({
      name: b.name,
      peer_ip: lab.peer(b.name).address.ipv4,
      remote_as: b.as,
      import: ['accept-all'],
      export: ['accept-all'],
    })),
    networks,
    sinks: { kernel: { on_stop: 'keep' } },
  });

  /** A kernel's main table: the route to `prefix`, if any. */
  const kernelRoute = async (ns: string, prefix: string) => {
    const out = await lab.exec(ns, ['ip', '-4', '-j', 'route', 'show', 'table', 'main', prefix]);
    const [r] = JSON.parse(out || '[]') as { gateway?: string; protocol?: string }[];
    return r;
  };
  /** `prefix` as the BIRD holds it from us. */
  const atBird = async (b: BirdDef, prefix: string) =>
    (await lab.bird(b.name).routes('ipv4', { from: lab.peer(b.name).speakerAddress.ipv4 })).find(
      (r) => r.prefix === prefix,
    );
  const birdHas = async (b: BirdDef, prefix: string) => (await atBird(b, prefix)) !== undefined;
  const birdSession = async (b: BirdDef) =>
    (await lab.bird(b.name).neighbor(lab.peer(b.name).speakerAddress.ipv4))?.state;
  const ribPath = async (prefix: string) => (await speaker.rib(prefix))[0]?.paths[0];

  /** Everyone up, every route where it belongs (ours also in each BIRD's kernel). */
  async function settled(ours: readonly string[]): Promise<void> {
    await speaker.waitEstablished(NAMES, UP_MS);
    for (const b of BIRDS) {
      for (const p of ours) {
        await eventually(
          async () => ((await birdHas(b, p)) ? true : undefined),
          `${p} at ${b.title}`,
          FLOW_MS,
        );
      }
      await eventually(
        () => kernelRoute(lab.peer(b.name).ns, OUR_NET),
        `${OUR_NET} in ${b.title}'s kernel`,
        FLOW_MS,
      );
      await eventually(() => kernelRoute(lab.speakerNs, b.net), `${b.net} in our kernel`, FLOW_MS);
    }
  }

  beforeAll(async () => {
    lab = await Lab.create({
      id: 'grbird',
      speaker: { as: AS, routerId: '198.18.0.1' },
      peers: BIRDS.map((b) => ({
        name: b.name,
        impl: 'bird' as const,
        release: b.release,
        as: b.as,
        originate: { ipv4: [b.net, b.gone] },
        speakerSessions: { transports: ['ipv4' as const], gracefulRestart: { restartTime: 120 } },
        extraConfig: KERNEL_EXPORT,
      })),
    });
    await lab.exec(lab.speakerNs, ['ip', 'addr', 'add', `${OUR_LO}/32`, 'dev', 'lo']);
    for (const b of BIRDS)
      await lab.exec(lab.peer(b.name).ns, ['ip', 'addr', 'add', `${b.lo}/32`, 'dev', 'lo']);
    speaker = await LabSpeaker.start(lab, doc([OUR_NET, OUR_GONE]));
    await settled([OUR_NET, OUR_GONE]);
  }, 180_000);

  afterAll(async () => {
    await lab?.destroy();
  });

  it('before any restart: both directions forward through the routes BGP put there', async () => {
    for (const b of BIRDS) {
      expect(await kernelRoute(lab.speakerNs, b.net)).toMatchObject({
        gateway: lab.peer(b.name).address.ipv4,
      });
      const out = await lab.exec(lab.peer(b.name).ns, ['ping', '-c', '2', '-W', '2', '-I', b.lo, OUR_LO]);
      expect(out, b.title).toMatch(/2 received/);
    }
  });

  it('we restart (SIGTERM for a restart, a config change, a new process): each BIRD keeps our routes and forwards, no packet lost; the route we dropped goes after our End-of-RIB', async () => {
    // From each BIRD's loopback to ours: BIRD's kernel route to us and ours back to it.
    const across = await Promise.all(
      BIRDS.map((b) => Ping.answered(lab, 'grb-ping', lab.peer(b.name).ns, OUR_LO, b.lo, FLOW_MS)),
    );
    const before = speaker.logLines().length;
    await speaker.stop();
    for (const b of BIRDS) {
      await eventually(
        async () => ((await birdSession(b)) === 'Established' ? undefined : true),
        `${b.title} to see us gone`,
        FLOW_MS,
      );
      // We are gone: BIRD keeps our routes (stale), and its kernel keeps forwarding to us.
      expect(await birdHas(b, OUR_NET), b.title).toBe(true);
      expect(await birdHas(b, OUR_GONE), b.title).toBe(true);
      expect(await kernelRoute(lab.peer(b.name).ns, OUR_NET), b.title).toBeDefined();
    }
    const answeredWhileDown = across.map((p) => p.replies().length);
    speaker = await LabSpeaker.start(lab, doc([OUR_NET]));
    await speaker.waitEstablished(NAMES, UP_MS);
    for (const b of BIRDS) {
      await eventually(
        async () => ((await birdHas(b, OUR_GONE)) ? undefined : true),
        `${OUR_GONE} swept at ${b.title}`,
        FLOW_MS,
      );
      expect(await birdHas(b, OUR_NET), b.title).toBe(true);
    }
    const log = speaker.logLines().slice(before);
    expect(log.some((l) => /stopped for a restart/.test(l.msg))).toBe(true);
    expect(log.some((l) => /graceful restart done/.test(l.msg))).toBe(true);
    for (const [i, p] of across.entries()) {
      const r = await p.stop();
      expect(r.lost, BIRDS[i]!.title).toEqual([]);
      // The pings went on through the restart, not only before it.
      expect(r.received, BIRDS[i]!.title).toBeGreaterThan(answeredWhileDown[i]!);
    }
  }, 180_000);

  it.each(BIRDS.map((b) => [b.title, b] as const))(
    '%s crashes and comes back with -R: our kernel keeps its routes, no packet lost; what it did not announce again goes after its End-of-RIB',
    async (title, b) => {
      await settled([OUR_NET]);
      await eventually(() => kernelRoute(lab.speakerNs, b.gone), `${b.gone} in our kernel`, FLOW_MS);
      const toBird = await Ping.answered(lab, 'grb-ping', lab.speakerNs, b.lo, undefined, FLOW_MS);
      const before = speaker.logLines().length;
      const restart = lab.bird(b.name).crashAndRestart({ ipv4: [b.net] });
      await eventually(
        async () => ((await ribPath(b.net))?.stale ? true : undefined),
        `${b.net} stale in our RIB while ${title} is away`,
        FLOW_MS,
      );
      expect(await kernelRoute(lab.speakerNs, b.gone)).toBeDefined();
      const answeredWhileDown = toBird.replies().length;
      await restart;
      await speaker.waitEstablished([b.name], UP_MS);
      await eventually(
        async () => ((await kernelRoute(lab.speakerNs, b.gone)) ? undefined : true),
        `${b.gone} swept`,
        FLOW_MS,
      );
      await eventually(
        async () => ((await ribPath(b.net))?.stale ? undefined : true),
        `${b.net} fresh again`,
        FLOW_MS,
      );
      expect(await kernelRoute(lab.speakerNs, b.net)).toBeDefined();
      // BIRD came back saying it restarted (R bit) and kept forwarding (F bit).
      const [detail] =
        (await speaker.show<{ gracefulRestart?: { forwarding?: string[] } }[]>(['neighbors', b.name])) ?? [];
      expect(detail?.gracefulRestart?.forwarding).toEqual(['ipv4-unicast']);
      // Swept because BIRD said it was done, not because a timer ran out.
      const sweeps = speaker
        .logLines()
        .slice(before)
        .filter((l) => l.peer === b.name && /sweeping stale routes/.test(l.msg));
      expect(sweeps.map((l) => l.why)).toEqual(['End-of-RIB received']);
      const r = await toBird.stop();
      expect(r.lost).toEqual([]);
      expect(r.received).toBeGreaterThan(answeredWhileDown);
    },
    180_000,
  );
});
