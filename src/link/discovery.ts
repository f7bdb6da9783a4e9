import { formatAddress, parseIp } from '../address/index.js';
import {
  childLogger,
  type Logger,
  MS_PER_SECOND,
  type Scheduler,
  silentLogger,
  systemScheduler,
  type TimerHandle,
} from '../components/index.js';
import { ALL_NODES, LinkDefaults, NdType } from './constants.js';
import { IcmpSocket, type Received } from './icmp-socket.js';
import { type LinkInfo, readLinkInfo } from './link-info.js';
import { decodeNdMessage, encodeRouterAdvertisement, parseMac } from './nd-message.js';

/** The socket as discovery uses it (tests pass a fake). */
export interface NdSocket {
  send(bytes: Uint8Array, destination: Uint8Array, ifindex: number): void;
  receive(size: number): Received | undefined;
  close(): void;
}

export interface LinkNeighborInit {
  /** The interface of the unnumbered peer, e.g. "eth1". */
  readonly interface: string;
  /** Seconds between our unsolicited RAs. */
  readonly raIntervalS?: number;
}

export interface LinkNeighborComponents {
  readonly scheduler?: Scheduler;
  readonly logger?: Logger;
  readonly openSocket?: (ifname: string, types: readonly number[]) => NdSocket;
  readonly linkInfo?: (ifname: string) => LinkInfo | undefined;
  /** The neighbour's link-local address changed (learned, replaced, or forgotten: undefined). */
  readonly onNeighbor?: (address: string | undefined) => void;
}

const ALL_NODES_BYTES = parseIp(ALL_NODES).bytes;

/**
 * The neighbour at the other end of an unnumbered link, as FRR finds it for `neighbor IF
 * interface`: we send router advertisements on the link (lifetime 0: not a default router),
 * so the neighbour learns our link-local address, and take its link-local address from the
 * advertisements it sends. A Router Solicitation is answered at once, and the first few RAs
 * after start or after the link comes up go early, so a flap costs seconds, not an interval.
 */
export class LinkNeighbor {
  readonly interface: string;
  readonly #intervalMs: number;
  readonly #scheduler: Scheduler;
  readonly #log: Logger;
  readonly #open: (ifname: string, types: readonly number[]) => NdSocket;
  readonly #linkInfo: (ifname: string) => LinkInfo | undefined;
  readonly #onNeighbor: ((address: string | undefined) => void) | undefined;
  #socket: NdSocket | undefined;
  #poll: TimerHandle | undefined;
  #advert: TimerHandle | undefined;
  #early = 0;
  #lastSent = Number.NEGATIVE_INFINITY;
  #up = false;
  #neighbor: string | undefined;
  #running = false;
  #sent = 0;
  #received = 0;

  constructor(init: LinkNeighborInit, components: LinkNeighborComponents = {}) {
    this.interface = init.interface;
    this.#intervalMs = (init.raIntervalS ?? LinkDefaults.RA_INTERVAL_S) * MS_PER_SECOND;
    this.#scheduler = components.scheduler ?? systemScheduler;
    this.#log = childLogger(components.logger ?? silentLogger, { interface: init.interface });
    this.#open = components.openSocket ?? ((name, types) => IcmpSocket.open(name, types));
    this.#linkInfo = components.linkInfo ?? readLinkInfo;
    this.#onNeighbor = components.onNeighbor;
  }

  /** The neighbour's link-local address (RFC 5952 text, no zone), once an RA brought it. */
  get neighbor(): string | undefined {
    return this.#neighbor;
  }

  /** RAs sent and accepted since start, for `show` and tests. */
  get counts(): { readonly sent: number; readonly received: number } {
    return { sent: this.#sent, received: this.#received };
  }

  start(): void {
    if (this.#running) return;
    this.#running = true;
    this.#early = LinkDefaults.INITIAL_RAS;
    this.#advertiseLater(0);
    this.#pollLater();
  }

  stop(): void {
    this.#running = false;
    this.#scheduler.clearTimeout(this.#poll);
    this.#scheduler.clearTimeout(this.#advert);
    this.#poll = undefined;
    this.#advert = undefined;
    this.#socket?.close();
    this.#socket = undefined;
  }

  #pollLater(): void {
    this.#poll = this.#scheduler.setTimeout(() => {
      this.#poll = undefined;
      if (!this.#running) return;
      this.#readAll();
      this.#pollLater();
    }, LinkDefaults.POLL_MS);
  }

