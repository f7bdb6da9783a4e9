/**
 * A bare BGP session for the benchmark's own tools (the replayer and the counter): OPEN with
 * 4-octet AS and multiprotocol, KEEPALIVEs on a timer, the hold timer enforced (RFC 4271
 * section 6.5: no message for the hold time is an error), and nothing else. UPDATEs are handed
 * over as raw bytes: the tools never build route objects, so they cost the receiver under test
 * nothing and stay far faster than it.
 */
import type net from 'node:net';
import type { Capability } from '../../src/bgp/wire/capabilities.js';
import { CeaseSubcode, ErrorCode, MessageType } from '../../src/bgp/wire/constants.js';
import { Framer } from '../../src/bgp/wire/framer.js';
import { KEEPALIVE } from '../../src/bgp/wire/keepalive.js';
import { decodeMessage, encodeMessageBytes } from '../../src/bgp/wire/message.js';
import type { NotificationMessage } from '../../src/bgp/wire/notification.js';
import { buildOpen, type OpenMessage } from '../../src/bgp/wire/open.js';
import { wallClock } from './clock.js';

export interface RawSessionInit {
  readonly localAs: number;
  /** Our BGP Identifier as a u32. */
  readonly bgpId: number;
  readonly holdTimeSeconds: number;
  /** AFIs negotiated (unicast). */
  readonly afis: readonly number[];
}

export interface RawSessionEvents {
  established(at: number, remote: OpenMessage): void;
  /** One whole UPDATE (a view, valid during the call). */
  update(message: Uint8Array): void;
  closed(
    reason: string,
    notification?: { direction: 'sent' | 'received'; code: number; subcode: number },
  ): void;
}

const KEEPALIVE_BYTES = encodeMessageBytes(KEEPALIVE);
const MS = 1000;
const KEEPALIVE_RATIO = 3;
/** The hold timer is checked this often. */
const HOLD_CHECK_INTERVAL = 200;
const UNICAST = 1;

type State = 'OpenSent' | 'OpenConfirm' | 'Established' | 'Closed';

/** Statistics of the peer's side of the session while Established. */
export interface LivenessStats {
  /** Longest time without any message from the peer (what its hold timer guards). */
  maxSilenceMs: number;
  keepalivesReceived: number;
  updatesReceived: number;
}

export class RawSession {
  readonly socket: net.Socket;
  readonly stats: LivenessStats = { maxSilenceMs: 0, keepalivesReceived: 0, updatesReceived: 0 };
  #state: State = 'OpenSent';
  readonly #framer = new Framer();
  readonly #events: RawSessionEvents;
  readonly #init: RawSessionInit;
  #holdMs = 0;
  #lastHeard = 0;
  #timers: NodeJS.Timeout[] = [];
  #remote: OpenMessage | null = null;

