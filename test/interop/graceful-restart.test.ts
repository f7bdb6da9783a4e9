/*
 * RFC 4724 graceful restart with real peers, forwarding checked with pings (never timings):
 * FRR and GoBGP keep our routes while our speaker restarts (SIGTERM for a restart, SIGKILL), we
 * keep theirs while they crash and come back, what is not announced again is swept after
 * End-of-RIB, and without the capability a lost session withdraws at once, as before.
 *
 *   lab-frr    lo 198.19.81.1, announces 198.19.81.0/24 (+ 198.19.84.0/24 until its crash)
 *   lab-gobgp  lo 198.19.82.1, announces 198.19.82.0/24 (+ 198.19.85.0/24 until its crash)
 *   lab-plain  GoBGP without graceful restart, announces 198.19.83.0/24
 *   speaker    lo 198.19.80.1, announces 198.19.80.0/24 (+ 198.19.86.0/24 until a restart);
 *              the kernel sink installs what it learns in the main table, on_stop keep
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Lab } from '../../frr-interop/lab/index.js';
import { eventually, LabSpeaker } from '../speaker/lab-speaker.js';
import { Ping } from './support/ping.js';

const IS_ROOT = process.getuid?.() === 0;
const AS = 65000;
const OUR_NET = '198.19.80.0/24';
const OUR_LO = '198.19.80.1';
/** Announced by us before a restart, not after it: swept at the peers after our End-of-RIB. */
const OUR_GONE = '198.19.86.0/24';
const FRR_NET = '198.19.81.0/24';
const FRR_LO = '198.19.81.1';
const FRR_GONE = '198.19.84.0/24';
const GOBGP_NET = '198.19.82.0/24';
const GOBGP_LO = '198.19.82.1';
const GOBGP_GONE = '198.19.85.0/24';
const PLAIN_NET = '198.19.83.0/24';
const UP_MS = 60_000;
const FLOW_MS = 45_000;

