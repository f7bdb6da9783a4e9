/*
 * RFC 6396 records, one encoder and one decoder per record kind. Encoders append to a Writer
 * (header included, the length filled last); decoders take a record's body as a view and
 * check every length against it, since an MRT file is as untrusted as a peer.
 *
 *   common header (RFC 6396 section 2)
 *   +----------------------------------------------+
 *   | timestamp (4) | type (2) | subtype (2) | length (4) |   length: the body, after the header
 *   +----------------------------------------------+
 */
import { Reader, type Writer } from '../bgp/wire/index.js';
import { Bgp4mpSubtype, MrtAfi, MrtType, PeerTypeBit, TableDumpV2Subtype } from './constants.js';
import { MrtError } from './errors.js';

/** One peer of a PEER_INDEX_TABLE (RFC 6396 section 4.3.1). */
export interface IndexedPeer {
  /** BGP Identifier as a u32. */
  readonly bgpId: number;
  /** 4 or 16 bytes. */
  readonly address: Uint8Array;
  readonly asn: number;
}

export interface PeerIndexTable {
  readonly collectorId: number;
  readonly viewName: string;
  readonly peers: readonly IndexedPeer[];
}

/** One path of a RIB record (RFC 6396 section 4.3.4; RFC 8050 adds the path id). */
export interface RibEntry {
  readonly peerIndex: number;
  readonly originatedTime: number;
  readonly pathId: number;
  /** BGP path attributes as TABLE_DUMP_V2 writes them (4-octet AS; IPv6 MP_REACH_NLRI cut short). */
  readonly attributes: Uint8Array;
}

export interface RibRecord {
  readonly sequence: number;
  /** 1 IPv4, 2 IPv6. */
  readonly afi: number;
  readonly addPath: boolean;
  readonly prefixLength: number;
  /** The prefix's significant bytes (ceil(length / 8)). */
  readonly prefix: Uint8Array;
  readonly entries: readonly RibEntry[];
}

/** A BGP4MP MESSAGE or STATE_CHANGE's addressing (RFC 6396 section 4.4). */
export interface Bgp4mpPeering {
  readonly peerAs: number;
  readonly localAs: number;
  readonly interfaceIndex: number;
  /** 4 or 16 bytes each, of one family. */
  readonly peerAddress: Uint8Array;
  readonly localAddress: Uint8Array;
}

export type Bgp4mpRecord =
  | (Bgp4mpPeering & {
      readonly kind: 'message';
      readonly as4: boolean;
      /** A _LOCAL subtype: the message was sent, not received. */
      readonly local: boolean;
      readonly message: Uint8Array;
    })
  | (Bgp4mpPeering & {
      readonly kind: 'state';
      readonly as4: boolean;
      readonly oldState: number;
      readonly newState: number;
    });

/** A record as the file holds it: the header's fields and the body as a view. */
export interface MrtRecord {
  readonly timestamp: number;
  /** The microseconds of an _ET record, else 0. */
  readonly microseconds: number;
  readonly type: number;
  readonly subtype: number;
  readonly body: Uint8Array;
  /** Where the record starts in the file (for error messages). */
  readonly offset: number;
}

/** Starts a record; returns where its length goes, for `finishRecord`. */
export function startRecord(w: Writer, timestamp: number, type: number, subtype: number): number {
  w.u32(timestamp >>> 0)
    .u16(type)
    .u16(subtype);
  const at = w.mark();
  w.u32(0);
  return at;
}

/** Fills the length of the record started at `at` (RFC 6396: the body after the header). */
export function finishRecord(w: Writer, at: number): void {
  const len = w.mark() - at - 4;
  w.buf[at] = len >>> 24;
  w.buf[at + 1] = (len >>> 16) & 0xff;
  w.buf[at + 2] = (len >>> 8) & 0xff;
  w.buf[at + 3] = len & 0xff;
}

