// Over 400 lines on purpose: one connection's FSM actions (timers, framing, OPEN negotiation,
// send queue, read back-pressure) all act on the same private socket and timer state; split
// apart, that state would have to be exposed to every piece.
import type net from 'node:net';
import { childLogger, type Logger, MS_PER_SECOND, type Scheduler } from '../../components/index.js';
import {
  createFsm,
  type FsmAction,
  type FsmEvent,
  type FsmEventType,
  type FsmState,
  notificationEvent,
  type State,
  step,
  TIMER_EXPIRY_EVENT,
  type Timer,
} from '../fsm/index.js';
import {
  type AttrInterner,
  BgpError,
  DEFAULT_MESSAGE_CONTEXT,
  decodeMessage,
  describeNotification,
  encodeMessageBytes,
  endOfRib,
  HEADER_LENGTH,
  isKnownRouteRefreshSubtype,
  type MessageContext,
  MessageDecoder,
  MessageType,
  messageContextOf,
  type Negotiated,
  type NotificationMessage,
  negotiate,
  type OpenMessage,
  type RouteRefreshMessage,
  RouteRefreshSubtype,
  UNSPECIFIC_SUBCODE,
  type UpdateMessage,
  withHardReset,
} from '../wire/index.js';
import type { SessionPeerConfig } from './config.js';
import { familyName, SessionDefaults } from './constants.js';
import { SessionError } from './errors.js';
import { endsGracefully } from './graceful.js';
import { Inbound } from './inbound.js';
import {
  errorEvent,
  KEEPALIVE_BYTES,
  notificationOf,
  notificationEvent as notificationRecord,
  reasonOf,
} from './messages.js';
import { nextHopFacts } from './next-hop-facts.js';
import { checkFamilies, type GracefulRestartState, localOpen } from './open.js';
import type { ConnectionInfo, EstablishedInfo, NotificationEvent, SessionEnd } from './peer-events.js';
import { SendQueue } from './send-queue.js';
import { countMessage, type MessageStats } from './stats.js';
import type { TapPoint } from './tap.js';
import { TimerBank } from './timers.js';

/** The events of every UPDATE and KEEPALIVE: they carry nothing but their type, so one object each serves. */
const UPDATE_EVENT: FsmEvent = Object.freeze({ type: 'UpdateMsg' });
const KEEPALIVE_EVENT: FsmEvent = Object.freeze({ type: 'KeepAliveMsg' });

/** Events that carry nothing but their type, so a step of one can be remembered. */
const MEMO_EVENTS: ReadonlySet<FsmEvent['type']> = new Set(['UpdateMsg', 'KeepAliveMsg']);

/** How a session reports to the peer that owns it. */
export interface SessionOwner {
  /** The FSM asks for an outgoing connection (only a peer's primary session ever does). */
  connect(s: Session): void;
  /** The FSM dropped this session's connection (or its connection attempt). */
  dropped(s: Session): void;
  /** RFC 4271 6.8 on a valid OPEN: false when this connection must give way. */
  openReceived(s: Session, open: OpenMessage): boolean;
  transition(s: Session, from: State, to: State, event: FsmEvent, reason: string): void;
  established(s: Session, info: EstablishedInfo): void;
  leftEstablished(s: Session, reason: string, end: SessionEnd): void;
  /** A returned promise pauses reading until it settles. */
  update(s: Session, update: UpdateMessage): unknown;
  endOfRib(s: Session, family: { readonly afi: number; readonly safi: number }): unknown;
  routeRefresh(s: Session, message: RouteRefreshMessage): unknown;
  notification(s: Session, direction: 'sent' | 'received', n: NotificationMessage): void;
  /** Every queued FSM event has been handled. */
  settled(s: Session): void;
}

export interface SessionComponents {
  readonly scheduler: Scheduler;
  readonly logger: Logger;
  readonly random: () => number;
  readonly stats: MessageStats;
  readonly interner?: AttrInterner;
  /** See PeerComponents.reuseUpdateLists. */
  readonly reuseUpdateLists?: boolean;
  /** See PeerComponents.gracefulRestart. */
  readonly gracefulRestart?: () => GracefulRestartState | null;
  /** The peer's message tap (Peer.messageTap). */
  readonly tapPoint?: TapPoint;
}

let nextSessionId = 1;

