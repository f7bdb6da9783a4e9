/* RFC 7854 numbers, each in one `as const` table, and the BMP station's defaults. */

/** RFC 7854 section 4.1: the only version this speaker sends and reads. */
export const BMP_VERSION = 3;

/** Common Header: Version (1), Message Length (4), Message Type (1). */
export const COMMON_HEADER_LENGTH = 6;

/** Per-Peer Header (section 4.2): type, flags, distinguisher, address, AS, BGP ID, timestamp. */
export const PER_PEER_HEADER_LENGTH = 42;

/** Section 4.1, Message Type. */
export const BmpMessageType = {
  ROUTE_MONITORING: 0,
  STATISTICS_REPORT: 1,
  PEER_DOWN: 2,
  PEER_UP: 3,
  INITIATION: 4,
  TERMINATION: 5,
  ROUTE_MIRRORING: 6,
} as const;

/** Section 4.2, Peer Type. */
export const BmpPeerType = {
  GLOBAL_INSTANCE: 0,
  RD_INSTANCE: 1,
  LOCAL_INSTANCE: 2,
} as const;

/** Section 4.2, Peer Flags (the high bits of the octet). */
export const BmpPeerFlag = {
  /** The peer address is IPv6. */
  V: 0x80,
  /** Post-policy Adj-RIB-In (clear: pre-policy). */
  L: 0x40,
  /** The UPDATEs use the legacy 2-octet AS_PATH (clear: 4-octet, RFC 6793). */
  A: 0x20,
} as const;

/** Section 4.4, Information TLV types of the Initiation message. */
export const InitiationTlv = {
  STRING: 0,
  SYS_DESCR: 1,
  SYS_NAME: 2,
} as const;

/** Section 4.5, Information TLV types of the Termination message. */
export const TerminationTlv = {
  STRING: 0,
  REASON: 1,
} as const;

/** Section 4.5, the Reason TLV's values. */
export const TerminationReason = {
  ADMINISTRATIVELY_CLOSED: 0,
  UNSPECIFIED: 1,
  OUT_OF_RESOURCES: 2,
  REDUNDANT_CONNECTION: 3,
  PERMANENTLY_ADMINISTRATIVELY_CLOSED: 4,
} as const;

/** Section 4.9, Peer Down reasons. */
export const PeerDownReason = {
  /** We closed the session with a NOTIFICATION; the PDU follows. */
  LOCAL_NOTIFICATION: 1,
  /** We closed it without one; the 2-octet FSM event code follows. */
  LOCAL_NO_NOTIFICATION: 2,
  /** The peer closed it with a NOTIFICATION; the PDU follows. */
  REMOTE_NOTIFICATION: 3,
  /** The peer (or the transport) closed it without one; no data. */
  REMOTE_NO_NOTIFICATION: 4,
  /** The peer was de-configured; no data. */
  PEER_DECONFIGURED: 5,
} as const;

/** Section 4.8, Stat Types (with the IANA "BMP Statistics Types" registry's 9 and 10 layout). */
export const StatType = {
  REJECTED_PREFIXES: 0,
  DUPLICATE_PREFIX_ADVERTISEMENTS: 1,
  DUPLICATE_WITHDRAWS: 2,
  CLUSTER_LIST_LOOP: 3,
  AS_PATH_LOOP: 4,
  ORIGINATOR_ID_LOOP: 5,
  AS_CONFED_LOOP: 6,
  ADJ_RIB_IN_ROUTES: 7,
  LOC_RIB_ROUTES: 8,
  ADJ_RIB_IN_ROUTES_PER_AFI_SAFI: 9,
  LOC_RIB_ROUTES_PER_AFI_SAFI: 10,
} as const;

/**
 * Section 4.8: types 0-6 are 32-bit counters, 7 and 8 64-bit gauges, 9 and 10 an AFI (2),
 * a SAFI (1) and a 64-bit gauge. Anything else is kept as raw bytes.
 */
export function statShape(type: number): 'counter' | 'gauge' | 'afi-gauge' | 'raw' {
  if (type >= 0 && type <= 6) return 'counter';
  if (type === 7 || type === 8) return 'gauge';
  if (type === 9 || type === 10) return 'afi-gauge';
  return 'raw';
}

/**
 * RFC 4271 section 8.1 event numbers, for Peer Down reason 2 (which FSM event closed the
 * session when we sent no NOTIFICATION).
 */
export const FSM_EVENT_CODE: Readonly<Record<string, number>> = {
  ManualStart: 1,
  ManualStop: 2,
  AutomaticStart: 3,
  AutomaticStop: 8,
  ConnectRetryTimer_Expires: 9,
  HoldTimer_Expires: 10,
  KeepaliveTimer_Expires: 11,
  DelayOpenTimer_Expires: 12,
  IdleHoldTimer_Expires: 13,
  TcpConnection_Valid: 14,
  Tcp_CR_Acked: 16,
  TcpConnectionConfirmed: 17,
  TcpConnectionFails: 18,
  BGPOpen: 19,
  BGPHeaderErr: 21,
  BGPOpenMsgErr: 22,
  OpenCollisionDump: 23,
  NotifMsgVerErr: 24,
  NotifMsg: 25,
  KeepAliveMsg: 26,
  UpdateMsg: 27,
  UpdateMsgErr: 28,
};

/** The BMP station's defaults (`bmp` in the configuration file). */
export const BmpDefaults = {
  /** What GoBGP's bmp-servers default to; BMP has no IANA port. */
  PORT: 11019,
  ROUTE_MONITORING: 'pre_policy',
  /** Seconds between Statistics Reports; 0: none. */
  STATISTICS_INTERVAL: 60,
  /** Back-off between connection attempts, as FRR's `bmp connect ... min-retry max-retry` (ms). */
  MIN_RETRY_MS: 1000,
  MAX_RETRY_MS: 30_000,
  /** Bytes queued for a collector before the queue is dropped and the state sent afresh. */
  BUFFER_LIMIT: 16 * 1024 * 1024,
  /** Routes encoded per turn while dumping a table, and the socket backlog that pauses it. */
  DUMP_SLICE_ROUTES: 2048,
  DUMP_HIGH_WATER: 1024 * 1024,
  /** How long the Termination gets to leave at stop before the socket is destroyed (ms). */
  CLOSE_WAIT_MS: 1000,
} as const;