  #advertiseLater(ms: number): void {
    this.#scheduler.clearTimeout(this.#advert);
    this.#advert = this.#scheduler.setTimeout(() => {
      this.#advert = undefined;
      if (!this.#running) return;
      this.#advertise();
      const early = this.#early > 0;
      if (early) this.#early--;
      this.#advertiseLater(early ? LinkDefaults.INITIAL_RA_INTERVAL_MS : this.#intervalMs);
    }, ms);
  }

  /** The socket, opened on first need and again after the link came back. */
  #ensureSocket(): NdSocket | undefined {
    if (this.#socket) return this.#socket;
    try {
      this.#socket = this.#open(this.interface, [NdType.ROUTER_SOLICITATION, NdType.ROUTER_ADVERTISEMENT]);
    } catch (error) {
      this.#log.debug({ error: String(error) }, 'cannot open the neighbour discovery socket yet');
    }
    return this.#socket;
  }

  /** Follows the link's state: coming up sends early RAs again (the neighbour forgot us). */
  #checkLink(): LinkInfo | undefined {
    const link = this.#linkInfo(this.interface);
    const up = link?.up ?? false;
    if (up && !this.#up) {
      this.#log.info({}, 'link up: advertising early');
      this.#early = LinkDefaults.INITIAL_RAS;
      this.#advertiseLater(0);
    } else if (!up && this.#up) {
      this.#log.info({}, 'link down');
    }
    this.#up = up;
    return link;
  }

  #advertise(): void {
    const link = this.#checkLink();
    if (!link?.up) return;
    const socket = this.#ensureSocket();
    if (!socket) return;
    const mac = parseMac(link.mac);
    try {
      socket.send(encodeRouterAdvertisement({ sourceLinkLayer: mac }), ALL_NODES_BYTES, link.ifindex);
      this.#sent++;
      this.#lastSent = this.#scheduler.now();
    } catch (error) {
      // No link-local address yet (DAD) or the link went down between the check and the send.
      this.#log.debug({ error: String(error) }, 'router advertisement not sent');
    }
  }

  #readAll(): void {
    this.#checkLink();
    const socket = this.#ensureSocket();
    if (!socket) return;
    for (let i = 0; i < LinkDefaults.READS_PER_POLL; i++) {
      let packet: Received | undefined;
      try {
        packet = socket.receive(LinkDefaults.RECEIVE_BYTES);
      } catch (error) {
        this.#log.warn({ error: String(error) }, 'reading the neighbour discovery socket failed');
        socket.close();
        this.#socket = undefined;
        return;
      }
      if (!packet) return;
      this.#handle(packet);
    }
  }

  #handle(packet: Received): void {
    const verdict = decodeNdMessage(packet.bytes, packet.source);
    if ('drop' in verdict) {
      this.#log.debug({ reason: verdict.drop }, 'neighbour discovery packet dropped');
      return;
    }
    if (verdict.message.type === 'router-solicitation') {
      // RFC 4861 6.2.6: answer, but no more often than MIN_DELAY_BETWEEN_RAS.
      const since = this.#scheduler.now() - this.#lastSent;
      this.#advertiseLater(Math.max(0, LinkDefaults.MIN_DELAY_BETWEEN_RAS_MS - since));
      return;
    }
    this.#received++;
    const address = formatAddress(packet.source);
    if (address === this.#neighbor) return;
    this.#log.info(
      { neighbor: address, previous: this.#neighbor },
      'neighbour learned from its router advertisement',
    );
    this.#neighbor = address;
    this.#onNeighbor?.(address);
  }
}
