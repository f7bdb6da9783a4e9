import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type Family, Lab, type LabPeer } from '../../frr-interop/lab/index.js';
import type { NeighborDetail, RibEntryView } from '../../src/api/index.js';
import { eventually, LabSpeaker } from '../speaker/lab-speaker.js';

// The running speaker (`ovn-bgp-speaker run --config FILE`) in the lab's speaker namespace with
// FRR 8.4, GoBGP 3.10 and BIRD 2 around it, each over IPv4 and IPv6: routes both ways,
// withdrawals, import and export policy, RFC 8212 and max-prefix, asserted on the `show`
// commands' JSON output and on what each daemon reports.

const IS_ROOT = process.getuid?.() === 0;
const SPEAKER = { as: 65000, routerId: '198.18.0.1' } as const;
const UP_MS = 60_000;
const FLOW_MS = 30_000;

interface PeerDef {
  readonly name: 'frr' | 'gobgp' | 'bird';
  readonly impl: 'frr' | 'gobgp' | 'bird';
  readonly as: number;
  readonly originate: Readonly<Record<Family, readonly string[]>>;
}
const PEERS: readonly PeerDef[] = [
  {
    name: 'frr',
    impl: 'frr',
    as: 65001,
    originate: { ipv4: ['198.19.1.0/24', '198.19.11.0/24'], ipv6: ['2001:db8:a1::/48', '2001:db8:a2::/48'] },
  },
  {
    name: 'gobgp',
    impl: 'gobgp',
    as: 65002,
    originate: { ipv4: ['198.19.2.0/24'], ipv6: ['2001:db8:b1::/48'] },
  },
  {
    name: 'bird',
    impl: 'bird',
    as: 65003,
    originate: { ipv4: ['198.19.3.0/24', '198.19.13.0/24'], ipv6: ['2001:db8:c1::/48'] },
  },
];
/** FRR's prefix our import policy drops. */
const DROPPED = '198.19.11.0/24';
const OURS: Readonly<Record<Family, readonly string[]>> = {
  ipv4: ['198.19.200.0/24', '198.19.201.0/24'],
  ipv6: ['2001:db8:c8::/48', '2001:db8:c9::/48'],
};
const TAG = '65000:4242';
const FAMILIES: readonly Family[] = ['ipv4', 'ipv6'];
const sessionName = (p: { name: string }, f: Family) => `${p.name}${f === 'ipv4' ? 4 : 6}`;
const SESSIONS = PEERS.flatMap((p) => FAMILIES.map((f) => sessionName(p, f)));

interface Options {
  readonly rfc8212Bird?: boolean;
  readonly maxPrefix?: boolean;
  readonly withoutRoute?: string;
}

/** The speaker's configuration file, as an operator writes it. */
function configDoc(lab: Lab, o: Options = {}): Record<string, unknown> {
  const peers = lab.peers.flatMap((p) =>
    FAMILIES.map((f) => {
      const name = sessionName(p, f);
      const bare = o.rfc8212Bird && name === 'bird4';
      const limit = o.maxPrefix && (name === 'frr6' || name === 'bird4');
      return {
        name,
        peer_ip: p.address[f],
        remote_as: p.as,
        ...(!bare && { import: [name === 'frr4' ? 'from-frr' : 'all'] }),
        ...(!bare && { export: [name === 'frr4' ? 'to-frr' : 'all'] }),
        ...(limit && { max_prefixes: { limit: 1 } }),
      };
    }),
  );
  const routes = [
    { prefix: OURS.ipv4[0], communities: ['65000:200'] },
    { prefix: OURS.ipv4[1] },
    { prefix: OURS.ipv6[0] },
  ].filter((r) => r.prefix !== o.withoutRoute);
  return {
    speaker: {
      name: 'interop',
      local_as: SPEAKER.as,
      router_id: SPEAKER.routerId,
      listen: { address: '::', port: 179 },
      hold_time: 9,
      connect_retry: 2,
      log: { level: 'info' },
    },
    peers,
    routes,
    networks: [OURS.ipv6[1]],
    prefix_lists: { 'frr-drop': [{ action: 'permit', prefix: DROPPED }] },
    policies: {
      all: { statements: [{ action: 'accept' }] },
      'from-frr': {
        statements: [{ match: { prefix_list: 'frr-drop' }, action: 'reject' }, { action: 'accept' }],
      },
      'to-frr': { statements: [{ set: { communities: { add: [TAG] } }, action: 'accept' }] },
    },
  };
}

const bestOf = (e: RibEntryView | undefined) => e?.paths.find((p) => p.best);

