import { endianness } from 'node:os';
import { NL_ALIGN, NLMSG_HDRLEN, RTA_HDRLEN } from './constants.js';
import { KernelError } from './errors.js';

/** Netlink headers and integer attributes are in host byte order; addresses stay in network order. */
const LE = endianness() === 'LE';

export function nlAlign(n: number): number {
  return (n + NL_ALIGN - 1) & ~(NL_ALIGN - 1);
}

/**
 * A growable writer of netlink messages. A message or attribute reserves its header and fills
 * the length when it ends (`begin`/`end`, `attrBegin`/`attrEnd`), so nested attributes
 * (RTA_MULTIPATH) need no size computed in advance.
 *
 *   nlmsghdr   0       4       6       8              12             16
 *              +-------+-------+-------+--------------+--------------+
 *              | len (u32)     | type  | flags        | seq (u32)    | pid (u32) |
 *   rtattr     +-------+-------+--------- value, padded to 4 ---------+
 *              | len   | type  |
 */
export class NlWriter {
  #buf: Uint8Array;
  #view: DataView;
  #lastStart = -1;
  pos = 0;

  constructor(capacity = 4096) {
    this.#buf = new Uint8Array(Math.max(64, capacity));
    this.#view = new DataView(this.#buf.buffer);
  }

