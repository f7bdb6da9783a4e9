// Over 400 lines on purpose: a peer owns up to two sessions at once and RFC 4271 6.8 collision
// detection decides between them; the rule reads both sessions' private state in one place.
import type net from 'node:net';
import {
  childLogger,
  type Logger,
  type Scheduler,
  silentLogger,
  systemScheduler,
} from '../../components/index.js';
import { type FsmEvent, resolveCollision, type State } from '../fsm/index.js';
import { type ConnectInit, connectToPeer, type OutgoingConnection } from '../transport/index.js';
import {
  type AfiCode,
  type AttrInterner,
  CeaseSubcode,
  encodeMessageBytes,
  endOfRibInput,
  fourOctetAs,
  type OpenMessage,
  RouteRefreshSubtype,
  type UpdateInput,
} from '../wire/index.js';
import { resolvePeerConfig, type SessionPeerConfig, type SessionPeerInit } from './config.js';
import { Emitter, type Listener } from './emitter.js';
import { SessionError } from './errors.js';
import { countUpdates, notificationEvent } from './messages.js';
import type { GracefulRestartState } from './open.js';
import type {
  CollisionEvent,
  ConnectionInfo,
  EstablishedInfo,
  PeerEvents,
  StateChange,
} from './peer-events.js';
import { Session, type SessionOwner } from './session.js';
import { type MessageStats, newMessageStats } from './stats.js';
import type { MessageTap, TapPoint } from './tap.js';

/** Parts a peer can be given; every one has a real default. */
export interface PeerComponents {
  readonly scheduler?: Scheduler;
  readonly logger?: Logger;
  /** For RFC 4271 section 10 jitter. */
  readonly random?: () => number;
  /** How outgoing connections are made (TCP-MD5, TTL, source address). */
  readonly connect?: (init: ConnectInit) => Promise<OutgoingConnection>;
  /** Shared attribute interner for decoded UPDATEs (the RIB's). */
  readonly interner?: AttrInterner;
  /**
   * Decoded UPDATEs reuse their prefix lists: each is valid only until the next UPDATE of the
   * session. For consumers that apply every UPDATE before returning (the speaker's RIB).
   */
  readonly reuseUpdateLists?: boolean;
  /**
   * Our RFC 4724 state, asked for each new connection's OPEN; null or absent: graceful restart
   * is not advertised (and the peer's routes go at once when its session ends).
   */
  readonly gracefulRestart?: () => GracefulRestartState | null;
}

const STATE_RANK: Readonly<Record<State, number>> = {
  Idle: 0,
  Connect: 1,
  Active: 1,
  OpenSent: 2,
  OpenConfirm: 3,
  Established: 4,
};

/**
 * A configured BGP peer. It owns one FSM per TCP connection (RFC 4271 section 8: one for the
 * peer, one more for a second connection while a collision is pending), makes our outgoing
 * connections, takes the peer's incoming ones from the listener, and resolves collisions
 * (section 6.8). Above it the RIB sees one session: events, `send`, `refresh`.
 */
export class Peer {
  readonly config: SessionPeerConfig;
  readonly stats: MessageStats = newMessageStats();
  readonly #tapPoint: TapPoint = { tap: null };
  readonly #log: Logger;
  readonly #scheduler: Scheduler;
  readonly #random: () => number;
  readonly #connect: (init: ConnectInit) => Promise<OutgoingConnection>;
  readonly #interner: AttrInterner | undefined;
  readonly #reuseUpdateLists: boolean;
  readonly #gracefulRestart: (() => GracefulRestartState | null) | undefined;
  readonly #emitter: Emitter<PeerEvents>;
  readonly #owner: SessionOwner;
  /** The FSM that lives as long as the peer is started and drives (re)connects. */
  #primary: Session | null = null;
  /** A second connection's FSM, until collision detection keeps one of the two. */
  #secondary: Session | null = null;
  /** Sessions let go whose sockets are still flushing a last NOTIFICATION. */
  readonly #retired = new Set<Session>();
  #dial: { readonly controller: AbortController; readonly session: Session } | null = null;
  #enabled = false;
  #readPaused = false;
  #state: State = 'Idle';
  #establishedOn: Session | null = null;
  /** Why the last connection changed state, for the peer-level state event. */
  #lastReason = '';
  /** An interface peer's link-local address, once neighbour discovery found it. */
  #neighbor: string | undefined;

