import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Lab } from '../../frr-interop/lab/index.js';
import type { RibEntryView } from '../../src/api/index.js';
import { eventually, LabSpeaker } from '../speaker/lab-speaker.js';

// The speaker as a route reflector for FRR (RFC 4456), and its decision process next to FRR's:
// given the same two competing paths, the same best path for the same reason.

const IS_ROOT = process.getuid?.() === 0;
const SPEAKER = { as: 65000, routerId: '198.18.0.1' } as const;
const UP_MS = 60_000;
const FLOW_MS = 30_000;
const V4 = { transports: ['ipv4' as const] };
/** Announced by GoBGP (with a longer AS path) and by BIRD, to us and to FRR alike. */
const CONTESTED = '198.19.50.0/24';
/** Originated by the iBGP non-client, reflected to the FRR client. */
const REFLECTED = '198.19.60.0/24';
/** Originated by the FRR client, reflected to the non-client. */
const FROM_CLIENT = '198.19.70.0/24';

interface FrrPath {
  readonly aspath?: { readonly string?: string };
  readonly bestpath?: { readonly overall?: boolean; readonly selectionReason?: string };
  readonly originatorId?: string;
  readonly clusterList?: { readonly list?: readonly string[] };
  readonly peer?: { readonly peerId?: string };
}

describe.skipIf(!IS_ROOT)('the speaker as route reflector, and its best path next to FRR’s', () => {
  let lab: Lab;
  let speaker: LabSpeaker;

  const frrPaths = async (daemon: string, prefix: string): Promise<FrrPath[]> => {
    const text = await lab.frr(daemon).vtysh([`show bgp ipv4 unicast ${prefix} json`]);
    return ((JSON.parse(text) as { paths?: FrrPath[] }).paths ?? []) as FrrPath[];
  };

  beforeAll(async () => {
    lab = await Lab.create({
      id: 'spkreflect',
      speaker: SPEAKER,
      peers: [
        { name: 'frr', impl: 'frr', as: 65001, speakerSessions: V4 },
        { name: 'gobgp', impl: 'gobgp', as: 65002, speakerSessions: V4 },
        { name: 'bird', impl: 'bird', as: 65003, speakerSessions: V4, originate: { ipv4: [CONTESTED] } },
        {
          name: 'client',
          impl: 'frr',
          as: SPEAKER.as,
          speakerSessions: V4,
          originate: { ipv4: [FROM_CLIENT] },
        },
        {
          name: 'ibgp',
          impl: 'gobgp',
          as: SPEAKER.as,
          speakerSessions: V4,
          originate: { ipv4: [REFLECTED] },
        },
      ],
      links: [
        { a: 'frr', b: 'gobgp', session: V4 },
        { a: 'frr', b: 'bird', session: V4 },
      ],
    });
    const peer = (name: string, extra: Record<string, unknown> = {}) => ({
      name,
      peer_ip: lab.peer(name).address.ipv4,
      remote_as: lab.peer(name).as,
      ...extra,
    });
    speaker = await LabSpeaker.start(lab, {
      speaker: {
        name: 'reflector',
        local_as: SPEAKER.as,
        router_id: SPEAKER.routerId,
        listen: { address: '::', port: 179 },
        hold_time: 9,
        connect_retry: 2,
        log: { level: 'info' },
      },
      peers: [
        // FRR has the contested prefix from GoBGP and BIRD directly: neither side passes it on.
        peer('frr', { import: ['not-contested'], export: ['not-contested'] }),
        peer('gobgp', { import: ['all'], export: ['all'] }),
        peer('bird', { import: ['all'], export: ['all'] }),
        peer('client', { route_reflector_client: true, next_hop_self: true }),
        peer('ibgp'),
      ],
      prefix_lists: { contested: [{ action: 'permit', prefix: CONTESTED }] },
      policies: {
        all: { statements: [{ action: 'accept' }] },
        'not-contested': {
          statements: [{ match: { prefix_list: 'contested' }, action: 'reject' }, { action: 'accept' }],
        },
      },
    });
    await speaker.waitEstablished(['frr', 'gobgp', 'bird', 'client', 'ibgp'], UP_MS);
    // GoBGP's path is one AS longer: 65002 65010.
    await lab.gobgp('gobgp').gobgp(['global', 'rib', 'add', '-a', 'ipv4', CONTESTED, 'aspath', '65010']);
  });

  afterAll(async () => {
    await lab?.destroy();
  });

  it('reflects a non-client’s route to the FRR client with ORIGINATOR_ID and CLUSTER_LIST', async () => {
    const ibgp = lab.peer('ibgp');
    const [path] = await eventually(
      async () => {
        // FRR marks the path best only once zebra has resolved its next hop: wait for that too.
        const paths = await frrPaths('client', REFLECTED);
        return paths.some((p) => p.bestpath?.overall) ? paths : undefined;
      },
      `${REFLECTED} at the FRR client, as its best path`,
      FLOW_MS,
    );
    expect(path!.originatorId).toBe(ibgp.routerId);
    expect(path!.clusterList?.list).toEqual([SPEAKER.routerId]);
    expect(path!.bestpath?.overall).toBe(true);
    // Our own view of it: learned from the non-client, iBGP, LOCAL_PREF as sent.
    const [entry] = await speaker.rib(REFLECTED);
    expect(entry!.paths[0]).toMatchObject({ from: 'ibgp', asPath: '', localPref: 100, best: true });
  });

  it('reflects the client’s route to the non-client, and never back to the client', async () => {
    await eventually(
      async () =>
        (await lab.gobgp('ibgp').routes('ipv4')).some((r) => r.prefix === FROM_CLIENT) ? true : undefined,
      `${FROM_CLIENT} at the non-client`,
      FLOW_MS,
    );
    const client = lab.peer('client');
    const atClient = await lab.frr('client').routes('ipv4', { from: client.speakerAddress.ipv4 });
    expect(atClient.some((r) => r.prefix === FROM_CLIENT)).toBe(false);
    const advertised = await speaker.show<RibEntryView[]>(['advertised', 'client']);
    expect(advertised?.map((e) => e.prefix)).not.toContain(FROM_CLIENT);
    expect(advertised?.map((e) => e.prefix)).toContain(REFLECTED);
  });

  it('with the same two paths as FRR, picks the same best path for the same reason', async () => {
    const ours = await eventually(
      async () => {
        const [e] = await speaker.rib(CONTESTED);
        return e?.paths.length === 2 ? e : undefined;
      },
      `two paths for ${CONTESTED} at the speaker`,
      FLOW_MS,
    );
    const theirs = await eventually(
      async () => {
        const paths = await frrPaths('frr', CONTESTED);
        return paths.length === 2 && paths.some((p) => p.bestpath?.overall) ? paths : undefined;
      },
      `two paths for ${CONTESTED} at FRR, one chosen`,
      FLOW_MS,
    );
    expect(ours.paths.map((p) => p.asPath).sort()).toEqual(['65002 65010', '65003']);
    expect(theirs.map((p) => p.aspath?.string).sort()).toEqual(['65002 65010', '65003']);
    const ourBest = ours.paths.find((p) => p.best)!;
    const frrBest = theirs.find((p) => p.bestpath?.overall)!;
    expect(ourBest.asPath).toBe(frrBest.aspath?.string);
    expect(ourBest.reason).toBe(frrBest.bestpath?.selectionReason);
    expect(ourBest).toMatchObject({ from: 'bird', asPath: '65003', reason: 'AS Path' });
  });
});
