import { Writer } from '../bgp/wire/index.js';
import { Bgp4mpSubtype, MrtBgpState, type MrtStateName, MrtType } from './constants.js';
import { type Bgp4mpPeering, finishRecord, startRecord } from './records.js';

const BGP_HEADER = 19;

/** Where recorded bytes go, a chunk at a time. */
export interface RecordOut {
  write(bytes: Uint8Array): void;
}

/**
 * Turns a peer's messages and state changes into RFC 6396 BGP4MP records, gathered in one
 * buffer that `take` hands out (the file shell writes it on a timer or when it is full).
 * Received messages are BGP4MP_MESSAGE_AS4, sent ones BGP4MP_MESSAGE_AS4_LOCAL (section
 * 4.4.6: "locally generated"), both with the peer's address and AS as Peer and ours as Local,
 * so a reader tells the two directions apart and pairs them to a session.
 */
export class Bgp4mpRecorder {
  readonly #w: Writer;
  readonly #now: () => number;
  #records = 0;

  /** `now`: seconds since the epoch. */
  constructor(now: () => number, initial = 64 * 1024) {
    this.#now = now;
    this.#w = new Writer(initial);
  }

  /** Bytes gathered and not yet taken. */
  get pending(): number {
    return this.#w.pos;
  }

  /** Records made so far. */
  get records(): number {
    return this.#records;
  }

  /**
   * One or more whole BGP messages (a sent buffer may pack several UPDATEs), each its own
   * record. A buffer that does not frame (cannot come from a session) is recorded whole.
   */
  messages(direction: 'received' | 'sent', peering: Bgp4mpPeering, bytes: Uint8Array): void {
    const subtype = direction === 'received' ? Bgp4mpSubtype.MESSAGE_AS4 : Bgp4mpSubtype.MESSAGE_AS4_LOCAL;
    const time = this.#now();
    let p = 0;
    while (p < bytes.length) {
      const len = bytes.length - p >= BGP_HEADER ? (bytes[p + 16] << 8) | bytes[p + 17] : 0;
      const end = len >= BGP_HEADER && p + len <= bytes.length ? p + len : bytes.length;
      this.#message(time, subtype, peering, bytes.subarray(p, end));
      p = end;
    }
  }

  /** RFC 6396 section 4.4.4 BGP4MP_STATE_CHANGE_AS4. */
  stateChange(peering: Bgp4mpPeering, from: MrtStateName, to: MrtStateName): void {
    const w = this.#w;
    const at = startRecord(w, this.#now(), MrtType.BGP4MP, Bgp4mpSubtype.STATE_CHANGE_AS4);
    peeringFields(w, peering);
    w.u16(MrtBgpState[from]).u16(MrtBgpState[to]);
    finishRecord(w, at);
    this.#records++;
  }

  /** What was gathered since the last take (a copy), or null. */
  take(): Uint8Array | null {
    if (this.#w.pos === 0) return null;
    const out = this.#w.finish();
    this.#w.reset();
    return out;
  }

  #message(time: number, subtype: number, peering: Bgp4mpPeering, message: Uint8Array): void {
    const w = this.#w;
    const at = startRecord(w, time, MrtType.BGP4MP, subtype);
    peeringFields(w, peering);
    w.bytes(message);
    finishRecord(w, at);
    this.#records++;
  }
}

/** RFC 6396 section 4.4.2: peer AS, local AS, interface index, AFI, peer and local address. */
function peeringFields(w: Writer, p: Bgp4mpPeering): void {
  const v6 = p.peerAddress.length === 16;
  w.u32(p.peerAs >>> 0)
    .u32(p.localAs >>> 0)
    .u16(p.interfaceIndex)
    .u16(v6 ? 2 : 1)
    .bytes(p.peerAddress)
    .bytes(v6 && p.localAddress.length === 4 ? new Uint8Array(16) : p.localAddress);
}
