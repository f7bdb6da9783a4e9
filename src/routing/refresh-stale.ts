import { Afi, type AfiCode } from '../bgp/wire/index.js';
import type { Logger, Scheduler } from '../components/index.js';
import type { Rib, RibPeer } from '../rib/index.js';
import { MS_PER_SECOND } from './constants.js';
import { FamilyDeadlines } from './family-deadlines.js';
import { FamilySweep } from './family-sweep.js';
import type { RouteFlow } from './route-flow.js';

/** What a session's refreshes need from the speaker. */
export interface RefreshStaleComponents {
  readonly rib: Rib;
  readonly flow: RouteFlow;
  readonly log: Logger;
  /** The wait for an EoRR, and where the purge yields to the event loop. */
  readonly clock: Scheduler;
}

/** Where the peer's routes are kept before policy, when they are (Importer). */
export interface RefreshStaleStore {
  /** The BoRR: every stored route of the family is stale until sent again. */
  refreshBegin(afi: AfiCode): void;
  /** The EoRR: stored routes not sent again go (from the RIB too). Returns how many. */
  refreshPurge(afi: AfiCode): number;
}

/** One session with a peer that agreed to RFC 7313. */
export interface RefreshStaleInit {
  readonly peer: RibPeer;
  readonly store: RefreshStaleStore;
  /**
   * The peer advertised graceful restart: its BoRR for a family counts only after its
   * End-of-RIB for it (RFC 7313 section 4).
   */
  readonly gracefulRestart: boolean;
  /** Seconds we wait for an EoRR before purging anyway (speaker.graceful_restart.stale_routes_time). */
  readonly staleTime: number;
}

/** Where a peer's refreshes stand, for `show neighbors` and the logs. */
export interface RefreshStatus {
  /** Families between a BoRR and its EoRR. */
  readonly refreshing: readonly AfiCode[];
  /** Paths per family not sent again since the BoRR (IPv4, IPv6). */
  readonly stale: { readonly ipv4: number; readonly ipv6: number };
  /** When the earliest wait for an EoRR ends (the clock's milliseconds). */
  readonly deadline: number;
}

const FAMILY_NAME: Readonly<Record<AfiCode, string>> = {
  [Afi.IPV4]: 'ipv4-unicast',
  [Afi.IPV6]: 'ipv6-unicast',
};

/**
 * RFC 7313 section 4, the receiving side, for one session: the peer's BoRR for a family marks
 * every route it sent in it stale (in the RIB and in the store before policy); what it sends
 * again is fresh; its EoRR purges the rest, a slice per turn. The stale routes stay usable
 * with their preference unchanged meanwhile (the RIB's refresh marks do not take part in the
 * decision), so a refresh that sends everything again changes nothing downstream.
 *
 * As FRR: a BoRR from a peer that advertised graceful restart counts only after its
 * End-of-RIB for the family; an EoRR without a BoRR is ignored; an EoRR that does not come
 * within the stale time (FRR's stalepath-time, the same setting as graceful restart's) purges
 * anyway. Unlike FRR, a second BoRR before the EoRR marks everything again and restarts the
 * wait (the RFC's "MUST mark all the routes" holds for each BoRR; the peer starts over).
 */
export class RefreshStale {
  readonly #c: RefreshStaleComponents;
  readonly #init: RefreshStaleInit;
  /** Families whose End-of-RIB came on this session. */
  readonly #endOfRib = new Set<AfiCode>();
  /** Families between BoRR and EoRR, and when the wait for the EoRR ends. */
  readonly #deadline: FamilyDeadlines;
  /** Families being purged, a slice per turn. */
  readonly #purging: FamilySweep;
  #closed = false;

