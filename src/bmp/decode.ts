import { formatAddress } from '../address/index.js';
import {
  BMP_VERSION,
  BmpMessageType,
  BmpPeerFlag,
  COMMON_HEADER_LENGTH,
  PER_PEER_HEADER_LENGTH,
  PeerDownReason,
  statShape,
} from './constants.js';
import { BmpError } from './errors.js';
import type { BmpMessage, InfoTlv, PerPeerHeader, Stat } from './messages.js';

/** BGP message header: Marker (16), Length (2), Type (1). */
const BGP_HEADER_LENGTH = 19;

/** A bounds-checked view: every read says which field ran short. */
class View {
  readonly buf: Uint8Array;
  readonly dv: DataView;
  pos: number;
  readonly end: number;

  constructor(buf: Uint8Array, start: number, end: number) {
    this.buf = buf;
    this.dv = new DataView(buf.buffer, buf.byteOffset, buf.byteLength);
    this.pos = start;
    this.end = end;
  }

  need(n: number, what: string): void {
    if (this.pos + n > this.end)
      throw new BmpError('bad-body', `${what}: ${n} octets needed, ${this.end - this.pos} left`);
  }

  u8(what: string): number {
    this.need(1, what);
    return this.buf[this.pos++]!;
  }

  u16(what: string): number {
    this.need(2, what);
    const v = this.dv.getUint16(this.pos);
    this.pos += 2;
    return v;
  }

  u32(what: string): number {
    this.need(4, what);
    const v = this.dv.getUint32(this.pos);
    this.pos += 4;
    return v;
  }

  u64(what: string): number {
    this.need(8, what);
    const v = this.dv.getBigUint64(this.pos);
    this.pos += 8;
    return Number(v);
  }

  bytes(n: number, what: string): Uint8Array {
    this.need(n, what);
    const v = this.buf.slice(this.pos, this.pos + n);
    this.pos += n;
    return v;
  }
}

/**
 * The length of the first BMP message in `buf[start..end)`, or undefined while its common
 * header is incomplete. A wrong version or a length below the header is malformed.
 */
export function bmpMessageLength(buf: Uint8Array, start = 0, end = buf.length): number | undefined {
  if (end - start < COMMON_HEADER_LENGTH) return undefined;
  if (buf[start] !== BMP_VERSION)
    throw new BmpError('bad-version', `version ${buf[start]}, not ${BMP_VERSION}`);
  const length = new DataView(buf.buffer, buf.byteOffset + start, 5).getUint32(1);
  if (length < COMMON_HEADER_LENGTH)
    throw new BmpError(
      'bad-length',
      `message length ${length} is below the header's ${COMMON_HEADER_LENGTH}`,
    );
  return length;
}

/** Decodes one whole BMP message (RFC 7854 section 4). Truncated input is `incomplete`. */
export function decodeBmp(buf: Uint8Array): BmpMessage {
  const length = bmpMessageLength(buf);
  if (length === undefined || buf.length < length) {
    throw new BmpError('incomplete', `${buf.length} octets of a ${length ?? '?'}-octet message`);
  }
  if (buf.length > length)
    throw new BmpError('bad-length', `${buf.length} octets for a ${length}-octet message`);
  const type = buf[5]!;
  const r = new View(buf, COMMON_HEADER_LENGTH, length);
  switch (type) {
    case BmpMessageType.ROUTE_MONITORING: {
      const peer = readPeer(r);
      const update = readBgpMessage(r, 'BGP UPDATE');
      done(r, 'route monitoring');
      return { type: 'route-monitoring', peer, update };
    }
    case BmpMessageType.STATISTICS_REPORT: {
      const peer = readPeer(r);
      const count = r.u32('stats count');
      const stats: Stat[] = [];
      for (let i = 0; i < count; i++) stats.push(readStat(r));
      done(r, 'statistics report');
      return { type: 'statistics-report', peer, stats };
    }
    case BmpMessageType.PEER_DOWN: {
      const peer = readPeer(r);
      const reason = r.u8('peer down reason');
      let data: Uint8Array;
      if (reason === PeerDownReason.LOCAL_NOTIFICATION || reason === PeerDownReason.REMOTE_NOTIFICATION) {
        data = readBgpMessage(r, 'NOTIFICATION');
      } else if (reason === PeerDownReason.LOCAL_NO_NOTIFICATION) {
        data = r.bytes(2, 'FSM event code');
      } else {
        data = r.bytes(r.end - r.pos, 'peer down data');
      }
      done(r, 'peer down');
      return { type: 'peer-down', peer, reason, data };
    }
    case BmpMessageType.PEER_UP: {
      const peer = readPeer(r);
      const local = r.bytes(16, 'local address');
      const localAddress = addressOf(local, (peer.flags & BmpPeerFlag.V) !== 0);
      const localPort = r.u16('local port');
      const remotePort = r.u16('remote port');
      const sentOpen = readBgpMessage(r, 'sent OPEN');
      const receivedOpen = readBgpMessage(r, 'received OPEN');
      const info = readTlvs(r);
      return { type: 'peer-up', peer, localAddress, localPort, remotePort, sentOpen, receivedOpen, info };
    }
    case BmpMessageType.INITIATION:
      return { type: 'initiation', info: readTlvs(r) };
    case BmpMessageType.TERMINATION:
      return { type: 'termination', info: readTlvs(r) };
    default:
      throw new BmpError('bad-type', `message type ${type} is not one this decoder reads`);
  }
}