  #ensure(n: number): void {
    if (this.pos + n <= this.#buf.length) return;
    const next = new Uint8Array(Math.max(this.#buf.length * 2, this.pos + n));
    next.set(this.#buf.subarray(0, this.pos));
    this.#buf = next;
    this.#view = new DataView(next.buffer);
  }

  u8(v: number): void {
    this.#ensure(1);
    this.#buf[this.pos++] = v;
  }

  u16(v: number): void {
    this.#ensure(2);
    this.#view.setUint16(this.pos, v, LE);
    this.pos += 2;
  }

  u32(v: number): void {
    this.#ensure(4);
    this.#view.setUint32(this.pos, v >>> 0, LE);
    this.pos += 4;
  }

  i32(v: number): void {
    this.#ensure(4);
    this.#view.setInt32(this.pos, v, LE);
    this.pos += 4;
  }

  /** Overwrites a u16 already written (a length known only at the end). */
  setU16(at: number, v: number): void {
    this.#view.setUint16(at, v, LE);
  }

  /** A u32 in network byte order (an IPv4 address or one word of an IPv6 address). */
  be32(v: number): void {
    this.#ensure(4);
    this.#view.setUint32(this.pos, v >>> 0, false);
    this.pos += 4;
  }

  bytes(b: Uint8Array): void {
    this.#ensure(b.length);
    this.#buf.set(b, this.pos);
    this.pos += b.length;
  }

  /** Zero bytes up to the next 4-byte boundary. */
  pad(): void {
    const to = nlAlign(this.pos);
    this.#ensure(to - this.pos);
    this.#buf.fill(0, this.pos, to);
    this.pos = to;
  }

  /** Starts a message (length filled by `end`); returns its offset. */
  begin(type: number, flags: number, seq: number, pid = 0): number {
    const start = this.pos;
    this.#lastStart = start;
    this.u32(0);
    this.u16(type);
    this.u16(flags);
    this.u32(seq);
    this.u32(pid);
    return start;
  }

  /** nlmsg_flags of the last message begun (a write's last request must ask for the ACK). */
  lastFlags(): number {
    return this.#lastStart < 0 ? 0 : this.#view.getUint16(this.#lastStart + 6, LE);
  }

  setLastFlags(flags: number): void {
    if (this.#lastStart >= 0) this.#view.setUint16(this.#lastStart + 6, flags, LE);
  }

  end(start: number): void {
    this.pad();
    this.#view.setUint32(start, this.pos - start, LE);
  }

  attrBegin(type: number): number {
    const start = this.pos;
    this.u16(0);
    this.u16(type);
    return start;
  }

  /** The attribute's length excludes its trailing padding (RTA_LENGTH), as the kernel writes it. */
  attrEnd(start: number): void {
    this.#view.setUint16(start, this.pos - start, LE);
    this.pad();
  }

  attrU32(type: number, v: number): void {
    this.u16(RTA_HDRLEN + 4);
    this.u16(type);
    this.u32(v);
  }

  attrBytes(type: number, b: Uint8Array): void {
    this.u16(RTA_HDRLEN + b.length);
    this.u16(type);
    this.bytes(b);
    this.pad();
  }

  /** A copy of what was written: the socket keeps it until sent, so the writer can go on. */
  finish(): Uint8Array {
    return this.#buf.slice(0, this.pos);
  }

  reset(): void {
    this.pos = 0;
    this.#lastStart = -1;
  }
}

/** Bounds-checked host-order reads over a received datagram; every read names what it reads. */
export class NlView {
  readonly buf: Uint8Array;
  readonly #view: DataView;

  constructor(buf: Uint8Array) {
    this.buf = buf;
    this.#view = new DataView(buf.buffer, buf.byteOffset, buf.byteLength);
  }

  get length(): number {
    return this.buf.length;
  }

  need(off: number, n: number, end: number, what: string): void {
    if (off < 0 || off + n > end || end > this.buf.length)
      throw new KernelError('malformed', `${what}: ${n} bytes at ${off} overrun its end at ${end}`);
  }

  u8(off: number): number {
    return this.buf[off];
  }

  u16(off: number): number {
    return this.#view.getUint16(off, LE);
  }

  u32(off: number): number {
    return this.#view.getUint32(off, LE);
  }

  i32(off: number): number {
    return this.#view.getInt32(off, LE);
  }

  be32(off: number): number {
    return this.#view.getUint32(off, false);
  }
}

/** One message of a datagram: header fields and where its body lies. */
export interface NlMessage {
  readonly type: number;
  readonly flags: number;
  readonly seq: number;
  readonly pid: number;
  /** Offsets into the datagram: [body, end). */
  readonly body: number;
  readonly end: number;
}

/**
 * Splits a datagram into its messages (a dump packs many; an ACK or a notification is one).
 * A length under the header or past the datagram is malformed: the kernel never sends one.
 */
export function splitMessages(v: NlView, onMessage: (m: NlMessage) => void): void {
  let off = 0;
  while (off + NLMSG_HDRLEN <= v.length) {
    const len = v.u32(off);
    if (len < NLMSG_HDRLEN || off + len > v.length)
      throw new KernelError('malformed', `nlmsg_len ${len} at ${off} in a ${v.length}-byte datagram`);
    onMessage({
      type: v.u16(off + 4),
      flags: v.u16(off + 6),
      seq: v.u32(off + 8),
      pid: v.u32(off + 12),
      body: off + NLMSG_HDRLEN,
      end: off + len,
    });
    off += nlAlign(len);
  }
  if (off < v.length && v.length - off >= NL_ALIGN)
    throw new KernelError('malformed', `${v.length - off} trailing bytes after the last message`);
}

/**
 * Calls `onAttr(type, start, end)` for each rtattr in [from, to). The value is [start, end);
 * the NLA_F_NESTED / NLA_F_NET_BYTEORDER bits are cleared from the type.
 */
export function forEachAttr(
  v: NlView,
  from: number,
  to: number,
  what: string,
  onAttr: (type: number, start: number, end: number) => void,
): void {
  let off = from;
  while (off + RTA_HDRLEN <= to) {
    const len = v.u16(off);
    if (len < RTA_HDRLEN || off + len > to)
      throw new KernelError('malformed', `${what}: attribute length ${len} at ${off} past ${to}`);
    onAttr(v.u16(off + 2) & 0x3fff, off + RTA_HDRLEN, off + len);
    off += nlAlign(len);
  }
}
