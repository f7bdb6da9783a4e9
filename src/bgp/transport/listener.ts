import net from 'node:net';
import {
  addressBits,
  bytesToWords,
  formatIp,
  formatIpPrefix,
  formatWords,
  type IpAddress,
  type IpPrefix,
  parseIpPrefix,
  prefixContains,
  unmapV4,
} from '../../address/index.js';
import { BGP_PORT } from '../wire/index.js';
import { parseTransportAddress } from './address.js';
import { SocketLevel, SocketOption, TransportDefaults } from './constants.js';
import { checkPort, type Endpoint, endpointOf } from './endpoint.js';
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
  readonly address: string;
  /** TCP-MD5 password; absent or null for a peer without one. */
  readonly password?: string | null;
}

/** A prefix whose addresses may connect (dynamic neighbours); one TCP-MD5 key covers all of them. */
export interface RangeEntry {
  /** "198.18.0.0/24", "2001:db8::/64": host bits zero. */
  readonly prefix: string;
  /** TCP-MD5 password for every address of the prefix; absent or null: none. */
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
  /** Ranges known from the start; their keys are in place before listen(2) too. */
  readonly ranges?: readonly RangeEntry[];
  /** TTL / GTSM for every connection (inherited by accepted sockets). */
  readonly ttl?: TtlOptions;
  /** Overrides the listener's own peer set when deciding whom to accept. */
  readonly isKnownPeer?: (address: string) => boolean;
}

export interface ListenerComponents {
  /** A known peer, or an address inside a range, connected; the callee owns the socket from here on. */
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
  /** Ranges we let through, by canonical prefix text, with their key (null: none). */
  readonly #ranges = new Map<string, { readonly prefix: IpPrefix; readonly password: string | null }>();
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
    const ranges = (init.ranges ?? []).map((r) => ({
      prefix: parseRange(r.prefix, host.family),
      password: r.password ?? null,
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
      for (const range of ranges) {
        if (range.password !== null) setMd5Key(fd, rangeKeySpec(range.prefix, range.password, host.family));
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
    for (const range of ranges) listener.#ranges.set(formatIpPrefix(range.prefix), range);
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

  /** Ranges let through (canonical prefix text) and whether each has a key in the kernel. */
  ranges(): ReadonlyMap<string, boolean> {
    return new Map([...this.#ranges].map(([text, r]) => [text, r.password !== null]));
  }

  /**
   * Lets connections from every address of `prefix` through (to be told apart by the caller),
   * with one TCP-MD5 key for the whole prefix (TCP_MD5SIG_EXT with TCP_MD5SIG_FLAG_PREFIX): the
   * kernel checks a segment against the longest key prefix holding its source, so a peer's own
   * key inside the range still wins for that peer. A range given again has its key replaced.
   */
  setRange(prefix: string, password: string | null): void {
    const parsed = parseRange(prefix, this.#family);
    const text = formatIpPrefix(parsed);
    const before = this.#ranges.get(text);
    if (password !== null) setMd5Key(this.#fd, rangeKeySpec(parsed, password, this.#family));
    else if (before?.password) setMd5Key(this.#fd, rangeKeySpec(parsed, null, this.#family));
    this.#ranges.set(text, { prefix: parsed, password });
  }

  /** Stops letting a range through and removes its key; sessions already accepted keep running. */
  removeRange(prefix: string): void {
    const parsed = parseRange(prefix, this.#family);
    const text = formatIpPrefix(parsed);
    const before = this.#ranges.get(text);
    if (!before) return;
    if (before.password !== null) setMd5Key(this.#fd, rangeKeySpec(parsed, null, this.#family));
    this.#ranges.delete(text);
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

  #inRange(address: string): boolean {
    if (this.#ranges.size === 0) return false;
    const ip = unmapV4(parseTransportAddress(address));
    const host: IpPrefix = { family: ip.family, words: bytesToWords(ip.bytes), len: addressBits(ip.family) };
    for (const r of this.#ranges.values()) if (prefixContains(r.prefix, host)) return true;
    return false;
  }

  #known(address: string): boolean {
    if (this.#inRange(address)) return true;
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
    if (!this.#known(peer.address)) {
      // RST instead of FIN: nothing to say to a stranger, and no TIME_WAIT left behind.
      socket.resetAndDestroy();
      this.#components.onRefused?.(peer);
      return;
    }
    this.#components.onConnection({ socket, peer, local });
  }
}

/** The spelling used as key in the peer set; an IPv6 peer cannot reach an IPv4 listener. */
function normalizePeer(address: string, listenerFamily: 4 | 6): string {
  const ip: IpAddress = unmapV4(parseTransportAddress(address));
  if (ip.family === 6 && listenerFamily === 4) {
    throw new TransportError('family-mismatch', `IPv6 peer ${address} cannot connect to an IPv4 listener`, {
      address,
    });
  }
  return formatIp(ip);
}

/** A range's prefix; host bits refused (a key covers the network, not one host's bits). */
function parseRange(text: string, listenerFamily: 4 | 6): IpPrefix {
  let prefix: IpPrefix;
  try {
    prefix = parseIpPrefix(text, { hostBits: 'refuse' });
  } catch (error) {
    throw new TransportError('invalid-address', `range ${text}: ${(error as Error).message}`, {
      address: text,
    });
  }
  if (prefix.family === 6 && listenerFamily === 4) {
    throw new TransportError('family-mismatch', `IPv6 range ${text} cannot connect to an IPv4 listener`, {
      address: text,
    });
  }
  return prefix;
}

/** On a dual-stack listener an IPv4 range is keyed v4-mapped, its length still in IPv4 bits. */
function rangeKeySpec(prefix: IpPrefix, password: string | null, listenerFamily: 4 | 6) {
  return {
    address: formatWords(prefix.family, prefix.words),
    prefixLen: prefix.len,
    password,
    v4mapped: listenerFamily === 6 && prefix.family === 4,
  };
}

function keySpec(address: string, password: string | null, listenerFamily: 4 | 6) {
  return { address, password, v4mapped: listenerFamily === 6 && parseTransportAddress(address).family === 4 };
}

/** Factory form of BgpListener.create. */
export function createListener(init: ListenerInit, components: ListenerComponents): Promise<BgpListener> {
  return BgpListener.create(init, components);
}