/** RFC 6396 section 4.3.1. Every peer is written with a 4-octet AS. */
export function encodePeerIndexTable(w: Writer, timestamp: number, table: PeerIndexTable): void {
  if (table.peers.length > 0xffff)
    throw new RangeError(`${table.peers.length} peers do not fit a PEER_INDEX_TABLE`);
  const at = startRecord(w, timestamp, MrtType.TABLE_DUMP_V2, TableDumpV2Subtype.PEER_INDEX_TABLE);
  const name = new TextEncoder().encode(table.viewName);
  w.u32(table.collectorId >>> 0)
    .u16(name.length)
    .bytes(name)
    .u16(table.peers.length);
  for (const p of table.peers) {
    w.u8(PeerTypeBit.AS4 | (p.address.length === 16 ? PeerTypeBit.IPV6 : 0))
      .u32(p.bgpId >>> 0)
      .bytes(p.address)
      .u32(p.asn >>> 0);
  }
  finishRecord(w, at);
}

/** The RIB subtype of a family, with or without path ids. */
export function ribSubtype(afi: number, addPath: boolean): number {
  if (afi === MrtAfi.IPV4) {
    return addPath ? TableDumpV2Subtype.RIB_IPV4_UNICAST_ADDPATH : TableDumpV2Subtype.RIB_IPV4_UNICAST;
  }
  return addPath ? TableDumpV2Subtype.RIB_IPV6_UNICAST_ADDPATH : TableDumpV2Subtype.RIB_IPV6_UNICAST;
}

/**
 * Starts a RIB_IPV4_UNICAST / RIB_IPV6_UNICAST record (RFC 6396 section 4.3.2): sequence,
 * prefix, and the entry count, which `finishRib` fills. `words` hold the prefix most
 * significant first (one for IPv4, four for IPv6), as the RIB keeps it.
 */
export function startRib(
  w: Writer,
  timestamp: number,
  afi: number,
  addPath: boolean,
  sequence: number,
  words: ArrayLike<number>,
  off: number,
  len: number,
): number {
  const at = startRecord(w, timestamp, MrtType.TABLE_DUMP_V2, ribSubtype(afi, addPath));
  w.u32(sequence >>> 0).u8(len);
  const bytes = (len + 7) >>> 3;
  for (let i = 0; i < bytes; i++) w.u8((words[off + (i >>> 2)] >>> (24 - 8 * (i & 3))) & 0xff);
  w.u16(0);
  return at;
}

/** One entry (RFC 6396 section 4.3.4; RFC 8050 section 4 puts the path id after the time). */
export function ribEntry(
  w: Writer,
  addPath: boolean,
  peerIndex: number,
  originatedTime: number,
  pathId: number,
  attributes: Uint8Array,
): void {
  w.u16(peerIndex).u32(originatedTime >>> 0);
  if (addPath) w.u32(pathId >>> 0);
  w.u16(attributes.length).bytes(attributes);
}

/** Fills the entry count and the length of the RIB record started at `at`. */
export function finishRib(w: Writer, at: number, entries: number, prefixLength: number): void {
  const countAt = at + 4 + 4 + 1 + ((prefixLength + 7) >>> 3);
  w.patch16(countAt, entries);
  finishRecord(w, at);
}

// ---- decoding -------------------------------------------------------------------------------

function malformed(record: MrtRecord, what: string): MrtError {
  return new MrtError('malformed', `MRT record at byte ${record.offset}: ${what}`);
}

/** Runs `read` over the body; a read past its end is a malformed record, never a crash. */
function within<T>(record: MrtRecord, what: string, read: (r: Reader) => T): T {
  const r = new Reader(record.body);
  let value: T;
  try {
    value = read(r);
  } catch (e) {
    if (e instanceof MrtError) throw e;
    throw malformed(record, `${what} runs past the record's end`);
  }
  if (r.remaining !== 0) throw malformed(record, `${r.remaining} bytes left after the ${what}`);
  return value;
}

export function decodePeerIndexTable(record: MrtRecord): PeerIndexTable {
  return within(record, 'PEER_INDEX_TABLE', (r) => {
    const collectorId = r.u32();
    const viewName = new TextDecoder().decode(r.bytes(r.u16()));
    const count = r.u16();
    const peers: IndexedPeer[] = [];
    for (let i = 0; i < count; i++) {
      const type = r.u8();
      const bgpId = r.u32();
      const address = r.copy(type & PeerTypeBit.IPV6 ? 16 : 4);
      const asn = type & PeerTypeBit.AS4 ? r.u32() : r.u16();
      peers.push({ bgpId, address, asn });
    }
    return { collectorId, viewName, peers };
  });
}

