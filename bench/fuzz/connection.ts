/**
 * A fuzz peer's TCP connection to the speaker: raw bytes out, every frame the speaker sends
 * checked (wire.ts FrameReader) and queued, and waits that are always bounded.
 */
import { connect, type Socket } from 'node:net';
import { type Frame, FrameReader, TYPE } from './wire.js';

export class FuzzConnection {
  readonly #socket: Socket;
  readonly #reader = new FrameReader();
  readonly frames: Frame[] = [];
  closed = false;
  #wake: (() => void) | undefined;

  private constructor(socket: Socket) {
    this.#socket = socket;
    socket.on('data', (chunk: Buffer) => {
      this.frames.push(...this.#reader.push(chunk));
      this.#notify();
    });
    socket.on('close', () => {
      this.closed = true;
      this.#notify();
    });
    socket.on('error', () => {});
  }

  static open(o: {
    host: string;
    port: number;
    localAddress: string;
    timeoutMs: number;
  }): Promise<FuzzConnection> {
    return new Promise((resolve, reject) => {
      const socket = connect({ host: o.host, port: o.port, localAddress: o.localAddress });
      const timer = setTimeout(() => {
        socket.destroy();
        reject(new Error(`no TCP connection to ${o.host}:${o.port} within ${o.timeoutMs} ms`));
      }, o.timeoutMs);
      socket.once('connect', () => {
        clearTimeout(timer);
        socket.setNoDelay(true);
        resolve(new FuzzConnection(socket));
      });
      socket.once('error', (e) => {
        clearTimeout(timer);
        socket.destroy();
        reject(e);
      });
    });
  }

  #notify(): void {
    const w = this.#wake;
    this.#wake = undefined;
    w?.();
  }

  write(bytes: Buffer): void {
    if (!this.closed) this.#socket.write(bytes);
  }

  /** Resolves when a frame arrives, the connection closes, or after `ms`. */
  changed(ms: number): Promise<void> {
    return new Promise((resolve) => {
      const timer = setTimeout(() => {
        this.#wake = undefined;
        resolve();
      }, ms);
      this.#wake = () => {
        clearTimeout(timer);
        resolve();
      };
    });
  }

  /** The first queued frame that is a NOTIFICATION or malformed, if any. */
  verdictFrame(): Frame | undefined {
    return this.frames.find((f) => 'malformed' in f || f.type === TYPE.NOTIFICATION);
  }

  /** Waits (bounded) for a frame of `type`, consuming frames up to it; undefined on close or timeout. */
  async expect(type: number, ms: number): Promise<Frame | undefined> {
    const deadline = Date.now() + ms;
    for (;;) {
      const i = this.frames.findIndex(
        (f) => 'malformed' in f || f.type === type || f.type === TYPE.NOTIFICATION,
      );
      if (i >= 0) return this.frames.splice(0, i + 1).at(-1);
      if (this.closed || Date.now() >= deadline) return undefined;
      await this.changed(deadline - Date.now());
    }
  }

  /** Waits (bounded) for the speaker to close; true when it did. */
  async waitClosed(ms: number): Promise<boolean> {
    const deadline = Date.now() + ms;
    while (!this.closed && Date.now() < deadline) await this.changed(deadline - Date.now());
    return this.closed;
  }

  destroy(): void {
    this.#socket.destroy();
    this.closed = true;
  }

  /** Sends `last` (a Cease, normally), then closes. */
  end(last?: Buffer): void {
    if (last && !this.closed) this.#socket.end(last);
    setTimeout(() => this.#socket.destroy(), 200).unref();
  }
}
