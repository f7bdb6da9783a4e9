import type net from 'node:net';
import { SessionError } from './errors.js';

/**
 * The send path of one connection. Protocol messages (OPEN, KEEPALIVE, NOTIFICATION,
 * ROUTE-REFRESH) always go out; UPDATEs are refused once the socket holds `maxQueued` unsent
 * bytes, and the caller is told to wait (`drain()`) well before that, so a peer that stops
 * reading never makes us buffer without bound.
 */
export class SendQueue {
  readonly #socket: net.Socket;
  readonly #maxQueued: number;
  readonly #lowWater: number;
  readonly #waiters = new Set<{ resolve: () => void; reject: (e: Error) => void }>();
  #failed: SessionError | null = null;

  constructor(socket: net.Socket, maxQueued: number, lowWater: number) {
    this.#socket = socket;
    this.#maxQueued = maxQueued;
    this.#lowWater = Math.min(lowWater, maxQueued);
    socket.on('drain', () => this.#release());
  }

  /** Bytes written but not yet taken by the kernel. */
  get queued(): number {
    return this.#socket.writableLength;
  }

  control(bytes: Uint8Array): void {
    if (this.#failed) return;
    this.#socket.write(bytes);
  }

  /**
   * Queues UPDATE bytes (the session keeps a reference until they are sent: do not reuse the
   * buffer). Returns false when the caller should `await drain()` before sending more.
   */
  data(bytes: Uint8Array): boolean {
    if (this.#failed) throw this.#failed;
    if (this.queued + bytes.length > this.#maxQueued && this.queued > 0) {
      throw new SessionError(
        'write-queue-full',
        `${this.queued} bytes are queued for the peer already (limit ${this.#maxQueued}); wait for drain()`,
      );
    }
    this.#socket.write(bytes);
    return this.queued < this.#lowWater;
  }

  /** Resolves once the queue is below the low-water mark; rejects if the connection goes. */
  drain(): Promise<void> {
    if (this.#failed) return Promise.reject(this.#failed);
    if (this.queued < this.#lowWater) return Promise.resolve();
    return new Promise((resolve, reject) => this.#waiters.add({ resolve, reject }));
  }

  /** The connection is gone: pending and future waits fail with `error`. */
  fail(error: SessionError): void {
    if (this.#failed) return;
    this.#failed = error;
    for (const w of this.#waiters) w.reject(error);
    this.#waiters.clear();
  }

  #release(): void {
    if (this.queued >= this.#lowWater) return;
    for (const w of this.#waiters) w.resolve();
    this.#waiters.clear();
  }
}
