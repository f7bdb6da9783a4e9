import { createConnection, type Socket } from 'node:net';
import { Writer } from '../../bgp/wire/index.js';
import {
  type Clock,
  type Logger,
  silentLogger,
  systemClock,
  type TimerHandle,
} from '../../components/index.js';
import { type BackoffOptions, backoffDelay } from './backoff.js';
import { ZapiAfi } from './constants.js';
import { commandName, DIALECTS, type ZapiDialect, type ZapiRouteTypes } from './dialect.js';
import { ZapiError } from './errors.js';
import { ZapiFramer } from './framer.js';
import { answerToHello } from './hello.js';
import {
  decodeMessage,
  writeHello,
  writeRouteNotifyRequest,
  writeRouterIdAdd,
  type ZapiCapabilities,
  type ZapiNotifyOwner,
  type ZapiRouterId,
} from './messages.js';

export interface ZapiClientInit {
  /** zebra's zserv socket (its `-z` path; Debian's default is /var/run/frr/zserv.api). */
  readonly socketPath: string;
  /** The route type the client owns, by name: its number depends on zebra's dialect. */
  readonly routeType: keyof ZapiRouteTypes;
  readonly instance: number;
  /** The dialects HELLO tries, in order; default DIALECTS (the newest first). */
  readonly dialects?: readonly ZapiDialect[];
  readonly backoff: BackoffOptions;
  readonly handshakeTimeoutMs: number;
}

export interface ZapiClientHandlers {
  /**
   * The session is usable (CAPABILITIES read), in `dialect`: every frame written from now on
   * must be encoded in it. Whatever the owner holds must be sent now.
   */
  up(caps: ZapiCapabilities, dialect: ZapiDialect): void;
  /** The session ended; zebra has already flushed (or is flushing) every route we had. */
  down(reason: ZapiError): void;
  notify(n: ZapiNotifyOwner): void;
  routerId(r: ZapiRouterId): void;
}

/** `backoff`: waiting to reconnect after a loss. */
export type ZapiClientState = 'idle' | 'connecting' | 'handshake' | 'up' | 'backoff' | 'closed';

/**
 * One zserv session at a time over a unix socket, re-made after every loss with capped,
 * jittered exponential back-off. It says HELLO as (routeType, instance), in FRR 10.3's dialect
 * first and in 8.4's when zebra's ERROR says it numbers as 8.4 (hello.ts), and counts the
 * session up once zebra's CAPABILITIES arrive. Then it asks for ROUTE_NOTIFY_OWNER (in 8.4's
 * HELLO already) and for the router-id. Every header's version is checked by the framer; a
 * peer that speaks another ZAPI version or numbering is dropped with an error naming it.
 */
export class ZapiClient {
  readonly #init: ZapiClientInit;
  readonly #handlers: ZapiClientHandlers;
  readonly #clock: Clock;
  readonly #log: Logger;
  readonly #random: () => number;
  #state: ZapiClientState = 'idle';
  #socket: Socket | undefined;
  #framer = new ZapiFramer();
  #timer: TimerHandle | undefined;
  #attempt = 0;
  #sessions = 0;
  #lastError: ZapiError | undefined;
  #lastLogged = '';
  #closed: Promise<void> | undefined;
  /** The dialect whose HELLO waits for an answer, and those not tried yet on this connection. */
  #trying: ZapiDialect | undefined;
  #untried: ZapiDialect[] = [];
  /** The dialect of the session that is up. */
  #dialect: ZapiDialect | undefined;

  constructor(
    init: ZapiClientInit,
    handlers: ZapiClientHandlers,
    components: { clock?: Clock; logger?: Logger; random?: () => number } = {},
  ) {
    if (init.dialects !== undefined && init.dialects.length === 0)
      throw new ZapiError('unencodable', 'no ZAPI dialect to say HELLO in');
    this.#init = init;
    this.#handlers = handlers;
    this.#clock = components.clock ?? systemClock;
    this.#log = components.logger ?? silentLogger;
    this.#random = components.random ?? Math.random;
  }

