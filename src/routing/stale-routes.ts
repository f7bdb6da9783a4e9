import type { GracefulRestartNegotiated, Negotiated } from '../bgp/wire/index.js';
import { Afi, type AfiCode, Safi } from '../bgp/wire/index.js';
import type { Logger, Scheduler } from '../components/index.js';
import type { Rib, RibPeer } from '../rib/index.js';
import { MS_PER_SECOND } from './constants.js';
import { FamilyDeadlines } from './family-deadlines.js';
import { FamilySweep } from './family-sweep.js';
import type { RouteFlow } from './route-flow.js';

/** What keeping a restarting peer's routes needs from the speaker. */
export interface StaleRoutesComponents {
  readonly rib: Rib;
  readonly flow: RouteFlow;
  readonly log: Logger;
  /** The phases' timers, and where the sweep yields to the event loop. */
  readonly clock: Scheduler;
}

/** Where a family's kept routes stand. */
export type StalePhase =
  /** The peer is away, within its Restart Time (RFC 4724). */
  | 'restarting'
  /** Away past its Restart Time, within its Long-lived Stale Time (RFC 9494). */
  | 'long-lived'
  /** Back; its End-of-RIB (or our stale routes time) will sweep what it did not announce again. */
  | 'waiting-end-of-rib';

/** Where a peer's kept routes stand, for `show neighbors`. */
export interface StaleStatus {
  /** The earliest phase of any family: restarting, then long-lived, then waiting-end-of-rib. */
  readonly phase: StalePhase;
  /** Stale paths per family still held (IPv4, IPv6). */
  readonly stale: { readonly ipv4: number; readonly ipv6: number };
  /** When the next timer sweeps, or moves to long-lived, what is left (the clock's milliseconds). */
  readonly deadline: number;
}

/** The peer's long-lived graceful restart, as negotiated (RFC 9494). */
export type LongLivedNegotiated = Negotiated['longLivedGracefulRestart'];

const FAMILIES: readonly AfiCode[] = [Afi.IPV4, Afi.IPV6];
const FAMILY_NAME: Readonly<Record<AfiCode, string>> = {
  [Afi.IPV4]: 'ipv4-unicast',
  [Afi.IPV6]: 'ipv6-unicast',
};
const PHASE_ORDER: readonly StalePhase[] = ['restarting', 'long-lived', 'waiting-end-of-rib'];

const unicast = (f: { readonly afi: number; readonly safi: number }) =>
  f.safi === Safi.UNICAST && (f.afi === Afi.IPV4 || f.afi === Afi.IPV6);

/** The unicast families a capability lists, optionally only those with the F bit. */
function listed(
  families: readonly { readonly afi: number; readonly safi: number; readonly forwardingState: boolean }[],
  forwardingOnly: boolean,
): Set<AfiCode> {
  const out = new Set<AfiCode>();
  for (const f of families)
    if (unicast(f) && (!forwardingOnly || f.forwardingState)) out.add(f.afi as AfiCode);
  return out;
}

/**
 * RFC 4724 section 4.2 (and RFC 9494), the receiving speaker, for one peer: when its session
 * ends gracefully, its routes of the families its capability listed stay in the RIB (and so in
 * every sink), marked stale, for its Restart Time; after that, the families of its long-lived
 * capability stay for their Long-lived Stale Time (at most ours), tagged LLGR_STALE and least
 * preferred. When it is back they stay only for the families whose F bit is set, until its
 * End-of-RIB for the family or our stale routes time; whatever it did not announce again is
 * then swept, a slice per turn. Families it did not list go at once.
 */