/**
 * One connection's shell: an RFC 4271 FSM (src/bgp/fsm) bound to at most one socket, its
 * timers, framing, OPEN negotiation and the message codec. The FSM decides; this class only
 * carries out its actions and turns socket and timer happenings into FSM events.
 */
export class Session {
  readonly id = nextSessionId++;
  readonly config: SessionPeerConfig;
  readonly #owner: SessionOwner;
  readonly #components: SessionComponents;
  readonly #log: Logger;
  readonly #timers: TimerBank;
  /** Built afresh for each connection: the graceful restart bits change over time. */
  #localOpen: OpenMessage;
  #fsm: FsmState;
  #socket: net.Socket | null = null;
  #connection: ConnectionInfo | null = null;
  #inbound: Inbound | null = null;
  #outbound: SendQueue | null = null;
  readonly #closing = new Set<net.Socket>();
  #decoder = new MessageDecoder();
  #remoteOpen: OpenMessage | null = null;
  #negotiated: Negotiated | null = null;
  #established: EstablishedInfo | null = null;
  #pendingUpdate: UpdateMessage | null = null;
  #pendingRefresh: RouteRefreshMessage | null = null;
  /** What the consumer of the message being handled asked us to wait for. */
  #wait: unknown;
  #readPaused = false;
  #queue: { event: FsmEvent; reason: string }[] = [];
  #stepping = false;
  /** The last step of a payload-free event that left the state as it was (an UPDATE in Established). */
  #memo: { state: FsmState; type: FsmEvent['type']; actions: readonly FsmAction[] } | null = null;
  #disposed = false;
  #socketError = '';
  /** The event being stepped: how an Established session ended, for the layers above. */
  #stepEvent: FsmEventType = 'ManualStart';
  /** The NOTIFICATION that ends this connection, sent or received (at most one per connection). */
  #endNotification: NotificationEvent | null = null;

  constructor(config: SessionPeerConfig, owner: SessionOwner, components: SessionComponents) {
    this.config = config;
    this.#owner = owner;
    this.#components = components;
    this.#log = childLogger(components.logger, { session: this.id });
    this.#fsm = createFsm(config.fsm);
    this.#localOpen = this.#buildOpen();
    this.#timers = new TimerBank(components.scheduler, components.random, (t) => this.#timerFired(t));
  }

  get state(): State {
    return this.#fsm.state;
  }

  get fsm(): FsmState {
    return this.#fsm;
  }

  /** Milliseconds until an FSM timer expires, while it runs (`show neighbors` reports the idle hold). */
  timerLeftMs(timer: Timer): number | undefined {
    return this.#timers.leftMs(timer);
  }

  get connection(): ConnectionInfo | null {
    return this.#connection;
  }

  get established(): EstablishedInfo | null {
    return this.#established;
  }

  get localOpen(): OpenMessage {
    return this.#localOpen;
  }

  /** Bytes queued for the peer and not yet taken by the kernel. */
  get writeQueueBytes(): number {
    return this.#outbound?.queued ?? 0;
  }

  /** Starts the FSM: ManualStart, or with PassiveTcpEstablishment (RFC 4271 8.1.2 events 1, 4). */
  start(passive: boolean): void {
    this.handle(
      { type: passive ? 'ManualStart_with_PassiveTcpEstablishment' : 'ManualStart' },
      passive ? 'start (passive)' : 'start',
    );
  }

