import type { GracefulRestartNegotiated } from '../bgp/wire/index.js';
import { Afi, type AfiCode, Safi } from '../bgp/wire/index.js';
import type { Logger } from '../components/index.js';
import type { Rib, RibPeer } from '../rib/index.js';
import { MS_PER_SECOND, RoutingDefaults } from './constants.js';
import type { RouteFlow } from './route-flow.js';

/** What keeping a restarting peer's routes needs from the speaker. */
export interface StaleRoutesComponents {
  readonly rib: Rib;
  readonly flow: RouteFlow;
  readonly log: Logger;
  readonly setTimer: (fn: () => void, ms: number) => unknown;
  readonly clearTimer: (handle: unknown) => void;
  /** Where long work yields to the event loop (setImmediate). */
  readonly defer: (fn: () => void) => void;
}

/** Where a peer's kept routes stand, for `show neighbors`. */
export interface StaleStatus {
  /** Waiting for the peer to come back (its Restart Time), or for its End-of-RIBs (our stale time). */
  readonly phase: 'restarting' | 'waiting-end-of-rib';
  /** Stale paths per family still held (IPv4, IPv6). */
  readonly stale: { readonly ipv4: number; readonly ipv6: number };
  /** When the running timer sweeps what is left (the clock's milliseconds). */
  readonly deadline: number;
}

const FAMILIES: readonly AfiCode[] = [Afi.IPV4, Afi.IPV6];
const FAMILY_NAME: Readonly<Record<AfiCode, string>> = {
  [Afi.IPV4]: 'ipv4-unicast',
  [Afi.IPV6]: 'ipv6-unicast',
};

/** The unicast families a peer's graceful restart capability lists, optionally only those with F set. */
function grFamilies(gr: GracefulRestartNegotiated, forwardingOnly: boolean): Set<AfiCode> {
  const out = new Set<AfiCode>();
  for (const f of gr.families) {
    if (f.safi !== Safi.UNICAST || (f.afi !== Afi.IPV4 && f.afi !== Afi.IPV6)) continue;
    if (!forwardingOnly || f.forwardingState) out.add(f.afi);
  }
  return out;
}

/**
 * RFC 4724 section 4.2, the receiving speaker, for one peer: when its session ends gracefully,
 * its routes of the families its capability listed stay in the RIB (and so in every sink),
 * marked stale, for its Restart Time; when it is back, they stay only for the families whose F
 * bit is set, until its End-of-RIB for the family or our stale routes time; whatever it did
 * not announce again is then swept, a slice per turn. Families it did not list go at once.
 */
export class StaleRoutes {
  readonly #c: StaleRoutesComponents;
  #peer: RibPeer;
  /** Families with stale paths the peer may still refresh. */
  readonly #waiting = new Set<AfiCode>();
  /** Families being swept, a slice per turn. */
  readonly #sweeping = new Set<AfiCode>();
  #phase: StaleStatus['phase'] = 'restarting';
  #timer: unknown = null;
  #deadline = 0;
  #sliceQueued = false;
  #closed = false;
  readonly #now: () => number;

  /**
   * The session of `peer` ended gracefully: the families in `gr` stay stale for its Restart
   * Time, the others of `negotiated` are withdrawn now.
   */
  constructor(
    peer: RibPeer,
    gr: GracefulRestartNegotiated,
    negotiated: readonly AfiCode[],
    components: StaleRoutesComponents,
    now: () => number,
  ) {
    this.#c = components;
    this.#peer = peer;
    this.#now = now;
    this.lost(gr, negotiated);
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
    return !this.#closed && (this.#waiting.size > 0 || this.#sweeping.size > 0);
  }

