/**
 * A `watch` on one control connection: the result line, then one `{"id","event"}` line per
 * event, from the snapshot the speaker pushes on subscribing to every later change. The
 * connection then carries nothing else. A client that stops reading is cut off with an
 * `overflow` event once it is MAX_WATCH_BACKLOG live events behind, so it never makes the
 * speaker buffer without bound.
 */
import type { Socket } from 'node:net';
import { nextTurn } from '../components/index.js';
import { encodeResponse, type RequestId } from './protocol.js';
import { drained } from './socket-wait.js';
import type { SpeakerControl, WatchEvent, WatchItem, WatchTopic } from './types.js';

export interface WatchLimits {
  readonly maxBacklog: number;
  readonly sliceEvents: number;
}

/** Sent items dropped from the head of the queue once this many pile up. */
const COMPACT_AFTER = 4096;

export class WatchStream {
  readonly #socket: Socket;
  readonly #id: string;
  readonly #limits: WatchLimits;
  #queue: WatchItem[] = [];
  #head = 0;
  /** Queue index just after the snapshot's `synced`; -1 until it was pushed. */
  #liveFrom = -1;
  #seq = 0;
  #draining = false;
  #closed = false;
  readonly #unsubscribe: () => void;

  constructor(
    socket: Socket,
    id: RequestId,
    topics: readonly WatchTopic[],
    control: SpeakerControl,
    limits: WatchLimits,
    result: unknown,
  ) {
    this.#socket = socket;
    this.#id = JSON.stringify(id);
    this.#limits = limits;
    // A watch is quiet while nothing changes: no idle timeout.
    socket.setTimeout(0);
    socket.write(encodeResponse({ id, result }));
    socket.once('close', () => this.close());
    // The client is done (the socket is half-open): so is the stream.
    socket.once('end', () => {
      this.close();
      socket.end();
    });
    this.#unsubscribe = control.watch(topics, { push: (item) => this.#push(item) });
    void this.#drain();
  }

  close(): void {
    if (this.#closed) return;
    this.#closed = true;
    this.#unsubscribe();
    this.#queue = [];
    this.#head = 0;
  }

  #push(item: WatchItem): void {
    if (this.#closed) return;
    this.#queue.push(item);
    if (this.#liveFrom < 0) {
      if (typeof item !== 'function' && item.type === 'synced') this.#liveFrom = this.#queue.length;
    } else if (this.#queue.length - Math.max(this.#head, this.#liveFrom) > this.#limits.maxBacklog) {
      this.#overflow();
      return;
    }
    void this.#drain();
  }

  #overflow(): void {
    const behind = this.#queue.length - Math.max(this.#head, this.#liveFrom);
    const line = this.#line({
      type: 'overflow',
      message: `client is ${behind} events behind (at most ${this.#limits.maxBacklog}): watch again`,
    });
    this.close();
    this.#socket.end(line);
  }

  #line(item: WatchItem): string {
    const body = typeof item === 'function' ? item() : item;
    const event = { seq: ++this.#seq, ...body } as WatchEvent;
    return `{"id":${this.#id},"event":${JSON.stringify(event)}}\n`;
  }

  async #drain(): Promise<void> {
    if (this.#draining) return;
    this.#draining = true;
    try {
      let sent = 0;
      while (!this.#closed && this.#head < this.#queue.length) {
        const item = this.#queue[this.#head]!;
        this.#head++;
        const ok = this.#socket.write(this.#line(item));
        if (this.#head >= COMPACT_AFTER) this.#compact();
        if (!ok) await drained(this.#socket);
        else if (++sent % this.#limits.sliceEvents === 0) await nextTurn();
      }
    } finally {
      this.#draining = false;
    }
  }

  #compact(): void {
    this.#queue = this.#queue.slice(this.#head);
    if (this.#liveFrom >= 0) this.#liveFrom = Math.max(0, this.#liveFrom - this.#head);
    this.#head = 0;
  }
}
