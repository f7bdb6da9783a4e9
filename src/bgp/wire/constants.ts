/**
 * BGP protocol numbers, spelled as the RFCs and IANA registries spell them.
 * Each table is `as const`; reverse lookups for logs are derived, never hand-written.
 */

/** Builds `{value: NAME}` from `{NAME: value}` for log and error text. */
function reverse<T extends Record<string, number>>(table: T): Record<number, keyof T & string> {
  const out: Record<number, keyof T & string> = {};
  for (const [name, value] of Object.entries(table)) out[value] = name as keyof T & string;
  return out;
}

export const BGP_PORT = 179;
export const BGP_VERSION = 4;
export const HEADER_LENGTH = 19;
export const MARKER_LENGTH = 16;
/** RFC 4271 section 4.1. */
export const MAX_MESSAGE_LENGTH = 4096;
/** RFC 8654: once the Extended Message capability is exchanged both ways. */
export const MAX_EXTENDED_MESSAGE_LENGTH = 65535;
/** RFC 6793: stands in for a 4-octet AS number in 2-octet fields. */
export const AS_TRANS = 23456;

export const MessageType = {
  OPEN: 1,
  UPDATE: 2,
  NOTIFICATION: 3,
  KEEPALIVE: 4,
  ROUTE_REFRESH: 5,
} as const;
export type MessageTypeCode = (typeof MessageType)[keyof typeof MessageType];
export const messageTypeName = reverse(MessageType);

export const Afi = { IPV4: 1, IPV6: 2 } as const;
export type AfiCode = (typeof Afi)[keyof typeof Afi];
export const Safi = { UNICAST: 1, MULTICAST: 2 } as const;
export const afiName = reverse(Afi);
export const safiName = reverse(Safi);

/** RFC 4271 section 4.3: Attribute Flags bits. */
export const AttrFlag = {
  OPTIONAL: 0x80,
  TRANSITIVE: 0x40,
  PARTIAL: 0x20,
  EXTENDED_LENGTH: 0x10,
} as const;

/** IANA BGP Path Attributes registry. */
export const AttrType = {
  ORIGIN: 1,
  AS_PATH: 2,
  NEXT_HOP: 3,
  MULTI_EXIT_DISC: 4,
  LOCAL_PREF: 5,
  ATOMIC_AGGREGATE: 6,
  AGGREGATOR: 7,
  COMMUNITIES: 8,
  ORIGINATOR_ID: 9,
  CLUSTER_LIST: 10,
  MP_REACH_NLRI: 14,
  MP_UNREACH_NLRI: 15,
  EXTENDED_COMMUNITIES: 16,
  AS4_PATH: 17,
  AS4_AGGREGATOR: 18,
  IPV6_EXTENDED_COMMUNITIES: 25,
  LARGE_COMMUNITY: 32,
} as const;
export const attrTypeName = reverse(AttrType);

export const Origin = { IGP: 0, EGP: 1, INCOMPLETE: 2 } as const;
export const originName = reverse(Origin);

/** IANA "BGP Well-known Communities" registry: the ones we act on or a policy may name. */
export const WellKnownCommunity = {
  /** RFC 8326. */
  GRACEFUL_SHUTDOWN: 0xffff0000,
  /** RFC 7999. */
  BLACKHOLE: 0xffff029a,
  /** RFC 9494: kept by a long-lived graceful restart, least preferred. */
  LLGR_STALE: 0xffff0006,
  /** RFC 9494: never kept by a long-lived graceful restart. */
  NO_LLGR: 0xffff0007,
  /** RFC 1997. */
  NO_EXPORT: 0xffffff01,
  /** RFC 1997. */
  NO_ADVERTISE: 0xffffff02,
  /** RFC 1997 (FRR calls it "local-AS"). */
  NO_EXPORT_SUBCONFED: 0xffffff03,
  /** RFC 3765. */
  NO_PEER: 0xffffff04,
} as const;
export const wellKnownCommunityName = reverse(WellKnownCommunity);

/**
 * IANA "BGP Extended Communities" type registry (RFC 7153 section 5.1), the types we name. The
 * high-order type octet's bit 0x40 is RFC 4360's non-transitive bit.
 */
export const ExtCommunityType = {
  TRANSITIVE_TWO_OCTET_AS: 0x00,
  TRANSITIVE_IPV4_ADDRESS: 0x01,
  TRANSITIVE_FOUR_OCTET_AS: 0x02,
  TRANSITIVE_OPAQUE: 0x03,
  NON_TRANSITIVE_TWO_OCTET_AS: 0x40,
  NON_TRANSITIVE_IPV4_ADDRESS: 0x41,
  NON_TRANSITIVE_FOUR_OCTET_AS: 0x42,
  NON_TRANSITIVE_OPAQUE: 0x43,
} as const;