  constructor(init: RefreshStaleInit, components: RefreshStaleComponents) {
    this.#init = init;
    this.#c = components;
    const { rib, clock, flow } = components;
    this.#deadline = new FamilyDeadlines(clock, (due) => this.#expire(due));
    this.#purging = new FamilySweep(clock, flow, {
      count: (afi) => rib.refreshStaleCount(init.peer, afi),
      sweep: (afi, budget) => rib.sweepRefreshStale(init.peer, afi, budget),
    });
  }

  /** A refresh is under way or its purge is: null when neither. */
  status(): RefreshStatus | null {
    if (this.#closed || (this.#deadline.size === 0 && this.#purging.size === 0)) return null;
    const { rib } = this.#c;
    const peer = this.#init.peer;
    return {
      refreshing: this.#deadline.families(),
      stale: { ipv4: rib.refreshStaleCount(peer, Afi.IPV4), ipv6: rib.refreshStaleCount(peer, Afi.IPV6) },
      deadline: this.#deadline.earliest(),
    };
  }

  /** The peer's End-of-RIB for a family (RFC 4724 section 2). */
  endOfRib(afi: AfiCode): void {
    this.#endOfRib.add(afi);
  }

  /** The peer's BoRR for a family. */
  begin(afi: AfiCode): void {
    if (this.#closed) return;
    const log = this.#c.log;
    const family = FAMILY_NAME[afi];
    // RFC 7313 section 4: MUST ignore a BoRR before the End-of-RIB from a graceful restart
    // speaker, and SHOULD log it.
    if (this.#init.gracefulRestart && !this.#endOfRib.has(afi)) {
      log.warn({ family }, 'BoRR before the End-of-RIB of the family ignored (RFC 7313 section 4)');
      return;
    }
    const { rib } = this.#c;
    const peer = this.#init.peer;
    // The last refresh's purge is still going: it ends now, before its marks become this one's.
    if (this.#purging.delete(afi)) rib.sweepRefreshStale(peer, afi);
    const again = this.#deadline.has(afi);
    this.#init.store.refreshBegin(afi);
    const stale = rib.markRefreshStale(peer, afi);
    this.#deadline.set(afi, this.#c.clock.now() + this.#init.staleTime * MS_PER_SECOND);
    this.#deadline.rearm();
    log.info(
      { family, stale, seconds: this.#init.staleTime, ...(again && { again }) },
      'route refresh (BoRR): the peer’s routes are stale until sent again',
    );
    this.#c.flow.schedule();
  }

  /** The peer's EoRR for a family: what it did not send again since its BoRR goes. */
  end(afi: AfiCode): void {
    if (this.#closed) return;
    if (!this.#deadline.has(afi)) {
      // RFC 7313 section 4: an EoRR without a BoRR MAY be ignored, and SHOULD be logged.
      this.#c.log.warn({ family: FAMILY_NAME[afi] }, 'EoRR without a BoRR ignored (RFC 7313 section 4)');
      return;
    }
    this.#purge(afi, 'EoRR received');
  }

  /**
   * The session ended. A purge under way finishes (the EoRR said those routes are gone); a
   * refresh without its EoRR is abandoned, its marks cleared, and the paths are left to
   * whatever the end of the session does with them (kept stale for a graceful restart, or
   * withdrawn).
   */
  close(): void {
    if (this.#closed) return;
    this.#closed = true;
    const { rib } = this.#c;
    const peer = this.#init.peer;
    for (const afi of this.#purging.families()) rib.sweepRefreshStale(peer, afi);
    for (const afi of this.#deadline.families()) rib.clearRefreshStale(peer, afi);
    this.#purging.stop();
    this.#deadline.stop();
    this.#c.flow.schedule();
  }

  #purge(afi: AfiCode, why: string): void {
    this.#deadline.delete(afi);
    this.#deadline.rearm();
    const { rib } = this.#c;
    const peer = this.#init.peer;
    const stale = rib.refreshStaleCount(peer, afi);
    // Before policy too: a rejected route not sent again leaves `show received`.
    const stored = this.#init.store.refreshPurge(afi);
    this.#c.log.info(
      { family: FAMILY_NAME[afi], stale, ...(stored > 0 && { beforePolicy: stored }), why },
      'route refresh: purging the routes the peer did not send again',
    );
    this.#c.flow.schedule();
    if (rib.refreshStaleCount(peer, afi) === 0) return;
    this.#purging.add(afi);
  }

  /** The waits for an EoRR that ran out. */
  #expire(due: readonly AfiCode[]): void {
    // RFC 7313 section 4: a local upper bound on how long stale routes are kept; past it they
    // are purged (as FRR does when its stalepath-time runs out), the session stays.
    for (const afi of due) this.#purge(afi, 'no EoRR within the stale time');
  }
}