  get state(): ZapiClientState {
    return this.#state;
  }

  /** Sessions that reached `up` so far. */
  get sessions(): number {
    return this.#sessions;
  }

  get lastError(): ZapiError | undefined {
    return this.#lastError;
  }

  /** The dialect of the current session, or of the last one when none is up. */
  get dialect(): ZapiDialect | undefined {
    return this.#dialect;
  }

  start(): void {
    if (this.#state !== 'idle') return;
    this.#connect();
  }

  /** Writes whole frames; resolves once the socket has taken them. Rejects unless `up`. */
  write(bytes: Uint8Array): Promise<void> {
    const socket = this.#socket;
    if (this.#state !== 'up' || socket === undefined)
      return Promise.reject(
        new ZapiError('not-connected', `zebra at ${this.#init.socketPath} is not connected`),
      );
    return new Promise((resolve, reject) => {
      socket.write(bytes, (err) => {
        if (err) reject(new ZapiError('connection-lost', `write to zebra failed: ${err.message}`));
        else resolve();
      });
    });
  }

  /** Ends the session for good. zebra then removes every route of our (type, instance). */
  close(): Promise<void> {
    if (this.#closed) return this.#closed;
    this.#state = 'closed';
    this.#clearTimer();
    const socket = this.#socket;
    this.#socket = undefined;
    this.#closed = new Promise((resolve) => {
      if (socket === undefined || socket.destroyed) return resolve();
      socket.once('close', () => resolve());
      socket.end();
      // A peer that never closes its side must not hold close() up.
      const t = this.#clock.setTimeout(() => socket.destroy(), 1000);
      socket.once('close', () => this.#clock.clearTimeout(t));
    });
    return this.#closed;
  }

  #connect(): void {
    this.#state = 'connecting';
    this.#framer = new ZapiFramer();
    const socket = createConnection({ path: this.#init.socketPath });
    this.#socket = socket;
    socket.on('connect', () => this.#onConnect(socket));
    socket.on('data', (chunk: Buffer) => this.#onData(socket, chunk));
    socket.on('error', (err: NodeJS.ErrnoException) => {
      const kind = this.#state === 'connecting' ? 'connection-failed' : 'connection-lost';
      this.#lose(
        socket,
        new ZapiError(kind, `zebra at ${this.#init.socketPath}: ${err.code ?? err.message}`),
      );
    });
    socket.on('close', () =>
      this.#lose(
        socket,
        new ZapiError('connection-lost', `zebra at ${this.#init.socketPath} closed the connection`),
      ),
    );
  }

  #onConnect(socket: Socket): void {
    if (socket !== this.#socket) return;
    this.#state = 'handshake';
    this.#untried = [...(this.#init.dialects ?? DIALECTS)];
    this.#sayHello(socket, this.#untried[0] as ZapiDialect);
    this.#timer = this.#clock.setTimeout(() => {
      this.#fail(
        socket,
        new ZapiError('handshake-timeout', `no CAPABILITIES within ${this.#init.handshakeTimeoutMs} ms`),
      );
    }, this.#init.handshakeTimeoutMs);
  }

  /**
   * HELLO in the next untried dialect, and nothing else: until zebra's answer names its
   * numbering, any further command number could mean something else to it.
   */
  #sayHello(socket: Socket, d: ZapiDialect): void {
    this.#trying = d;
    this.#untried = this.#untried.filter((x) => x !== d);
    const w = new Writer(32);
    writeHello(w, d, {
      proto: d.routeType[this.#init.routeType],
      instance: this.#init.instance,
      sessionId: 0,
      receiveNotify: d.helloReceiveNotify,
      synchronous: false,
    });
    socket.write(w.finish());
  }

  #onData(socket: Socket, chunk: Buffer): void {
    if (socket !== this.#socket) return;
    try {
      for (const frame of this.#framer.push(chunk)) {
        if (this.#state === 'handshake') {
          const a = answerToHello(frame, this.#trying as ZapiDialect, this.#untried);
          if (a.kind === 'refused') throw a.error;
          if (a.kind === 'retry') {
            this.#log.debug({ zapi: a.dialect.name }, 'zebra: HELLO again, in the dialect its ERROR names');
            this.#sayHello(socket, a.dialect);
          }
          if (a.kind === 'up') this.#onUp(socket, a.dialect, a.caps);
          if (socket !== this.#socket) return;
          continue;
        }
        const d = this.#dialect as ZapiDialect;
        const m = decodeMessage(frame, d);
        switch (m.kind) {
          case 'capabilities':
            // zebra may send them again when its settings change (zsend_capabilities_all_clients).
            break;
          case 'notify-owner':
            this.#handlers.notify(m.value);
            break;
          case 'router-id-update':
            this.#handlers.routerId(m.value);
            break;
          case 'vrf-add':
            // Only the default VRF is used; zebra announces every VRF it knows after HELLO.
            break;
          case 'error':
            this.#log.warn({ error: m.value }, 'zebra: ZEBRA_ERROR for a message of ours');
            break;
          default:
            this.#log.debug({ command: commandName(d, frame.command) }, 'zebra: ignored message');
        }
        if (socket !== this.#socket) return;
      }
    } catch (err) {
      this.#fail(socket, err instanceof ZapiError ? err : new ZapiError('malformed', String(err)));
    }
  }

  #onUp(socket: Socket, dialect: ZapiDialect, caps: ZapiCapabilities): void {
    this.#clearTimer();
    this.#state = 'up';
    this.#dialect = dialect;
    this.#attempt = 0;
    this.#sessions++;
    this.#lastError = undefined;
    this.#lastLogged = '';
    // Before any route: ROUTE_NOTIFY_OWNER must be on for the first ROUTE_ADD's answer.
    const w = new Writer(32);
    if (!dialect.helloReceiveNotify) writeRouteNotifyRequest(w, dialect, true);
    writeRouterIdAdd(w, dialect, ZapiAfi.IP);
    socket.write(w.finish());
    this.#log.info(
      {
        socket: this.#init.socketPath,
        instance: this.#init.instance,
        zapi: dialect.name,
        multipath: caps.multipathNum,
      },
      'zebra: connected',
    );
    this.#handlers.up(caps, dialect);
  }

  /** A protocol error: drop the socket (the close handler then schedules the retry). */
  #fail(socket: Socket, err: ZapiError): void {
    this.#lose(socket, err);
    socket.destroy();
  }

  #lose(socket: Socket, err: ZapiError): void {
    if (socket !== this.#socket || this.#state === 'closed') return;
    const wasUp = this.#state === 'up';
    this.#socket = undefined;
    socket.destroy();
    this.#clearTimer();
    this.#lastError = err;
    // One line per distinct cause: a zebra that stays away must not flood the log.
    if (err.message !== this.#lastLogged) {
      this.#lastLogged = err.message;
      const level = err.kind === 'unsupported-version' || err.kind === 'bad-marker' ? 'error' : 'warn';
      this.#log[level]({ socket: this.#init.socketPath, kind: err.kind }, `zebra: ${err.message}`);
    }
    const delay = backoffDelay(this.#attempt++, this.#init.backoff, this.#random);
    this.#state = 'backoff';
    this.#timer = this.#clock.setTimeout(() => {
      this.#timer = undefined;
      if (this.#state === 'backoff') this.#connect();
    }, delay);
    if (wasUp) this.#handlers.down(err);
  }

  #clearTimer(): void {
    if (this.#timer !== undefined) this.#clock.clearTimeout(this.#timer);
    this.#timer = undefined;
  }
}
