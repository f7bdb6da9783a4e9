/*
 * BGP unnumbered against FRR 10.3 (trixie root) and FRR 8.4 (host): links with no IPv4 and no
 * global IPv6 address, `neighbor IF interface remote-as external` on FRR's side and
 * `interface: IF` on ours (with `remote_as: external` for two of them). Each side learns the other's link-local address from its router
 * advertisements; one FRR connects to us (we are passive), we connect to the other (FRR is
 * passive). IPv4 and IPv6 routes go both ways over the one IPv6 session (RFC 8950 for IPv4),
 * the kernel sink installs FRR's routes via its link-local address on the link, and taking
 * the link down and up brings the session and the routes back by themselves.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Lab, linkLocalAddress } from '../../frr-interop/lab/index.js';
import type { NeighborDetail } from '../../src/api/index.js';
import { eventually, LabSpeaker } from '../speaker/lab-speaker.js';

const IS_ROOT = process.getuid?.() === 0;
const AS = 65000;
const FLOW_MS = 60_000;
const KERNEL_TABLE = 100;
const OUR_V4 = '198.19.81.0/24';
const OUR_V6 = '2001:db8:81::/48';
/**
 * Each FRR: who opens the session, the remote_as we configure for it (FRR's own
 * `remote-as external` on two of them), and the prefixes it originates.
 */
const FRRS = [
  {
    name: 'frr10act',
    release: 'trixie',
    as: 65001,
    frrPassive: false,
    ourRemoteAs: 65001,
    v4: '198.19.82.0/24',
    v6: '2001:db8:82::/48',
  },
  {
    name: 'frr10pas',
    release: 'trixie',
    as: 65002,
    frrPassive: true,
    ourRemoteAs: 'external',
    v4: '198.19.83.0/24',
    v6: '2001:db8:83::/48',
  },
  {
    name: 'frr8',
    release: 'bookworm',
    as: 65003,
    frrPassive: false,
    ourRemoteAs: 'external',
    v4: '198.19.84.0/24',
    v6: '2001:db8:84::/48',
  },
] as const;
type Frr = (typeof FRRS)[number];

