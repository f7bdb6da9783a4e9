import type { BfdHandle, BfdListener, BfdSessionSpec, BfdStatus, BfdTransition } from '../bfd/index.js';
import { BfdDefaults, diagText } from '../bfd/index.js';
import type { Logger } from '../components/index.js';
import type { PeerConfig } from '../config/index.js';
import { type InterfaceTable, peerOnLink, sessionAddresses } from './session-addresses.js';

/** Where BFD sessions come from (the speaker's BfdService). */
export interface BfdSessions {
  open(spec: BfdSessionSpec, listener: BfdListener): BfdHandle;
}

/** What the tie-in does to the BGP session; the Neighbor carries it out. */
export interface NeighborBfdHost {
  readonly log: Logger;
  /** BFD went Down from Up: close the BGP session at once (RFC 5882 4.2 / FRR's neighbor bfd). */
  readonly drop: (reason: string, forwardingFailed: boolean) => void;
  /** BFD came Up while BGP is not Established: try to connect now, as FRR's BGP_Start. */
  readonly kick: () => void;
  readonly interfaces: () => InterfaceTable;
  /** Wall-clock time on this thread: when the BGP session was closed, after the worker's Down. */
  readonly now: () => number;
}

/**
 * Single hop (RFC 5881) or multihop (RFC 5883), decided from the BGP session's own settings as
 * FRR's `neighbor X bfd` does (PEER_IS_MULTIHOP): eBGP multihop or GTSM over more than one hop,
 * or an iBGP peer not on a subnet of ours. The hops bound the TTL multihop packets may arrive with.
 */
export function bfdPath(config: PeerConfig, interfaces: InterfaceTable): { multihop: boolean; hops: number } {
  const hops = config.ebgpMultihop ?? config.ttlSecurity ?? 1;
  if (config.type === 'ebgp') return hops > 1 ? { multihop: true, hops } : { multihop: false, hops: 1 };
  if (onConnectedSubnet(config.peerIp, interfaces)) return { multihop: false, hops: 1 };
  return { multihop: true, hops: BfdDefaults.MULTIHOP_HOPS };
}

function onConnectedSubnet(peer: string, interfaces: InterfaceTable): boolean {
  for (const list of Object.values(interfaces)) {
    for (const a of list ?? []) {
      if (a.internal) continue;
      if (peerOnLink(peer, sessionAddresses(a.address, { one: [a] }))) return true;
    }
  }
  return false;
}

/** The BFD session spec of a peer's configuration. */
export function bfdSpec(config: PeerConfig, interfaces: InterfaceTable): BfdSessionSpec | undefined {
  const bfd = config.bfd;
  if (!bfd) return undefined;
  return {
    peer: config.peerIp,
    local: config.localAddress,
    ...bfdPath(config, interfaces),
    minTxMs: bfd.minTx,
    minRxMs: bfd.minRx,
    multiplier: bfd.multiplier,
  };
}

function sameSession(a: BfdSessionSpec, b: BfdSessionSpec): boolean {
  return a.peer === b.peer && a.local === b.local && a.multihop === b.multihop && a.hops === b.hops;
}

/**
 * A neighbour's BFD session, tied to its BGP session as FRR's `neighbor X bfd`: opened as soon as
 * the peer is configured (not only once BGP is up), so a dead path closes BGP at once; BFD Down
 * after Up closes the BGP session, AdminDown from the peer does not (RFC 5882 3.2), and BFD Up
 * while BGP is down makes BGP try again at once.
 */
export class NeighborBfd {
  readonly #sessions: BfdSessions;
  readonly #host: NeighborBfdHost;
  #spec: BfdSessionSpec;
  #handle: BfdHandle;
  #lastDown: { readonly at: number; readonly reason: string } | null = null;

  constructor(sessions: BfdSessions, spec: BfdSessionSpec, host: NeighborBfdHost) {
    this.#sessions = sessions;
    this.#host = host;
    this.#spec = spec;
    this.#handle = this.#open(spec);
  }

  get status(): BfdStatus | null {
    return this.#handle.status;
  }

  get spec(): BfdSessionSpec {
    return this.#spec;
  }

  /** When and why BFD last closed the BGP session. */
  get lastDown(): { readonly at: number; readonly reason: string } | null {
    return this.#lastDown;
  }

  /** New settings: new timers through a Poll Sequence; a new path (address, hops) is a new session. */
  reconfigure(spec: BfdSessionSpec): void {
    const before = this.#spec;
    this.#spec = spec;
    if (!sameSession(before, spec)) {
      this.#handle.close();
      this.#handle = this.#open(spec);
      return;
    }
    this.#handle.update(spec);
  }

  close(): void {
    this.#handle.close();
  }

  #open(spec: BfdSessionSpec): BfdHandle {
    this.#host.log.info(
      {
        bfd: {
          multihop: spec.multihop,
          minTx: spec.minTxMs,
          minRx: spec.minRxMs,
          multiplier: spec.multiplier,
        },
      },
      `BFD session to ${spec.peer} configured (${spec.multihop ? 'multihop' : 'single hop'})`,
    );
    return this.#sessions.open(spec, (t, s) => this.#onTransition(t, s));
  }

  #onTransition(t: BfdTransition, s: BfdStatus): void {
    const fields = {
      bfd: { from: t.from, to: t.to, diag: diagText(t.diag), remoteDiag: diagText(s.remoteDiag) },
    };
    if (t.to === 'Up') {
      this.#host.log.info(fields, 'BFD session Up');
      this.#host.kick();
      return;
    }
    if (t.to === 'Down' && t.from === 'Up') {
      if (t.remoteAdminDown) {
        // RFC 5882 3.2: the peer took BFD down on purpose; its path did not fail.
        this.#host.log.info(fields, 'BFD session Down: the peer is AdminDown, the BGP session stays');
        return;
      }
      const reason = `BFD down: ${s.lastDownReason ?? diagText(t.diag)}`;
      this.#lastDown = { at: this.#host.now(), reason };
      this.#host.log.warn(fields, `${reason}: closing the BGP session`);
      // RFC 5882 4.3: with the peer's C bit set its forwarding failed, and its routes must go.
      this.#host.drop(reason, s.remoteControlPlaneIndependent);
      return;
    }
    this.#host.log.info(fields, `BFD session ${t.to}`);
  }
}
