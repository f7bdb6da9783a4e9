import type { Sessions } from '../bgp/session/index.js';
import { childLogger, type Logger } from '../components/index.js';
import { LinkNeighbor } from '../link/index.js';

/**
 * Neighbour discovery for the peers configured by interface (BGP unnumbered): one
 * LinkNeighbor per interface, which tells the sessions where the peer is whenever its
 * link-local address is learned or changes. It outlives the peer's session objects (a rebuild
 * finds the neighbour known already).
 */
export class UnnumberedLinks {
  readonly #sessions: Sessions;
  readonly #log: Logger;
  readonly #links = new Map<string, LinkNeighbor>();

  constructor(sessions: Sessions, log: Logger) {
    this.#sessions = sessions;
    this.#log = log;
  }

  /** Starts discovery on `iface` (once) and hands a neighbour already known to the new session peer. */
  attach(iface: string): void {
    let link = this.#links.get(iface);
    if (!link) {
      link = new LinkNeighbor(
        { interface: iface },
        {
          logger: childLogger(this.#log, { component: 'unnumbered' }),
          onNeighbor: (address) => this.#tell(iface, address),
        },
      );
      this.#links.set(iface, link);
      link.start();
    }
    if (link.neighbor !== undefined) this.#tell(iface, link.neighbor);
  }

  /** Stops discovery on `iface` (its peer was removed). */
  detach(iface: string): void {
    this.#links.get(iface)?.stop();
    this.#links.delete(iface);
  }

  /** The neighbour found on `iface`, for `show`. */
  neighbor(iface: string): string | undefined {
    return this.#links.get(iface)?.neighbor;
  }

  close(): void {
    for (const link of this.#links.values()) link.stop();
    this.#links.clear();
  }

  #tell(iface: string, address: string | undefined): void {
    // Between a rebuild's removal and its new peer there is no session peer to tell.
    if (this.#sessions.peer(iface)?.config.interface !== iface) return;
    this.#sessions.setNeighbor(iface, address);
  }
}
