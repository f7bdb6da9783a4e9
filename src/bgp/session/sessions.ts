import { normalizeAddress } from '../../address/index.js';
import { childLogger, type Logger, silentLogger } from '../../components/index.js';
import {
  type BgpListener,
  createListener,
  type Endpoint,
  type IncomingConnection,
  type RangeEntry,
  type TtlOptions,
} from '../transport/index.js';
import { CeaseSubcode } from '../wire/index.js';
import type { SessionPeerInit } from './config.js';
import { SessionConfigError, SessionError } from './errors.js';
import { Peer, type PeerComponents } from './peer.js';

/** A peer as the speaker's configuration gives it: our AS and router id default to the speaker's. */
export type SessionsPeerInit = Omit<SessionPeerInit, 'localAs' | 'routerId'> &
  Partial<Pick<SessionPeerInit, 'localAs' | 'routerId'>> & {
    /** Start the peer at once (default); false keeps it down until `peer.start()`, as `neighbor shutdown`. */
    readonly enabled?: boolean;
    /**
     * The peer's TCP-MD5 key is its range's, on the listener already (a dynamic neighbour): no
     * key of its own is installed for it.
     */
    readonly keyFromRange?: boolean;
  };

export interface ListenInit {
  /** '::' (default) takes IPv4 and IPv6; '0.0.0.0' IPv4 only. */
  readonly host?: string;
  /** Default 179; 0 picks a free port (see `address`). */
  readonly port?: number;
  readonly ttl?: TtlOptions;
  /** Prefixes whose addresses may connect without being peers (see `setRanges`). */
  readonly ranges?: readonly RangeEntry[];
}

export interface SessionsInit {
  readonly localAs: number;
  readonly routerId: string;
  /** The one listener for every peer; false: no listener (every peer connects out). */
  readonly listen?: ListenInit | false;
  readonly peers?: readonly SessionsPeerInit[];
}

export interface SessionsComponents extends PeerComponents {
  /** A connection came from an address no peer has; it was reset (a log line names it too). */
  readonly onRefused?: (remote: Endpoint) => void;
  /** A peer was added; subscribe to its events here to miss none of them. */
  readonly onPeer?: (peer: Peer) => void;
  /**
   * A connection came from an address inside a range and no peer has it. The callee may add a
   * peer for it (a dynamic neighbour) and return it to be handed the connection; undefined
   * refuses it (reset). Without it, every such connection is refused.
   */
  readonly admit?: (remote: Endpoint) => Peer | undefined;
}

/**
 * The speaker's BGP sessions: one listener for all peers (TCP-MD5 keys per peer, unknown
 * addresses reset) and the set of configured peers. Adding or removing a peer never touches
 * the others.
 */
export class Sessions {
  readonly localAs: number;
  readonly routerId: string;
  readonly #peers = new Map<string, Peer>();
  readonly #listener: BgpListener | null;
  readonly #components: SessionsComponents;
  readonly #log: Logger;
  #closed = false;

  private constructor(init: SessionsInit, listener: BgpListener | null, components: SessionsComponents) {
    this.localAs = init.localAs;
    this.routerId = init.routerId;
    this.#listener = listener;
    this.#components = components;
    this.#log = childLogger(components.logger ?? silentLogger, { component: 'sessions' });
  }

  /** Opens the listener (when asked for) and adds the initial peers. */
  static async create(init: SessionsInit, components: SessionsComponents = {}): Promise<Sessions> {
    let sessions: Sessions | undefined;
    const log = childLogger(components.logger ?? silentLogger, { component: 'sessions' });
    const listen = init.listen === undefined ? {} : init.listen;
    const listener =
      listen === false
        ? null
        : await createListener(
            { host: listen.host, port: listen.port, ttl: listen.ttl, peers: [], ranges: listen.ranges },
            {
              onConnection: (c) => {
                if (sessions) sessions.#accept(c);
                else c.socket.resetAndDestroy(); // before the peers exist
              },
              onRefused: (remote) => {
                log.warn({ remote }, 'connection from an unknown address refused');
                components.onRefused?.(remote);
              },
              onError: (error) => log.error({ error: error.message }, 'listener failed'),
            },
          );
    sessions = new Sessions(init, listener, components);
    try {
      for (const p of init.peers ?? []) sessions.addPeer(p);
    } catch (error) {
      await sessions.close();
      throw error;
    }
    return sessions;
  }

