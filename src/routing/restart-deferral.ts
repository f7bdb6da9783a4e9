import { Afi, type Negotiated, Safi } from '../bgp/wire/index.js';
import type { Clock, Logger } from '../components/index.js';
import { MS_PER_SECOND } from './constants.js';

/** Timers and logs for the deferral. */
export interface RestartDeferralComponents {
  readonly clock: Clock;
  readonly log: Logger;
}

export interface RestartDeferralInit {
  /** The peers to wait for: every configured peer that is not shut down. */
  readonly peers: readonly string[];
  /** Also wait for OVN's first derivation (our own routes, so the End-of-RIB we send is whole). */
  readonly waitForOvn: boolean;
  /** The Selection_Deferral_Timer of RFC 4724 section 4.1, in seconds. */
  readonly seconds: number;
}

/** What the deferral still waits for, for logs and `show`. */
export interface RestartDeferralStatus {
  /** Peers not up yet, or up without their End-of-RIB for every family. */
  readonly peers: readonly string[];
  readonly ovn: boolean;
  /** When the timer ends the wait anyway (the clock's milliseconds). */
  readonly deadline: number;
}

const familyKey = (afi: number, safi: number) => `${afi}/${safi}`;

/**
 * RFC 4724 section 4.1 for the restarting speaker (us): route selection, and with it our
 * sinks and what we send, waits until every peer has sent its End-of-RIB for every family, or
 * the deferral timer expires. Peers without graceful restart are not waited for. Unlike the
 * RFC, peers with the R bit are: FRR 8.4 with `bgp graceful-restart` sets it in every OPEN,
 * and not waiting would reconcile the kernel before its routes are back (deleting the kept
 * ones for a moment). No deadlock comes of it: a peer that really restarts waits for no peer
 * with the R bit, and ours is set while we wait; the timer bounds it in any case. Calls `done` once.
 */
export class RestartDeferral {
  readonly #c: RestartDeferralComponents;
  readonly #done: (why: string) => void;
  /** Peer name → families whose End-of-RIB is missing; absent once the peer is done. */
  readonly #waiting = new Map<string, Set<string> | null>();
  #ovn: boolean;
  #timer: unknown;
  readonly #deadline: number;
  #finished = false;

  constructor(init: RestartDeferralInit, components: RestartDeferralComponents, done: (why: string) => void) {
    this.#c = components;
    this.#done = done;
    this.#ovn = init.waitForOvn;
    // null: not Established yet (its families are known from its OPEN only).
    for (const p of init.peers) this.#waiting.set(p, null);
    const ms = init.seconds * MS_PER_SECOND;
    this.#deadline = components.clock.now() + ms;
    this.#timer = components.clock.setTimeout(() => {
      this.#timer = undefined;
      this.#finish(`deferral timer (${init.seconds} s) expired`);
    }, ms);
    this.#check();
  }

  get finished(): boolean {
    return this.#finished;
  }

  status(): RestartDeferralStatus {
    return { peers: [...this.#waiting.keys()], ovn: this.#ovn, deadline: this.#deadline };
  }

  /** A peer's session came up: wait for its End-of-RIBs if it does graceful restart. */
  established(peer: string, n: Negotiated): void {
    if (this.#finished || !this.#waiting.has(peer)) return;
    if (!n.gracefulRestart) {
      this.#peerDone(peer, 'no graceful restart');
      return;
    }
    const families = new Set(
      n.families
        .filter((f) => f.safi === Safi.UNICAST && (f.afi === Afi.IPV4 || f.afi === Afi.IPV6))
        .map((f) => familyKey(f.afi, f.safi)),
    );
    this.#waiting.set(peer, families);
    if (families.size === 0) this.#peerDone(peer, 'no family to wait for');
  }

  endOfRib(peer: string, afi: number, safi: number): void {
    const families = this.#waiting.get(peer);
    if (this.#finished || !families) return;
    families.delete(familyKey(afi, safi));
    if (families.size === 0) this.#peerDone(peer, 'End-of-RIB for every family');
  }

  /** The peer is removed from the configuration (or shut down): nothing to wait for. */
  removed(peer: string): void {
    if (this.#finished || !this.#waiting.has(peer)) return;
    this.#peerDone(peer, 'removed');
  }

  /** OVN's first derivation is in the RIB. */
  ovnReady(): void {
    if (this.#finished || !this.#ovn) return;
    this.#ovn = false;
    this.#c.log.info({}, 'graceful restart: OVN routes derived');
    this.#check();
  }

  /** The speaker stops: no more waiting, `done` is not called. */
  cancel(): void {
    this.#finished = true;
    this.#stopTimer();
  }

  #peerDone(peer: string, why: string): void {
    this.#waiting.delete(peer);
    this.#c.log.info({ peer, why }, 'graceful restart: peer ready');
    this.#check();
  }

  #check(): void {
    if (this.#waiting.size === 0 && !this.#ovn) this.#finish('every peer sent its End-of-RIBs');
  }

  #finish(why: string): void {
    if (this.#finished) return;
    this.#finished = true;
    this.#stopTimer();
    if (this.#waiting.size > 0 || this.#ovn) {
      this.#c.log.warn({ peers: [...this.#waiting.keys()], ovn: this.#ovn }, `graceful restart: ${why}`);
    }
    this.#done(why);
  }

  #stopTimer(): void {
    if (this.#timer !== undefined) this.#c.clock.clearTimeout(this.#timer);
    this.#timer = undefined;
  }
}
