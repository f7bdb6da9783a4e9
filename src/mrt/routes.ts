/*
 * An MRT file read as routes: each TABLE_DUMP_V2 RIB record's first entry, and each BGP4MP
 * UPDATE, become UPDATE bodies that go through the same decoder a session's UPDATEs take
 * (RFC 7606 checks, attribute sets interned by their bytes, prefixes in reused columns).
 * Consecutive records whose entries carry the same attribute bytes share one UPDATE, so a
 * table dumped by attribute set costs one decode per set, not per prefix.
 *
 *   synthetic UPDATE body, IPv4            synthetic UPDATE body, IPv6
 *   +---------------------------+          +------------------------------------------+
 *   | withdrawn length = 0 (2)  |          | withdrawn length = 0 (2)                 |
 *   | attribute length (2)      |          | attribute length (2)                     |
 *   | the entry's attributes    |          | the entry's attributes but MP_REACH_NLRI |
 *   | NLRI: prefix, prefix, ... |          | MP_REACH_NLRI (extended length):         |
 *   +---------------------------+          |   AFI 2, SAFI 1, next hop, reserved,     |
 *                                          |   NLRI: prefix, prefix, ...              |
 *                                          +------------------------------------------+
 */
import {
  AttrFlag,
  type AttrInterner,
  AttrType,
  HEADER_LENGTH,
  MessageType,
  Safi,
  UpdateDecoder,
  type UpdateMessage,
  Writer,
} from '../bgp/wire/index.js';
import { nextTurn } from '../components/index.js';
import { MrtAfi, MrtDefaults, MrtType, TableDumpV2Subtype } from './constants.js';
import { MrtError } from './errors.js';
import { decodeBgp4mp, decodeRib, isUnicastRib, type MrtRecord } from './records.js';
import { MrtSplitter } from './splitter.js';

/** Where the routes go: one UPDATE at a time, its lists valid only during the call. */
export type MrtUpdateSink = (update: UpdateMessage) => void;

export interface MrtReadOptions {
  /** Shared with the sessions' decoders, so the file's attribute sets are the RIB's. */
  readonly interner?: AttrInterner;
  /** Records per turn (MrtDefaults.INJECT_SLICE). */
  readonly slice?: number;
  /** Between slices; default the next turn of the event loop. */
  readonly pause?: () => Promise<void>;
}

export interface MrtReadResult {
  readonly records: number;
  /** TABLE_DUMP_V2 RIB records and BGP4MP UPDATEs read. */
  readonly ribRecords: number;
  readonly updates: number;
  /** UPDATEs handed to the sink (after grouping). */
  readonly batches: number;
  /** Records passed over: other types, multicast, add-path BGP4MP, other messages. */
  readonly skipped: number;
  /** Entries (or UPDATEs) whose attributes RFC 7606 turns into withdrawals. */
  readonly withdrawn: number;
}

const GROUP_LIMIT = 60_000;

/** The next hop of an entry's MP_REACH_NLRI, short (RFC 6396 4.3.4) or full (some writers). */
function nextHopOf(value: Uint8Array): Uint8Array | null {
  if (value.length >= 1 && value[0] + 1 === value.length) return value.subarray(1);
  if (value.length >= 4 && 4 + value[3] <= value.length) return value.subarray(4, 4 + value[3]);
  return null;
}

function sameBytes(a: Uint8Array, b: Uint8Array): boolean {
  if (a.length !== b.length) return false;
  for (let i = 0; i < a.length; i++) if (a[i] !== b[i]) return false;
  return true;
}

/**
 * Reads routes out of MRT records pushed to it; `finish` hands over what is still grouped.
 * Pure but for the sink: no file, no timer (readMrtRoutes is the shell around it).
 */
export class MrtRouteReader {
  readonly #sink: MrtUpdateSink;
  /** By as4 and iBGP (bit 1, bit 0): see #decoder. */
  readonly #decoders: UpdateDecoder[];
  readonly #w = new Writer(GROUP_LIMIT + 4096);
  #groupAfi = 0;
  #groupAttrs: Uint8Array | null = null;
  #groupLocalPref = false;
  #mpLenAt = -1;
  /** Where the attributes of an IPv4 UPDATE end and its NLRI begins. */
  #attrsEnd = 0;
  #attrLenAt = -1;
  records = 0;
  ribRecords = 0;
  updates = 0;
  batches = 0;
  skipped = 0;
  withdrawn = 0;