describe.skipIf(!IS_ROOT)('BGP unnumbered with FRR (neighbor IF interface)', () => {
  let lab: Lab;
  let speaker: LabSpeaker;
  const ourIf = (f: Frr) => lab.peer(f.name).link.a.ifname;
  const theirIf = (f: Frr) => lab.peer(f.name).link.b.ifname;
  const kernelRoute = async (family: '-4' | '-6', prefix: string) => {
    const out = await lab.exec(lab.speakerNs, [
      'ip',
      family,
      '-j',
      'route',
      'show',
      'table',
      String(KERNEL_TABLE),
      prefix,
    ]);
    const [r] = JSON.parse(out || '[]') as {
      gateway?: string;
      via?: { family: string; host: string };
      dev?: string;
    }[];
    return r;
  };
  const state = async (f: Frr) =>
    ((await speaker.show<NeighborDetail[]>(['neighbors', f.name])) ?? [])[0]?.state;

  beforeAll(async () => {
    lab = await Lab.create({
      id: 'unnum',
      speaker: { as: AS, routerId: '198.18.0.1' },
      peers: FRRS.map((f) => ({
        name: f.name,
        impl: 'frr' as const,
        release: f.release,
        as: f.as,
        originate: { ipv4: [f.v4], ipv6: [f.v6] },
        speakerSessions: false as const,
      })),
    });
    for (const f of FRRS) {
      const p = lab.peer(f.name);
      // Unnumbered: only the kernel's link-local addresses stay on the links.
      for (const [ns, ifname] of [
        [lab.speakerNs, p.link.a.ifname],
        [p.ns, p.link.b.ifname],
      ]) {
        await lab.exec(ns, ['ip', '-4', 'addr', 'flush', 'dev', ifname]);
        await lab.exec(ns, ['ip', '-6', 'addr', 'flush', 'dev', ifname, 'scope', 'global']);
      }
      const n = theirIf(f);
      await lab
        .frr(f.name)
        .configure([
          `neighbor ${n} interface remote-as external`,
          `neighbor ${n} timers 3 9`,
          `neighbor ${n} timers connect 2`,
          ...(f.frrPassive ? [`neighbor ${n} passive`] : []),
          'address-family ipv4 unicast',
          `neighbor ${n} activate`,
          'exit-address-family',
          'address-family ipv6 unicast',
          `neighbor ${n} activate`,
          'exit-address-family',
        ]);
    }
    speaker = await LabSpeaker.start(lab, {
      speaker: {
        name: 'unnum',
        local_as: AS,
        router_id: '198.18.0.1',
        listen: { address: '::', port: 179 },
        hold_time: 9,
        connect_retry: 2,
      },
      peers: FRRS.map((f) => ({
        name: f.name,
        interface: lab.peer(f.name).link.a.ifname,
        remote_as: f.ourRemoteAs,
        // Who connects: FRR to us where FRR is active, we to FRR where FRR is passive.
        passive: !f.frrPassive,
        import: ['accept-all'],
        export: ['accept-all'],
      })),
      networks: [OUR_V4, OUR_V6],
      sinks: { kernel: { table: KERNEL_TABLE } },
    });
    await speaker.waitEstablished(
      FRRS.map((f) => f.name),
      90_000,
    );
  }, 180_000);

  afterAll(async () => {
    await lab?.destroy();
  });

  it.each(FRRS)(
    '$name: the session runs between the two link-local addresses, both families agreed',
    async (f) => {
      const [n] = (await speaker.show<NeighborDetail[]>(['neighbors', f.name])) ?? [];
      expect(n?.state).toBe('Established');
      // remote_as external: the AS its OPEN gave.
      expect(n?.remoteAs).toBe(f.as);
      expect(n?.capabilities).toContain('extended-next-hop');
      const theirs = await linkLocalAddress(lab.peer(f.name).ns, theirIf(f));
      const ours = await linkLocalAddress(lab.speakerNs, ourIf(f));
      expect(theirs).toMatch(/^fe80:/);
      expect(n?.interface).toBe(ourIf(f));
      expect(n?.linkNeighbor).toBe(theirs);
      expect(n?.localAddress).toBe(ours);
      const frr = JSON.parse(await lab.frr(f.name).vtysh([`show bgp neighbors ${theirIf(f)} json`]));
      const detail = Object.values(frr)[0] as {
        bgpState?: string;
        hostname?: string;
        hostForeign?: string;
        hostLocal?: string;
      };
      expect(detail.bgpState).toBe('Established');
      expect(detail.hostForeign).toBe(ours);
      expect(detail.hostLocal).toBe(theirs);
    },
  );

  it.each(FRRS)('$name: our IPv4 and IPv6 routes arrive with our link-local next hop', async (f) => {
    const ours = await linkLocalAddress(lab.speakerNs, ourIf(f));
    for (const [family, prefix] of [
      ['ipv4', OUR_V4],
      ['ipv6', OUR_V6],
    ] as const) {
      const route = await eventually(
        async () => (await lab.frr(f.name).routes(family)).find((r) => r.prefix === prefix),
        `${prefix} at ${f.name}`,
        FLOW_MS,
      );
      expect(route.nextHops).toContain(ours);
      expect(route.asPath).toEqual([AS]);
    }
  });

  it.each(FRRS)('$name: its routes go into our kernel via its link-local address on the link', async (f) => {
    const theirs = await linkLocalAddress(lab.peer(f.name).ns, theirIf(f));
    const v4 = await eventually(() => kernelRoute('-4', f.v4), `${f.v4} in table ${KERNEL_TABLE}`, FLOW_MS);
    expect(v4.via).toEqual({ family: 'inet6', host: theirs });
    expect(v4.dev).toBe(ourIf(f));
    const v6 = await eventually(() => kernelRoute('-6', f.v6), `${f.v6} in table ${KERNEL_TABLE}`, FLOW_MS);
    expect(v6.gateway).toBe(theirs);
    expect(v6.dev).toBe(ourIf(f));
  });

  it('the link going down and up brings the session and the routes back by themselves', async () => {
    const f = FRRS[0];
    await lab.exec(lab.speakerNs, ['ip', 'link', 'set', 'dev', ourIf(f), 'down']);
    await eventually(
      async () => ((await state(f)) !== 'Established' ? true : undefined),
      `${f.name} to go down`,
      FLOW_MS,
    );
    await lab.exec(lab.speakerNs, ['ip', 'link', 'set', 'dev', ourIf(f), 'up']);
    await eventually(
      async () => ((await state(f)) === 'Established' ? true : undefined),
      `${f.name} back`,
      90_000,
    );
    const theirs = await linkLocalAddress(lab.peer(f.name).ns, theirIf(f));
    const v4 = await eventually(
      async () => {
        const r = await kernelRoute('-4', f.v4);
        return r?.via?.host === theirs ? r : undefined;
      },
      `${f.v4} back in table ${KERNEL_TABLE}`,
      FLOW_MS,
    );
    expect(v4.dev).toBe(ourIf(f));
    await eventually(
      async () => (await lab.frr(f.name).routes('ipv4')).find((r) => r.prefix === OUR_V4),
      `${OUR_V4} back at ${f.name}`,
      FLOW_MS,
    );
  });
});