/** Sub-types shared by the AS- and IPv4-specific types (RFC 4360 sections 5-6, RFC 5668 section 3). */
export const ExtCommunitySubType = {
  ROUTE_TARGET: 0x02,
  ROUTE_ORIGIN: 0x03,
} as const;

/** An extended community is 8 octets (RFC 4360 section 2), an IPv6 address specific one 20 (RFC 5701). */
export const EXT_COMMUNITY_BYTES = 8;
export const IPV6_EXT_COMMUNITY_BYTES = 20;
/** Large communities are three 32-bit fields (RFC 8092 section 3). */
export const LARGE_COMMUNITY_FIELDS = 3;
/** One AS_SEQUENCE segment holds at most 255 ASNs (its count is one octet, RFC 4271 section 4.3). */
export const MAX_SEGMENT_ASNS = 255;

/** AS_PATH segment types: RFC 4271 section 4.3 and RFC 5065. */
export const AsPathSegmentType = {
  AS_SET: 1,
  AS_SEQUENCE: 2,
  AS_CONFED_SEQUENCE: 3,
  AS_CONFED_SET: 4,
} as const;

/** IANA Capability Codes registry (the ones we speak; others are kept raw). */
export const CapabilityCode = {
  MULTIPROTOCOL: 1,
  ROUTE_REFRESH: 2,
  EXTENDED_NEXT_HOP: 5,
  EXTENDED_MESSAGE: 6,
  GRACEFUL_RESTART: 64,
  FOUR_OCTET_AS: 65,
  ADD_PATH: 69,
  ENHANCED_ROUTE_REFRESH: 70,
  /** RFC 9494. */
  LONG_LIVED_GRACEFUL_RESTART: 71,
  FQDN: 73,
  /** Pre-standard route refresh (deprecated in the IANA registry); decoded as a raw capability. */
  PRESTANDARD_ROUTE_REFRESH: 128,
} as const;
export const capabilityName = reverse(CapabilityCode);

/** OPEN optional parameter types: RFC 5492 (capabilities) and RFC 9072 (extended length marker). */
export const OptParamType = {
  CAPABILITIES: 2,
  EXTENDED_LENGTH: 255,
} as const;

/** RFC 7911 Send/Receive field. */
export const AddPathMode = { RECEIVE: 1, SEND: 2, BOTH: 3 } as const;

/** NOTIFICATION error codes: RFC 4271 section 4.5, RFC 7313, RFC 6608. */
export const ErrorCode = {
  MESSAGE_HEADER: 1,
  OPEN_MESSAGE: 2,
  UPDATE_MESSAGE: 3,
  HOLD_TIMER_EXPIRED: 4,
  FSM: 5,
  CEASE: 6,
  ROUTE_REFRESH_MESSAGE: 7,
} as const;
export const errorCodeName = reverse(ErrorCode);

export const HeaderSubcode = {
  CONNECTION_NOT_SYNCHRONIZED: 1,
  BAD_MESSAGE_LENGTH: 2,
  BAD_MESSAGE_TYPE: 3,
} as const;

export const OpenSubcode = {
  UNSUPPORTED_VERSION_NUMBER: 1,
  BAD_PEER_AS: 2,
  BAD_BGP_IDENTIFIER: 3,
  UNSUPPORTED_OPTIONAL_PARAMETER: 4,
  UNACCEPTABLE_HOLD_TIME: 6,
  UNSUPPORTED_CAPABILITY: 7,
  ROLE_MISMATCH: 11,
} as const;

export const UpdateSubcode = {
  MALFORMED_ATTRIBUTE_LIST: 1,
  UNRECOGNIZED_WELL_KNOWN_ATTRIBUTE: 2,
  MISSING_WELL_KNOWN_ATTRIBUTE: 3,
  ATTRIBUTE_FLAGS_ERROR: 4,
  ATTRIBUTE_LENGTH_ERROR: 5,
  INVALID_ORIGIN_ATTRIBUTE: 6,
  INVALID_NEXT_HOP_ATTRIBUTE: 8,
  OPTIONAL_ATTRIBUTE_ERROR: 9,
  INVALID_NETWORK_FIELD: 10,
  MALFORMED_AS_PATH: 11,
} as const;