  constructor(sink: MrtUpdateSink, interner?: AttrInterner) {
    this.#sink = sink;
    this.#decoders = [0, 1, 2, 3].map(
      (k) =>
        new UpdateDecoder(
          { as4: k >= 2, ebgp: (k & 1) === 0, addPathIpv4: false, addPathIpv6: false },
          { interner, reuseLists: true },
        ),
    );
  }

  record(r: MrtRecord): void {
    this.records++;
    if (r.type === MrtType.TABLE_DUMP_V2) {
      if (r.subtype === TableDumpV2Subtype.PEER_INDEX_TABLE) return;
      if (!isUnicastRib(r.subtype)) {
        this.skipped++;
        return;
      }
      this.ribRecords++;
      this.#ribRecord(r);
      return;
    }
    if (r.type === MrtType.BGP4MP || r.type === MrtType.BGP4MP_ET) {
      let m: ReturnType<typeof decodeBgp4mp>;
      try {
        m = decodeBgp4mp(r);
      } catch (e) {
        if (e instanceof MrtError && e.kind === 'unsupported') {
          this.skipped++;
          return;
        }
        throw e;
      }
      if (m.kind !== 'message' || m.message.length < HEADER_LENGTH || m.message[18] !== MessageType.UPDATE) {
        this.skipped++;
        return;
      }
      this.finish();
      this.updates++;
      const decoder = this.#decoder(m.as4, m.peerAs === m.localAs);
      this.#deliver(decoder.decode(m.message, HEADER_LENGTH, m.message.length));
      return;
    }
    this.skipped++;
  }

  /** Hands over the UPDATE being grouped, if any. */
  finish(): void {
    if (!this.#groupAttrs) return;
    const w = this.#w;
    if (this.#mpLenAt >= 0) w.patch16(this.#mpLenAt, w.pos - this.#mpLenAt - 2);
    w.patch16(this.#attrLenAt, (this.#mpLenAt >= 0 ? w.pos : this.#attrsEnd) - this.#attrLenAt - 2);
    this.#groupAttrs = null;
    this.#deliver(this.#decoder(true, this.#groupLocalPref).decode(w.buf, 0, w.pos));
  }

  /**
   * The decoder for a session of this kind. A RIB entry is read as iBGP when it carries
   * LOCAL_PREF (kept, as the file says) and as eBGP otherwise (RFC 7606 would make a missing
   * LOCAL_PREF treat-as-withdraw on iBGP); TABLE_DUMP_V2 always has 4-octet ASes (RFC 6396 4.3.4).
   */
  #decoder(as4: boolean, ibgp: boolean): UpdateDecoder {
    return this.#decoders[(as4 ? 2 : 0) + (ibgp ? 1 : 0)];
  }

  #deliver(u: UpdateMessage): void {
    this.batches++;
    if (u.action === 'treat-as-withdraw') this.withdrawn += u.nlri.count + (u.mpNlri?.count ?? 0);
    this.#sink(u);
  }

  /**
   * A RIB record's first entry, read in place: the hot loop of an injection allocates nothing
   * per record. Every length is checked as decodeRib checks it; a record that fails is handed
   * to decodeRib, whose error names what is wrong.
   */
  #ribRecord(r: MrtRecord): void {
    const b = r.body;
    const s = r.subtype;
    const addPath =
      s === TableDumpV2Subtype.RIB_IPV4_UNICAST_ADDPATH || s === TableDumpV2Subtype.RIB_IPV6_UNICAST_ADDPATH;
    const v4 = s === TableDumpV2Subtype.RIB_IPV4_UNICAST || s === TableDumpV2Subtype.RIB_IPV4_UNICAST_ADDPATH;
    const len = b.length > 4 ? b[4] : 0;
    const prefixEnd = 5 + ((len + 7) >>> 3);
    // Peer index (2), originated time (4), path id (4, RFC 8050), attribute length (2).
    const entryHead = addPath ? 12 : 8;
    let ok = b.length >= prefixEnd + 2 && len <= (v4 ? 32 : 128);
    let firstAttrs = -1;
    let firstEnd = -1;
    if (ok) {
      const count = (b[prefixEnd] << 8) | b[prefixEnd + 1];
      let p = prefixEnd + 2;
      for (let i = 0; i < count; i++) {
        if (p + entryHead > b.length) {
          ok = false;
          break;
        }
        const alen = (b[p + entryHead - 2] << 8) | b[p + entryHead - 1];
        if (i === 0) {
          firstAttrs = p + entryHead;
          firstEnd = firstAttrs + alen;
        }
        p += entryHead + alen;
      }
      ok = ok && p === b.length;
    }
    if (!ok) {
      decodeRib(r); // throws, naming the problem
      return;
    }
    if (firstAttrs < 0) return;
    this.#ribEntry(
      v4 ? MrtAfi.IPV4 : MrtAfi.IPV6,
      len,
      b.subarray(5, prefixEnd),
      b.subarray(firstAttrs, firstEnd),
    );
  }

  #ribEntry(afi: number, len: number, prefix: Uint8Array, attributes: Uint8Array): void {
    const w = this.#w;
    if (
      this.#groupAttrs &&
      (afi !== this.#groupAfi || !sameBytes(attributes, this.#groupAttrs) || w.pos > GROUP_LIMIT)
    ) {
      this.finish();
    }
    if (!this.#groupAttrs && !this.#start(afi, attributes)) {
      this.skipped++;
      return;
    }
    w.u8(len).bytes(prefix);
  }

  /** Begins an UPDATE with an entry's attributes; false when an IPv6 entry has no next hop. */
  #start(afi: number, attrs: Uint8Array): boolean {
    const w = this.#w.reset();
    w.u16(0);
    this.#attrLenAt = w.mark();
    w.u16(0);
    let nextHop: Uint8Array | null = null;
    let localPref = false;
    // Every attribute but MP_REACH_NLRI as it is (the decoder checks them); that one rebuilt
    // whole, last, for IPv6. A header cut short is copied too: the decoder judges it.
    let p = 0;
    while (p < attrs.length) {
      const ext = p + 1 < attrs.length && (attrs[p] & AttrFlag.EXTENDED_LENGTH) !== 0;
      const hl = ext ? 4 : 3;
      const vlen = p + hl > attrs.length ? 0 : ext ? (attrs[p + 2] << 8) | attrs[p + 3] : attrs[p + 2];
      const end = Math.min(p + hl + vlen, attrs.length);
      const type = attrs[p + 1];
      if (type === AttrType.LOCAL_PREF) localPref = true;
      if (afi !== MrtAfi.IPV4 && type === AttrType.MP_REACH_NLRI)
        nextHop = nextHopOf(attrs.subarray(p + hl, end));
      else w.bytes(attrs.subarray(p, end));
      p = end;
    }
    this.#groupLocalPref = localPref;
    if (afi === MrtAfi.IPV4) {
      this.#mpLenAt = -1;
      this.#attrsEnd = w.pos;
    } else {
      if (!nextHop) return false;
      w.u8(AttrFlag.OPTIONAL | AttrFlag.EXTENDED_LENGTH).u8(AttrType.MP_REACH_NLRI);
      this.#mpLenAt = w.mark();
      w.u16(0).u16(MrtAfi.IPV6).u8(Safi.UNICAST).u8(nextHop.length).bytes(nextHop).u8(0);
    }
    this.#groupAfi = afi;
    this.#groupAttrs = attrs;
    return true;
  }
}

/**
 * Reads an MRT byte stream (a file's chunks) into `sink`, a slice of records per turn so the
 * sessions' timers run in between. Throws MrtError for a truncated or malformed file; what
 * was handed to the sink before stays handed.
 */
export async function readMrtRoutes(
  chunks: AsyncIterable<Uint8Array>,
  sink: MrtUpdateSink,
  options: MrtReadOptions = {},
): Promise<MrtReadResult> {
  const slice = options.slice ?? MrtDefaults.INJECT_SLICE;
  const pause = options.pause ?? nextTurn;
  const splitter = new MrtSplitter();
  const reader = new MrtRouteReader(sink, options.interner);
  let n = 0;
  for await (const chunk of chunks) {
    splitter.push(chunk);
    for (let r = splitter.next(); r; r = splitter.next()) {
      reader.record(r);
      if (++n % slice === 0) await pause();
    }
  }
  splitter.end();
  reader.finish();
  return {
    records: reader.records,
    ribRecords: reader.ribRecords,
    updates: reader.updates,
    batches: reader.batches,
    skipped: reader.skipped,
    withdrawn: reader.withdrawn,
  };
}