export class StaleRoutes {
  readonly #c: StaleRoutesComponents;
  /** At most this long-lived stale time, in seconds (our configuration); 0: no long-lived phase. */
  readonly #longLivedMax: number;
  #peer: RibPeer;
  /** Families with stale paths the peer may still refresh, and where each stands. */
  readonly #phase = new Map<AfiCode, StalePhase>();
  /** When each family's phase ends (the clock's milliseconds). */
  readonly #deadline: FamilyDeadlines;
  /** Long-lived stale time per family from the last session's capability, seconds. */
  #longLived = new Map<AfiCode, number>();
  /** Families being swept, a slice per turn. */
  readonly #sweeping: FamilySweep;
  #closed = false;

  /**
   * The session of `peer` ended gracefully: the families in `gr` stay stale for its Restart
   * Time (those only in `llgr`, long-lived at once), the others of `negotiated` are withdrawn.
   */
  constructor(
    peer: RibPeer,
    ended: { gr: GracefulRestartNegotiated; llgr: LongLivedNegotiated; negotiated: readonly AfiCode[] },
    components: StaleRoutesComponents,
    longLivedMax = 0,
  ) {
    this.#c = components;
    this.#peer = peer;
    this.#longLivedMax = longLivedMax;
    const { rib, clock, flow } = components;
    this.#deadline = new FamilyDeadlines(clock, (due) => this.#expire(due));
    this.#sweeping = new FamilySweep(clock, flow, {
      count: (afi) => rib.staleCount(this.#peer, afi),
      sweep: (afi, budget) => rib.sweepStale(this.#peer, afi, budget),
    });
    this.lost(ended.gr, ended.llgr, ended.negotiated);
  }

  /** The peer whose paths these are (renewed when its new session brings a new identity). */
  get peer(): RibPeer {
    return this.#peer;
  }

  set peer(peer: RibPeer) {
    this.#peer = peer;
  }

  /** Stale paths remain, or a sweep is still under way. */
  get active(): boolean {
    return !this.#closed && (this.#phase.size > 0 || this.#sweeping.size > 0);
  }

