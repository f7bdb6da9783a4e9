import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Lab } from '../../frr-interop/lab/index.js';
import { eventually, LabSpeaker } from '../speaker/lab-speaker.js';

// Protocol rows against GoBGP through the running speaker: a route whose NEXT_HOP is our own
// address is not accepted (RFC 4271 section 6.3, treat-as-withdraw) while the session stays
// up; a non-transitive extended community that export policy adds does not reach an eBGP
// peer (RFC 4360 section 6) while a transitive one does; enhanced_route_refresh puts the
// RFC 7313 capability in our OPEN, as GoBGP reports it.

const IS_ROOT = process.getuid?.() === 0;
const SPEAKER = { as: 65000, routerId: '198.18.0.1' } as const;
const UP_MS = 60_000;
const FLOW_MS = 30_000;
const V4 = { transports: ['ipv4' as const] };

/** Sent with our own address as next hop: never a route. */
const OWN_NEXT_HOP = '198.19.31.0/24';
/** Sent normally, after OWN_NEXT_HOP: when it has arrived, the other was handled. */
const NORMAL = '198.19.32.0/24';
const EXTENDED_COMMUNITIES = 16;

interface GobgpExt {
  readonly type: number;
  readonly subtype: number;
  readonly value: string;
}
interface GobgpPath {
  readonly attrs?: readonly { readonly type: number; readonly value?: unknown }[];
}

describe.skipIf(!IS_ROOT)(
  'protocol rows with GoBGP: own next hop, non-transitive extended communities, enhanced route refresh',
  () => {
    let lab: Lab;
    let speaker: LabSpeaker;

    const extAtDst = async (prefix: string): Promise<GobgpExt[] | undefined> => {
      const text = await lab.gobgp('dst').gobgp(['global', 'rib', '-a', 'ipv4', prefix, '-j']);
      const path = (JSON.parse(text) as Record<string, readonly GobgpPath[]>)[prefix]?.[0];
      if (path === undefined) return undefined;
      return (path.attrs?.find((a) => a.type === EXTENDED_COMMUNITIES)?.value ?? []) as GobgpExt[];
    };

    beforeAll(async () => {
      lab = await Lab.create({
        id: 'pgproto',
        speaker: SPEAKER,
        peers: [
          { name: 'src', impl: 'gobgp', as: 65001, speakerSessions: V4 },
          { name: 'dst', impl: 'gobgp', as: 65002, speakerSessions: V4 },
        ],
      });
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
          {
            name: 'src',
            peer_ip: src.address.ipv4,
            remote_as: src.as,
            import: ['accept-all'],
            export: ['reject-all'],
            enhanced_route_refresh: true,
          },
          {
            name: 'dst',
            peer_ip: dst.address.ipv4,
            remote_as: dst.as,
            import: ['reject-all'],
            export: ['tag'],
          },
        ],
        policies: {
          tag: {
            statements: [
              {
                set: { extended_communities: { add: ['rt:65000:1', '0x4300:000000000007'] } },
                action: 'accept',
              },
            ],
          },
        },
      });
      await speaker.waitEstablished(['src', 'dst'], UP_MS);
      const gobgp = lab.gobgp('src');
      await gobgp.gobgp([
        'global',
        'rib',
        'add',
        '-a',
        'ipv4',
        OWN_NEXT_HOP,
        'nexthop',
        src.speakerAddress.ipv4,
      ]);
      await gobgp.gobgp(['global', 'rib', 'add', '-a', 'ipv4', NORMAL]);
    });

    afterAll(async () => {
      await lab?.destroy();
    });

    it('a route whose NEXT_HOP is our own address is not accepted; the session stays up', async () => {
      await eventually(
        async () => ((await speaker.rib(NORMAL)).some((e) => e.paths.some((p) => p.best)) ? true : undefined),
        `${NORMAL} accepted`,
        FLOW_MS,
      );
      expect(await speaker.rib(OWN_NEXT_HOP)).toEqual([]);
      const received = await speaker.show<{ prefix: string }[]>(['received', 'src']);
      expect(received?.map((e) => e.prefix)).not.toContain(OWN_NEXT_HOP);
      expect((await speaker.neighbor('src'))?.state).toBe('Established');
      expect(speaker.logLines().some((l) => JSON.stringify(l).includes('next-hop-own-address'))).toBe(true);
    });

    it('export: the eBGP peer gets the transitive route target, not the non-transitive community', async () => {
      const ext = await eventually(() => extAtDst(NORMAL), `${NORMAL} at dst`, FLOW_MS);
      expect(ext.map((c) => `${c.type}/${c.subtype} ${c.value}`)).toEqual([`0/2 65000:1`]);
      const ours = await speaker.rib(NORMAL);
      expect(ours[0]?.paths[0]?.extendedCommunities).toEqual([]);
    });

    it('enhanced_route_refresh: GoBGP receives the RFC 7313 capability in our OPEN', async () => {
      const src = lab.peer('src');
      const text = await lab.gobgp('src').gobgp(['neighbor', src.speakerAddress.ipv4]);
      // "enhanced-route-refresh: received" (GoBGP does not offer it itself), one line per capability.
      const line = text.split('\n').find((l) => l.includes('enhanced-route-refresh'));
      expect(line, text).toMatch(/received/);
    });
  },
);
