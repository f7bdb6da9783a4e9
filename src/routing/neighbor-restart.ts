import type { Negotiated } from '../bgp/wire/index.js';
import { Afi, type AfiCode, Safi } from '../bgp/wire/index.js';
import type { Logger, Scheduler } from '../components/index.js';
import type { PeerKind, Rib, RibPeer } from '../rib/index.js';
import { PeerClearing } from './peer-clearing.js';
import type { RouteFlow } from './route-flow.js';
import { StaleRoutes, type StaleStatus } from './stale-routes.js';

/** What a neighbour's routes between sessions need. */
export interface NeighborRestartComponents {
  readonly rib: Rib;
  readonly flow: RouteFlow;
  readonly log: Logger;
  /** Stale phases' timers, and where the withdrawal and the sweep yield to the event loop. */
  readonly clock: Scheduler;
}

/** The peer as the RIB knows it again when its next session comes up. */
export interface ReturningPeer {
  readonly name: string;
  readonly kind: PeerKind;
  readonly address: string;
  /** The link of a peer found on it (BGP unnumbered). */
  readonly interface?: string;
  readonly negotiated: Negotiated;
  /** Seconds it has to send its End-of-RIBs before what it did not announce again goes. */
  readonly staleRoutesTime: number;
}

/**
 * One neighbour's routes from one session to the next. RFC 4724 section 4.2 (and RFC 9494),
 * the receiving side: a session that ended gracefully leaves its routes in the RIB, stale,
 * for the peer's restart (StaleRoutes); any other end withdraws them a slice per turn
 * (PeerClearing). When the peer is back it keeps its RIB peer, so what it announces again
 * replaces its stale paths in place.
 */
export class NeighborRestart {
  readonly #c: NeighborRestartComponents;
  /** The last session's routes, while they are still being withdrawn. */
  #clearing: PeerClearing | null = null;
  /** The routes of a session that ended gracefully, kept stale for the peer's restart. */
  #stale: StaleRoutes | null = null;

  constructor(components: NeighborRestartComponents) {
    this.#c = components;
  }

  /** The peer's routes kept across its restart, while any are stale. */
  status(): StaleStatus | null {
    return this.#stale?.status() ?? null;
  }

  /**
   * A new session is Established. The last session's withdrawal finishes now (the RIB peer's
   * id is needed again). Back from a graceful restart: the same RIB peer, returned, so what it
   * announces again replaces its stale paths and what it does not is swept after its End-of-RIB.
   */
  established(p: ReturningPeer): RibPeer | undefined {
    this.#clearing?.finish();
    this.#clearing = null;
    const stale = this.#stale;
    if (!stale) return undefined;
    const n = p.negotiated;
    const ribPeer = this.#c.rib.renewPeer(stale.peer, {
      id: p.name,
      kind: p.kind,
      asn: n.remoteAs,
      routerId: n.remoteBgpId,
      address: p.address,
      ...(p.interface !== undefined && { interface: p.interface }),
    });
    stale.peer = ribPeer;
    stale.established(n.gracefulRestart, n.longLivedGracefulRestart, p.staleRoutesTime);
    return ribPeer;
  }

  /**
   * The session ended: its routes stay, stale, when it ended gracefully and the peer's
   * capability kept a family (RFC 4724 section 4.2); otherwise they are withdrawn, with the
   * stale paths of an earlier session (they are this RIB peer's too).
   */
  ended(
    ribPeer: RibPeer,
    negotiated: Negotiated,
    graceful: boolean,
    longLivedStaleTime: number,
    reason: string,
  ): void {
    const gr = negotiated.gracefulRestart;
    if (graceful && gr && this.#keepStale(ribPeer, negotiated, gr, longLivedStaleTime)) {
      this.#c.log.info({ reason }, 'session down: keeping its routes for the peer’s graceful restart');
      return;
    }
    this.#c.log.info({ reason }, 'session down: withdrawing its routes');
    this.#stale?.close();
    this.#stale = null;
    this.#clear(ribPeer);
  }

  /** RFC 4724 section 2: the peer's End-of-RIB for a family ends that family's stale phase. */
  endOfRib(afi: number): void {
    this.#stale?.endOfRib(afi);
  }

  /** The neighbour is removed (its session is down already): everything it had goes now. */
  detach(): void {
    const stale = this.#stale;
    if (stale) {
      this.#stale = null;
      stale.close();
      this.#clear(stale.peer);
    }
    this.#clearing?.finish();
    this.#clearing = null;
  }

  /** Marks the session's routes stale; false when no family is kept. */
  #keepStale(
    ribPeer: RibPeer,
    n: Negotiated,
    gr: NonNullable<Negotiated['gracefulRestart']>,
    longLivedStaleTime: number,
  ): boolean {
    const negotiated = n.families
      .filter((f) => f.safi === Safi.UNICAST && (f.afi === Afi.IPV4 || f.afi === Afi.IPV6))
      .map((f) => f.afi as AfiCode);
    const llgr = n.longLivedGracefulRestart;
    if (this.#stale) this.#stale.lost(gr, llgr, negotiated);
    else this.#stale = new StaleRoutes(ribPeer, { gr, llgr, negotiated }, this.#c, longLivedStaleTime);
    if (this.#stale.waiting.length > 0) return true;
    this.#stale.close();
    this.#stale = null;
    return false;
  }

  #clear(peer: RibPeer): void {
    const { rib, flow, clock } = this.#c;
    this.#clearing?.finish();
    this.#clearing = new PeerClearing(
      rib,
      flow,
      peer,
      (fn) => clock.defer(fn),
      (error) => this.#c.log.error({ error: String(error) }, 'route work failed'),
    );
    if (this.#clearing.done) this.#clearing = null;
  }
}
