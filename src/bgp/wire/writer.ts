/**
 * Growable big-endian writer. Lengths are reserved and filled last (`mark`/`patch16`), the
 * buffer is reused between messages (`reset`), and `finish` hands out a copy or a view.
 */
export class Writer {
  buf: Uint8Array;
  pos = 0;

  constructor(initial = 4096) {
    this.buf = new Uint8Array(initial);
  }

  reset(): this {
    this.pos = 0;
    return this;
  }

  ensure(n: number): void {
    if (this.pos + n <= this.buf.length) return;
    let size = this.buf.length * 2;
    while (size < this.pos + n) size *= 2;
    const next = new Uint8Array(size);
    next.set(this.buf.subarray(0, this.pos));
    this.buf = next;
  }

  u8(v: number): this {
    this.ensure(1);
    this.buf[this.pos++] = v;
    return this;
  }

  u16(v: number): this {
    this.ensure(2);
    const b = this.buf;
    const p = this.pos;
    b[p] = v >>> 8;
    b[p + 1] = v;
    this.pos = p + 2;
    return this;
  }

  u32(v: number): this {
    this.ensure(4);
    const b = this.buf;
    const p = this.pos;
    b[p] = v >>> 24;
    b[p + 1] = v >>> 16;
    b[p + 2] = v >>> 8;
    b[p + 3] = v;
    this.pos = p + 4;
    return this;
  }

  bytes(v: Uint8Array): this {
    this.ensure(v.length);
    this.buf.set(v, this.pos);
    this.pos += v.length;
    return this;
  }

  /** v[from, to), without a view of it. */
  range(v: Uint8Array, from: number, to: number): this {
    const n = to - from;
    this.ensure(n);
    const b = this.buf;
    const p = this.pos;
    if (n < 64) for (let i = 0; i < n; i++) b[p + i] = v[from + i];
    else b.set(v.subarray(from, to), p);
    this.pos = p + n;
    return this;
  }

  fill(value: number, n: number): this {
    this.ensure(n);
    this.buf.fill(value, this.pos, this.pos + n);
    this.pos += n;
    return this;
  }

  /** Where a length field starts; write a placeholder, then `patch8/16` once the body is known. */
  mark(): number {
    return this.pos;
  }

  patch8(at: number, v: number): void {
    this.buf[at] = v;
  }

  patch16(at: number, v: number): void {
    this.buf[at] = v >>> 8;
    this.buf[at + 1] = v;
  }

  /** A copy of what was written: safe to keep after the writer is reused. */
  finish(): Uint8Array {
    return this.buf.slice(0, this.pos);
  }

  /** A view of what was written: valid until the next write. */
  view(): Uint8Array {
    return this.buf.subarray(0, this.pos);
  }
}