describe.skipIf(!IS_ROOT)('graceful restart with FRR and GoBGP, forwarding checked by ping', () => {
  let lab: Lab;
  let speaker: LabSpeaker;

  const doc = (opts: { gr?: boolean; networks?: string[] } = {}) => ({
    speaker: {
      name: 'gr',
      local_as: AS,
      router_id: '198.18.0.1',
      listen: { address: '::', port: 179 },
      hold_time: 9,
      connect_retry: 2,
      graceful_restart: { enabled: opts.gr ?? true, restart_time: 120, stale_routes_time: 60 },
      log: { level: 'info' },
    },
    peers: ['frr', 'gobgp', 'plain'].map((name) => ({
      name,
      peer_ip: lab.peer(name).address.ipv4,
      remote_as: lab.peer(name).as,
      import: ['all'],
      export: ['all'],
    })),
    networks: opts.networks ?? [OUR_NET],
    policies: { all: { statements: [{ action: 'accept' }] } },
    sinks: { kernel: { on_stop: 'keep' } },
  });

  /** Our kernel's main table: the route to `prefix` of our protocol, its gateway. */
  const ourKernelRoute = async (prefix: string) => {
    const out = await lab.exec(lab.speakerNs, ['ip', '-4', '-j', 'route', 'show', 'table', 'main', prefix]);
    const [r] = JSON.parse(out || '[]') as { gateway?: string; protocol?: string }[];
    return r;
  };
  const frrHas = async (prefix: string) =>
    (await lab.frr('frr').routes('ipv4', { from: lab.peer('frr').speakerAddress.ipv4 })).some(
      (r) => r.prefix === prefix,
    );
  const gobgpHas = async (prefix: string) =>
    (await lab.gobgp('gobgp').routes('ipv4')).some((r) => r.prefix === prefix);
  const ribPath = async (prefix: string) => (await speaker.rib(prefix))[0]?.paths[0];
  /** FRR marks the path it keeps for a restarting peer stale (`show bgp ... json`). */
  const frrStale = async (prefix: string) => {
    const out = await lab.frr('frr').vtysh([`show bgp ipv4 unicast ${prefix} json`]);
    const paths = (JSON.parse(out) as { paths?: { stale?: boolean }[] }).paths ?? [];
    return paths.length > 0 && paths.every((p) => p.stale === true);
  };
  /** GoBGP marks it stale in its RIB too. */
  const gobgpStale = async (prefix: string) => {
    const out = await lab.gobgp('gobgp').gobgp(['global', 'rib', prefix, '-j']);
    const paths = Object.values(JSON.parse(out) as Record<string, { stale?: boolean }[]>).flat();
    return paths.length > 0 && paths.every((p) => p.stale === true);
  };
  const frrSession = async () => (await lab.frr('frr').neighbor(lab.peer('frr').speakerAddress.ipv4))?.state;

  /** Everyone up, every route where it belongs. */
  async function settled(ours: readonly string[]): Promise<void> {
    await speaker.waitEstablished(['frr', 'gobgp', 'plain'], UP_MS);
    for (const p of ours) {
      await eventually(async () => ((await frrHas(p)) ? true : undefined), `${p} at FRR`, FLOW_MS);
      await eventually(async () => ((await gobgpHas(p)) ? true : undefined), `${p} at GoBGP`, FLOW_MS);
    }
    for (const p of [FRR_NET, GOBGP_NET, PLAIN_NET]) {
      await eventually(async () => await ourKernelRoute(p), `${p} in our kernel`, FLOW_MS);
    }
  }

  /** A ping that already gets answers. */
  const pinging = (ns: string, target: string, source?: string): Promise<Ping> =>
    Ping.answered(lab, 'gr-ping', ns, target, source, FLOW_MS);

  beforeAll(async () => {
    const gr = { restartTime: 120 };
    lab = await Lab.create({
      id: 'grlab',
      speaker: { as: AS, routerId: '198.18.0.1' },
      peers: [
        {
          name: 'frr',
          impl: 'frr',
          as: 65001,
          originate: { ipv4: [FRR_NET, FRR_GONE] },
          speakerSessions: { transports: ['ipv4'], gracefulRestart: gr },
        },
        {
          name: 'gobgp',
          impl: 'gobgp',
          as: 65002,
          originate: { ipv4: [GOBGP_NET, GOBGP_GONE] },
          speakerSessions: { transports: ['ipv4'], gracefulRestart: gr },
        },
        {
          name: 'plain',
          impl: 'gobgp',
          as: 65003,
          originate: { ipv4: [PLAIN_NET] },
          speakerSessions: { transports: ['ipv4'] },
        },
      ],
    });
    await lab.exec(lab.speakerNs, ['ip', 'addr', 'add', `${OUR_LO}/32`, 'dev', 'lo']);
    await lab.exec(lab.peer('frr').ns, ['ip', 'addr', 'add', `${FRR_LO}/32`, 'dev', 'lo']);
    await lab.exec(lab.peer('gobgp').ns, ['ip', 'addr', 'add', `${GOBGP_LO}/32`, 'dev', 'lo']);
    speaker = await LabSpeaker.start(lab, doc({ networks: [OUR_NET, OUR_GONE] }));
    await settled([OUR_NET, OUR_GONE]);
  }, 180_000);

  afterAll(async () => {
    await lab?.destroy();
  });

  it('before any restart: both directions forward through the routes BGP put there', async () => {
    expect(await ourKernelRoute(FRR_NET)).toMatchObject({ gateway: lab.peer('frr').address.ipv4 });
    const out = await lab.exec(lab.peer('frr').ns, ['ping', '-c', '2', '-W', '2', '-I', FRR_LO, OUR_LO]);
    expect(out).toMatch(/2 received/);
  });

  it('SIGTERM with graceful restart, a config change and a new process: no packet lost either way; the route we dropped is swept after our End-of-RIB', async () => {
    // Across us: FRR's loopback to ours needs FRR's route to us and our kernel's route to FRR.
    const across = await pinging(lab.peer('frr').ns, OUR_LO, FRR_LO);
    const toGobgp = await pinging(lab.speakerNs, GOBGP_LO);
    const before = speaker.logLines().length;
    await speaker.stop();
    await eventually(
      async () => ((await frrSession()) === 'Established' ? undefined : true),
      'FRR to see us gone',
      FLOW_MS,
    );
    // We are gone: FRR and GoBGP keep our routes, stale; our kernel keeps theirs.
    expect(await frrStale(OUR_NET)).toBe(true);
    expect(await frrStale(OUR_GONE)).toBe(true);
    await eventually(
      async () => ((await gobgpStale(OUR_NET)) ? true : undefined),
      'our route stale at GoBGP',
      FLOW_MS,
    );
    expect(await ourKernelRoute(GOBGP_NET)).toBeDefined();
    const answeredWhileDown = across.replies().length;
    speaker = await LabSpeaker.start(lab, doc({ networks: [OUR_NET] }));
    await speaker.waitEstablished(['frr', 'gobgp', 'plain'], UP_MS);
    await eventually(
      async () => ((await frrHas(OUR_GONE)) ? undefined : true),
      `${OUR_GONE} swept at FRR`,
      FLOW_MS,
    );
    await eventually(
      async () => ((await gobgpHas(OUR_GONE)) ? undefined : true),
      `${OUR_GONE} swept at GoBGP`,
      FLOW_MS,
    );
    expect(await frrHas(OUR_NET)).toBe(true);
    expect(await frrStale(OUR_NET)).toBe(false);
    const log = speaker.logLines().slice(before);
    expect(log.some((l) => /stopped for a restart/.test(l.msg))).toBe(true);
    expect(log.some((l) => /graceful restart done/.test(l.msg))).toBe(true);
    // FRR sets the R bit in every OPEN: it is waited for all the same, until its End-of-RIB.
    expect(log.find((l) => l.peer === 'frr' && /peer ready/.test(l.msg))?.why).toBe(
      'End-of-RIB for every family',
    );
    const a = await across.stop();
    const b = await toGobgp.stop();
    expect(a.lost).toEqual([]);
    expect(b.lost).toEqual([]);
    // The pings went on through the restart, not only before it.
    expect(a.received).toBeGreaterThan(answeredWhileDown);
  }, 180_000);

  it('SIGKILL: the kernel keeps our routes, we come back with the F bit, no packet lost', async () => {
    await settled([OUR_NET]);
    const across = await pinging(lab.peer('frr').ns, OUR_LO, FRR_LO);
    const toGobgp = await pinging(lab.speakerNs, GOBGP_LO);
    const before = speaker.logLines().length;
    process.kill(speaker.pid, 'SIGKILL');
    await eventually(
      async () => ((await frrSession()) === 'Established' ? undefined : true),
      'FRR to see us gone',
      FLOW_MS,
    );
    expect(await frrStale(OUR_NET)).toBe(true);
    // GoBGP, the other helper, keeps ours too (stale) once it sees the connection gone.
    await eventually(
      async () => ((await gobgpStale(OUR_NET)) ? true : undefined),
      'our route stale at GoBGP',
      FLOW_MS,
    );
    expect(await ourKernelRoute(FRR_NET)).toBeDefined();
    expect(await ourKernelRoute(GOBGP_NET)).toBeDefined();
    const answeredWhileDown = across.replies().length;
    speaker = await LabSpeaker.start(lab, doc());
    await settled([OUR_NET]);
    const started = speaker
      .logLines()
      .slice(before)
      .find((l) => /wait for the peers/.test(l.msg));
    expect(started?.kernelKept).toEqual(['ipv4-unicast']);
    await eventually(
      async () => ((await frrStale(OUR_NET)) ? undefined : true),
      'our route fresh at FRR',
      FLOW_MS,
    );
    await eventually(
      async () => ((await gobgpStale(OUR_NET)) ? undefined : true),
      'our route fresh at GoBGP',
      FLOW_MS,
    );
    expect(await gobgpHas(OUR_NET)).toBe(true);
    const a = await across.stop();
    const b = await toGobgp.stop();
    expect(a.lost).toEqual([]);
    expect(b.lost).toEqual([]);
    expect(a.received).toBeGreaterThan(answeredWhileDown);
  }, 180_000);

  it('FRR crashes and comes back: our kernel keeps its routes, no packet lost; what it did not announce again goes after its End-of-RIB', async () => {
    await settled([OUR_NET]);
    await eventually(async () => await ourKernelRoute(FRR_GONE), `${FRR_GONE} in our kernel`, FLOW_MS);
    const toFrr = await pinging(lab.speakerNs, FRR_LO);
    const before = speaker.logLines().length;
    const restart = lab.frr('frr').crashAndRestartBgpd({ ipv4: [FRR_NET] });
    await eventually(
      async () => ((await ribPath(FRR_NET))?.stale ? true : undefined),
      `${FRR_NET} stale in our RIB while FRR is away`,
      FLOW_MS,
    );
    expect(await ourKernelRoute(FRR_GONE)).toBeDefined();
    const answeredWhileDown = toFrr.replies().length;
    await restart;
    await speaker.waitEstablished(['frr'], UP_MS);
    await eventually(
      async () => ((await ourKernelRoute(FRR_GONE)) ? undefined : true),
      `${FRR_GONE} swept`,
      FLOW_MS,
    );
    await eventually(
      async () => ((await ribPath(FRR_NET))?.stale ? undefined : true),
      `${FRR_NET} fresh again`,
      FLOW_MS,
    );
    expect(await ourKernelRoute(FRR_NET)).toBeDefined();
    // Swept because FRR said it was done, not because a timer ran out.
    const sweeps = speaker
      .logLines()
      .slice(before)
      .filter((l) => /sweeping stale routes/.test(l.msg));
    expect(sweeps.map((l) => l.why)).toEqual(['End-of-RIB received']);
    const r = await toFrr.stop();
    expect(r.lost).toEqual([]);
    expect(r.received).toBeGreaterThan(answeredWhileDown);
  }, 180_000);

  it('GoBGP crashes and comes back with --graceful-restart: the same', async () => {
    await eventually(async () => await ourKernelRoute(GOBGP_GONE), `${GOBGP_GONE} in our kernel`, FLOW_MS);
    const toGobgp = await pinging(lab.speakerNs, GOBGP_LO);
    const before = speaker.logLines().length;
    const restart = lab.gobgp('gobgp').crashAndRestart({ ipv4: [GOBGP_NET] });
    await eventually(
      async () => ((await ribPath(GOBGP_NET))?.stale ? true : undefined),
      `${GOBGP_NET} stale in our RIB while GoBGP is away`,
      FLOW_MS,
    );
    const answeredWhileDown = toGobgp.replies().length;
    await restart;
    await speaker.waitEstablished(['gobgp'], UP_MS);
    await eventually(
      async () => ((await ourKernelRoute(GOBGP_GONE)) ? undefined : true),
      `${GOBGP_GONE} swept`,
      FLOW_MS,
    );
    expect(await ourKernelRoute(GOBGP_NET)).toBeDefined();
    const sweeps = speaker
      .logLines()
      .slice(before)
      .filter((l) => /sweeping stale routes/.test(l.msg));
    expect(sweeps.map((l) => l.why)).toEqual(['End-of-RIB received']);
    const r = await toGobgp.stop();
    expect(r.lost).toEqual([]);
    expect(r.received).toBeGreaterThan(answeredWhileDown);
  }, 180_000);

  it('without the capability on their side (plain GoBGP), a crash withdraws its routes at once, as before', async () => {
    await eventually(async () => await ourKernelRoute(PLAIN_NET), `${PLAIN_NET} in our kernel`, FLOW_MS);
    const plain = lab.gobgp('plain');
    const restart = plain.crashAndRestart();
    await eventually(
      async () => ((await ourKernelRoute(PLAIN_NET)) ? undefined : true),
      `${PLAIN_NET} withdrawn`,
      FLOW_MS,
    );
    await restart;
    await eventually(async () => await ourKernelRoute(PLAIN_NET), `${PLAIN_NET} back`, UP_MS);
  }, 180_000);

  it('without the capability on our side, a peer’s crash withdraws its routes at once and SIGTERM is a Cease', async () => {
    // SIGINT: a real shutdown even with graceful restart on; Hard Reset makes FRR withdraw at once.
    process.kill(speaker.pid, 'SIGINT');
    await eventually(
      async () => ((await frrHas(OUR_NET)) ? undefined : true),
      `${OUR_NET} withdrawn at FRR`,
      FLOW_MS,
    );
    await speaker.stop();
    speaker = await LabSpeaker.start(lab, doc({ gr: false }));
    await settled([OUR_NET]);
    const restart = lab.frr('frr').crashAndRestartBgpd();
    await eventually(
      async () => ((await ourKernelRoute(FRR_NET)) ? undefined : true),
      `${FRR_NET} withdrawn`,
      FLOW_MS,
    );
    await restart;
    await eventually(async () => await ourKernelRoute(FRR_NET), `${FRR_NET} back`, UP_MS);
    await speaker.waitEstablished(['frr'], UP_MS);
    await eventually(async () => ((await frrHas(OUR_NET)) ? true : undefined), `${OUR_NET} at FRR`, FLOW_MS);
    await speaker.stop();
    await eventually(
      async () => ((await frrHas(OUR_NET)) ? undefined : true),
      `${OUR_NET} withdrawn at FRR`,
      FLOW_MS,
    );
  }, 240_000);
});
