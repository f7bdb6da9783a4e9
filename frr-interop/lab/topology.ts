import { join } from 'node:path';
import { type LabLink, peerLinkNumbers, planLink, speakerLinkNumbers } from './addressing.js';
import {
  DEFAULT_LAB_ID,
  LAB_DIR_PREFIX,
  LAB_DIR_ROOT,
  MAX_PEER_LINKS,
  MAX_PEERS,
  NAMESPACE_PREFIX,
  SPEAKER_NODE,
} from './constants.js';
import { invalid } from './errors.js';
import {
  checkAsn,
  checkRouterId,
  type DaemonImpl,
  type DaemonSpec,
  FAMILIES,
  type Family,
  type NeighborSpec,
  type Originate,
} from './spec.js';

/** Session options shared by speaker sessions and peer-to-peer sessions. */
export interface SessionOptions {
  /** Transport families: one session per entry, over that family's link addresses. Default both. */
  readonly transports?: readonly Family[];
  /** Address families negotiated on each session. Default: the session's transport family. */
  readonly families?: readonly Family[];
  readonly password?: string;
  readonly passive?: boolean;
  readonly holdTime?: number;
  readonly keepalive?: number;
  readonly connectRetry?: number;
  readonly routeReflectorClient?: boolean;
  readonly addPath?: NeighborSpec['addPath'];
  readonly extendedNextHop?: boolean;
  readonly gracefulRestart?: NeighborSpec['gracefulRestart'];
  readonly bfd?: NeighborSpec['bfd'];
  readonly multihop?: NeighborSpec['multihop'];
}

export interface SpeakerSessionOptions extends SessionOptions {
  /** AS the peer expects the speaker to have; default the speaker's AS. */
  readonly remoteAs?: number;
}

export interface LabPeerOptions {
  /** Lowercase letters and digits, at most 12 (it becomes part of interface names). */
  readonly name: string;
  readonly impl: DaemonImpl;
  readonly as: number;
  /** Default: the peer's IPv4 address on its speaker link. */
  readonly routerId?: string;
  readonly originate?: Originate;
  readonly extraConfig?: readonly string[];
  /** More neighbors, beyond the speaker and peer links. */
  readonly neighbors?: readonly NeighborSpec[];
  /** The peer's sessions to the speaker; false: none (the veth is still there). */
  readonly speakerSessions?: SpeakerSessionOptions | false;
  /**
   * Whose daemon runs: the host's (Debian 12 bookworm: FRR 8.4, GoBGP 3.10, BIRD 2.0), the
   * default, or today's from the trixie root (FRR 10.3, GoBGP 3.36, BIRD 3.1).
   */
  readonly release?: DaemonRelease;
}

/** The Debian release a peer's daemon comes from. */
export type DaemonRelease = 'bookworm' | 'trixie';
export const DAEMON_RELEASES: readonly DaemonRelease[] = ['bookworm', 'trixie'];

/** A direct veth between two peers; by default they also peer with each other over it. */
export interface LabLinkOptions {
  readonly a: string;
  readonly b: string;
  readonly peering?: boolean;
  readonly session?: SessionOptions;
}

export interface LabSpeakerOptions {
  readonly as: number;
  readonly routerId: string;
  /** Run an FRR zebra in the speaker namespace, for the speaker's ZAPI route sink. */
  readonly zebra?: boolean;
}

export interface LabOptions {
  /** Lowercase letters and digits; namespaces are `obs-<id>-<node>`. Default "lab". */
  readonly id?: string;
  /** Working directory; default /tmp/obs-lab-<id>. */
  readonly dir?: string;
  readonly speaker: LabSpeakerOptions;
  readonly peers: readonly LabPeerOptions[];
  readonly links?: readonly LabLinkOptions[];
}

/** Everything about one peer the lab needs to build it. */
export interface PeerPlan {
  readonly name: string;
  readonly impl: DaemonImpl;
  readonly as: number;
  readonly routerId: string;
  readonly ns: string;
  readonly dir: string;
  readonly release: DaemonRelease;
  /** Its veth to the speaker: end a is the speaker, end b the peer. */
  readonly link: LabLink;
  readonly spec: DaemonSpec;
}

export interface Topology {
  readonly id: string;
  readonly prefix: string;
  readonly dir: string;
  readonly speakerNs: string;
  readonly peers: readonly PeerPlan[];
  /** Peer-to-peer links. */
  readonly links: readonly LabLink[];
  readonly namespaces: readonly string[];
}

const ID = /^[a-z0-9]{1,16}$/;
const NODE = /^[a-z][a-z0-9]{0,11}$/;

export const namespacePrefix = (id: string): string => `${NAMESPACE_PREFIX}${id}-`;
export const defaultLabDir = (id: string): string => join(LAB_DIR_ROOT, `${LAB_DIR_PREFIX}${id}`);

export function checkLabId(id: string): void {
  if (!ID.test(id))
    throw invalid(`lab id must be 1-16 lowercase letters or digits, got ${JSON.stringify(id)}`);
}

