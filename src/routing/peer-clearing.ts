import type { Rib, RibPeer } from '../rib/index.js';
import { RoutingDefaults } from './constants.js';
import type { RouteFlow } from './route-flow.js';

/**
 * Withdraws the routes of a session that ended, a slice per turn, so keepalives of the other
 * peers keep flowing while a full table goes; the RIB forgets the peer once all are gone.
 */
export class PeerClearing {
  readonly #rib: Rib;
  readonly #flow: RouteFlow;
  readonly #defer: (fn: () => void) => void;
  readonly #onError: (error: unknown) => void;
  #peer: RibPeer | null;

  constructor(
    rib: Rib,
    flow: RouteFlow,
    peer: RibPeer,
    defer: (fn: () => void) => void,
    onError: (error: unknown) => void,
  ) {
    this.#rib = rib;
    this.#flow = flow;
    this.#defer = defer;
    this.#onError = onError;
    this.#peer = peer;
    this.#slice();
  }

  get done(): boolean {
    return this.#peer === null;
  }

  /** Withdraws what is left at once (the peer's id is needed again, or it is deconfigured). */
  finish(): void {
    const peer = this.#peer;
    if (!peer) return;
    this.#peer = null;
    this.#rib.removePeer(peer);
    this.#flow.schedule();
  }

  #slice(): void {
    const peer = this.#peer;
    if (!peer) return;
    try {
      if (this.#rib.clearPeer(peer, RoutingDefaults.CLEAR_SLICE_ROUTES) === 0) {
        this.#peer = null;
        this.#rib.removePeer(peer);
      } else {
        this.#defer(() => this.#slice());
      }
    } catch (error) {
      this.#onError(error);
    }
    this.#flow.schedule();
  }
}
