import { ZEBRA_HEADER_SIZE } from './constants.js';
import { checkLength, checkMarkerAndVersion, decodeHeader } from './header.js';

/** One whole frame: its header fields and a view of its body. */
export interface ZapiFrame {
  readonly command: number;
  readonly vrfId: number;
  readonly body: Uint8Array;
}

/**
 * Splits the zserv byte stream into frames: several may come in one read, and one may be split
 * over many. Truncated input is *incomplete* (kept until more bytes come); a bad marker, version
 * or length is *malformed*: it throws ZapiError and poisons the framer, since nothing after it
 * can be trusted.
 */
export class ZapiFramer {
  /** Bytes of the frame in progress (less than one frame, or less than a header). */
  #pending: Uint8Array = new Uint8Array(0);
  #failure: Error | undefined;

  get bufferedBytes(): number {
    return this.#pending.length;
  }

  /** Feeds bytes; returns the frames they complete, in order. Frame bodies are views, never reused. */
  push(chunk: Uint8Array): ZapiFrame[] {
    if (this.#failure) throw this.#failure;
    let buf = chunk;
    if (this.#pending.length > 0) {
      buf = new Uint8Array(this.#pending.length + chunk.length);
      buf.set(this.#pending);
      buf.set(chunk, this.#pending.length);
    }
    const out: ZapiFrame[] = [];
    let off = 0;
    try {
      while (buf.length - off >= 4) {
        // Marker and version first: a peer of another version fails at once, not after a
        // wait for a "length" that its header may not even have there.
        checkMarkerAndVersion(buf[off + 2], buf[off + 3]);
        const length = (buf[off] << 8) | buf[off + 1];
        checkLength(length);
        if (buf.length - off < length) break;
        const h = decodeHeader(buf, off);
        out.push({
          command: h.command,
          vrfId: h.vrfId,
          body: buf.subarray(off + ZEBRA_HEADER_SIZE, off + length),
        });
        off += length;
      }
    } catch (err) {
      this.#failure = err as Error;
      throw err;
    }
    // Copy the tail: the caller may reuse its chunk, and the tail is short (under one frame).
    this.#pending = buf.slice(off);
    return out;
  }
}
