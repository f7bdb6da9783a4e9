import { addressBytes } from '../address/index.js';
import { Writer } from '../bgp/wire/index.js';
import {
  BMP_VERSION,
  BmpMessageType,
  BmpPeerFlag,
  COMMON_HEADER_LENGTH,
  InitiationTlv,
  statShape,
  TerminationReason,
  TerminationTlv,
} from './constants.js';
import type { BmpMessage, InfoTlv, PerPeerHeader, Stat } from './messages.js';

const TYPE_CODE = {
  'route-monitoring': BmpMessageType.ROUTE_MONITORING,
  'statistics-report': BmpMessageType.STATISTICS_REPORT,
  'peer-down': BmpMessageType.PEER_DOWN,
  'peer-up': BmpMessageType.PEER_UP,
  initiation: BmpMessageType.INITIATION,
  termination: BmpMessageType.TERMINATION,
} as const;

const text = new TextEncoder();

/** An Information TLV carrying UTF-8 text (sysName, sysDescr, a String). */
export function textTlv(type: number, value: string): InfoTlv {
  return { type, value: text.encode(value) };
}

/** Section 4.3 Initiation with sysDescr and sysName, as FRR and GoBGP send it. */
export function initiationTlvs(sysName: string, sysDescr: string): InfoTlv[] {
  return [textTlv(InitiationTlv.SYS_DESCR, sysDescr), textTlv(InitiationTlv.SYS_NAME, sysName)];
}

/** Section 4.5 Termination: a reason (administratively closed unless told) and an optional text. */
export function terminationTlvs(
  reason: number = TerminationReason.ADMINISTRATIVELY_CLOSED,
  message?: string,
): InfoTlv[] {
  const r = new Uint8Array([reason >> 8, reason & 0xff]);
  const tlvs: InfoTlv[] = [{ type: TerminationTlv.REASON, value: r }];
  if (message) tlvs.push(textTlv(TerminationTlv.STRING, message));
  return tlvs;
}

/** Appends one whole BMP message to `w`; returns its length. */
export function encodeBmp(w: Writer, m: BmpMessage): number {
  const at = w.pos;
  w.u8(BMP_VERSION).u32(0).u8(TYPE_CODE[m.type]);
  switch (m.type) {
    case 'route-monitoring':
      writePeer(w, m.peer);
      w.bytes(m.update);
      break;
    case 'statistics-report':
      writePeer(w, m.peer);
      w.u32(m.stats.length);
      for (const s of m.stats) writeStat(w, s);
      break;
    case 'peer-down':
      writePeer(w, m.peer);
      w.u8(m.reason).bytes(m.data);
      break;
    case 'peer-up':
      writePeer(w, m.peer);
      writeAddress(w, m.localAddress);
      w.u16(m.localPort).u16(m.remotePort).bytes(m.sentOpen).bytes(m.receivedOpen);
      writeTlvs(w, m.info);
      break;
    case 'initiation':
    case 'termination':
      writeTlvs(w, m.info);
      break;
  }
  const length = w.pos - at;
  // Section 4.1: the length is of the whole message, common header included (4 octets).
  w.buf[at + 1] = length >>> 24;
  w.buf[at + 2] = (length >>> 16) & 0xff;
  w.buf[at + 3] = (length >>> 8) & 0xff;
  w.buf[at + 4] = length & 0xff;
  return length;
}

/** One message as its own byte array. */
export function encodeBmpBytes(m: BmpMessage, w: Writer = new Writer(256)): Uint8Array {
  w.reset();
  encodeBmp(w, m);
  return w.finish();
}

/** The common header alone: for a Route Monitoring message written around an UPDATE in place. */
export const BMP_HEADER_BYTES = COMMON_HEADER_LENGTH;

function writePeer(w: Writer, p: PerPeerHeader): void {
  const v6 = p.address.includes(':');
  // Section 4.2: V follows the address; the other flags are the caller's.
  const flags = (p.flags & ~BmpPeerFlag.V) | (v6 ? BmpPeerFlag.V : 0);
  w.u8(p.peerType).u8(flags);
  w.u32(Number((p.distinguisher >> 32n) & 0xffffffffn)).u32(Number(p.distinguisher & 0xffffffffn));
  writeAddress(w, p.address);
  w.u32(p.asn).u32(p.bgpId).u32(p.seconds).u32(p.micros);
}

/** 16 octets; an IPv4 address in the last 4, the 12 before it zero (sections 4.2, 4.10). */
function writeAddress(w: Writer, address: string): void {
  const bytes = addressBytes(address);
  if (bytes.length === 4) w.fill(0, 12);
  w.bytes(bytes);
}

function writeStat(w: Writer, s: Stat): void {
  w.u16(s.type);
  if ('raw' in s) {
    w.u16(s.raw.length).bytes(s.raw);
    return;
  }
  if (s.afi !== undefined) {
    w.u16(11).u16(s.afi).u8(s.safi);
    writeU64(w, s.value);
    return;
  }
  if (statShape(s.type) === 'counter') {
    w.u16(4).u32(s.value);
    return;
  }
  w.u16(8);
  writeU64(w, s.value);
}

function writeU64(w: Writer, value: number): void {
  w.u32(Math.floor(value / 0x1_0000_0000)).u32(value % 0x1_0000_0000);
}

function writeTlvs(w: Writer, tlvs: readonly InfoTlv[]): void {
  for (const t of tlvs) w.u16(t.type).u16(t.value.length).bytes(t.value);
}
