import type { Scheduler } from '../../components/index.js';
import { BgpError, CeaseSubcode, ErrorCode, Framer } from '../wire/index.js';
import { isThenable } from './emitter.js';

const CLOCK_EVERY = 8;

/** What the inbound path needs from a socket: flow control only. */
export interface Pausable {
  pause(): unknown;
  resume(): unknown;
}

export interface InboundSink {
  /**
   * One whole message (a view, valid while reading is paused). A returned promise pauses
   * reading until it settles: that is how a slow consumer (the RIB) pushes back.
   */
  message(bytes: Uint8Array): unknown;
  /**
   * Reading has stopped for good: the framer refused a header (RFC 4271 section 6.1), or
   * more than `maxBufferedBytes` arrived unframed (Cease, Out of Resources).
   */
  headerError(error: BgpError): void;
}

export interface InboundLimits {
  readonly messagesPerTurn: number;
  readonly turnBudgetMs: number;
  /** Bytes held unframed before the connection is refused; at least one message and one read. */
  readonly maxBufferedBytes: number;
}

/**
 * The receive path of one connection: frames the byte stream into messages and hands them
 * over a bounded number at a time. When a turn's budget is spent it pauses the socket and
 * yields to the event loop, so a full table never holds up timers (keepalives) or other
 * peers; while the consumer or the backlog is behind, the socket stays paused and TCP flow
 * control slows the peer down. Nothing is buffered beyond one socket read.
 */
export class Inbound {
  readonly #framer = new Framer();
  readonly #socket: Pausable;
  readonly #sink: InboundSink;
  readonly #scheduler: Scheduler;
  readonly #limits: InboundLimits;
  #running = false;
  #yielded = false;
  #waiting = false;
  #userPaused = false;
  #stopped = false;

  constructor(socket: Pausable, sink: InboundSink, scheduler: Scheduler, limits: InboundLimits) {
    this.#socket = socket;
    this.#sink = sink;
    this.#scheduler = scheduler;
    this.#limits = limits;
  }

  /** RFC 8654: raised once Extended Message is negotiated. */
  set maxLength(n: number) {
    this.#framer.maxLength = n;
  }

  /** Messages or bytes are waiting on us, not on the peer (see the hold timer). */
  get backlogged(): boolean {
    return !this.#stopped && (this.#userPaused || this.#waiting || this.#yielded);
  }

  push(chunk: Uint8Array): void {
    if (this.#stopped) return;
    this.#framer.push(chunk);
    const held = this.#framer.buffered;
    if (held > this.#limits.maxBufferedBytes) {
      this.#stopped = true;
      const detail = `${held} bytes received and not yet handled, over the limit of ${this.#limits.maxBufferedBytes}`;
      this.#sink.headerError(
        new BgpError('read-buffer-full', ErrorCode.CEASE, CeaseSubcode.OUT_OF_RESOURCES, undefined, detail),
      );
      return;
    }
    this.#drain();
  }

  /** Stops reading until `resume` (the consumer's own backpressure). */
  pause(): void {
    this.#userPaused = true;
    this.#socket.pause();
  }

  resume(): void {
    if (!this.#userPaused) return;
    this.#userPaused = false;
    this.#drain();
  }

  /** No more messages are handed out; the connection is going away. */
  stop(): void {
    this.#stopped = true;
  }

  #drain(): void {
    if (this.#stopped || this.#running || this.#yielded || this.#waiting) return;
    if (this.#userPaused) {
      this.#socket.pause();
      return;
    }
    this.#running = true;
    try {
      const started = this.#scheduler.now();
      let handled = 0;
      for (;;) {
        let m: Uint8Array | null;
        try {
          m = this.#framer.next();
        } catch (error) {
          if (!(error instanceof BgpError)) throw error;
          this.#stopped = true;
          this.#sink.headerError(error);
          return;
        }
        if (m === null) {
          this.#socket.resume();
          return;
        }
        const wait = this.#sink.message(m);
        if (this.#stopped) return;
        if (isThenable(wait)) {
          this.#waiting = true;
          this.#socket.pause();
          const done = () => {
            this.#waiting = false;
            this.#drain();
          };
          wait.then(done, done);
          return;
        }
        if (this.#userPaused) {
          this.#socket.pause();
          return;
        }
        handled++;
        if (
          handled >= this.#limits.messagesPerTurn ||
          // The clock is read every CLOCK_EVERY messages: a few hundred microseconds at most.
          (handled % CLOCK_EVERY === 0 && this.#scheduler.now() - started >= this.#limits.turnBudgetMs)
        ) {
          this.#yielded = true;
          this.#socket.pause();
          this.#scheduler.defer(() => {
            this.#yielded = false;
            this.#drain();
          });
          return;
        }
      }
    } finally {
      this.#running = false;
    }
  }
}
