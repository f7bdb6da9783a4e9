import * as net from 'node:net';
import type { UpdateMessage } from '../bgp/wire/index.js';
import type { Logger, Scheduler, TimerHandle } from '../components/index.js';
import { BmpDefaults, TerminationReason } from './constants.js';
import { dumpSession } from './dump.js';
import { encodeBmpBytes, initiationTlvs, terminationTlvs } from './encode.js';
import { type RibView, RouteMessages } from './route-messages.js';
import type { MonitoredPeer, MonitoredSession, SessionEnding } from './session.js';

/** One collector as the station is told to reach it. */
export interface CollectorInit {
  readonly address: string;
  readonly port: number;
  /** Which Adj-RIB-In views go to it: pre-policy, post-policy or both. */
  readonly views: readonly RibView[];
  /** Seconds between Statistics Reports; 0: none. */
  readonly statisticsInterval: number;
  readonly minRetryMs: number;
  readonly maxRetryMs: number;
  /** Bytes queued (ours and the socket's) beyond which the queue is dropped and sent afresh. */
  readonly bufferLimit: number;
  /** Initiation's sysName and sysDescr. */
  readonly sysName: string;
  readonly sysDescr: string;
}

export interface CollectorComponents {
  readonly clock: Scheduler;
  readonly log: Logger;
  /** The sessions up now, by name. */
  readonly sessions: () => ReadonlyMap<string, MonitoredSession>;
  /** Opens the TCP connection; default net.connect. */
  readonly connect?: (port: number, host: string) => net.Socket;
}

export type CollectorState = 'connecting' | 'up' | 'waiting' | 'closed';

/** What `show bmp` and the metrics tell of one collector. */
export interface CollectorStatus {
  readonly address: string;
  readonly port: number;
  readonly state: CollectorState;
  /** Wall-clock ms of the last state change. */
  readonly since: number;
  readonly views: readonly RibView[];
  /** Sessions the collector has been told of on this connection. */
  readonly peers: number;
  readonly connects: number;
  /** Times the queue passed the limit and was dropped (the state then sent afresh). */
  readonly drops: number;
  readonly messages: number;
  readonly bytes: number;
  /** Bytes waiting: ours behind a dump, and the socket's. */
  readonly queued: number;
  readonly dumping: boolean;
  readonly lastError: string | undefined;
  /** Ms until the next attempt while waiting. */
  readonly retryMs: number;
}

/**
 * The TCP connection to one BMP collector (RFC 7854 section 3.2: the router connects). On
 * each connection: Initiation, then every session's state (Peer Up, its routes, End-of-RIB)
 * paced by the socket, then what happens as it happens. The connection is tried again with
 * an exponential back-off between the configured bounds. Memory stays bounded while the
 * collector is slow or away: nothing is kept while it is away, and once the bytes waiting
 * pass the limit the connection is dropped with its queue and the state goes afresh on the
 * next one (a collector forgets a router's state when its connection ends, section 3.3).
 */
export class BmpCollector {
  readonly #init: CollectorInit;
  readonly #c: CollectorComponents;
  readonly #log: Logger;
  readonly #messages = new RouteMessages();
  #state: CollectorState = 'waiting';
  #since: number;
  #socket: net.Socket | null = null;
  /** Sessions a Peer Up went for on this connection. */
  readonly #announced = new Set<string>();
  #dump: Generator<Uint8Array[]> | null = null;
  /** Live messages waiting behind the dump. */
  #queue: Uint8Array[] = [];
  #queued = 0;
  #retryMs: number;
  /** The wait before the attempt pending now. */
  #waitMs = 0;
  #retry: TimerHandle | undefined;
  #statsTimer: TimerHandle | undefined;
  #closed: Promise<void> | null = null;
  #connects = 0;
  #drops = 0;
  #sent = 0;
  #bytes = 0;
  #lastError: string | undefined;

  constructor(init: CollectorInit, components: CollectorComponents) {
    this.#init = init;
    this.#c = components;
    this.#log = components.log.child
      ? components.log.child({ bmp: `${init.address}:${init.port}` })
      : components.log;
    this.#since = components.clock.now();
    this.#retryMs = init.minRetryMs;
  }