/**
 * Splits a byte stream into whole messages and decodes each; returns them with the
 * unconsumed tail (an incomplete message waits for more bytes).
 */
export function decodeBmpStream(buf: Uint8Array): { messages: BmpMessage[]; rest: Uint8Array } {
  const messages: BmpMessage[] = [];
  let at = 0;
  for (;;) {
    const length = bmpMessageLength(buf, at);
    if (length === undefined || buf.length - at < length) break;
    messages.push(decodeBmp(buf.subarray(at, at + length)));
    at += length;
  }
  return { messages, rest: buf.subarray(at) };
}

function done(r: View, what: string): void {
  if (r.pos !== r.end) throw new BmpError('bad-body', `${what}: ${r.end - r.pos} octets left over`);
}

function readPeer(r: View): PerPeerHeader {
  r.need(PER_PEER_HEADER_LENGTH, 'per-peer header');
  const peerType = r.u8('peer type');
  const allFlags = r.u8('peer flags');
  const hi = BigInt(r.u32('distinguisher'));
  const distinguisher = (hi << 32n) | BigInt(r.u32('distinguisher'));
  const address = addressOf(r.bytes(16, 'peer address'), (allFlags & BmpPeerFlag.V) !== 0);
  const asn = r.u32('peer AS');
  const bgpId = r.u32('peer BGP ID');
  const seconds = r.u32('timestamp');
  const micros = r.u32('timestamp');
  return { peerType, flags: allFlags, distinguisher, address, asn, bgpId, seconds, micros };
}

function addressOf(bytes: Uint8Array, v6: boolean): string {
  return formatAddress(v6 ? bytes : bytes.subarray(12));
}

/** A whole BGP message, its length read from its own header (RFC 4271 section 4.1). */
function readBgpMessage(r: View, what: string): Uint8Array {
  r.need(BGP_HEADER_LENGTH, what);
  const length = r.dv.getUint16(r.pos + 16);
  if (length < BGP_HEADER_LENGTH) throw new BmpError('bad-body', `${what}: BGP length ${length}`);
  return r.bytes(length, what);
}

function readStat(r: View): Stat {
  const type = r.u16('stat type');
  const len = r.u16('stat length');
  const shape = statShape(type);
  const expected = shape === 'counter' ? 4 : shape === 'gauge' ? 8 : shape === 'afi-gauge' ? 11 : len;
  if (len !== expected) throw new BmpError('bad-body', `stat type ${type}: length ${len}, not ${expected}`);
  if (shape === 'counter') return { type, value: r.u32('stat value') };
  if (shape === 'gauge') return { type, value: r.u64('stat value') };
  if (shape === 'afi-gauge') {
    const afi = r.u16('stat AFI');
    const safi = r.u8('stat SAFI');
    return { type, afi, safi, value: r.u64('stat value') };
  }
  return { type, raw: r.bytes(len, 'stat value') };
}

function readTlvs(r: View): InfoTlv[] {
  const out: InfoTlv[] = [];
  while (r.pos < r.end) {
    const type = r.u16('information TLV type');
    const len = r.u16('information TLV length');
    out.push({ type, value: r.bytes(len, `information TLV ${type}`) });
  }
  return out;
}
