import { HEADER_LENGTH, MAX_MESSAGE_LENGTH } from './constants.js';
import { checkHeader } from './header.js';

/**
 * Splits a TCP byte stream into whole BGP messages. Chunks are consumed without copying
 * where a message lies inside one chunk; only a message split across chunks is assembled.
 * Truncation means "wait for more", never an error; a bad header throws its BgpError as soon
 * as its 19 bytes are in.
 *
 *   framer.push(chunk);
 *   for (let m = framer.next(); m; m = framer.next()) handle(m);
 *
 * A returned message is a view valid until the next push.
 */
export class Framer {
  /** RFC 8654 raises this to 65535 once the Extended Message capability is exchanged. */
  maxLength: number;
  private chunk: Uint8Array = new Uint8Array(0);
  private pos = 0;
  private pending: Uint8Array = new Uint8Array(0);
  private pendingLen = 0;

  constructor(maxLength = MAX_MESSAGE_LENGTH) {
    this.maxLength = maxLength;
  }

  /** Bytes held that do not yet make a whole message. */
  get buffered(): number {
    return this.pendingLen + (this.chunk.length - this.pos);
  }

  push(chunk: Uint8Array): void {
    if (this.pos < this.chunk.length) {
      // The previous chunk was not drained: keep its rest in front of the new one.
      this.append(this.chunk.subarray(this.pos));
    }
    // A plain view: a socket's Buffer would make every message view a Buffer too, which costs
    // more to make than a Uint8Array's.
    this.chunk =
      chunk.constructor === Uint8Array ? chunk : new Uint8Array(chunk.buffer, chunk.byteOffset, chunk.length);
    this.pos = 0;
  }

  next(): Uint8Array | null {
    if (this.pendingLen > 0) return this.nextFromPending();
    const c = this.chunk;
    const avail = c.length - this.pos;
    if (avail < HEADER_LENGTH) return this.stash();
    const length = checkHeader(c, this.pos, this.maxLength);
    if (avail < length) return this.stash();
    const m = c.subarray(this.pos, this.pos + length);
    this.pos += length;
    return m;
  }

  private nextFromPending(): Uint8Array | null {
    // Top the pending buffer up to a header, then to the whole message.
    if (!this.fill(HEADER_LENGTH)) return null;
    const length = checkHeader(this.pending, 0, this.maxLength);
    if (!this.fill(length)) return null;
    const m = this.pending.slice(0, length);
    this.pendingLen = 0;
    return m;
  }

  /** Moves bytes from the chunk until pending holds `n`; false if the chunk ran out first. */
  private fill(n: number): boolean {
    const take = Math.min(n - this.pendingLen, this.chunk.length - this.pos);
    if (take > 0) {
      this.append(this.chunk.subarray(this.pos, this.pos + take));
      this.pos += take;
    }
    return this.pendingLen >= n;
  }

  private stash(): null {
    if (this.pos < this.chunk.length) {
      this.append(this.chunk.subarray(this.pos));
      this.pos = this.chunk.length;
    }
    return null;
  }

  private append(bytes: Uint8Array): void {
    if (this.pendingLen + bytes.length > this.pending.length) {
      const bigger = new Uint8Array(Math.max(this.pending.length * 2, this.pendingLen + bytes.length, 4096));
      bigger.set(this.pending.subarray(0, this.pendingLen));
      this.pending = bigger;
    }
    this.pending.set(bytes, this.pendingLen);
    this.pendingLen += bytes.length;
  }
}