  /** Families whose stale paths still wait for the peer (its return, its End-of-RIB). */
  get waiting(): readonly AfiCode[] {
    return [...this.#phase.keys()];
  }

  status(): StaleStatus | null {
    if (!this.active) return null;
    const { rib } = this.#c;
    const phases = new Set(this.#phase.values());
    return {
      phase: PHASE_ORDER.find((p) => phases.has(p)) ?? 'waiting-end-of-rib',
      stale: { ipv4: rib.staleCount(this.#peer, Afi.IPV4), ipv6: rib.staleCount(this.#peer, Afi.IPV6) },
      deadline: this.#deadline.earliest(),
    };
  }

  /**
   * The session ended gracefully (again, maybe before the last one's End-of-RIBs): every path
   * of the families in `gr` is stale now, for its Restart Time.
   */
  lost(gr: GracefulRestartNegotiated, llgr: LongLivedNegotiated, negotiated: readonly AfiCode[]): void {
    const keep = gr.restartTime > 0 ? listed(gr.families, false) : new Set<AfiCode>();
    this.#longLived = new Map();
    for (const f of llgr?.families ?? []) {
      const seconds = Math.min(f.staleTime, this.#longLivedMax);
      if (unicast(f) && seconds > 0) this.#longLived.set(f.afi as AfiCode, seconds);
    }
    const { rib } = this.#c;
    const now = this.#c.clock.now();
    for (const afi of FAMILIES) {
      const held = this.#phase.has(afi) || negotiated.includes(afi);
      if (!held) continue;
      rib.markStale(this.#peer, afi);
      if (keep.has(afi)) {
        this.#enter(afi, 'restarting', now + gr.restartTime * MS_PER_SECOND);
      } else if (this.#longLived.has(afi)) {
        // RFC 9494 section 4.2: no (or a zero) Restart Time: long-lived at once.
        this.#toLongLived(afi, now);
      } else {
        this.#sweep(afi, 'not in its graceful restart capability');
      }
    }
    this.#c.log.info(
      {
        restartTime: gr.restartTime,
        families: this.waiting.map((a) => FAMILY_NAME[a]),
        stale: this.waiting.map((a) => rib.staleCount(this.#peer, a)),
        longLived: Object.fromEntries([...this.#longLived].map(([a, s]) => [FAMILY_NAME[a], s])),
      },
      'graceful restart: keeping the peer’s routes as stale',
    );
    this.#deadline.rearm();
    this.#c.flow.schedule();
  }

  /**
   * The peer is back. Its routes stay stale only for the families its new capability lists
   * with the F bit (RFC 4724 section 4.2; RFC 9494's for long-lived ones); the stale timer
   * bounds the wait for End-of-RIB.
   */
  established(
    gr: GracefulRestartNegotiated | null,
    llgr: LongLivedNegotiated,
    staleRoutesTime: number,
  ): void {
    const forwarding = gr ? listed(gr.families, true) : new Set<AfiCode>();
    const longLivedForwarding = llgr ? listed(llgr.families, true) : new Set<AfiCode>();
    const deadline = this.#c.clock.now() + staleRoutesTime * MS_PER_SECOND;
    for (const [afi, phase] of [...this.#phase]) {
      const kept = phase === 'long-lived' ? longLivedForwarding.has(afi) : forwarding.has(afi);
      if (kept) this.#enter(afi, 'waiting-end-of-rib', deadline);
      else
        this.#sweep(
          afi,
          gr ? 'forwarding state not kept (F bit clear)' : 'graceful restart not advertised again',
        );
    }
    this.#deadline.rearm();
    this.#c.flow.schedule();
  }

  /** End-of-RIB for a family: what was not announced again goes. */
  endOfRib(afi: number): void {
    if (!this.#phase.has(afi as AfiCode)) return;
    this.#sweep(afi as AfiCode, 'End-of-RIB received');
    this.#deadline.rearm();
    this.#c.flow.schedule();
  }

  /** The session ended without graceful restart, or the peer is removed: the caller withdraws everything. */
  close(): void {
    this.#closed = true;
    this.#phase.clear();
    this.#deadline.stop();
    this.#sweeping.stop();
  }

  #enter(afi: AfiCode, phase: StalePhase, deadline: number): void {
    this.#phase.set(afi, phase);
    this.#deadline.set(afi, deadline);
  }

  /** RFC 9494 section 4.2: LLGR_STALE on every stale path, NO_LLGR ones withdrawn. */
  #toLongLived(afi: AfiCode, now: number): void {
    const seconds = this.#longLived.get(afi)!;
    const kept = this.#c.rib.markLongLivedStale(this.#peer, afi);
    this.#enter(afi, 'long-lived', now + seconds * MS_PER_SECOND);
    this.#c.log.info(
      { family: FAMILY_NAME[afi], stale: kept, seconds },
      'long-lived graceful restart: keeping the peer’s routes as LLGR_STALE',
    );
  }

  /** The phases that ran out. */
  #expire(due: readonly AfiCode[]): void {
    const now = this.#c.clock.now();
    for (const afi of due) {
      const phase = this.#phase.get(afi);
      if (phase === 'restarting' && this.#longLived.has(afi)) this.#toLongLived(afi, now);
      else if (phase === 'restarting') this.#sweep(afi, 'restart time over before the peer came back');
      else if (phase === 'long-lived') this.#sweep(afi, 'long-lived stale time over');
      else this.#sweep(afi, 'stale routes time over before End-of-RIB');
    }
    this.#c.flow.schedule();
  }

  #sweep(afi: AfiCode, why: string): void {
    this.#phase.delete(afi);
    this.#deadline.delete(afi);
    if (this.#closed) return;
    const left = this.#c.rib.staleCount(this.#peer, afi);
    if (left === 0 && !this.#sweeping.has(afi)) return;
    this.#c.log.info(
      { family: FAMILY_NAME[afi], stale: left, why },
      'graceful restart: sweeping stale routes',
    );
    this.#sweeping.add(afi);
  }
}
