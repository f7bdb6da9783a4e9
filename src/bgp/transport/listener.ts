import net from 'node:net';
import { formatIp, type IpAddress, unmapV4 } from '../../address/index.js';
import { BGP_PORT } from '../wire/index.js';
import { parseScopedAddress, parseTransportAddress } from './address.js';
import { SocketLevel, SocketOption, TransportDefaults } from './constants.js';
import { checkPort, type Endpoint, endpointOf, scopedText } from './endpoint.js';
import { TransportError } from './errors.js';
import { bindFd, withNewFd } from './raw-socket.js';
import { setIntOption, setMd5Key, setTtlOptions, type TtlOptions } from './socket-options.js';

export interface IncomingConnection {
  /** Connected, keyed with the listener's key for this peer at SYN time. */
  readonly socket: net.Socket;
  readonly peer: Endpoint;
  readonly local: Endpoint;
}

export interface PeerEntry {
  /** A link-local peer goes with its interface (fe80::1%eth1): only that link's connections match. */
  readonly address: string;
  /** TCP-MD5 password; absent or null for a peer without one. */
  readonly password?: string | null;
}

export interface ListenerInit {
  /** Address to listen on; '::' (default) takes IPv4 and IPv6, '0.0.0.0' IPv4 only. */
  readonly host?: string;
  /** Default 179; 0 picks a free port (see `address`). */
  readonly port?: number;
  readonly backlog?: number;
  /** IPv6 listeners clear IPV6_V6ONLY unless this is true. */
  readonly ipv6Only?: boolean;
  /** Peers known from the start; their keys are in place before listen(2). */
  readonly peers?: readonly PeerEntry[];
  /** TTL / GTSM for every connection (inherited by accepted sockets). */
  readonly ttl?: TtlOptions;
  /** Overrides the listener's own peer set when deciding whom to accept. */
  readonly isKnownPeer?: (address: string) => boolean;
}

export interface ListenerComponents {
  /** A known peer connected; the callee owns the socket from here on. */
  readonly onConnection: (connection: IncomingConnection) => void;
  /** An unknown address connected and was reset. */
  readonly onRefused?: (peer: Endpoint) => void;
  /** The listening socket failed after start. */
  readonly onError?: (error: Error) => void;
}

/**
 * One TCP listener for all BGP peers. Keys follow the peer set at run time: a dual-stack
 * ('::') socket needs IPv4 keys v4-mapped (an AF_INET key gives EINVAL), an AF_INET socket
 * needs them plain. Connections from addresses outside the peer set are reset at once.
 */
export class BgpListener {
  /** Peers we accept, by normalized address. */
  readonly #members = new Set<string>();
  /** Keys in the kernel, by normalized address. */
  readonly #keys = new Map<string, string>();
  readonly #server: net.Server;
  readonly #fd: number;
  readonly #family: 4 | 6;
  readonly #isKnownPeer: ((address: string) => boolean) | undefined;
  readonly #components: ListenerComponents;