/** RFC 6608. */
export const FsmSubcode = {
  UNSPECIFIED: 0,
  UNEXPECTED_MESSAGE_IN_OPENSENT: 1,
  UNEXPECTED_MESSAGE_IN_OPENCONFIRM: 2,
  UNEXPECTED_MESSAGE_IN_ESTABLISHED: 3,
} as const;

/** RFC 4486. */
export const CeaseSubcode = {
  MAXIMUM_NUMBER_OF_PREFIXES_REACHED: 1,
  ADMINISTRATIVE_SHUTDOWN: 2,
  PEER_DE_CONFIGURED: 3,
  ADMINISTRATIVE_RESET: 4,
  CONNECTION_REJECTED: 5,
  OTHER_CONFIGURATION_CHANGE: 6,
  CONNECTION_COLLISION_RESOLUTION: 7,
  OUT_OF_RESOURCES: 8,
  HARD_RESET: 9,
  BFD_DOWN: 10,
} as const;

/** RFC 7313. */
export const RouteRefreshSubcode = { INVALID_MESSAGE_LENGTH: 1 } as const;

/** RFC 7313 ROUTE-REFRESH "Message Subtype" (the reserved octet in RFC 2918). */
export const RouteRefreshSubtype = { NORMAL: 0, BORR: 1, EORR: 2 } as const;

/** Subcode names per error code, for logs and CLI output. */
export const subcodeName: Record<number, Record<number, string>> = {
  [ErrorCode.MESSAGE_HEADER]: reverse(HeaderSubcode),
  [ErrorCode.OPEN_MESSAGE]: reverse(OpenSubcode),
  [ErrorCode.UPDATE_MESSAGE]: reverse(UpdateSubcode),
  [ErrorCode.FSM]: reverse(FsmSubcode),
  [ErrorCode.CEASE]: reverse(CeaseSubcode),
  [ErrorCode.ROUTE_REFRESH_MESSAGE]: reverse(RouteRefreshSubcode),
};

/** "UPDATE_MESSAGE/MALFORMED_AS_PATH (3/11)" for logs. */
export function describeError(code: number, subcode: number): string {
  const c = errorCodeName[code] ?? 'UNKNOWN';
  const s = subcodeName[code]?.[subcode] ?? (subcode === 0 ? 'UNSPECIFIC' : 'UNKNOWN');
  return `${c}/${s} (${code}/${subcode})`;
}

/** RFC 4271 section 6: Error Subcode 0 is "Unspecific" under every Error Code. */
export const UNSPECIFIC_SUBCODE = 0;

/** RFC 4271 section 4.2: Version(1) My AS(2) Hold Time(2) BGP Identifier(4) Opt Parm Len(1). */
export const OPEN_FIXED_LENGTH = 10;
/** RFC 4271 section 4.2: a Hold Time is zero or at least three seconds. */
export const MIN_HOLD_TIME = 3;
/** RFC 4271 section 4.2: the Hold Time field is two octets. */
export const MAX_HOLD_TIME = 0xffff;
/** RFC 4271 section 4.4: the keepalive interval is one third of the Hold Time. */
export const KEEPALIVE_HOLD_TIME_RATIO = 3;
/** RFC 9072 section 2: "Non-Ext OP Len." sent with the extended Optional Parameters format. */
export const NON_EXT_OP_LEN_EXTENDED = 255;

/** RFC 4271 section 4.5: Error code(1) Error subcode(1). */
export const NOTIFICATION_FIXED_LENGTH = 2;
/** RFC 9003 section 2: the Shutdown Communication is at most 255 octets of UTF-8. */
export const SHUTDOWN_COMMUNICATION_MAX_LENGTH = 255;

/** RFC 2918 section 3: AFI(2) Reserved / RFC 7313 Message Subtype(1) SAFI(1). */
export const ROUTE_REFRESH_LENGTH = 4;

/** RFC 4724 section 3 Restart Flags (the top 4 bits of the first 16-bit field) and RFC 8538 N bit. */
export const GracefulRestartFlag = { RESTART_STATE: 0x8, NOTIFICATION: 0x4 } as const;
/** RFC 4724 section 3: Restart Time is the low 12 bits; the flags sit above them. */
export const GRACEFUL_RESTART_TIME_BITS = 12;
export const GRACEFUL_RESTART_TIME_MAX = 0x0fff;
/** RFC 4724 section 3: "Flags for Address Family". */
export const GracefulRestartAfFlag = { FORWARDING_STATE: 0x80 } as const;
/** RFC 9494 section 3: the Long-lived Stale Time is 24 bits of seconds. */
export const LONG_LIVED_STALE_TIME_MAX = 0xffffff;
