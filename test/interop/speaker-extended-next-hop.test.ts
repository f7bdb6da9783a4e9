/*
 * RFC 8950 extended next hop against FRR 8.4 over IPv6-only links (the IPv4 addresses of the
 * lab's veths are removed): with `extended_next_hop: true` on our side and `neighbor X
 * capability extended-nexthop` on FRR's, IPv4 routes go both ways with IPv6 next hops, and the
 * kernel sink installs FRR's IPv4 route via its IPv6 address (RTA_VIA). A second FRR without the
 * capability gets our IPv6 routes but no IPv4 route at all. BIRD 2.0 (host) and BIRD 3.1
 * (trixie root), with `extended next hop on` in their IPv4 channel, do the same as the first FRR.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Lab } from '../../frr-interop/lab/index.js';
import type { NeighborDetail } from '../../src/api/index.js';
import { eventually, LabSpeaker } from '../speaker/lab-speaker.js';

const IS_ROOT = process.getuid?.() === 0;
const AS = 65000;
const FLOW_MS = 30_000;
/** Originated by the FRR that negotiates extended next hop. */
const FRR_V4 = '198.19.60.0/24';
const FRR_V6 = '2001:db8:60::/48';
/** Originated by us. */
const OUR_V4 = '198.19.61.0/24';
const OUR_V6 = '2001:db8:61::/48';
const KERNEL_TABLE = 100;
/** The BIRDs that negotiate extended next hop, each originating an IPv4 prefix of its own. */
const BIRDS = [
  ['BIRD 2.0', { name: 'bird2', release: 'bookworm', as: 65003, v4: '198.19.62.0/24' }],
  ['BIRD 3.1', { name: 'bird3', release: 'trixie', as: 65004, v4: '198.19.63.0/24' }],
] as const;
const SESSION = { transports: ['ipv6' as const], families: ['ipv4' as const, 'ipv6' as const] };

