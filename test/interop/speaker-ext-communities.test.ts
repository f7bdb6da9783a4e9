import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type DaemonRelease, Lab, type LabPeerOptions } from '../../frr-interop/lab/index.js';
import { eventually, LabSpeaker } from '../speaker/lab-speaker.js';

// Extended communities (RFC 4360) through the running speaker: an upstream peer sends routes
// with route targets, our import policy accepts or rejects them by route target, our export
// policy removes one and adds a route target and a site of origin, and a downstream peer of
// the same implementation shows what arrived. The built-in reject-all closes the other two
// directions. Upstream and downstream are GoBGP 3.10 (routes added over its API), BIRD 2.0
// from the host and BIRD 3.1 from the trixie root (static routes carrying the communities).

const IS_ROOT = process.getuid?.() === 0;
const SPEAKER = { as: 65000, routerId: '198.18.0.1' } as const;
const UP_MS = 60_000;
const FLOW_MS = 30_000;
const V4 = { transports: ['ipv4' as const] };

/** Route target red only: accepted. */
const RED = '198.19.5.0/24';
/** Route target blue only: rejected by our import policy. */
const BLUE = '198.19.6.0/24';
/** Red and 65001:300: accepted, and 65001:300 is removed on export. */
const RED_AND_MORE = '198.19.7.0/24';
/** Sent by the downstream peer, which our built-in reject-all import refuses. */
const FROM_DST = '198.19.8.0/24';
/** What the upstream peer sends: prefix and route targets. */
const SENT: readonly (readonly [string, readonly string[]])[] = [
  [RED, ['65001:100']],
  [BLUE, ['65001:200']],
  [RED_AND_MORE, ['65001:100', '65001:300']],
];

/** One extended community as `gobgp global rib -j` prints it. */
interface GobgpExt {
  readonly type: number;
  readonly subtype: number;
  readonly value: string;
}
interface GobgpPath {
  readonly attrs?: readonly { readonly type: number; readonly value?: unknown }[];
}
const EXTENDED_COMMUNITIES = 16;

/** How one implementation is set up as upstream and downstream, and how it shows a route's communities. */
interface Variant {
  readonly title: string;
  readonly labId: string;
  /** The two peers: src (upstream, AS 65001) and dst (downstream, AS 65002). */
  readonly peers: readonly LabPeerOptions[];
  /** Makes src send SENT and dst send FROM_DST, once the sessions are up. */
  readonly send: (lab: Lab) => Promise<void>;
  /** The extended communities of `prefix` at dst, as sorted "rt 65001:100" texts; undefined: no route. */
  readonly downstream: (lab: Lab, prefix: string) => Promise<string[] | undefined>;
}

const gobgp: Variant = {
  title: 'GoBGP',
  labId: 'ecextcomm',
  peers: [
    { name: 'src', impl: 'gobgp', as: 65001, speakerSessions: V4 },
    { name: 'dst', impl: 'gobgp', as: 65002, speakerSessions: V4 },
  ],
  send: async (lab) => {
    for (const [prefix, rts] of SENT)
      await lab
        .gobgp('src')
        .gobgp(['global', 'rib', 'add', '-a', 'ipv4', prefix, ...rts.flatMap((r) => ['rt', r])]);
    await lab.gobgp('dst').gobgp(['global', 'rib', 'add', '-a', 'ipv4', FROM_DST]);
  },
  downstream: async (lab, prefix) => {
    const text = await lab.gobgp('dst').gobgp(['global', 'rib', '-a', 'ipv4', prefix, '-j']);
    const doc = JSON.parse(text) as Record<string, readonly GobgpPath[]>;
    const path = doc[prefix]?.[0];
    if (path === undefined) return undefined;
    const attr = path.attrs?.find((a) => a.type === EXTENDED_COMMUNITIES);
    const list = (attr?.value ?? []) as readonly GobgpExt[];
    return list
      .map((c) => `${c.subtype === 2 ? 'rt' : c.subtype === 3 ? 'soo' : `0x${c.subtype}`} ${c.value}`)
      .sort();
  },
};

/** BIRD: src's routes are static routes that carry their route targets from the start. */
function bird(release: DaemonRelease, title: string, labId: string): Variant {
  const statics = SENT.map(
    ([prefix, rts]) =>
      ` route ${prefix} blackhole { ${rts.map((rt) => `bgp_ext_community.add((rt, ${rt.replace(':', ', ')}));`).join(' ')} };`,
  );
  return {
    title,
    labId,
    peers: [
      {
        name: 'src',
        impl: 'bird',
        release,
        as: 65001,
        speakerSessions: V4,
        extraConfig: [`protocol static rt_src { ipv4;${statics.join('')} }`],
      },
      { name: 'dst', impl: 'bird', release, as: 65002, speakerSessions: V4, originate: { ipv4: [FROM_DST] } },
    ],
    send: async () => {},
    downstream: async (lab, prefix) => {
      const from = lab.peer('dst').speakerAddress.ipv4;
      const route = (await lab.bird('dst').routes('ipv4', { from })).find((r) => r.prefix === prefix);
      return route && [...(route.extCommunities ?? [])].sort();
    },
  };
}

