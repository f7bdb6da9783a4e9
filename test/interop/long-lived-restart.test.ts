/*
 * RFC 9494 long-lived graceful restart with FRR and GoBGP, forwarding checked with pings: a
 * side away past its (short) Restart Time keeps being forwarded to, its routes tagged
 * LLGR_STALE, which only peers that agreed to long-lived graceful restart get.
 *
 *   lab-frr    lo 198.19.91.1, announces 198.19.91.0/24; Restart Time 1 s, long-lived 300 s
 *   lab-llgr   GoBGP with long-lived graceful restart: sees what we pass on, tags included
 *   lab-plain  GoBGP without it: gets no LLGR_STALE route
 *   speaker    lo 198.19.90.1, announces 198.19.90.0/24; restart_time 2 s, long-lived 300 s
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Lab } from '../../frr-interop/lab/index.js';
import { eventually, LabSpeaker } from '../speaker/lab-speaker.js';
import { Ping } from './support/ping.js';

const IS_ROOT = process.getuid?.() === 0;
const AS = 65000;
const OUR_NET = '198.19.90.0/24';
const OUR_LO = '198.19.90.1';
const FRR_NET = '198.19.91.0/24';
const FRR_LO = '198.19.91.1';
const LLGR_STALE = 0xffff0006;
const LONG_LIVED = 300;
const UP_MS = 60_000;
const FLOW_MS = 45_000;

describe.skipIf(!IS_ROOT)('long-lived graceful restart with FRR and GoBGP', () => {
  let lab: Lab;
  let speaker: LabSpeaker;

  const doc = () => ({
    speaker: {
      name: 'grllgr',
      local_as: AS,
      router_id: '198.18.0.1',
      listen: { address: '::', port: 179 },
      hold_time: 9,
      connect_retry: 2,
      graceful_restart: { enabled: true, restart_time: 2, stale_routes_time: 60 },
      log: { level: 'info' },
    },
    peers: ['frr', 'llgr', 'plain'].map((name) => ({
      name,
      peer_ip: lab.peer(name).address.ipv4,
      remote_as: lab.peer(name).as,
      import: ['all'],
      export: ['all'],
      ...(name !== 'plain' && { long_lived_stale_time: LONG_LIVED }),
    })),
    networks: [OUR_NET],
    policies: { all: { statements: [{ action: 'accept' }] } },
    sinks: { kernel: { on_stop: 'keep' } },
  });

  const ourKernelHas = async (prefix: string) => {
    const out = await lab.exec(lab.speakerNs, ['ip', '-4', '-j', 'route', 'show', 'table', 'main', prefix]);
    return (JSON.parse(out || '[]') as unknown[]).length > 0;
  };
  /** GoBGP's paths of a prefix as its CLI prints them (JSON), [] when it has none. */
  const gobgpPaths = async (name: string, prefix: string): Promise<unknown[]> => {
    const out = await lab.gobgp(name).gobgp(['global', 'rib', prefix, '-j']);
    return Object.values(JSON.parse(out || '{}') as Record<string, unknown[]>).flat();
  };
  const taggedStale = (paths: unknown[]) =>
    paths.length > 0 && JSON.stringify(paths).includes(String(LLGR_STALE));
  /** FRR's path of a prefix from us: present, and whether FRR tagged it llgr-stale. */
  const frrPath = async (prefix: string) => {
    const out = await lab.frr('frr').vtysh([`show bgp ipv4 unicast ${prefix} json`]);
    const [p] = (JSON.parse(out) as { paths?: { community?: { string?: string } }[] }).paths ?? [];
    return p && { llgrStale: p.community?.string?.includes('llgr-stale') === true };
  };
  const ribPath = async (prefix: string) => (await speaker.rib(prefix))[0]?.paths[0];

  async function settled(): Promise<void> {
    await speaker.waitEstablished(['frr', 'llgr', 'plain'], UP_MS);
    await eventually(
      async () => ((await ourKernelHas(FRR_NET)) ? true : undefined),
      'FRR’s route in our kernel',
      FLOW_MS,
    );
    await eventually(async () => await frrPath(OUR_NET), 'our route at FRR', FLOW_MS);
    for (const g of ['llgr', 'plain']) {
      await eventually(
        async () => ((await gobgpPaths(g, FRR_NET)).length > 0 ? true : undefined),
        `FRR’s route at ${g}`,
        FLOW_MS,
      );
    }
  }

  const pinging = (ns: string, target: string, source?: string): Promise<Ping> =>
    Ping.answered(lab, 'gr-llping', ns, target, source, FLOW_MS);

  beforeAll(async () => {
    lab = await Lab.create({
      id: 'grllgr',
      speaker: { as: AS, routerId: '198.18.0.1' },
      peers: [
        {
          name: 'frr',
          impl: 'frr',
          as: 65001,
          originate: { ipv4: [FRR_NET] },
          speakerSessions: {
            transports: ['ipv4'],
            gracefulRestart: { restartTime: 1, longLivedStaleTime: LONG_LIVED },
          },
        },
        {
          name: 'llgr',
          impl: 'gobgp',
          as: 65002,
          speakerSessions: {
            transports: ['ipv4'],
            gracefulRestart: { restartTime: 1, longLivedStaleTime: LONG_LIVED },
          },
        },
        { name: 'plain', impl: 'gobgp', as: 65003, speakerSessions: { transports: ['ipv4'] } },
      ],
    });
    await lab.exec(lab.speakerNs, ['ip', 'addr', 'add', `${OUR_LO}/32`, 'dev', 'lo']);
    await lab.exec(lab.peer('frr').ns, ['ip', 'addr', 'add', `${FRR_LO}/32`, 'dev', 'lo']);
    speaker = await LabSpeaker.start(lab, doc());
    await settled();
  }, 180_000);

  afterAll(async () => {
    await lab?.destroy();
  });

  it('FRR away past its Restart Time: our kernel keeps its route, tagged LLGR_STALE, passed on only to the LLGR peer; no packet lost', async () => {
    const toFrr = await pinging(lab.speakerNs, FRR_LO);
    const back = lab.frr('frr').crashAndRestartBgpd(undefined, 6000);
    await eventually(
      async () => ((await ribPath(FRR_NET))?.longLivedStale ? true : undefined),
      `${FRR_NET} long-lived stale in our RIB`,
      FLOW_MS,
    );
    expect(await ourKernelHas(FRR_NET)).toBe(true);
    await eventually(
      async () => (taggedStale(await gobgpPaths('llgr', FRR_NET)) ? true : undefined),
      'the LLGR peer to get it with LLGR_STALE',
      FLOW_MS,
    );
    await eventually(
      async () => ((await gobgpPaths('plain', FRR_NET)).length === 0 ? true : undefined),
      'the peer without LLGR to get a withdrawal',
      FLOW_MS,
    );
    const answeredWhileDown = toFrr.replies().length;
    await back;
    await speaker.waitEstablished(['frr'], UP_MS);
    await eventually(
      async () => ((await ribPath(FRR_NET))?.stale ? undefined : true),
      `${FRR_NET} fresh again`,
      FLOW_MS,
    );
    await eventually(
      async () => ((await gobgpPaths('plain', FRR_NET)).length > 0 ? true : undefined),
      'the route back at the peer without LLGR',
      FLOW_MS,
    );
    await eventually(
      async () => {
        const paths = await gobgpPaths('llgr', FRR_NET);
        // Still there, only without the tag.
        return paths.length > 0 && !taggedStale(paths) ? true : undefined;
      },
      'the tag gone at the LLGR peer',
      FLOW_MS,
    );
    const r = await toFrr.stop();
    expect(r.lost).toEqual([]);
    expect(r.received).toBeGreaterThan(answeredWhileDown);
  }, 180_000);

  it('us away past our Restart Time: FRR keeps our route as llgr-stale and keeps forwarding; no packet lost', async () => {
    await settled();
    const across = await pinging(lab.peer('frr').ns, OUR_LO, FRR_LO);
    await speaker.stop();
    // Our restart_time is 2 s: FRR moves our route to long-lived stale before we are back.
    await eventually(
      async () => ((await frrPath(OUR_NET))?.llgrStale ? true : undefined),
      'our route llgr-stale at FRR',
      FLOW_MS,
    );
    const answeredWhileDown = across.replies().length;
    speaker = await LabSpeaker.start(lab, doc());
    await settled();
    await eventually(
      async () => ((await frrPath(OUR_NET))?.llgrStale === false ? true : undefined),
      'our route fresh at FRR',
      FLOW_MS,
    );
    const r = await across.stop();
    expect(r.lost).toEqual([]);
    expect(r.received).toBeGreaterThan(answeredWhileDown);
  }, 180_000);
});