describe.skipIf(!IS_ROOT)('the speaker with FRR, GoBGP and BIRD', () => {
  let lab: Lab;
  let speaker: LabSpeaker;
  const peer = (name: string): LabPeer => lab.peer(name);

  beforeAll(async () => {
    lab = await Lab.create({
      id: 'spkroutes',
      speaker: SPEAKER,
      peers: PEERS.map((p) => ({ name: p.name, impl: p.impl, as: p.as, originate: p.originate })),
    });
    speaker = await LabSpeaker.start(lab, configDoc(lab));
    await speaker.waitEstablished(SESSIONS, UP_MS);
  });

  afterAll(async () => {
    await lab?.destroy();
  });

  it('learns every daemon’s IPv4 and IPv6 prefixes, each from its session with the daemon’s AS', async () => {
    for (const p of PEERS) {
      for (const f of FAMILIES) {
        for (const prefix of p.originate[f].filter((x) => x !== DROPPED)) {
          const [entry] = await eventually(
            async () => {
              const e = await speaker.rib(prefix);
              return e.some((x) => x.paths.some((q) => q.from === sessionName(p, f))) ? e : undefined;
            },
            `${prefix} from ${sessionName(p, f)} in show rib`,
            FLOW_MS,
          );
          const path = entry!.paths.find((q) => q.from === sessionName(p, f))!;
          expect(path).toMatchObject({ asPath: String(p.as), nextHop: peer(p.name).address[f], best: true });
        }
      }
    }
  });

  it('its static routes reach every daemon with our AS first and our address on that link as next hop', async () => {
    for (const p of lab.peers) {
      for (const f of FAMILIES) {
        const routes = await eventually(
          async () => {
            const r = await p.daemon.routes(f, { from: p.speakerAddress[f] });
            return OURS[f].every((x) => r.some((y) => y.prefix === x)) ? r : undefined;
          },
          `our ${f} routes at ${p.name}`,
          FLOW_MS,
        );
        for (const prefix of OURS[f]) {
          const r = routes.find((x) => x.prefix === prefix)!;
          expect(r.asPath).toEqual([SPEAKER.as]);
          expect(r.nextHops).toContain(p.speakerAddress[f]);
        }
        // The other daemons' routes pass through us: our AS, then theirs.
        const other = PEERS.find((x) => x.name !== p.name)!;
        const through = routes.find((x) => x.prefix === other.originate[f][0]);
        expect(through?.asPath).toEqual([SPEAKER.as, other.as]);
      }
    }
  });

  it('policies: the import prefix list drops one prefix; the export policy’s community reaches FRR only', async () => {
    expect(await speaker.rib(DROPPED)).toEqual([]);
    const received = await speaker.show<RibEntryView[]>(['received', 'frr4']);
    expect(received?.map((e) => e.prefix)).toContain(DROPPED);
    const [, frrView] = await eventually(
      async () => {
        const text = await lab.frr('frr').vtysh([`show bgp ipv4 unicast ${OURS.ipv4[0]} json`]);
        const doc = JSON.parse(text) as { paths?: { community?: { string?: string } }[] };
        const c = doc.paths?.[0]?.community?.string;
        return c?.includes(TAG) ? [doc, c] : undefined;
      },
      'the community at FRR',
      FLOW_MS,
    );
    expect(frrView.split(' ').sort()).toEqual(['65000:200', TAG].sort());
    const advertised = await speaker.show<RibEntryView[]>(['advertised', 'gobgp4', OURS.ipv4[0]]);
    expect(advertised?.[0]?.paths[0]?.communities).toEqual(['65000:200']);
    const viaFrr = await speaker.show<RibEntryView[]>(['advertised', 'frr4', OURS.ipv4[0]]);
    expect(viaFrr?.[0]?.paths[0]?.communities).toEqual(['65000:200', TAG]);
  });

  it('withdrawals propagate: a daemon’s withdrawal leaves our table and the others’; a route removed by reload leaves every daemon', async () => {
    const gone = PEERS[1]!.originate.ipv4[0]!;
    await lab.gobgp('gobgp').withdraw([gone]);
    await eventually(
      async () => ((await speaker.rib(gone)).length === 0 ? true : undefined),
      `${gone} gone from ours`,
      FLOW_MS,
    );
    for (const name of ['frr', 'bird']) {
      await eventually(
        async () =>
          (await peer(name).daemon.routes('ipv4')).some((r) => r.prefix === gone) ? undefined : true,
        `${gone} gone from ${name}`,
        FLOW_MS,
      );
    }
    const removed = OURS.ipv4[1]!;
    const outcome = await speaker.reload(configDoc(lab, { withoutRoute: removed }));
    expect(outcome.msg).toBe('configuration reloaded');
    for (const p of lab.peers) {
      await eventually(
        async () => ((await p.daemon.routes('ipv4')).some((r) => r.prefix === removed) ? undefined : true),
        `${removed} withdrawn from ${p.name}`,
        FLOW_MS,
      );
      expect((await p.daemon.routes('ipv4')).some((r) => r.prefix === OURS.ipv4[0])).toBe(true);
    }
    await lab.gobgp('gobgp').announce([gone]);
    await eventually(
      async () => ((await speaker.rib(gone)).length ? true : undefined),
      `${gone} back`,
      FLOW_MS,
    );
  });

  it('RFC 8212: without policies the eBGP peer gets nothing and gives nothing; the session stays up', async () => {
    const bird = peer('bird');
    const before = (await speaker.show<NeighborDetail[]>(['neighbors', 'bird4']))![0]!;
    const seen = speaker.logLines().length;
    await speaker.reload(configDoc(lab, { rfc8212Bird: true, withoutRoute: OURS.ipv4[1] }));
    await eventually(
      async () =>
        (await bird.daemon.routes('ipv4', { from: bird.speakerAddress.ipv4 })).length === 0
          ? true
          : undefined,
      'every route withdrawn from BIRD’s IPv4 session',
      FLOW_MS,
    );
    await eventually(
      async () => (bestOf((await speaker.rib('198.19.3.0/24'))[0]) === undefined ? true : undefined),
      'BIRD’s IPv4 routes rejected',
      FLOW_MS,
    );
    const received = await speaker.show<RibEntryView[]>(['received', 'bird4']);
    expect(received?.map((e) => e.prefix).sort()).toEqual(['198.19.13.0/24', '198.19.3.0/24']);
    const after = (await speaker.show<NeighborDetail[]>(['neighbors', 'bird4']))![0]!;
    expect(after.state).toBe('Established');
    expect(after.establishedTransitions).toBe(before.establishedTransitions);
    const warnings = speaker
      .logLines()
      .slice(seen)
      .filter((l) => /RFC 8212/.test(l.msg));
    expect(warnings.map((l) => l.msg).sort()).toEqual([
      'RFC 8212: no export policy configured for eBGP peer bird4: advertising no routes',
      'RFC 8212: no import policy configured for eBGP peer bird4: rejecting all routes',
    ]);
    // BIRD's IPv6 session was not touched and still has our routes.
    expect((await bird.daemon.routes('ipv6', { from: bird.speakerAddress.ipv6 })).length).toBeGreaterThan(0);
    await speaker.reload(configDoc(lab, { withoutRoute: OURS.ipv4[1] }));
    await eventually(
      async () =>
        (await bird.daemon.routes('ipv4', { from: bird.speakerAddress.ipv4 })).length > 0 ? true : undefined,
      'routes back at BIRD',
      FLOW_MS,
    );
  });

  it('max-prefix: over the limit we send Cease/1, which FRR and BIRD report; lifting the limit brings the sessions back', async () => {
    await speaker.reload(configDoc(lab, { maxPrefix: true, withoutRoute: OURS.ipv4[1] }));
    const frr = await eventually(
      async () => {
        const n = await lab.frr('frr').neighbor(peer('frr').speakerAddress.ipv6);
        return n?.lastNotification?.code === 6 ? n : undefined;
      },
      'FRR’s last NOTIFICATION',
      FLOW_MS,
    );
    expect(frr.lastNotification).toMatchObject({ code: 6, subcode: 1, direction: 'received' });
    const bird = await eventually(
      async () => {
        const n = await lab.bird('bird').neighbor(peer('bird').speakerAddress.ipv4);
        return n?.lastError && /prefix/i.test(n.lastError) ? n : undefined;
      },
      'BIRD’s last error',
      FLOW_MS,
    );
    expect(bird.lastError).toMatch(/^Received: .*[Mm]aximum number of prefixes/);
    const [ours] = (await speaker.show<NeighborDetail[]>(['neighbors', 'frr6']))!;
    expect(ours!.lastNotification).toMatchObject({ direction: 'sent', code: 6, subcode: 1 });
    expect(ours!.state).not.toBe('Established');
    // The other sessions of the same daemons stayed up.
    expect((await speaker.neighbor('frr4'))!.state).toBe('Established');
    await speaker.reload(configDoc(lab, { withoutRoute: OURS.ipv4[1] }));
    await speaker.waitEstablished(SESSIONS, UP_MS);
  });
});