describe.skipIf(!IS_ROOT)('extended next hop (RFC 8950) with FRR and BIRD over IPv6-only links', () => {
  let lab: Lab;
  let speaker: LabSpeaker;
  let config: Record<string, unknown>;
  const kernelRoute = async (prefix: string) => {
    const out = await lab.exec(lab.speakerNs, [
      'ip',
      '-4',
      '-j',
      'route',
      'show',
      'table',
      String(KERNEL_TABLE),
      prefix,
    ]);
    const [r] = JSON.parse(out || '[]') as { via?: { family: string; host: string }; dev?: string }[];
    return r;
  };

  beforeAll(async () => {
    lab = await Lab.create({
      id: 'extnh',
      speaker: { as: AS, routerId: '198.18.0.1' },
      peers: [
        {
          name: 'enhe',
          impl: 'frr',
          as: 65001,
          originate: { ipv4: [FRR_V4], ipv6: [FRR_V6] },
          speakerSessions: { ...SESSION, extendedNextHop: true },
        },
        { name: 'plain', impl: 'frr', as: 65002, speakerSessions: SESSION },
        ...BIRDS.map(([, b]) => ({
          name: b.name,
          impl: 'bird' as const,
          release: b.release,
          as: b.as,
          originate: { ipv4: [b.v4] },
          speakerSessions: { ...SESSION, extendedNextHop: true },
        })),
      ],
    });
    // IPv6 only: no IPv4 address on either end of the speaker links.
    for (const name of ['enhe', 'plain', ...BIRDS.map(([, b]) => b.name)]) {
      const p = lab.peer(name);
      await lab.exec(lab.speakerNs, ['ip', '-4', 'addr', 'flush', 'dev', p.link.a.ifname]);
      await lab.exec(p.ns, ['ip', '-4', 'addr', 'flush', 'dev', p.link.b.ifname]);
    }
    const peer = (name: string, extended: boolean) => ({
      name,
      peer_ip: lab.peer(name).address.ipv6,
      remote_as: lab.peer(name).as,
      families: ['ipv4-unicast', 'ipv6-unicast'],
      ...(extended && { extended_next_hop: true }),
      import: ['accept-all'],
      export: ['accept-all'],
    });
    config = {
      speaker: {
        name: 'extnh',
        local_as: AS,
        router_id: '198.18.0.1',
        listen: { address: '::', port: 179 },
        hold_time: 9,
        connect_retry: 2,
      },
      peers: [peer('enhe', true), peer('plain', false), ...BIRDS.map(([, b]) => peer(b.name, true))],
      networks: [OUR_V4, OUR_V6],
      sinks: { kernel: { table: KERNEL_TABLE } },
    };
    speaker = await LabSpeaker.start(lab, config);
    await speaker.waitEstablished(['enhe', 'plain', ...BIRDS.map(([, b]) => b.name)], 60_000);
  }, 120_000);

  afterAll(async () => {
    await lab?.destroy();
  });

  it('the link carries no IPv4 address, and both sides negotiated the capability', async () => {
    const out = await lab.exec(lab.speakerNs, [
      'ip',
      '-4',
      '-j',
      'addr',
      'show',
      'dev',
      lab.peer('enhe').link.a.ifname,
    ]);
    expect(JSON.parse(out || '[]').flatMap((l: { addr_info?: unknown[] }) => l.addr_info ?? [])).toEqual([]);
    const frr = JSON.parse(
      await lab.frr('enhe').vtysh([`show bgp neighbors ${lab.peer('enhe').speakerAddress.ipv6} json`]),
    );
    const caps = Object.values(frr)[0] as { neighborCapabilities?: Record<string, unknown> };
    const enhe = caps.neighborCapabilities?.extendedNexthop;
    expect(enhe).toBe('advertisedAndReceived');
  });

  it('FRR receives our IPv4 route with our IPv6 next hop (global and link-local)', async () => {
    const ours = lab.peer('enhe').speakerAddress.ipv6;
    const route = await eventually(
      async () => (await lab.frr('enhe').routes('ipv4')).find((r) => r.prefix === OUR_V4),
      `${OUR_V4} at FRR`,
      FLOW_MS,
    );
    expect(route.nextHops[0]).toBe(ours);
    expect(route.nextHops.some((h) => h.startsWith('fe80:'))).toBe(true);
    expect(route.asPath).toEqual([AS]);
  });

  it('we receive FRR’s IPv4 route with its IPv6 next hop, and the kernel sink installs it via inet6', async () => {
    const theirs = lab.peer('enhe').address.ipv6;
    const entry = await eventually(
      async () => {
        const e = (await speaker.rib(FRR_V4)).find((x) => x.paths.some((p) => p.best));
        return e;
      },
      `${FRR_V4} best in our RIB`,
      FLOW_MS,
    );
    expect(entry.paths.find((p) => p.best)?.nextHop).toBe(theirs);
    const route = await eventually(
      () => kernelRoute(FRR_V4),
      `${FRR_V4} in kernel table ${KERNEL_TABLE}`,
      FLOW_MS,
    );
    expect(route.via).toEqual({ family: 'inet6', host: theirs });
    expect(route.dev).toBe(lab.peer('enhe').link.a.ifname);
  });

  it.each(BIRDS)('%s: negotiated; our IPv4 route arrives with our IPv6 next hops', async (title, b) => {
    const [detail] = (await speaker.show<NeighborDetail[]>(['neighbors', b.name])) ?? [];
    expect(detail?.capabilities, title).toContain('extended-next-hop');
    const ours = lab.peer(b.name).speakerAddress.ipv6;
    const route = await eventually(
      async () => (await lab.bird(b.name).routes('ipv4', { from: ours })).find((r) => r.prefix === OUR_V4),
      `${OUR_V4} at ${title}`,
      FLOW_MS,
    );
    expect(route.nextHops[0]).toBe(ours);
    expect(route.nextHops.some((h) => h.startsWith('fe80:'))).toBe(true);
    expect(route.asPath).toEqual([AS]);
  });

  it.each(BIRDS)(
    '%s: its IPv4 route arrives with its IPv6 next hop and goes into the kernel via inet6',
    async (title, b) => {
      const theirs = lab.peer(b.name).address.ipv6;
      const entry = await eventually(
        async () => (await speaker.rib(b.v4)).find((x) => x.paths.some((p) => p.best)),
        `${b.v4} from ${title} best in our RIB`,
        FLOW_MS,
      );
      expect(entry.paths.find((p) => p.best)?.nextHop).toBe(theirs);
      const route = await eventually(
        () => kernelRoute(b.v4),
        `${b.v4} in kernel table ${KERNEL_TABLE}`,
        FLOW_MS,
      );
      expect(route.via).toEqual({ family: 'inet6', host: theirs });
      expect(route.dev).toBe(lab.peer(b.name).link.a.ifname);
    },
  );

  it('without the capability FRR gets our IPv6 routes and no IPv4 route at all', async () => {
    const plain = lab.frr('plain');
    await eventually(
      async () => ((await plain.routes('ipv6')).some((r) => r.prefix === OUR_V6) ? true : undefined),
      `${OUR_V6} at the FRR without extended next hop`,
      FLOW_MS,
    );
    // Sent after the IPv6 routes of the same table walk would have been: none came.
    expect(await plain.routes('ipv4')).toEqual([]);
    const n = await speaker.neighbor('plain');
    expect(n?.prefixes?.['ipv4-unicast']).toMatchObject({ advertised: 0 });
  });

  it('withdrawals go both ways: FRR drops our route, the kernel route goes with FRR’s', async () => {
    const enhe = lab.frr('enhe');
    await speaker.reload({ ...config, networks: [OUR_V6] });
    await eventually(
      async () => ((await enhe.routes('ipv4')).some((r) => r.prefix === OUR_V4) ? undefined : true),
      `${OUR_V4} withdrawn at FRR`,
      FLOW_MS,
    );
    expect((await enhe.routes('ipv6')).some((r) => r.prefix === OUR_V6)).toBe(true);
    for (const [title, b] of BIRDS) {
      const bird = lab.bird(b.name);
      await eventually(
        async () => ((await bird.routes('ipv4')).some((r) => r.prefix === OUR_V4) ? undefined : true),
        `${OUR_V4} withdrawn at ${title}`,
        FLOW_MS,
      );
    }
    await enhe.configure(['address-family ipv4 unicast', `no network ${FRR_V4}`, 'exit-address-family']);
    await eventually(
      async () => ((await kernelRoute(FRR_V4)) ? undefined : true),
      `${FRR_V4} gone from kernel table ${KERNEL_TABLE}`,
      FLOW_MS,
    );
    expect(await speaker.rib(FRR_V4)).toEqual([]);
  });
});
