/*
 * ZAPI (zserv) version 6: what FRR 8.4 and 10.3 share (lib/zclient.h, lib/nexthop.h), each
 * number checked against a live zebra and real bgpd frames. What differs between them, the
 * command and route type numbers among it, is in dialect.ts. One `as const` table per enum;
 * the reverse maps are for logs.
 */

/** `ZSERV_VERSION` and the marker byte that opens every header (lib/zclient.h). */
export const ZSERV_VERSION = 6;
export const ZEBRA_HEADER_MARKER = 0xfe;
/** u16 length, u8 marker, u8 version, u32 vrf_id, u16 command. */
export const ZEBRA_HEADER_SIZE = 10;
/** zebra's per-client read buffer is MAX(16384, sizeof(struct zapi_route)): a longer frame drops us. */
export const ZEBRA_MAX_PACKET_SIZE = 16384;
export const VRF_DEFAULT = 0;
/** RT_TABLE_MAIN, the table zebra reports in ROUTE_NOTIFY_OWNER for the default VRF. */
export const RT_TABLE_MAIN = 254;

/** `ZAPI_MESSAGE_*`: which optional fields a route body carries (u32 `message`). */
export const ZapiMessage = {
  NEXTHOP: 0x01,
  DISTANCE: 0x02,
  METRIC: 0x04,
  TAG: 0x08,
  MTU: 0x10,
  SRCPFX: 0x20,
  BACKUP_NEXTHOPS: 0x40,
  NHG: 0x80,
  TABLEID: 0x100,
  SRTE: 0x200,
  OPAQUE: 0x400,
} as const;

/** `ZEBRA_FLAG_*` (u32 `flags` of a route). */
export const ZebraFlag = {
  ALLOW_RECURSION: 0x01,
  SELFROUTE: 0x02,
  IBGP: 0x04,
  SELECTED: 0x08,
  FIB_OVERRIDE: 0x10,
  EVPN_ROUTE: 0x20,
  RR_USE_DISTANCE: 0x40,
} as const;

/** `enum nexthop_types_t` (lib/nexthop.h). */
export const NexthopType = {
  IFINDEX: 1,
  IPV4: 2,
  IPV4_IFINDEX: 3,
  IPV6: 4,
  IPV6_IFINDEX: 5,
  BLACKHOLE: 6,
} as const;

/** `ZAPI_NEXTHOP_FLAG_*` (u8 per next hop). */
export const ZapiNexthopFlag = {
  ONLINK: 0x01,
  LABEL: 0x02,
  WEIGHT: 0x04,
  HAS_BACKUP: 0x08,
  SEG6: 0x10,
  SEG6LOCAL: 0x20,
  EVPN: 0x40,
} as const;

/** FRR's `afi_t` and `safi_t` (zebra's ROUTE_ADD accepts SAFI unicast and multicast only). */
export const ZapiAfi = { IP: 1, IP6: 2 } as const;
export const ZapiSafi = { UNICAST: 1, MULTICAST: 2 } as const;

/** `enum zapi_route_notify_owner`, sent in HOST byte order (little-endian on x86). */
export const NotifyOwner = {
  FAIL_INSTALL: 0,
  BETTER_ADMIN_WON: 1,
  INSTALLED: 2,
  REMOVED: 3,
  REMOVE_FAIL: 4,
} as const;
export type NotifyOwnerCode = (typeof NotifyOwner)[keyof typeof NotifyOwner];

function reverse<T extends Record<string, number>>(table: T): ReadonlyMap<number, keyof T & string> {
  return new Map(Object.entries(table).map(([k, v]) => [v, k as keyof T & string]));
}

export const NOTIFY_OWNER_NAMES = reverse(NotifyOwner);

/** `enum zebra_error_types`: the u32 body of ZEBRA_ERROR, in HOST byte order (zserv_encode_error). */
export const ZebraErrorType = {
  UNKNOWN_ERROR: 0,
  NO_VRF: 1,
  /** A command zebra has no handler for: what the HELLO of the other numbering draws. */
  INVALID_MSG_TYPE: 2,
} as const;

/** Defaults of the zebra target (docs/fib-zebra.md explains each). */
export const ZEBRA_DEFAULTS = {
  /** Not 0: bgpd owns (BGP, 0), and zebra flushes a whole (type, instance) when its client goes. */
  instance: 1,
  /** zebra's default eBGP distance. */
  distance: 20,
  metric: 0,
  reconnectInitialMs: 100,
  reconnectMaxMs: 5000,
  reconnectJitter: 0.25,
  /** HELLO to CAPABILITIES; a zebra that stays silent this long is dropped and retried. */
  handshakeTimeoutMs: 5000,
} as const;
