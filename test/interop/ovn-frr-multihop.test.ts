import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DaemonRoot } from '../../frr-interop/lab/index.js';
import {
  CHASSIS,
  FABRIC,
  HOP,
  LEARNED,
  OVN_ROUTES,
  OvnMultihopLab,
  SOURCE,
  SOURCE_AS,
  SPEAKER,
  SPEAKER_AS,
  UNDERLAY,
} from './support/ovn-multihop-lab.js';

// Central mode across a routed hop: our speaker (AS 65320) peers with the fabric's FRR over an
// eBGP multihop session whose subnet holds none of the chassis, so RFC 4271 5.1.3's shared
// subnet exception never applies. Its export policy keeps next hops (`set: { next_hop:
// unchanged }`): real OVN's routes reach FRR via their chassis and routes learned from another
// peer via that peer; FRR resolves each through its route to the chassis subnet (or the
// source's) and installs it. With a policy that leaves next hops alone they become ours;
// `next_hop_unchanged: true` on the peer, applied by a reload, brings them back without a reset.
// Against the host's FRR 8.4 and FRR 10.3 from the trixie root.

const IS_ROOT = process.getuid?.() === 0;
const FLOW_MS = 20_000;

const LEARNED_VIA = { [LEARNED.ipv4]: SOURCE.ipv4, [LEARNED.ipv6]: SOURCE.ipv6 };
const KEPT = { ...OVN_ROUTES, ...LEARNED_VIA };
/** Every route with the speaker's own address as next hop: what RFC 4271 5.1.3 gives alone. */
const OURS = Object.fromEntries(
  Object.keys(KEPT).map((p) => [p, p.includes(':') ? SPEAKER.ipv6 : SPEAKER.ipv4]),
);

const VERSIONS = [
  { name: 'FRR 8.4', id: 'f8', root: async () => undefined },
  { name: 'FRR 10.3', id: 'f10', root: () => DaemonRoot.trixie() },
] as const;

describe.skipIf(!IS_ROOT).each(VERSIONS)('central OVN speaker, eBGP multihop to $name', ({ id, root }) => {
  let lab: OvnMultihopLab;

  beforeAll(async () => {
    lab = await OvnMultihopLab.create({ id, fabricRoot: await root() });
    await lab.startSpeaker({ fabricExport: ['keep-next-hop'] });
  }, 120_000);

  afterAll(async () => {
    await lab?.destroy();
  });

  it('FRR holds every OVN route via its chassis and the learned ones via their source, none via us', async () => {
    const table = await lab.waitFabric(KEPT, 'the kept next hops at FRR');
    expect(Object.fromEntries(table)).toEqual(KEPT);
    // The session is multihop: neither the speaker nor the chassis share a subnet with FRR.
    const ours = (await lab.fabric.routes('ipv4', { from: SPEAKER.ipv4 })).find(
      (r) => r.prefix === LEARNED.ipv4,
    );
    expect(ours).toMatchObject({ asPath: [SPEAKER_AS, SOURCE_AS], best: true, nextHops: [SOURCE.ipv4] });
  });

  it('FRR installs them with the chassis as recursive next hop, resolved through the underlay', async () => {
    for (const [prefix, chassis] of Object.entries(OVN_ROUTES)) {
      const six = prefix.includes(':');
      const entry = await lab.installed(prefix);
      expect(entry, prefix).toEqual({
        installed: true,
        via: [chassis],
        resolvedBy: [six ? UNDERLAY.ipv6 : UNDERLAY.ipv4],
      });
    }
    for (const [prefix, source] of Object.entries(LEARNED_VIA)) {
      const entry = await lab.installed(prefix);
      expect(entry, prefix).toEqual({
        installed: true,
        via: [source],
        resolvedBy: [prefix.includes(':') ? HOP.ipv6 : HOP.ipv4],
      });
    }
    // The kernel forwards a floating IP's traffic to the underlay, towards its chassis: not
    // back through the hop towards the speaker.
    expect(await lab.kernelGateway('198.18.64.100')).toBe(UNDERLAY.ipv4);
    expect(await lab.kernelGateway('2001:db8:64::100')).toBe(UNDERLAY.ipv6);
    expect(await lab.kernelGateway(SPEAKER.ipv4)).toBe(HOP.ipv4);
  });

  it('a VM bound to another chassis moves its route’s next hop at FRR', async () => {
    await lab.sbctl('lsp-unbind', 'vm1', '--', 'lsp-bind', 'vm1', 'hv2');
    try {
      const moved = { '198.18.64.100/32': CHASSIS.hv2.ipv4, '2001:db8:64::100/128': CHASSIS.hv2.ipv6 };
      await lab.waitFabric(moved, 'the FIPs via hv2');
      expect((await lab.waitInstalled('198.18.64.100/32', CHASSIS.hv2.ipv4)).via).toEqual([CHASSIS.hv2.ipv4]);
    } finally {
      await lab.sbctl('lsp-unbind', 'vm1', '--', 'lsp-bind', 'vm1', 'hv1');
    }
    await lab.waitFabric(KEPT, 'the FIPs back on hv1');
  });

  it('a policy that leaves next hops alone sends ours; next_hop_unchanged on the peer keeps them again, no reset', async () => {
    const sessions = await lab.fabricEstablished();
    lab.reload({ fabricExport: ['tag'] });
    let table = await lab.waitFabric(OURS, 'our own next hops at FRR', FLOW_MS);
    expect(Object.fromEntries(table)).toEqual(OURS);
    lab.reload({ fabricExport: ['tag'], fabric: { next_hop_unchanged: true } });
    table = await lab.waitFabric(KEPT, 'the kept next hops at FRR again', FLOW_MS);
    expect(Object.fromEntries(table)).toEqual(KEPT);
    expect((await lab.waitInstalled('198.18.64.101/32', CHASSIS.gw1.ipv4)).via).toEqual([CHASSIS.gw1.ipv4]);
    // Soft out both times: the session FRR has with us is the one it had.
    expect(await lab.fabricEstablished()).toBe(sessions);
    expect((await lab.summary()).neighbors.find((n) => n.name === 'fabric')).toMatchObject({
      state: 'Established',
      address: FABRIC.ipv4,
    });
  });
});