  /** Families whose stale paths still wait for the peer (its return, its End-of-RIB). */
  get waiting(): readonly AfiCode[] {
    return [...this.#waiting];
  }

  status(): StaleStatus | null {
    if (!this.active) return null;
    const { rib } = this.#c;
    return {
      phase: this.#phase,
      stale: { ipv4: rib.staleCount(this.#peer, Afi.IPV4), ipv6: rib.staleCount(this.#peer, Afi.IPV6) },
      deadline: this.#deadline,
    };
  }

  /**
   * The session ended gracefully (again, maybe before the last one's End-of-RIBs): every path
   * of the families in `gr` is stale now, the restart timer runs with its Restart Time.
   */
  lost(gr: GracefulRestartNegotiated, negotiated: readonly AfiCode[]): void {
    const keep = grFamilies(gr, false);
    const { rib } = this.#c;
    for (const afi of FAMILIES) {
      if (keep.has(afi)) {
        const marked = rib.markStale(this.#peer, afi);
        if (marked > 0 || rib.staleCount(this.#peer, afi) > 0) this.#waiting.add(afi);
      } else if (negotiated.includes(afi) || this.#waiting.has(afi)) {
        // Not kept: withdrawn as without graceful restart (marked, then swept a slice per turn).
        rib.markStale(this.#peer, afi);
        this.#sweep(afi, 'not in its graceful restart capability');
      }
    }
    this.#phase = 'restarting';
    this.#arm(gr.restartTime, 'restart time over before the peer came back');
    this.#c.log.info(
      {
        restartTime: gr.restartTime,
        families: [...this.#waiting].map((a) => FAMILY_NAME[a]),
        stale: [...this.#waiting].map((a) => rib.staleCount(this.#peer, a)),
      },
      'graceful restart: keeping the peer’s routes as stale',
    );
    this.#flowChanged();
  }

  /**
   * The peer is back. Its routes stay stale only for the families its new capability lists
   * with the F bit (RFC 4724 section 4.2); the stale timer bounds the wait for End-of-RIB.
   */
  established(gr: GracefulRestartNegotiated | null, staleRoutesTime: number): void {
    this.#stopTimer();
    const forwarding = gr ? grFamilies(gr, true) : new Set<AfiCode>();
    for (const afi of [...this.#waiting]) {
      if (!forwarding.has(afi)) {
        this.#sweep(
          afi,
          gr ? 'forwarding state not kept (F bit clear)' : 'graceful restart not advertised again',
        );
      }
    }
    if (this.#waiting.size === 0) {
      this.#flowChanged();
      return;
    }
    this.#phase = 'waiting-end-of-rib';
    this.#arm(staleRoutesTime, 'stale routes time over before End-of-RIB');
    this.#flowChanged();
  }

  /** End-of-RIB for a family: what was not announced again goes. */
  endOfRib(afi: number): void {
    if (!this.#waiting.has(afi as AfiCode)) return;
    this.#sweep(afi as AfiCode, 'End-of-RIB received');
    if (this.#waiting.size === 0) this.#stopTimer();
    this.#flowChanged();
  }

  /** The session ended without graceful restart, or the peer is removed: the caller withdraws everything. */
  close(): void {
    this.#closed = true;
    this.#stopTimer();
    this.#waiting.clear();
    this.#sweeping.clear();
  }

  #arm(seconds: number, why: string): void {
    this.#stopTimer();
    if (this.#waiting.size === 0) return;
    const ms = seconds * MS_PER_SECOND;
    this.#deadline = this.#now() + ms;
    this.#timer = this.#c.setTimer(() => {
      this.#timer = null;
      for (const afi of [...this.#waiting]) this.#sweep(afi, why);
      this.#flowChanged();
    }, ms);
  }

  #stopTimer(): void {
    if (this.#timer !== null) this.#c.clearTimer(this.#timer);
    this.#timer = null;
  }

  #sweep(afi: AfiCode, why: string): void {
    this.#waiting.delete(afi);
    if (this.#closed) return;
    const left = this.#c.rib.staleCount(this.#peer, afi);
    if (left === 0 && !this.#sweeping.has(afi)) return;
    this.#c.log.info(
      { family: FAMILY_NAME[afi], stale: left, why },
      'graceful restart: sweeping stale routes',
    );
    this.#sweeping.add(afi);
    if (!this.#sliceQueued) this.#slice();
  }

  /** Withdraws a slice of what is being swept; more next turn (keepalives keep flowing). */
  #slice(): void {
    this.#sliceQueued = false;
    if (this.#closed) return;
    let budget: number = RoutingDefaults.CLEAR_SLICE_ROUTES;
    const { rib } = this.#c;
    for (const afi of [...this.#sweeping]) {
      const before = rib.staleCount(this.#peer, afi);
      const left = rib.sweepStale(this.#peer, afi, budget);
      budget -= before - left;
      if (left === 0) this.#sweeping.delete(afi);
      if (budget <= 0) break;
    }
    this.#c.flow.schedule();
    if (this.#sweeping.size > 0) {
      this.#sliceQueued = true;
      this.#c.defer(() => this.#slice());
    }
  }

  #flowChanged(): void {
    this.#c.flow.schedule();
  }
}