  constructor(socket: net.Socket, init: RawSessionInit, events: RawSessionEvents) {
    this.socket = socket;
    this.#init = init;
    this.#events = events;
    socket.setNoDelay(true);
    socket.on('data', (chunk: Buffer) => this.#onData(chunk));
    socket.on('error', (e) => this.#close(`socket error: ${e.message}`));
    socket.on('close', () => this.#close('connection closed by the peer'));
    const capabilities: Capability[] = [
      ...init.afis.map((afi): Capability => ({ name: 'multiprotocol', afi, reserved: 0, safi: UNICAST })),
      { name: 'route-refresh' },
      { name: 'four-octet-as', as: init.localAs },
    ];
    const open = buildOpen({
      as: init.localAs,
      bgpId: init.bgpId,
      holdTime: init.holdTimeSeconds,
      capabilities,
    });
    socket.write(encodeMessageBytes(open));
  }

  get state(): State {
    return this.#state;
  }

  /** The statistics as of now: a silence still going on counts too. */
  liveness(): LivenessStats {
    const current = this.#state === 'Established' ? wallClock() - this.#lastHeard : 0;
    return { ...this.stats, maxSilenceMs: Math.max(this.stats.maxSilenceMs, current) };
  }

  /** Sends a NOTIFICATION (Cease by default) and closes. */
  close(code: number = ErrorCode.CEASE, subcode: number = CeaseSubcode.ADMINISTRATIVE_SHUTDOWN): void {
    if (this.#state === 'Closed') return;
    this.#notify(code, subcode);
    this.#close('closed by us', { direction: 'sent', code, subcode });
  }

  #notify(code: number, subcode: number): void {
    const n: NotificationMessage = { type: 'notification', code, subcode, data: new Uint8Array(0) };
    this.socket.end(encodeMessageBytes(n));
  }

  #onData(chunk: Buffer): void {
    if (this.#state === 'Closed') return;
    const now = wallClock();
    if (this.#state === 'Established') {
      this.stats.maxSilenceMs = Math.max(this.stats.maxSilenceMs, now - this.#lastHeard);
    }
    this.#lastHeard = now;
    this.#framer.push(chunk);
    try {
      for (let m = this.#framer.next(); m; m = this.#framer.next()) {
        this.#onMessage(m, now);
        if ((this.#state as State) === 'Closed') return;
      }
    } catch (e) {
      this.#close(`bad message from the peer: ${e instanceof Error ? e.message : String(e)}`);
    }
  }

  #onMessage(m: Uint8Array, now: number): void {
    switch (m[18]) {
      case MessageType.OPEN: {
        const open = decodeMessage(m) as OpenMessage;
        this.#holdMs = Math.min(open.holdTime, this.#init.holdTimeSeconds) * MS;
        this.#state = 'OpenConfirm';
        this.socket.write(KEEPALIVE_BYTES);
        this.#remote = open;
        break;
      }
      case MessageType.KEEPALIVE:
        if (this.#state === 'OpenConfirm') this.#establish(now);
        else this.stats.keepalivesReceived++;
        break;
      case MessageType.UPDATE:
        this.stats.updatesReceived++;
        if (this.#state === 'Established') this.#events.update(m);
        break;
      case MessageType.NOTIFICATION: {
        const n = decodeMessage(m) as NotificationMessage;
        this.#close(`NOTIFICATION received ${n.code}/${n.subcode}`, {
          direction: 'received',
          code: n.code,
          subcode: n.subcode,
        });
        break;
      }
      default:
        break; // ROUTE-REFRESH: never asked for here
    }
  }

  #establish(now: number): void {
    this.#state = 'Established';
    this.#lastHeard = now;
    if (this.#holdMs > 0) {
      const keepalive = this.#holdMs / KEEPALIVE_RATIO;
      this.#timers.push(setInterval(() => this.socket.write(KEEPALIVE_BYTES), keepalive));
      this.#timers.push(
        setInterval(() => {
          const silent = wallClock() - this.#lastHeard;
          if (silent <= this.#holdMs) return;
          this.stats.maxSilenceMs = Math.max(this.stats.maxSilenceMs, silent);
          // RFC 4271 section 6.5: Hold Timer Expired.
          this.#notify(ErrorCode.HOLD_TIMER_EXPIRED, 0);
          this.#close(`hold timer expired: nothing from the peer for ${(silent / MS).toFixed(1)} s`, {
            direction: 'sent',
            code: ErrorCode.HOLD_TIMER_EXPIRED,
            subcode: 0,
          });
        }, HOLD_CHECK_INTERVAL),
      );
    }
    this.#events.established(now, this.#remote!);
  }

  #close(reason: string, notification?: Parameters<RawSessionEvents['closed']>[1]): void {
    if (this.#state === 'Closed') return;
    this.#state = 'Closed';
    for (const t of this.#timers) clearInterval(t);
    this.#timers = [];
    if (!this.socket.destroyed && !notification) this.socket.destroy();
    this.#events.closed(reason, notification);
  }
}