  private constructor(
    server: net.Server,
    fd: number,
    family: 4 | 6,
    init: ListenerInit,
    components: ListenerComponents,
  ) {
    this.#server = server;
    this.#fd = fd;
    this.#family = family;
    this.#isKnownPeer = init.isKnownPeer;
    this.#components = components;
    server.on('connection', (socket) => this.#accept(socket));
    server.on('error', (error) => components.onError?.(error));
  }

  /** Creates the socket, keys the initial peers, binds and listens. */
  static async create(init: ListenerInit, components: ListenerComponents): Promise<BgpListener> {
    const hostText = init.host ?? TransportDefaults.LISTEN_HOST;
    const host = parseTransportAddress(hostText);
    const port = init.port ?? BGP_PORT;
    checkPort(port, 'listen port');
    const peers = (init.peers ?? []).map((peer) => ({
      address: normalizePeer(peer.address, host.family),
      password: peer.password ?? null,
    }));
    const fd = withNewFd(host, (fd) => {
      setIntOption(fd, SocketLevel.SOL_SOCKET, SocketOption.SO_REUSEADDR, 1, 'SO_REUSEADDR');
      if (host.family === 6) {
        setIntOption(
          fd,
          SocketLevel.IPPROTO_IPV6,
          SocketOption.IPV6_V6ONLY,
          init.ipv6Only ? 1 : 0,
          'IPV6_V6ONLY',
        );
      }
      // Keys go in before listen(2), so no SYN is ever accepted unsigned from a keyed peer.
      for (const peer of peers) {
        if (peer.password !== null) setMd5Key(fd, keySpec(peer.address, peer.password, host.family));
      }
      if (init.ttl) setTtlOptions(fd, host.family === 4 ? 'ipv4' : 'dual', init.ttl);
      bindFd(fd, host, port, hostText);
      return fd;
    });
    const server = net.createServer();
    await new Promise<void>((resolve, reject) => {
      server.once('error', reject);
      server.listen({ fd, backlog: init.backlog ?? TransportDefaults.LISTEN_BACKLOG }, () => {
        server.off('error', reject);
        resolve();
      });
    });
    const listener = new BgpListener(server, fd, host.family, init, components);
    for (const peer of peers) {
      listener.#members.add(peer.address);
      if (peer.password !== null) listener.#keys.set(peer.address, peer.password);
    }
    return listener;
  }

  /** Where the listener is bound (the real port when 0 was asked for). */
  get address(): Endpoint {
    const bound = this.#server.address() as net.AddressInfo;
    return { address: formatIp(parseTransportAddress(bound.address)), port: bound.port };
  }

  /** Known peers (normalized) and whether each has a key in the kernel. */
  peers(): ReadonlyMap<string, boolean> {
    return new Map([...this.#members].map((address) => [address, this.#keys.has(address)]));
  }

  hasPeer(address: string): boolean {
    return this.#members.has(normalizePeer(address, this.#family));
  }

  /**
   * Accepts connections from `address` from now on. A password installs its key, null
   * removes any key, and leaving it out keeps whatever key the address has.
   */
  addPeer(address: string, password?: string | null): void {
    const normalized = normalizePeer(address, this.#family);
    if (password !== undefined) this.setPeerKey(normalized, password);
    this.#members.add(normalized);
  }

  /** Forgets a peer and removes its key; sessions already accepted keep running. */
  removePeer(address: string): void {
    const normalized = normalizePeer(address, this.#family);
    this.setPeerKey(normalized, null);
    this.#members.delete(normalized);
  }

  /**
   * Installs, replaces (password) or removes (null) the key for a peer, at any time; the
   * peer set is not touched. Only new connections see the change: accepted sockets keep the
   * key they were born with.
   */
  setPeerKey(address: string, password: string | null): void {
    const normalized = normalizePeer(address, this.#family);
    if (password === null && !this.#keys.has(normalized)) return; // the kernel would say ENOENT
    setMd5Key(this.#fd, keySpec(normalized, password, this.#family));
    if (password === null) this.#keys.delete(normalized);
    else this.#keys.set(normalized, password);
  }

  /** TTL / GTSM for connections accepted from now on. */
  setTtl(options: TtlOptions): void {
    setTtlOptions(this.#fd, this.#family === 4 ? 'ipv4' : 'dual', options);
  }

  /**
   * Stops accepting and closes the listening socket. Connections already handed out stay
   * open (they belong to their sessions), so this does not wait for them.
   */
  async close(): Promise<void> {
    if (this.#server.listening) this.#server.close();
  }

  #known(address: string): boolean {
    if (!this.#isKnownPeer) return this.#members.has(address);
    try {
      return this.#isKnownPeer(address);
    } catch (error) {
      this.#components.onError?.(error instanceof Error ? error : new Error(String(error)));
      return false;
    }
  }

  #accept(socket: net.Socket): void {
    const peer = endpointOf(socket.remoteAddress, socket.remotePort);
    const local = endpointOf(socket.localAddress, socket.localPort);
    if (!peer || !local) {
      socket.destroy(); // reset before we could look at it
      return;
    }
    if (!this.#known(scopedText(peer))) {
      // RST instead of FIN: nothing to say to a stranger, and no TIME_WAIT left behind.
      socket.resetAndDestroy();
      this.#components.onRefused?.(peer);
      return;
    }
    this.#components.onConnection({ socket, peer, local });
  }
}

/**
 * The spelling used as key in the peer set (a link-local peer keeps its zone); an IPv6 peer
 * cannot reach an IPv4 listener.
 */
function normalizePeer(address: string, listenerFamily: 4 | 6): string {
  const scoped = parseScopedAddress(address);
  const ip: IpAddress = unmapV4(scoped.ip);
  if (ip.family === 6 && listenerFamily === 4) {
    throw new TransportError('family-mismatch', `IPv6 peer ${address} cannot connect to an IPv4 listener`, {
      address,
    });
  }
  return scoped.zone === undefined ? formatIp(ip) : `${formatIp(ip)}%${scoped.zone}`;
}

/** The kernel keys an address, not an interface: a link-local peer's key holds on every link. */
function keySpec(address: string, password: string | null, listenerFamily: 4 | 6) {
  const ip = parseScopedAddress(address).ip;
  return { address: formatIp(ip), password, v4mapped: listenerFamily === 6 && ip.family === 4 };
}

/** Factory form of BgpListener.create. */
export function createListener(init: ListenerInit, components: ListenerComponents): Promise<BgpListener> {
  return BgpListener.create(init, components);
}
