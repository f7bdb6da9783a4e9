import { IncompleteError } from './errors.js';

/**
 * Bounds-checked big-endian reader over a byte view. Peers are untrusted: every read checks
 * `need(n)`; `sub(len)` hands out a reader limited to `len` bytes so that one attribute can
 * never read into its neighbour. Views, never copies.
 */
export class Reader {
  buf: Uint8Array;
  pos: number;
  end: number;

  constructor(buf: Uint8Array, start = 0, end = buf.length) {
    this.buf = buf;
    this.pos = start;
    this.end = end;
  }

  /** Re-points a reused reader at new bytes (the hot path keeps one reader per session). */
  reset(buf: Uint8Array, start = 0, end = buf.length): this {
    this.buf = buf;
    this.pos = start;
    this.end = end;
    return this;
  }

  get remaining(): number {
    return this.end - this.pos;
  }

  need(n: number): void {
    if (this.end - this.pos < n) throw new IncompleteError(n - (this.end - this.pos));
  }

  u8(): number {
    if (this.pos >= this.end) throw new IncompleteError(1);
    return this.buf[this.pos++];
  }

  u16(): number {
    this.need(2);
    const b = this.buf;
    const p = this.pos;
    this.pos = p + 2;
    return (b[p] << 8) | b[p + 1];
  }

  u32(): number {
    this.need(4);
    const b = this.buf;
    const p = this.pos;
    this.pos = p + 4;
    return ((b[p] << 24) | (b[p + 1] << 16) | (b[p + 2] << 8) | b[p + 3]) >>> 0;
  }

  /** A view of the next n bytes. */
  bytes(n: number): Uint8Array {
    this.need(n);
    const v = this.buf.subarray(this.pos, this.pos + n);
    this.pos += n;
    return v;
  }

  /** A copy of the next n bytes, for values that outlive the receive buffer. */
  copy(n: number): Uint8Array {
    return this.bytes(n).slice();
  }

  skip(n: number): void {
    this.need(n);
    this.pos += n;
  }

  /** A reader over the next `len` bytes; this reader moves past them. */
  sub(len: number): Reader {
    this.need(len);
    const r = new Reader(this.buf, this.pos, this.pos + len);
    this.pos += len;
    return r;
  }
}