  /** Where the listener is bound, or null without one. */
  get address(): Endpoint | null {
    return this.#listener?.address ?? null;
  }

  peers(): Peer[] {
    return [...this.#peers.values()];
  }

  peer(address: string): Peer | undefined {
    try {
      return this.#peers.get(normalizeAddress(address));
    } catch {
      return undefined;
    }
  }

  /** Adds a peer (its TCP-MD5 key goes on the listener first) and starts it unless `enabled: false`. */
  addPeer(init: SessionsPeerInit): Peer {
    if (this.#closed) throw new SessionError('closed', 'sessions are closed');
    const { enabled, ...rest } = init;
    const peer = new Peer(
      { ...rest, localAs: init.localAs ?? this.localAs, routerId: init.routerId ?? this.routerId },
      this.#components,
    );
    if (this.#peers.has(peer.address)) {
      throw new SessionError('duplicate-peer', `peer ${peer.address} is configured already`);
    }
    if (this.#listener && peer.address.includes(':') && this.#listener.address.address.includes('.')) {
      throw new SessionConfigError('address', `IPv6 peer ${peer.address} cannot reach an IPv4-only listener`);
    }
    this.#listener?.addPeer(peer.address, init.keyFromRange ? undefined : peer.config.password);
    this.#peers.set(peer.address, peer);
    this.#components.onPeer?.(peer);
    if (enabled ?? true) peer.start();
    return peer;
  }

  /**
   * The prefixes whose addresses may connect without being peers, each with its TCP-MD5
   * password (one key for the whole prefix); ranges left out stop being let through. Sessions
   * already accepted keep running.
   */
  setRanges(ranges: readonly RangeEntry[]): void {
    const listener = this.#listener;
    if (!listener) return;
    const wanted = new Map(ranges.map((r) => [r.prefix, r.password ?? null]));
    for (const prefix of listener.ranges().keys()) if (!wanted.has(prefix)) listener.removeRange(prefix);
    for (const [prefix, password] of wanted) listener.setRange(prefix, password);
  }

  /**
   * Removes a peer: Cease / Peer De-configured (RFC 4486) and its key leaves the listener.
   * Resolves once its connections are closed.
   */
  async removePeer(address: string, message?: string): Promise<void> {
    const peer = this.peer(address);
    if (!peer) throw new SessionError('unknown-peer', `no peer ${address}`);
    this.#peers.delete(peer.address);
    this.#listener?.removePeer(peer.address);
    await peer.close(CeaseSubcode.PEER_DE_CONFIGURED, message);
  }

  /**
   * Stops every peer (Administrative Shutdown, with `message`) and the listener. `forRestart`:
   * no NOTIFICATION, the connections just close, so graceful restart peers keep our routes.
   */
  async close(message?: string, opts: { readonly forRestart?: boolean } = {}): Promise<void> {
    this.#closed = true;
    await this.#listener?.close();
    const peers = [...this.#peers.values()];
    this.#peers.clear();
    await Promise.all(peers.map((p) => p.close(CeaseSubcode.ADMINISTRATIVE_SHUTDOWN, message, opts)));
  }

  #accept(c: IncomingConnection): void {
    // A configured peer wins over any range that holds its address.
    const peer = this.#peers.get(c.peer.address) ?? this.#admit(c.peer);
    if (!peer) {
      // Inside a range but not admitted (its limit, say), or known to the listener a moment
      // ago (a peer being removed): nothing to hand it to. The admitting side logs why.
      this.#log.debug({ remote: c.peer }, 'connection refused: no peer takes it');
      c.socket.resetAndDestroy();
      return;
    }
    peer.accept(c.socket, { local: c.local, remote: c.peer });
  }

  #admit(remote: Endpoint): Peer | undefined {
    const admit = this.#components.admit;
    if (!admit || this.#closed) return undefined;
    try {
      return admit(remote);
    } catch (error) {
      this.#log.error({ remote, error: String(error) }, 'admitting a connection failed');
      return undefined;
    }
  }
}