const RIB_FAMILY: Readonly<Record<number, { afi: number; addPath: boolean }>> = {
  [TableDumpV2Subtype.RIB_IPV4_UNICAST]: { afi: MrtAfi.IPV4, addPath: false },
  [TableDumpV2Subtype.RIB_IPV6_UNICAST]: { afi: MrtAfi.IPV6, addPath: false },
  [TableDumpV2Subtype.RIB_IPV4_UNICAST_ADDPATH]: { afi: MrtAfi.IPV4, addPath: true },
  [TableDumpV2Subtype.RIB_IPV6_UNICAST_ADDPATH]: { afi: MrtAfi.IPV6, addPath: true },
};

/** Whether a TABLE_DUMP_V2 subtype is a unicast RIB record we read. */
export function isUnicastRib(subtype: number): boolean {
  return Object.hasOwn(RIB_FAMILY, subtype);
}

/** RFC 6396 section 4.3.2 (and RFC 8050's add-path form); entries' attributes are views. */
export function decodeRib(record: MrtRecord): RibRecord {
  const family = RIB_FAMILY[record.subtype];
  if (!family)
    throw new MrtError('unsupported', `MRT record at byte ${record.offset}: RIB subtype ${record.subtype}`);
  const { afi, addPath } = family;
  return within(record, 'RIB record', (r) => {
    const sequence = r.u32();
    const prefixLength = r.u8();
    if (prefixLength > (afi === MrtAfi.IPV4 ? 32 : 128)) {
      throw malformed(record, `prefix length ${prefixLength} is too long for its family`);
    }
    const prefix = r.bytes((prefixLength + 7) >>> 3);
    const count = r.u16();
    const entries: RibEntry[] = [];
    for (let i = 0; i < count; i++) {
      const peerIndex = r.u16();
      const originatedTime = r.u32();
      const pathId = addPath ? r.u32() : 0;
      const attributes = r.bytes(r.u16());
      entries.push({ peerIndex, originatedTime, pathId, attributes });
    }
    return { sequence, afi, addPath, prefixLength, prefix, entries };
  });
}

const BGP4MP_KIND: Readonly<Record<number, { kind: 'message' | 'state'; as4: boolean; local: boolean }>> = {
  [Bgp4mpSubtype.STATE_CHANGE]: { kind: 'state', as4: false, local: false },
  [Bgp4mpSubtype.MESSAGE]: { kind: 'message', as4: false, local: false },
  [Bgp4mpSubtype.MESSAGE_AS4]: { kind: 'message', as4: true, local: false },
  [Bgp4mpSubtype.STATE_CHANGE_AS4]: { kind: 'state', as4: true, local: false },
  [Bgp4mpSubtype.MESSAGE_LOCAL]: { kind: 'message', as4: false, local: true },
  [Bgp4mpSubtype.MESSAGE_AS4_LOCAL]: { kind: 'message', as4: true, local: true },
};

/** RFC 6396 section 4.4 (the add-path subtypes are left out: their messages need a session's context). */
export function decodeBgp4mp(record: MrtRecord): Bgp4mpRecord {
  const sub = BGP4MP_KIND[record.subtype];
  if (!sub)
    throw new MrtError(
      'unsupported',
      `MRT record at byte ${record.offset}: BGP4MP subtype ${record.subtype}`,
    );
  return within(record, 'BGP4MP record', (r) => {
    const peerAs = sub.as4 ? r.u32() : r.u16();
    const localAs = sub.as4 ? r.u32() : r.u16();
    const interfaceIndex = r.u16();
    const afi = r.u16();
    if (afi !== MrtAfi.IPV4 && afi !== MrtAfi.IPV6) throw malformed(record, `address family ${afi}`);
    const n = afi === MrtAfi.IPV4 ? 4 : 16;
    const peerAddress = r.copy(n);
    const localAddress = r.copy(n);
    const peering = { peerAs, localAs, interfaceIndex, peerAddress, localAddress };
    if (sub.kind === 'state') {
      return { kind: 'state', as4: sub.as4, ...peering, oldState: r.u16(), newState: r.u16() };
    }
    return { kind: 'message', as4: sub.as4, local: sub.local, ...peering, message: r.bytes(r.remaining) };
  });
}
