/**
 * The benchmark's lab: the lab's speaker namespace is the hub where the replayer and the
 * counter run; the daemons measured are its peers (passive, each with two neighbors: the
 * replayer at .1 and the counter at .3 of its link), FRR 10.3 and BIRD 3.1 from the trixie
 * root beside the host's FRR 8.4, BIRD 2.0 and GoBGP 3.10; our speaker gets one more namespace
 * with a link numbered past the peers'. Everything lives under the lab's namespace prefix, so
 * `lab.destroy()` removes it all.
 */
import {
  createNamespace,
  createVeth,
  type DaemonImpl,
  type DaemonRelease,
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

/** The daemons measured, each a lab peer of this name. */
export type DaemonTargetName = 'frr' | 'frr10' | 'gobgp' | 'bird' | 'bird3';
/**
 * 'ours' is `ovn-bgp-speaker run`; 'core' is our session and RIB code alone (speaker.ts in
 * this folder), which shows what the speaker's own layers (policy, bookkeeping) add.
 */
export type Impl = 'ours' | 'core' | DaemonTargetName;
/** Every implementation, in the order the tables list them. */
export const IMPLS: readonly Impl[] = ['ours', 'core', 'bird', 'bird3', 'frr', 'frr10', 'gobgp'];
/**
 * Measured unless --only says otherwise. GoBGP takes about 50 s per 1M received and sends
 * nothing to a new peer until it has (its send always ends in the counter's hold timer), and
 * the core is what ours adds up to: both on request only.
 */
export const DEFAULT_IMPLS: readonly Impl[] = ['ours', 'bird', 'bird3', 'frr', 'frr10'];
export const IMPL_LABEL: Record<Impl, string> = {
  ours: 'ovn-bgp-speaker',
  core: 'Sessions+Rib core',
  bird: 'BIRD 2.0',
  bird3: 'BIRD 3.1',
  frr: 'FRR 8.4',
  frr10: 'FRR 10.3',
  gobgp: 'GoBGP 3.10',
};

interface DaemonPlan {
  readonly impl: DaemonImpl;
  readonly release: DaemonRelease;
  readonly as: number;
}

/** Which daemon each name runs and from where: the host (Debian 12) or the trixie root. */
export const DAEMON_PLANS: Record<DaemonTargetName, DaemonPlan> = {
  frr: { impl: 'frr', release: 'bookworm', as: BenchAs.FRR },
  frr10: { impl: 'frr', release: 'trixie', as: BenchAs.FRR10 },
  gobgp: { impl: 'gobgp', release: 'bookworm', as: BenchAs.GOBGP },
  bird: { impl: 'bird', release: 'bookworm', as: BenchAs.BIRD },
  bird3: { impl: 'bird', release: 'trixie', as: BenchAs.BIRD3 },
};

export const isDaemon = (impl: Impl): impl is DaemonTargetName => impl in DAEMON_PLANS;
/** The implementations that need the trixie root. */
export const needsTrixie = (impl: Impl): boolean => isDaemon(impl) && DAEMON_PLANS[impl].release === 'trixie';

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
  /** The links of the implementations in the lab (ours and core share one). */
  readonly links: Partial<Record<Impl, BenchLink>>;
}

/** FRR without FIB install: bgpd keeps its routes to itself (zebra never sees them). */
const DAEMON_EXTRA: Record<DaemonImpl, readonly string[]> = { frr: ['bgp no-rib'], gobgp: [], bird: [] };

/** Host .3 of the /24 an address of the lab lies in. */
const counterAddress = (linkAddress: string): string =>
  `${linkAddress.split('.').slice(0, 3).join('.')}.${COUNTER_HOST}`;
const subnet24 = (address: string): string => address.split('.').slice(0, 3).join('.');

function peerOptions(name: DaemonTargetName, index: number, families: readonly Family[]): LabPeerOptions {
  const plan = DAEMON_PLANS[name];
  const timers = { holdTime: HOLD_TIME_SECONDS, keepalive: KEEPALIVE_SECONDS };
  // The lab numbers speaker link i (1-based) 198.18.<i>.0/24; checked against the lab below.
  const counter = `198.18.${index + 1}.${COUNTER_HOST}`;
  return {
    name,
    impl: plan.impl,
    as: plan.as,
    release: plan.release,
    speakerSessions: {
      transports: ['ipv4'],
      families,
      passive: true,
      remoteAs: BenchAs.REPLAYER,
      ...timers,
    },
    neighbors: [{ address: counter, remoteAs: BenchAs.COUNTER, families, passive: true, ...timers }],
    extraConfig: DAEMON_EXTRA[plan.impl],
  };
}

/** A lab with the given daemons (and always our speaker's namespace and link). */
export async function createBenchLab(
  families: readonly Family[],
  daemons: readonly DaemonTargetName[],
): Promise<BenchLab> {
  const lab = await Lab.create({
    id: LAB_ID,
    speaker: { as: BenchAs.REPLAYER, routerId: HUB_ROUTER_ID },
    peers: daemons.map((name, i) => peerOptions(name, i, families)),
  });
  try {
    const hubNs = lab.speakerNs;
    const oursNs = `${lab.prefix}ours`;
    const links: Partial<Record<Impl, BenchLink>> = {};
    for (const name of daemons) {
      const peer = lab.peer(name);
      const counter = counterAddress(peer.speakerAddress.ipv4);
      if (!peer.daemon.spec.neighbors.some((n) => n.address === counter)) {
        throw new Error(
          `the lab numbered ${name}'s link ${peer.speakerAddress.ipv4}: counter neighbor missing`,
        );
      }
      if (subnet24(peer.speakerAddress.ipv4) === subnet24(OURS_LINK.hubIpv4))
        throw new Error(`${name}'s link ${peer.speakerAddress.ipv4} is our speaker's: too many daemons`);
      links[name] = {
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