  /** Feeds one event to the FSM (events arriving while a step runs are queued). */
  handle(event: FsmEvent, reason?: string): void {
    if (this.#disposed) return;
    if (this.#stepping) {
      this.#queue.push({ event, reason: reason ?? reasonOf(event) });
      return;
    }
    this.#stepping = true;
    try {
      this.#step(event, reason ?? reasonOf(event));
      for (let next = this.#queue.shift(); next; next = this.#queue.shift()) {
        if (this.#disposed) break;
        this.#step(next.event, next.reason);
      }
    } finally {
      this.#stepping = false;
    }
    this.#owner.settled(this);
  }

  #step(event: FsmEvent, reason: string): void {
    const before = this.#fsm;
    let state: FsmState;
    let actions: readonly FsmAction[];
    const memo = this.#memo;
    if (memo !== null && memo.state === before && memo.type === event.type) {
      // The FSM is pure: the same state and the same payload-free event give the same step.
      state = before;
      actions = memo.actions;
    } else {
      ({ state, actions } = step(before, event));
      this.#memo =
        state === before && MEMO_EVENTS.has(event.type) ? { state, type: event.type, actions } : null;
    }
    this.#fsm = state;
    this.#stepEvent = event.type;
    if (before.state !== state.state) {
      this.#log.debug({ from: before.state, to: state.state, event: event.type }, reason);
      this.#owner.transition(this, before.state, state.state, event, reason);
    }
    for (let i = 0; i < actions.length; i++) this.#perform(actions[i], reason);
  }

  /**
   * Binds a connected socket to this FSM: Tcp_CR_Acked (ours) or TcpConnectionConfirmed (the
   * peer's). An FSM that cannot take it (Idle) closes it again.
   */
  attach(socket: net.Socket, connection: ConnectionInfo): void {
    if (this.#socket) throw new Error(`session ${this.id} already has a connection`);
    this.#socket = socket;
    this.#connection = connection;
    this.#socketError = '';
    this.#endNotification = null;
    this.#localOpen = this.#buildOpen();
    socket.setNoDelay(true);
    const inbound = new Inbound(
      socket,
      {
        message: (bytes) => this.#onMessage(bytes),
        headerError: (error) => this.#protocolError(error),
      },
      this.#components.scheduler,
      {
        messagesPerTurn: SessionDefaults.MESSAGES_PER_TURN,
        turnBudgetMs: SessionDefaults.TURN_BUDGET_MS,
        maxBufferedBytes: SessionDefaults.MAX_READ_BUFFER_BYTES,
      },
    );
    this.#inbound = inbound;
    if (this.#readPaused) inbound.pause();
    this.#outbound = new SendQueue(
      socket,
      this.config.maxWriteQueueBytes,
      SessionDefaults.WRITE_LOW_WATER_BYTES,
    );
    socket.on('data', (chunk: Buffer) => {
      if (this.#socket === socket) inbound.push(chunk);
    });
    socket.on('error', (error: NodeJS.ErrnoException) => {
      if (this.#socket === socket) this.#socketError = error.code ?? error.message;
    });
    socket.on('close', () => {
      if (this.#socket !== socket) return;
      const why = this.#socketError
        ? `connection failed: ${this.#socketError}`
        : 'connection closed by the peer';
      this.#detach();
      this.handle({ type: 'TcpConnectionFails' }, why);
    });
    const { direction, remote } = connection;
    this.handle(
      { type: direction === 'outgoing' ? 'Tcp_CR_Acked' : 'TcpConnectionConfirmed' },
      `${direction} connection ${remote.address} port ${remote.port}`,
    );
  }

  /** Our connection attempt failed (refused, timed out, MD5 mismatch looks like a timeout). */
  connectFailed(reason: string): void {
    if (this.#socket || (this.state !== 'Connect' && this.state !== 'Active')) return;
    this.handle({ type: 'TcpConnectionFails' }, reason);
  }

  /**
   * Makes this connection's FSM the peer's main one after the other lost a collision (RFC
   * 4271 8.2.1.2): it restarts the way the peer is configured (it was started passive).
   */
  promote(passive: boolean): void {
    this.#fsm = { ...this.#fsm, passive };
  }

  /** Queues UPDATE bytes; false: `await drain()` before more. */
  sendUpdates(bytes: Uint8Array, messages: number): boolean {
    const out = this.#requireEstablished();
    const more = out.data(bytes);
    this.#tap('sent', bytes);
    this.#components.stats.sent.update += messages;
    return more;
  }

  drain(): Promise<void> {
    if (!this.#outbound) return Promise.reject(new SessionError('session-down', 'no connection'));
    return this.#outbound.drain();
  }

  /** RFC 2918 ROUTE-REFRESH (RFC 7313 subtypes BoRR/EoRR when enhanced route refresh is agreed). */
  sendRouteRefresh(afi: number, safi: number, subtype: number = RouteRefreshSubtype.NORMAL): void {
    const out = this.#requireEstablished();
    const n = this.#negotiated!;
    if (!n.routeRefresh) {
      throw new SessionError('route-refresh-not-negotiated', 'the peer did not advertise Route Refresh');
    }
    if (!n.families.some((f) => f.afi === afi && f.safi === safi)) {
      throw new SessionError('family-not-negotiated', `${familyName(afi, safi)} is not negotiated`);
    }
    if (subtype !== RouteRefreshSubtype.NORMAL && !n.enhancedRouteRefresh) {
      throw new SessionError('route-refresh-not-negotiated', 'enhanced route refresh is not negotiated');
    }
    const bytes = encodeMessageBytes({ type: 'route-refresh', afi, subtype, safi });
    out.control(bytes);
    this.#tap('sent', bytes);
    countMessage(this.#components.stats.sent, MessageType.ROUTE_REFRESH);
  }

  pauseReading(): void {
    this.#readPaused = true;
    this.#inbound?.pause();
  }

  resumeReading(): void {
    this.#readPaused = false;
    this.#inbound?.resume();
  }

  /**
   * No more events or timers; a live connection is cut, but one already closing may still
   * flush its last NOTIFICATION (within the linger time).
   */
  retire(): void {
    if (this.#disposed) return;
    this.#disposed = true;
    this.#timers.stopAll();
    const socket = this.#socket;
    this.#detach();
    socket?.destroy();
  }

  /** Stops everything at once: timers, every socket, no more events. */
  dispose(): void {
    this.retire();
    for (const s of this.#closing) s.destroy();
  }

  /** Resolves once every socket this session had is closed. */
  async closed(): Promise<void> {
    const sockets = [...this.#closing, ...(this.#socket ? [this.#socket] : [])];
    await Promise.all(
      sockets.map((s) =>
        s.closed ? Promise.resolve() : new Promise<void>((r) => s.once('close', () => r())),
      ),
    );
  }

  #requireEstablished(): SendQueue {
    if (this.state !== 'Established' || !this.#outbound) {
      throw new SessionError('not-established', `session is ${this.state}`);
    }
    return this.#outbound;
  }

  #timerFired(timer: Timer): void {
    // The peer may be talking while we are the slow end (a full table, a paused consumer): as
    // FRR does, the hold timer waits while received data is still waiting on us.
    if (timer === 'hold' && this.#inbound?.backlogged) {
      const ms = this.#timers.durationOf(timer) ?? this.config.fsm.holdTime * MS_PER_SECOND;
      this.#log.debug({ timer }, 'hold timer deferred: received messages are still being processed');
      this.#timers.arm('hold', ms);
      return;
    }
    // Timer expiries carry nothing but their type.
    this.handle({ type: TIMER_EXPIRY_EVENT[timer] } as FsmEvent);
  }

  #perform(a: FsmAction, reason: string): void {
    switch (a.type) {
      case 'initialize-resources':
        break;
      case 'release-resources':
        this.#decoder = new MessageDecoder();
        this.#remoteOpen = null;
        this.#negotiated = null;
        this.#established = null;
        break;
      case 'connect':
        this.#owner.connect(this);
        break;
      case 'drop-connection':
        this.#dropConnection();
        break;
      case 'send-open':
        this.#control(encodeMessageBytes(this.#localOpen), MessageType.OPEN);
        break;
      case 'send-keepalive':
        this.#control(KEEPALIVE_BYTES, MessageType.KEEPALIVE);
        break;
      case 'send-notification':
        this.#sendNotification(a, reason);
        break;
      case 'start-timer':
        this.#timers.start(a);
        break;
      case 'stop-timer':
        this.#timers.stop(a.timer);
        break;
      case 'process-update':
        this.#deliverUpdate();
        break;
      case 'process-route-refresh':
        if (this.#pendingRefresh) this.#wait = this.#owner.routeRefresh(this, this.#pendingRefresh);
        this.#pendingRefresh = null;
        break;
      case 'established':
        this.#becomeEstablished();
        break;
      case 'left-established':
        this.#established = null;
        this.#owner.leftEstablished(this, reason, this.#sessionEnd());
        break;
    }
  }

  #buildOpen(): OpenMessage {
    return localOpen(this.config, this.#components.gracefulRestart?.() ?? null);
  }

  /** How the Established session ended: RFC 4724 and RFC 8538 say whether its routes stay. */
  #sessionEnd(): SessionEnd {
    const notification = this.#endNotification;
    const gr = this.#negotiated?.gracefulRestart ?? null;
    return { event: this.#stepEvent, notification, graceful: endsGracefully(gr, notification) };
  }

  #control(bytes: Uint8Array, type: number): void {
    if (!this.#outbound) return;
    this.#outbound.control(bytes);
    this.#tap('sent', bytes);
    countMessage(this.#components.stats.sent, type);
  }

  #tap(direction: 'received' | 'sent', bytes: Uint8Array): void {
    const tap = this.#components.tapPoint?.tap;
    if (tap && this.#connection) tap.message(direction, bytes, this.#connection);
  }

  #sendNotification(a: Extract<FsmAction, { type: 'send-notification' }>, reason: string): void {
    if (!this.#outbound) return;
    let n = notificationOf(a);
    // RFC 8538 section 3: with the N bit exchanged, a Cease meant to end the session for good
    // goes as Hard Reset, or the peer would keep our routes as after a restart.
    if (this.#negotiated?.gracefulRestart?.notificationExchanged) n = withHardReset(n);
    this.#endNotification = notificationRecord('sent', n);
    this.#control(encodeMessageBytes(n), MessageType.NOTIFICATION);
    this.#log.info({ notification: describeNotification(n), reason }, 'NOTIFICATION sent');
    this.#owner.notification(this, 'sent', n);
  }

  #deliverUpdate(): void {
    const u = this.#pendingUpdate;
    this.#pendingUpdate = null;
    if (!u) return;
    const eor = endOfRib(u);
    this.#wait = eor ? this.#owner.endOfRib(this, eor) : this.#owner.update(this, u);
  }

  #becomeEstablished(): void {
    const negotiated = this.#negotiated;
    const fsmTimes = this.#fsm.negotiated;
    if (!negotiated || !fsmTimes || !this.#connection || !this.#remoteOpen) return;
    const context = messageContextOf(negotiated, this.config.ebgp, nextHopFacts(this.#connection));
    this.#decoder = new MessageDecoder(context, {
      interner: this.#components.interner,
      reuseLists: this.#components.reuseUpdateLists ?? false,
    });
    this.#established = {
      negotiated,
      context,
      holdTime: fsmTimes.holdTime,
      keepaliveTime: fsmTimes.keepaliveTime,
      connection: this.#connection,
      localOpen: this.#localOpen,
      remoteOpen: this.#remoteOpen,
    };
    this.#owner.established(this, this.#established);
  }

  /** Forgets the socket (its events no longer reach the FSM) and fails waiting writers. */
  #detach(): void {
    this.#inbound?.stop();
    this.#outbound?.fail(new SessionError('session-down', 'the connection went down'));
    this.#socket = null;
    this.#connection = null;
    this.#inbound = null;
    this.#outbound = null;
  }

  /** Closes after what is queued (a NOTIFICATION) went out; a peer that never reads is cut off. */
  #dropConnection(): void {
    const socket = this.#socket;
    this.#detach();
    this.#owner.dropped(this);
    if (!socket) return;
    this.#closing.add(socket);
    const linger = this.#components.scheduler.setTimeout(
      () => socket.destroy(),
      SessionDefaults.CLOSE_LINGER_MS,
    );
    socket.once('close', () => {
      this.#components.scheduler.clearTimeout(linger);
      this.#closing.delete(socket);
    });
    socket.end();
  }

  /** A received message that must reset the session, by its NOTIFICATION code. */
  #protocolError(error: BgpError): void {
    this.#log.warn({ error: error.message, kind: error.kind }, 'protocol error from the peer');
    const event = errorEvent(error);
    if (event) {
      this.handle(event, error.message);
      return;
    }
    // No FSM event carries other codes (RFC 7313 ROUTE-REFRESH Message Error): send it here,
    // then close as a failed connection.
    const n: NotificationMessage = {
      type: 'notification',
      code: error.code,
      subcode: error.subcode,
      data: error.data,
    };
    this.#endNotification = notificationRecord('sent', n);
    this.#control(encodeMessageBytes(n), MessageType.NOTIFICATION);
    this.#owner.notification(this, 'sent', n);
    this.handle({ type: 'TcpConnectionFails' }, error.message);
  }

  /** One whole message from the peer. Returns what the consumer asked us to wait for, if anything. */
  #onMessage(bytes: Uint8Array): unknown {
    const type = bytes[HEADER_LENGTH - 1];
    countMessage(this.#components.stats.received, type);
    this.#tap('received', bytes);
    this.#wait = undefined;
    try {
      switch (type) {
        case MessageType.OPEN:
          this.#onOpen(bytes);
          break;
        case MessageType.UPDATE:
          this.#onUpdate(bytes);
          break;
        case MessageType.NOTIFICATION:
          this.#onNotification(bytes);
          break;
        case MessageType.KEEPALIVE:
          this.handle(KEEPALIVE_EVENT);
          break;
        case MessageType.ROUTE_REFRESH:
          this.#onRouteRefresh(bytes);
          break;
      }
    } catch (error) {
      if (error instanceof BgpError) {
        this.#protocolError(error);
      } else {
        // A fault of ours, not the peer's: reset the session rather than crash the speaker.
        this.#log.error(
          { error: String(error), stack: (error as Error)?.stack },
          'internal error handling a message',
        );
        this.handle(
          { type: 'AutomaticStop', subcode: UNSPECIFIC_SUBCODE },
          `internal error: ${String(error)}`,
        );
      }
    }
    const wait = this.#wait;
    this.#wait = undefined;
    return wait;
  }

  #onOpen(bytes: Uint8Array): void {
    const open = decodeMessage(bytes) as OpenMessage;
    const expectingOpen =
      this.state === 'OpenSent' ||
      ((this.state === 'Connect' || this.state === 'Active') && this.#fsm.timers['delay-open']);
    if (expectingOpen) {
      const negotiated = negotiate(this.#localOpen, open, {
        expectedRemoteAs: this.config.remoteAs,
        localAs: this.config.localAs,
        ebgp: this.config.ebgp,
      });
      checkFamilies(negotiated, this.config);
      this.#remoteOpen = open;
      this.#negotiated = negotiated;
      this.#inbound!.maxLength = messageContextOf(negotiated, this.config.ebgp).maxLength;
      if (!this.#owner.openReceived(this, open)) {
        this.handle({ type: 'OpenCollisionDump' }, 'connection collision: this connection gives way');
        return;
      }
    }
    this.handle({ type: 'BGPOpen', holdTime: open.holdTime }, 'OPEN received');
  }

  #onUpdate(bytes: Uint8Array): void {
    if (this.state !== 'Established') {
      this.handle(UPDATE_EVENT, 'UPDATE before Established');
      return;
    }
    const u = this.#decoder.decode(bytes) as UpdateMessage;
    if (u.issues.length > 0) {
      // RFC 7606 section 6: log the error and carry on with the outcome.
      this.#log.warn(
        { action: u.action, issues: u.issues.map((i) => i.kind) },
        'malformed UPDATE handled (RFC 7606)',
      );
    }
    this.#pendingUpdate = u;
    this.handle(UPDATE_EVENT, 'UPDATE received');
  }

  #onNotification(bytes: Uint8Array): void {
    let n: NotificationMessage;
    try {
      n = decodeMessage(bytes) as NotificationMessage;
    } catch (error) {
      // RFC 4271 section 6.4: never answer a NOTIFICATION with one; log it and close.
      this.#log.warn({ error: String(error) }, 'malformed NOTIFICATION received');
      // Still a NOTIFICATION as far as RFC 4724 and RFC 8538 go (it is no Hard Reset).
      this.#endNotification = notificationRecord('received', {
        type: 'notification',
        code: 0,
        subcode: 0,
        data: bytes.subarray(HEADER_LENGTH),
      });
      this.handle({ type: 'NotifMsg' }, 'malformed NOTIFICATION received');
      return;
    }
    const text = describeNotification(n);
    this.#endNotification = notificationRecord('received', n);
    this.#log.info({ notification: text }, 'NOTIFICATION received');
    this.#owner.notification(this, 'received', n);
    this.handle(notificationEvent(n.code, n.subcode), `NOTIFICATION received: ${text}`);
  }

  #onRouteRefresh(bytes: Uint8Array): void {
    if (this.state !== 'Established') {
      this.handle({ type: 'RouteRefreshMsg' }, 'ROUTE-REFRESH before Established');
      return;
    }
    const ctx: MessageContext = this.#established?.context ?? DEFAULT_MESSAGE_CONTEXT;
    const m = decodeMessage(bytes, ctx) as RouteRefreshMessage;
    // RFC 7313 section 5: an unknown Message Subtype is ignored.
    if (!isKnownRouteRefreshSubtype(m.subtype)) {
      this.#log.debug({ subtype: m.subtype }, 'ROUTE-REFRESH with an unknown subtype ignored');
      return;
    }
    // RFC 2918 section 4: a family we did not advertise is ignored.
    if (!this.#negotiated?.families.some((f) => f.afi === m.afi && f.safi === m.safi)) {
      this.#log.debug(
        { family: familyName(m.afi, m.safi) },
        'ROUTE-REFRESH for a family not negotiated ignored',
      );
      return;
    }
    this.#pendingRefresh = m;
    this.handle({ type: 'RouteRefreshMsg' }, 'ROUTE-REFRESH received');
  }
}