function neighbor(
  address: string,
  remoteAs: number,
  transport: Family,
  s: SessionOptions = {},
): NeighborSpec {
  const { transports: _t, families, ...rest } = s;
  return { ...rest, address, remoteAs, families: families ?? [transport] };
}

function transportsOf(s: SessionOptions | undefined): readonly Family[] {
  const t = s?.transports ?? FAMILIES;
  for (const f of t) if (!FAMILIES.includes(f)) throw invalid(`unknown transport family ${f}`);
  return t;
}

/** Checks the options and lays out namespaces, links, addresses and each daemon's configuration. */
export function planTopology(opts: LabOptions): Topology {
  const id = opts.id ?? DEFAULT_LAB_ID;
  checkLabId(id);
  const prefix = namespacePrefix(id);
  const dir = opts.dir ?? defaultLabDir(id);
  checkAsn(opts.speaker.as, 'speaker');
  checkRouterId(opts.speaker.routerId, 'speaker');
  if (opts.peers.length > MAX_PEERS) throw invalid(`at most ${MAX_PEERS} peers`);
  const links = opts.links ?? [];
  if (links.length > MAX_PEER_LINKS) throw invalid(`at most ${MAX_PEER_LINKS} peer links`);
  const names = new Set<string>();
  for (const p of opts.peers) {
    if (!NODE.test(p.name) || p.name === SPEAKER_NODE) {
      throw invalid(
        `peer name must be 1-12 lowercase letters or digits (not "${SPEAKER_NODE}"): ${JSON.stringify(p.name)}`,
      );
    }
    if (names.has(p.name)) throw invalid(`peer ${p.name} given twice`);
    if (!['frr', 'gobgp', 'bird'].includes(p.impl)) throw invalid(`peer ${p.name}: unknown impl ${p.impl}`);
    checkAsn(p.as, `peer ${p.name}`);
    if (p.routerId !== undefined) checkRouterId(p.routerId, `peer ${p.name}`);
    if (p.release !== undefined && !DAEMON_RELEASES.includes(p.release))
      throw invalid(`peer ${p.name}: unknown release ${p.release}`);
    names.add(p.name);
  }
  const speakerNs = `${prefix}${SPEAKER_NODE}`;
  const nsOf = (node: string): string => `${prefix}${node}`;

  const speakerLinks = opts.peers.map((p, i) =>
    planLink(
      speakerLinkNumbers(i + 1),
      { node: SPEAKER_NODE, ns: speakerNs, ifname: `to-${p.name}` },
      { node: p.name, ns: nsOf(p.name), ifname: `to-${SPEAKER_NODE}` },
    ),
  );
  const seenPairs = new Set<string>();
  const peerLinks = links.map((l, j) => {
    for (const end of [l.a, l.b]) if (!names.has(end)) throw invalid(`link ${l.a}-${l.b}: no peer ${end}`);
    if (l.a === l.b) throw invalid(`link ${l.a}-${l.b}: a peer cannot link to itself`);
    const pair = [l.a, l.b].sort().join('-');
    if (seenPairs.has(pair)) throw invalid(`link ${pair} given twice`);
    seenPairs.add(pair);
    return planLink(
      peerLinkNumbers(j),
      { node: l.a, ns: nsOf(l.a), ifname: `to-${l.b}` },
      { node: l.b, ns: nsOf(l.b), ifname: `to-${l.a}` },
    );
  });

  const peers = opts.peers.map((p, i): PeerPlan => {
    const link = speakerLinks[i]!;
    const neighbors: NeighborSpec[] = [];
    if (p.speakerSessions !== false) {
      const s = p.speakerSessions;
      for (const t of transportsOf(s)) {
        neighbors.push(neighbor(link.a.address[t], s?.remoteAs ?? opts.speaker.as, t, s));
      }
    }
    links.forEach((l, j) => {
      if (l.peering === false || (l.a !== p.name && l.b !== p.name)) return;
      const other = opts.peers.find((x) => x.name === (l.a === p.name ? l.b : l.a))!;
      const pl = peerLinks[j]!;
      const far = l.a === p.name ? pl.b : pl.a;
      for (const t of transportsOf(l.session))
        neighbors.push(neighbor(far.address[t], other.as, t, l.session));
    });
    neighbors.push(...(p.neighbors ?? []));
    const routerId = p.routerId ?? link.b.address.ipv4;
    return {
      name: p.name,
      impl: p.impl,
      as: p.as,
      routerId,
      ns: nsOf(p.name),
      dir: join(dir, p.name),
      release: p.release ?? 'bookworm',
      link,
      spec: {
        routerId,
        as: p.as,
        neighbors,
        ...(p.originate !== undefined && { originate: p.originate }),
        ...(p.extraConfig !== undefined && { extraConfig: p.extraConfig }),
      },
    };
  });

  return {
    id,
    prefix,
    dir,
    speakerNs,
    peers,
    links: peerLinks,
    namespaces: [speakerNs, ...opts.peers.map((p) => nsOf(p.name))],
  };
}