  constructor(init: SessionPeerInit, components: PeerComponents = {}) {
    this.config = resolvePeerConfig(init);
    this.#log = childLogger(components.logger ?? silentLogger, { peer: this.config.name });
    this.#scheduler = components.scheduler ?? systemScheduler;
    this.#random = components.random ?? Math.random;
    this.#connect = components.connect ?? connectToPeer;
    this.#interner = components.interner;
    this.#reuseUpdateLists = components.reuseUpdateLists ?? false;
    this.#gracefulRestart = components.gracefulRestart;
    this.#emitter = new Emitter((event, error) =>
      this.#log.error({ event, error: String(error) }, 'peer event listener failed'),
    );
    this.#owner = this.#makeOwner();
  }

  get address(): string {
    return this.config.address;
  }

  /** An interface peer's link-local address as found on its link; undefined until then. */
  get neighbor(): string | undefined {
    return this.#neighbor;
  }

  /**
   * Where an interface peer is now (its link-local address, no zone), or undefined when it is
   * gone. A new address is dialled at once when no connection is up or being made, rather
   * than after the connect retry time; a session up with the old address is left to end by
   * itself (its link went away, or the neighbour restarted).
   */
  setNeighbor(address: string | undefined): void {
    if (this.config.interface === undefined) {
      throw new SessionError('invalid-message', `peer ${this.config.name} has an address, not an interface`);
    }
    if (address === this.#neighbor) return;
    this.#neighbor = address;
    const p = this.#primary;
    if (address === undefined || !this.#enabled || !p || p.connection || this.config.fsm.passive) return;
    if (p.state === 'Active') p.handle({ type: 'ConnectRetryTimer_Expires' }, `neighbour ${address} found`);
    else if (p.state === 'Connect' && !this.#dial) this.#dialFor(p);
  }

  /** RFC 4271 state of the peer's most advanced connection. */
  get state(): State {
    return this.#state;
  }

  /** Whether the peer is administratively up (started and not stopped). */
  get enabled(): boolean {
    return this.#enabled;
  }

  /** The Established session's negotiated data, or null. */
  get established(): EstablishedInfo | null {
    return this.#establishedOn?.established ?? null;
  }

  /** Milliseconds left of the wait after a reset (RFC 4271 IdleHoldTimer), while it runs. */
  get idleHoldLeftMs(): number | undefined {
    return this.#primary?.timerLeftMs('idle-hold');
  }

  /** Live TCP connections (one, or two during a collision). */
  get connections(): ConnectionInfo[] {
    return [this.#primary, this.#secondary].flatMap((s) => (s?.connection ? [s.connection] : []));
  }

  /** Bytes queued for the peer and not yet taken by the kernel. */
  /** Sees every message of this peer's connections from now on (null: none, the default). */
  set messageTap(tap: MessageTap | null) {
    this.#tapPoint.tap = tap;
  }

  get messageTap(): MessageTap | null {
    return this.#tapPoint.tap;
  }

  get writeQueueBytes(): number {
    return this.#establishedOn?.writeQueueBytes ?? 0;
  }

  on<K extends keyof PeerEvents>(event: K, listener: Listener<PeerEvents[K]>): () => void {
    return this.#emitter.on(event, listener);
  }

  off<K extends keyof PeerEvents>(event: K, listener: Listener<PeerEvents[K]>): void {
    this.#emitter.off(event, listener);
  }

  /** RFC 4271 ManualStart (passive peers: with PassiveTcpEstablishment). */
  start(): void {
    this.#enabled = true;
    this.#primary ??= this.#newSession();
    if (this.#primary.state === 'Idle') this.#primary.start(this.config.fsm.passive);
  }

  /**
   * RFC 4271 ManualStop: Cease (Administrative Shutdown unless told otherwise, RFC 4486) with an
   * RFC 9003 message for subcodes 2 and 4; the peer stays down until `start()`.
   */
  stop(subcode: number = CeaseSubcode.ADMINISTRATIVE_SHUTDOWN, message?: string, data?: Uint8Array): void {
    this.#enabled = false;
    const event: FsmEvent = {
      type: 'ManualStop',
      subcode,
      ...(message === undefined ? {} : { message }),
      ...(data ? { data } : {}),
    };
    const why = message === undefined ? 'stopped' : `stopped: ${message}`;
    for (const s of [this.#secondary, this.#primary]) s?.handle(event, why);
  }

  /**
   * Stops without a NOTIFICATION, as a crash would: the connections just close, so a peer that
   * does graceful restart keeps our routes while we restart (RFC 4724 section 4.2).
   */
  stopForRestart(): void {
    this.#enabled = false;
    for (const s of [this.#secondary, this.#primary]) {
      s?.handle({ type: 'ManualStop', silent: true }, 'stopped for a restart');
    }
  }

  /** Administrative shutdown with an RFC 8203/9003 Shutdown Communication. */
  shutdown(message?: string): void {
    this.stop(CeaseSubcode.ADMINISTRATIVE_SHUTDOWN, message);
  }

  /** Administrative Reset (Cease/4, with an optional message), then start again. */
  reset(message?: string): void {
    this.stop(CeaseSubcode.ADMINISTRATIVE_RESET, message);
    this.start();
  }

  /** A connection from the peer's address, handed over by the listener. */
  accept(
    socket: net.Socket,
    connection: { readonly local: ConnectionInfo['local']; readonly remote: ConnectionInfo['remote'] },
  ): void {
    this.#route(socket, { direction: 'incoming', ...connection });
  }

  /** Encodes and queues one UPDATE. False: `await drain()` before sending more. */
  send(update: UpdateInput): boolean {
    const s = this.#requireEstablished();
    let bytes: Uint8Array;
    try {
      bytes = encodeMessageBytes({ ...update, type: 'update' }, s.established!.context);
    } catch (error) {
      throw new SessionError('invalid-message', `UPDATE cannot be encoded: ${String(error)}`);
    }
    return s.sendUpdates(bytes, 1);
  }

  /**
   * Queues pre-encoded UPDATEs (whole messages, e.g. from UpdatePacker within the negotiated
   * context's size limit). The session keeps a reference until they are sent: do not reuse
   * the buffer. False: `await drain()` before sending more.
   */
  sendRaw(bytes: Uint8Array): boolean {
    const s = this.#requireEstablished();
    const messages = countUpdates(bytes, s.established!.context.maxLength);
    return s.sendUpdates(bytes, messages);
  }

  /**
   * As sendRaw, for `messages` UPDATEs the caller packed itself with an UpdatePacker made for
   * this session's negotiated size, which writes whole UPDATEs: they are not walked again. A
   * full table is hundreds of thousands of messages; walking each header cost a twentieth of
   * sending it.
   */
  sendPacked(bytes: Uint8Array, messages: number): boolean {
    return this.#requireEstablished().sendUpdates(bytes, messages);
  }

  /** RFC 4724 End-of-RIB for a family, once its initial routes are sent. */
  sendEndOfRib(afi: AfiCode, safi = 1): boolean {
    return this.send(endOfRibInput(afi, safi));
  }

  /** Resolves when the write queue is short again; rejects if the session goes down. */
  drain(): Promise<void> {
    const s = this.#establishedOn;
    if (!s)
      return Promise.reject(
        new SessionError('not-established', `peer ${this.config.name} is ${this.#state}`),
      );
    return s.drain();
  }

  /** Asks the peer to send its routes of a family again (RFC 2918). */
  refresh(afi: number, safi = 1): void {
    this.#requireEstablished().sendRouteRefresh(afi, safi, RouteRefreshSubtype.NORMAL);
  }

  /** RFC 7313 BoRR / EoRR markers around a re-advertisement we make on request. */
  sendRefreshMarker(afi: number, safi: number, subtype: number): void {
    this.#requireEstablished().sendRouteRefresh(afi, safi, subtype);
  }

  /** Stops reading from the peer (the RIB is behind); timers and keepalives keep running. */
  pause(): void {
    this.#readPaused = true;
    for (const s of this.#sessions()) s.pauseReading();
  }

  resume(): void {
    this.#readPaused = false;
    for (const s of this.#sessions()) s.resumeReading();
  }

  /**
   * Stops the peer (Cease, Peer De-configured unless told otherwise) and waits until its
   * sockets are closed (a peer that never reads is cut off after a short linger).
   */
  async close(
    subcode: number = CeaseSubcode.PEER_DE_CONFIGURED,
    message?: string,
    opts: { readonly forRestart?: boolean } = {},
  ): Promise<void> {
    if (opts.forRestart) this.stopForRestart();
    else this.stop(subcode, message);
    this.#abortDial();
    const all = [...this.#sessions(), ...this.#retired];
    await Promise.all(all.map((s) => s.closed()));
    for (const s of all) s.dispose();
    this.#primary = null;
    this.#secondary = null;
    this.#retired.clear();
  }

  #sessions(): Session[] {
    return [this.#primary, this.#secondary].filter((s): s is Session => s !== null);
  }

  #requireEstablished(): Session {
    const s = this.#establishedOn;
    if (s?.state !== 'Established') {
      throw new SessionError('not-established', `peer ${this.config.name} is ${this.#state}`);
    }
    return s;
  }

  #newSession(): Session {
    const s = new Session(this.config, this.#owner, {
      scheduler: this.#scheduler,
      logger: this.#log,
      random: this.#random,
      stats: this.stats,
      interner: this.#interner,
      reuseUpdateLists: this.#reuseUpdateLists,
      gracefulRestart: this.#gracefulRestart,
      tapPoint: this.#tapPoint,
    });
    if (this.#readPaused) s.pauseReading();
    return s;
  }

  /**
   * Gives a new connection to an FSM: the primary takes it while it waits for one (Connect,
   * Active; Idle refuses it, RFC 4271 8.2.2); otherwise it gets its own FSM for collision
   * detection. A third connection is refused.
   */
  #route(socket: net.Socket, connection: ConnectionInfo): void {
    const { direction, remote } = connection;
    const p = this.#primary;
    if (!this.#enabled || !p) {
      this.#log.info({ direction, remote }, 'connection refused: peer is administratively down');
      socket.resetAndDestroy();
      return;
    }
    this.#emitter.emit('connection', connection);
    if (!p.connection && (p.state === 'Connect' || p.state === 'Active' || p.state === 'Idle')) {
      p.attach(socket, connection);
      return;
    }
    if (!this.#secondary) {
      const s = this.#newSession();
      this.#secondary = s;
      // Started passive: this FSM never dials; it exists for this one connection.
      s.start(true);
      s.attach(socket, connection);
      return;
    }
    this.#log.info({ direction, remote }, 'connection refused: two connections to this peer exist already');
    socket.resetAndDestroy();
  }

  #abortDial(): void {
    this.#dial?.controller.abort();
    this.#dial = null;
  }

  #dialFor(session: Session): void {
    this.#abortDial();
    const c = this.config;
    let host = c.address;
    if (c.interface !== undefined) {
      if (this.#neighbor === undefined) {
        // Nothing to dial yet: the FSM stays in Connect (retrying on its timer, as for a peer
        // that does not answer) until setNeighbor names the address.
        this.#log.debug({ interface: c.interface }, 'no neighbour found on the link yet');
        return;
      }
      host = `${this.#neighbor}%${c.interface}`;
    }
    const controller = new AbortController();
    const dial = { controller, session };
    this.#dial = dial;
    this.#connect({
      host,
      port: c.port,
      localAddress: c.localAddress,
      password: c.password,
      ttl: c.ttl,
      timeoutMs: c.connectTimeoutMs,
      signal: controller.signal,
    }).then(
      (conn) => {
        if (this.#dial !== dial) {
          conn.socket.destroy();
          return;
        }
        this.#dial = null;
        this.#route(conn.socket, { direction: 'outgoing', local: conn.local, remote: conn.peer });
      },
      (error: unknown) => {
        if (this.#dial !== dial) return;
        this.#dial = null;
        const reason = `connect failed: ${error instanceof Error ? error.message : String(error)}`;
        this.#log.debug({ reason }, 'outgoing connection failed');
        if (session === this.#primary) session.connectFailed(reason);
      },
    );
  }

  /** RFC 4271 6.8, on a valid OPEN received on `s`. */
  #collision(s: Session, open: OpenMessage): boolean {
    const other = s === this.#primary ? this.#secondary : this.#primary;
    const received = s.connection?.direction;
    if (!other?.connection || !received) return true;
    const verdict = resolveCollision({
      localId: this.config.bgpId,
      remoteId: open.bgpId,
      localAs: this.config.localAs,
      remoteAs: fourOctetAs(open),
      received,
      otherState: other.state,
      // RFC 4271 6.8 MAY: both connections lead to the same configured address, so the
      // identifier in this OPEN is the one the other connection will bring too. Deciding now
      // (as FRR does) spares the loser a short-lived Established session.
      examineOpenSent: true,
    });
    if (!verdict.collision) return true;
    const [kept, closed] = verdict.close === 'this' ? [other, s] : [s, other];
    const collision: CollisionEvent = {
      keep: kept.connection!.direction,
      close: closed.connection!.direction,
      localId: this.config.bgpId,
      remoteId: open.bgpId,
    };
    this.#log.info(collision, 'connection collision resolved (RFC 4271 6.8)');
    this.#emitter.emit('collision', collision);
    if (verdict.close === 'this') return false;
    other.handle({ type: 'OpenCollisionDump' }, 'connection collision: the other connection is kept');
    return true;
  }

  /** After a session's events are handled: let go of finished FSMs, hand the peer to the survivor. */
  #settled(s: Session): void {
    // A session in the peer's state, and not Idle, changes nothing here: an UPDATE in
    // Established (the peer's state is the best of its sessions', see #updateState).
    if (s.state !== 'Idle' && s.state === this.#state) return;
    if (s.state === 'Idle') {
      if (s === this.#secondary) {
        this.#secondary = null;
        this.#retire(s);
      } else if (s === this.#primary && this.#secondary && this.#secondary.state !== 'Idle') {
        // The other connection carries the peer now (RFC 4271 8.2.1.2 disposes the loser's FSM).
        const survivor = this.#secondary;
        this.#secondary = null;
        this.#primary = survivor;
        survivor.promote(this.config.fsm.passive);
        this.#retire(s);
      } else if (
        s === this.#primary &&
        this.#enabled &&
        !s.fsm.timers['idle-hold'] &&
        this.config.fsm.allowAutomaticStart &&
        !s.connection
      ) {
        // A collision dump of the last connection: nothing restarts it by itself.
        s.handle(
          {
            type: this.config.fsm.passive ? 'AutomaticStart_with_PassiveTcpEstablishment' : 'AutomaticStart',
          },
          'restart after a collision',
        );
      }
    }
    this.#updateState();
  }

  #retire(s: Session): void {
    this.#retired.add(s);
    s.retire();
    void s.closed().then(() => this.#retired.delete(s));
  }

  #updateState(reason?: string): void {
    let best: State = 'Idle';
    for (const s of this.#sessions()) if (STATE_RANK[s.state] > STATE_RANK[best]) best = s.state;
    if (best === this.#state) return;
    const change: StateChange = { from: this.#state, to: best, reason: reason ?? this.#lastReason };
    this.#state = best;
    this.#log.info(change, `state ${change.from} -> ${change.to}`);
    this.#emitter.emit('state', change);
  }

  #makeOwner(): SessionOwner {
    return {
      connect: (s) => {
        if (s === this.#primary) this.#dialFor(s);
      },
      dropped: (s) => {
        if (s === this.#primary) this.#abortDial();
      },
      openReceived: (s, open) => this.#collision(s, open),
      transition: (s, _from, _to, _event, reason) => {
        if (s === this.#primary || s === this.#secondary) {
          this.#lastReason = reason;
          this.#updateState(reason);
        }
      },
      established: (s, info) => {
        this.#establishedOn = s;
        const { negotiated, connection } = info;
        this.#log.info(
          {
            direction: connection.direction,
            holdTime: info.holdTime,
            remoteAs: negotiated.remoteAs,
            families: negotiated.families,
          },
          'session established',
        );
        this.#emitter.emit('established', info);
      },
      leftEstablished: (s, reason, end) => {
        if (this.#establishedOn === s) this.#establishedOn = null;
        this.#emitter.emit('down', reason, end);
      },
      update: (_s, update) => this.#emitter.emit('update', update),
      endOfRib: (_s, family) => this.#emitter.emit('end-of-rib', family),
      routeRefresh: (_s, message) => this.#emitter.emit('route-refresh', message),
      notification: (_s, direction, n) => this.#emitter.emit('notification', notificationEvent(direction, n)),
      settled: (s) => this.#settled(s),
    };
  }
}
