/**
 * RFC 6396 (MRT) numbers, as the IANA "Multi-Threaded Routing Toolkit (MRT)" registry spells
 * them, and the defaults of the MRT parts.
 */

/** The MRT Type field (RFC 6396 section 4). */
export const MrtType = {
  TABLE_DUMP_V2: 13,
  BGP4MP: 16,
  /** BGP4MP with a microsecond timestamp after the header (RFC 6396 section 3). */
  BGP4MP_ET: 17,
} as const;

/** TABLE_DUMP_V2 subtypes (RFC 6396 section 4.3; RFC 8050 adds the add-path ones). */
export const TableDumpV2Subtype = {
  PEER_INDEX_TABLE: 1,
  RIB_IPV4_UNICAST: 2,
  RIB_IPV4_MULTICAST: 3,
  RIB_IPV6_UNICAST: 4,
  RIB_IPV6_MULTICAST: 5,
  RIB_GENERIC: 6,
  RIB_IPV4_UNICAST_ADDPATH: 8,
  RIB_IPV4_MULTICAST_ADDPATH: 9,
  RIB_IPV6_UNICAST_ADDPATH: 10,
  RIB_IPV6_MULTICAST_ADDPATH: 11,
} as const;

/** BGP4MP subtypes (RFC 6396 section 4.4; RFC 8050 adds the add-path ones). */
export const Bgp4mpSubtype = {
  STATE_CHANGE: 0,
  MESSAGE: 1,
  MESSAGE_AS4: 4,
  STATE_CHANGE_AS4: 5,
  MESSAGE_LOCAL: 6,
  MESSAGE_AS4_LOCAL: 7,
  MESSAGE_ADDPATH: 8,
  MESSAGE_AS4_ADDPATH: 9,
  MESSAGE_LOCAL_ADDPATH: 10,
  MESSAGE_AS4_LOCAL_ADDPATH: 11,
} as const;

/** BGP4MP_STATE_CHANGE state codes (RFC 6396 section 4.4.1): RFC 4271's states, Idle first. */
export const MrtBgpState = {
  Idle: 1,
  Connect: 2,
  Active: 3,
  OpenSent: 4,
  OpenConfirm: 5,
  Established: 6,
} as const;
export type MrtStateName = keyof typeof MrtBgpState;

/** PEER_INDEX_TABLE peer type bits (RFC 6396 section 4.3.1). */
export const PeerTypeBit = {
  /** The peer's address is IPv6. */
  IPV6: 0x01,
  /** The peer's AS is 4 octets. */
  AS4: 0x02,
} as const;

/** Address families in BGP4MP records (IANA address family numbers). */
export const MrtAfi = { IPV4: 1, IPV6: 2 } as const;

/** Common header: timestamp, type, subtype, length. */
export const MRT_HEADER_LENGTH = 12;

export const MrtDefaults = {
  /**
   * A record longer than this is not read: a TABLE_DUMP_V2 RIB record holds every peer's path
   * of one prefix (65535 entries of 64 KiB attributes at worst), a BGP4MP one message.
   */
  MAX_RECORD_LENGTH: 16 * 1024 * 1024,
  /** Prefixes of the Loc-RIB taken per turn by a table dump. */
  DUMP_SLICE: 2048,
  /** Bytes a dump or a recording gathers before it writes them out. */
  WRITE_CHUNK: 256 * 1024,
  /** RIB records an injection reads per turn. */
  INJECT_SLICE: 4096,
  /** Bytes an injection reads from its file at a time: few reads, each a wait on the disk's thread. */
  READ_CHUNK: 4 * 1024 * 1024,
  /** The view name of our PEER_INDEX_TABLE (RFC 6396 4.3.1: optional; empty). */
  VIEW_NAME: '',
} as const;