  start(): void {
    if (this.#state === 'closed') return;
    this.#connect();
  }

  status(): CollectorStatus {
    return {
      address: this.#init.address,
      port: this.#init.port,
      state: this.#state,
      since: this.#since,
      views: this.#init.views,
      peers: this.#announced.size,
      connects: this.#connects,
      drops: this.#drops,
      messages: this.#sent,
      bytes: this.#bytes,
      queued: this.#queued + (this.#socket?.writableLength ?? 0),
      dumping: this.#dump !== null,
      lastError: this.#lastError,
      retryMs: this.#waitMs,
    };
  }

  // What the station passes on.

  up(s: MonitoredSession): void {
    if (this.#state !== 'up' || this.#announced.has(s.peer.name)) return;
    this.#announced.add(s.peer.name);
    this.#send(this.#messages.peerUp(s.peer));
  }

  update(s: MonitoredSession, u: UpdateMessage): void {
    if (this.#state !== 'up' || !this.#announced.has(s.peer.name)) return;
    const out: Uint8Array[] = [];
    const now = this.#c.clock.now();
    try {
      if (this.#init.views.includes('pre')) this.#messages.preUpdate(s.peer, u, now, out);
      if (this.#init.views.includes('post')) this.#messages.postUpdate(s, u, now, out);
    } catch (error) {
      // An UPDATE that cannot be re-encoded within the session's limit is skipped, said once per case.
      this.#log.warn(
        { peer: s.peer.name, error: String(error) },
        'BMP: an UPDATE could not be encoded for the collector',
      );
    }
    for (const m of out) this.#send(m);
  }

  /**
   * A changed import policy ran over the session's routes: every prefix the peer sent, as the
   * Adj-RIB-In holds it now or withdrawn, so the post-policy view matches again.
   */
  reimported(s: MonitoredSession): void {
    if (this.#state !== 'up' || !this.#announced.has(s.peer.name) || !this.#init.views.includes('post'))
      return;
    const out: Uint8Array[] = [];
    this.#messages.postResync(s, this.#c.clock.now(), out);
    for (const m of out) this.#send(m);
  }

  down(p: MonitoredPeer, ending: SessionEnding): void {
    if (this.#state !== 'up' || !this.#announced.delete(p.name)) return;
    this.#send(this.#messages.peerDown(p, ending, this.#c.clock.now()));
  }

  /** Termination (section 4.5) and the connection closed; no more attempts. */
  close(): Promise<void> {
    this.#closed ??= new Promise<void>((resolve) => {
      const socket = this.#socket;
      const wasUp = this.#state === 'up';
      this.#setState('closed');
      this.#clearTimers();
      this.#dump = null;
      this.#queue = [];
      this.#queued = 0;
      if (!socket) {
        resolve();
        return;
      }
      const timer = this.#c.clock.setTimeout(() => socket.destroy(), BmpDefaults.CLOSE_WAIT_MS);
      socket.once('close', () => {
        this.#c.clock.clearTimeout(timer);
        resolve();
      });
      if (wasUp) {
        socket.end(
          encodeBmpBytes({
            type: 'termination',
            info: terminationTlvs(TerminationReason.ADMINISTRATIVELY_CLOSED, 'speaker stopped'),
          }),
        );
      } else {
        socket.destroy();
      }
    });
    return this.#closed;
  }

  #connect(): void {
    this.#setState('connecting');
    const { address, port } = this.#init;
    const socket = this.#c.connect ? this.#c.connect(port, address) : net.connect({ host: address, port });
    this.#socket = socket;
    socket.setNoDelay(true);
    socket.on('connect', () => this.#onConnect(socket));
    socket.on('error', (error) => {
      this.#lastError = error.message;
    });
    socket.on('close', () => this.#onClose(socket));
    // A collector sends nothing (section 3.2); what it sends anyway is read and dropped.
    socket.on('data', () => {});
  }

  #onConnect(socket: net.Socket): void {
    if (this.#socket !== socket || this.#state !== 'connecting') return;
    this.#connects++;
    this.#retryMs = this.#init.minRetryMs;
    this.#lastError = undefined;
    this.#setState('up');
    this.#log.info({}, 'BMP collector connected: sending the state');
    this.#announced.clear();
    this.#write(
      encodeBmpBytes({ type: 'initiation', info: initiationTlvs(this.#init.sysName, this.#init.sysDescr) }),
    );
    this.#dump = this.#dumpAll();
    this.#pump();
    this.#scheduleStats();
  }

  #onClose(socket: net.Socket): void {
    if (this.#socket !== socket) return;
    this.#socket = null;
    this.#dump = null;
    this.#queue = [];
    this.#queued = 0;
    this.#announced.clear();
    this.#clearTimers();
    if (this.#state === 'closed') return;
    const wait = this.#retryMs;
    this.#waitMs = wait;
    this.#retryMs = Math.min(this.#retryMs * 2, this.#init.maxRetryMs);
    this.#setState('waiting');
    this.#log.warn(
      { error: this.#lastError, retryMs: wait },
      'BMP collector connection closed: trying again',
    );
    this.#retry = this.#c.clock.setTimeout(() => {
      this.#retry = undefined;
      if (this.#state === 'waiting') this.#connect();
    }, wait);
  }

  /** Every session up now and not yet told, one slice of messages at a time. */
  *#dumpAll(): Generator<Uint8Array[]> {
    for (const [name, s] of [...this.#c.sessions()]) {
      // Gone since, or told already by a live Peer Up.
      if (this.#c.sessions().get(name) !== s || this.#announced.has(name)) continue;
      const slices = dumpSession(this.#messages, s, this.#init.views, () => this.#c.clock.now());
      for (const slice of slices) {
        if (this.#c.sessions().get(name) !== s) break;
        this.#announced.add(name);
        yield slice;
      }
    }
  }

  /** Writes dump slices while the socket keeps up; the live queue once the dump is done. */
  #pump(): void {
    const socket = this.#socket;
    if (!socket || this.#state !== 'up' || !this.#dump) return;
    if (socket.writableLength >= BmpDefaults.DUMP_HIGH_WATER) {
      socket.once('drain', () => this.#pump());
      return;
    }
    const next = this.#dump.next();
    if (next.done) {
      this.#dump = null;
      const queue = this.#queue;
      this.#queue = [];
      this.#queued = 0;
      for (const m of queue) this.#write(m);
      this.#log.info({ peers: this.#announced.size }, 'BMP collector has the state');
      return;
    }
    for (const m of next.value) this.#write(m);
    this.#c.clock.defer(() => this.#pump());
  }

  #send(bytes: Uint8Array): void {
    if (this.#dump) {
      this.#queue.push(bytes);
      this.#queued += bytes.length;
    } else {
      this.#write(bytes);
    }
    const socket = this.#socket;
    if (socket && this.#queued + socket.writableLength > this.#init.bufferLimit) this.#overflow(socket);
  }

  #write(bytes: Uint8Array): void {
    const socket = this.#socket;
    if (!socket) return;
    socket.write(bytes);
    this.#sent++;
    this.#bytes += bytes.length;
  }

  /** Too much waiting: drop it all with the connection; the next one starts from the state. */
  #overflow(socket: net.Socket): void {
    this.#drops++;
    this.#lastError = `more than ${this.#init.bufferLimit} bytes waiting for the collector`;
    this.#log.warn(
      { limit: this.#init.bufferLimit },
      'BMP collector too slow: queue dropped, the state goes afresh on the next connection',
    );
    socket.destroy();
  }

  #scheduleStats(): void {
    const seconds = this.#init.statisticsInterval;
    if (seconds <= 0) return;
    this.#statsTimer = this.#c.clock.setTimeout(() => {
      this.#statsTimer = undefined;
      if (this.#state !== 'up') return;
      this.#sendStats();
      this.#scheduleStats();
    }, seconds * 1000);
  }

  /** Section 4.8: one Statistics Report per session told. */
  #sendStats(): void {
    const now = this.#c.clock.now();
    for (const name of this.#announced) {
      const s = this.#c.sessions().get(name);
      if (!s) continue;
      this.#send(this.#messages.stats(s.peer, s.stats(), now));
    }
  }

  #clearTimers(): void {
    if (this.#retry !== undefined) this.#c.clock.clearTimeout(this.#retry);
    if (this.#statsTimer !== undefined) this.#c.clock.clearTimeout(this.#statsTimer);
    this.#retry = undefined;
    this.#statsTimer = undefined;
  }

  #setState(state: CollectorState): void {
    this.#state = state;
    this.#since = this.#c.clock.now();
  }
}
