/**
 * The benchmark's lab: the lab's speaker namespace is the hub where the replayer and the
 * counter run; FRR, GoBGP and BIRD are its peers (passive, each with two neighbors: the
 * replayer at .1 and the counter at .3 of its link); our speaker gets one more namespace with
 * a link numbered as a fourth peer's. Everything lives under the lab's namespace prefix, so
 * `lab.destroy()` removes it all.
 */
import {
  createNamespace,
  createVeth,
  type DaemonImpl,
  type Family,
  Lab,
  type LabPeerOptions,
} from '../../frr-interop/lab/index.js';
import {
  BenchAs,
  COUNTER_HOST,
  HOLD_TIME_SECONDS,
  HUB_ROUTER_ID,
  KEEPALIVE_SECONDS,
  LAB_ID,
  OURS_LINK,
} from './constants.js';

/**
 * 'ours' is `ovn-bgp-speaker run`; 'core' is our session and RIB code alone (speaker.ts in
 * this folder), which shows what the speaker's own layers (policy, bookkeeping) add.
 */
export type Impl = 'ours' | 'core' | DaemonImpl;
export const IMPLS: readonly Impl[] = ['ours', 'core', 'frr', 'gobgp', 'bird'];
/** Measured unless --only says otherwise: all of them (the core costs seconds). */
export const DEFAULT_IMPLS: readonly Impl[] = IMPLS;
export const IMPL_LABEL: Record<Impl, string> = {
  ours: 'ovn-bgp-speaker',
  core: 'Sessions+Rib core',
  frr: 'FRR bgpd',
  gobgp: 'GoBGP',
  bird: 'BIRD',
};

/** The addresses of one receiver's link. */
export interface BenchLink {
  /** Where the receiver listens. */
  readonly targetIpv4: string;
  /** The replayer's address (and the next hop of the table it sends). */
  readonly hubIpv4: string;
  readonly hubIpv6: string;
  /** The counter's address. */
  readonly counterIpv4: string;
}

export interface BenchLab {
  readonly lab: Lab;
  readonly hubNs: string;
  readonly oursNs: string;
  readonly links: Record<Impl, BenchLink>;
}

const DAEMON_AS: Record<DaemonImpl, number> = { frr: BenchAs.FRR, gobgp: BenchAs.GOBGP, bird: BenchAs.BIRD };
/** FRR without FIB install: bgpd keeps its routes to itself (zebra never sees them). */
const DAEMON_EXTRA: Record<DaemonImpl, readonly string[]> = { frr: ['bgp no-rib'], gobgp: [], bird: [] };
const DAEMONS: readonly DaemonImpl[] = ['frr', 'gobgp', 'bird'];

/** Host .3 of the /24 an address of the lab lies in. */
const counterAddress = (linkAddress: string): string =>
  `${linkAddress.split('.').slice(0, 3).join('.')}.${COUNTER_HOST}`;

function peerOptions(impl: DaemonImpl, index: number, families: readonly Family[]): LabPeerOptions {
  const timers = { holdTime: HOLD_TIME_SECONDS, keepalive: KEEPALIVE_SECONDS };
  // The lab numbers speaker link i (1-based) 198.18.<i>.0/24; checked against the lab below.
  const counter = `198.18.${index + 1}.${COUNTER_HOST}`;
  return {
    name: impl,
    impl,
    as: DAEMON_AS[impl],
    speakerSessions: {
      transports: ['ipv4'],
      families,
      passive: true,
      remoteAs: BenchAs.REPLAYER,
      ...timers,
    },
    neighbors: [{ address: counter, remoteAs: BenchAs.COUNTER, families, passive: true, ...timers }],
    extraConfig: DAEMON_EXTRA[impl],
  };
}

export async function createBenchLab(families: readonly Family[]): Promise<BenchLab> {
  const lab = await Lab.create({
    id: LAB_ID,
    speaker: { as: BenchAs.REPLAYER, routerId: HUB_ROUTER_ID },
    peers: DAEMONS.map((impl, i) => peerOptions(impl, i, families)),
  });
  try {
    const hubNs = lab.speakerNs;
    const oursNs = `${lab.prefix}ours`;
    const links = {} as Record<Impl, BenchLink>;
    for (const impl of DAEMONS) {
      const peer = lab.peer(impl);
      const counter = counterAddress(peer.speakerAddress.ipv4);
      if (!peer.daemon.spec.neighbors.some((n) => n.address === counter)) {
        throw new Error(
          `the lab numbered ${impl}'s link ${peer.speakerAddress.ipv4}: counter neighbor missing`,
        );
      }
      links[impl] = {
        targetIpv4: peer.address.ipv4,
        hubIpv4: peer.speakerAddress.ipv4,
        hubIpv6: peer.speakerAddress.ipv6,
        counterIpv4: counter,
      };
      await lab.exec(hubNs, ['ip', 'address', 'add', `${counter}/24`, 'dev', peer.link.a.ifname]);
    }
    await createNamespace(oursNs);
    const L = OURS_LINK;
    await createVeth(
      {
        ns: hubNs,
        ifname: L.hubIfname,
        ipv4: `${L.hubIpv4}/${L.ipv4PrefixLen}`,
        ipv6: `${L.hubIpv6}/${L.ipv6PrefixLen}`,
      },
      {
        ns: oursNs,
        ifname: L.oursIfname,
        ipv4: `${L.oursIpv4}/${L.ipv4PrefixLen}`,
        ipv6: `${L.oursIpv6}/${L.ipv6PrefixLen}`,
      },
    );
    const oursCounter = counterAddress(L.hubIpv4);
    await lab.exec(hubNs, ['ip', 'address', 'add', `${oursCounter}/24`, 'dev', L.hubIfname]);
    links.ours = { targetIpv4: L.oursIpv4, hubIpv4: L.hubIpv4, hubIpv6: L.hubIpv6, counterIpv4: oursCounter };
    // The core runs where the speaker runs (never at the same time).
    links.core = links.ours;
    return { lab, hubNs, oursNs, links };
  } catch (e) {
    await lab.destroy();
    throw e;
  }
}