const VARIANTS: readonly Variant[] = [
  gobgp,
  bird('bookworm', 'BIRD 2.0', 'ecextbird2'),
  bird('trixie', 'BIRD 3.1', 'ecextbird3'),
];

describe.skipIf(!IS_ROOT).each(VARIANTS.map((v) => [v.title, v] as const))(
  'extended communities: import match, export set and remove, seen by %s',
  (_title, v) => {
    let lab: Lab;
    let speaker: LabSpeaker;

    const downstream = (prefix: string) => v.downstream(lab, prefix);

    beforeAll(async () => {
      lab = await Lab.create({ id: v.labId, speaker: SPEAKER, peers: v.peers });
      const src = lab.peer('src');
      const dst = lab.peer('dst');
      speaker = await LabSpeaker.start(lab, {
        speaker: {
          name: 'interop',
          local_as: SPEAKER.as,
          router_id: SPEAKER.routerId,
          listen: { address: '::', port: 179 },
          hold_time: 9,
          connect_retry: 2,
          log: { level: 'info' },
        },
        peers: [
          // reject-all and accept-all are built in; no policy of that name is defined below.
          {
            name: 'src',
            peer_ip: src.address.ipv4,
            remote_as: src.as,
            import: ['red-only'],
            export: ['reject-all'],
          },
          {
            name: 'dst',
            peer_ip: dst.address.ipv4,
            remote_as: dst.as,
            import: ['reject-all'],
            export: ['retag'],
          },
        ],
        extended_community_lists: { red: [{ action: 'permit', communities: ['rt:65001:100'] }] },
        policies: {
          'red-only': { statements: [{ match: { extended_community_list: 'red' }, action: 'accept' }] },
          retag: {
            statements: [
              {
                set: {
                  extended_communities: { remove: ['rt 65001:300'], add: ['rt:65000:1', 'soo:198.18.0.1:7'] },
                },
                action: 'accept',
              },
            ],
          },
        },
      });
      await speaker.waitEstablished(['src', 'dst'], UP_MS);
      await v.send(lab);
    });

    afterAll(async () => {
      await lab?.destroy();
    });

    it('import: routes whose route target the list permits are accepted, the others rejected', async () => {
      for (const prefix of [RED, RED_AND_MORE]) {
        await eventually(
          async () =>
            (await speaker.rib(prefix)).some((e) => e.paths.some((p) => p.best)) ? true : undefined,
          `${prefix} accepted`,
          FLOW_MS,
        );
      }
      const received = await speaker.show<{ prefix: string }[]>(['received', 'src']);
      expect(received?.map((e) => e.prefix)).toContain(BLUE);
      const blue = await speaker.rib(BLUE);
      expect(blue.flatMap((e) => e.paths).some((p) => p.best)).toBe(false);
    });

    it('export: the downstream peer sees the route target removed and the added ones, and not the rejected route', async () => {
      const red = await eventually(() => downstream(RED), `${RED} at dst`, FLOW_MS);
      expect(red).toEqual(['rt 65000:1', 'rt 65001:100', 'soo 198.18.0.1:7']);
      const more = await eventually(() => downstream(RED_AND_MORE), `${RED_AND_MORE} at dst`, FLOW_MS);
      expect(more).toEqual(['rt 65000:1', 'rt 65001:100', 'soo 198.18.0.1:7']);
      expect(await downstream(BLUE)).toBeUndefined();
    });

    it('reject-all: nothing goes back to the source and nothing is taken from the downstream peer', async () => {
      const atSrc = await lab
        .peer('src')
        .daemon.routes('ipv4', { from: lab.peer('src').speakerAddress.ipv4 });
      expect(atSrc).toEqual([]);
      await eventually(
        async () => {
          const r = await speaker.show<{ prefix: string }[]>(['received', 'dst']);
          return r?.some((e) => e.prefix === FROM_DST) ? true : undefined;
        },
        `${FROM_DST} received from dst`,
        FLOW_MS,
      );
      const entries = await speaker.rib(FROM_DST);
      expect(entries.flatMap((e) => e.paths).some((p) => p.best)).toBe(false);
    });
  },
);
