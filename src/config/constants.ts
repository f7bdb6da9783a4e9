import { ApiDefaults } from '../api/index.js';
import { FsmDefaults } from '../bgp/fsm/index.js';
import {
  Afi,
  AS_TRANS,
  BGP_PORT,
  GRACEFUL_RESTART_TIME_MAX,
  KEEPALIVE_HOLD_TIME_RATIO,
  Safi,
} from '../bgp/wire/index.js';
import { OVN_SOURCES } from '../ovn/index.js';
import { PolicyDefaults } from '../policy/index.js';
import { RibDefaults } from '../rib/index.js';

/**
 * Defaults, limits and the names the configuration file accepts. Protocol numbers stay in
 * src/bgp/wire/constants.ts and timer defaults with the FSM; this file only re-exports what the
 * file format needs, so the reference documentation and the checks read from one place.
 */

/** Where and how the speaker listens when `speaker.listen` leaves it out. */
export const ListenDefaults = {
  /** Dual stack: an IPv6 wildcard socket takes IPv4 connections too (as v4-mapped). */
  address: '::',
  port: BGP_PORT,
} as const;

/** Timer defaults in seconds; RFC 4271 section 10 via the FSM's table. */
export const TimerDefaults = {
  holdTime: FsmDefaults.holdTime,
  /** RFC 4271 section 10: a third of the hold time. */
  keepaliveTime: Math.floor(FsmDefaults.holdTime / KEEPALIVE_HOLD_TIME_RATIO),
  connectRetry: FsmDefaults.connectRetryTime,
  /** Reconnect back-off after a reset (RFC 4271 8.1.1 IdleHoldTime, DampPeerOscillations). */
  idleHoldTime: FsmDefaults.idleHoldTime,
  maxIdleHoldTime: FsmDefaults.maxIdleHoldTime,
  idleHoldResetTime: FsmDefaults.dampResetTime,
} as const;

/** RFC 4724 graceful restart; FRR's defaults (`bgp graceful-restart restart-time 120`, `stalepath-time 360`). */
export const GracefulRestartDefaults = {
  restartTime: 120,
  staleRoutesTime: 360,
} as const;
/** RFC 4724 section 3: Restart Time is a 12-bit field. */
export const MAX_RESTART_TIME = GRACEFUL_RESTART_TIME_MAX;
/** FRR caps `bgp graceful-restart stalepath-time` at one hour. */
export const MAX_STALE_ROUTES_TIME = 3600;

/** `add_path.send` keywords: every path, or the equal-cost (multipath) set. */
export const ADD_PATH_SEND_KEYWORDS = ['all', 'ecmp'] as const;
/** Upper bound of `add_path.send: N` (FRR's `addpath-tx-best-selected` allows 1..6; GoBGP any). */
export const MAX_ADD_PATH_SEND = 255;

/** FRR's `maximum-paths` bound (MULTIPATH_NUM as Debian builds it). */
export const MAX_MULTIPATHS = 64;

/** `speaker` settings left out: the control socket where the CLI looks, FRR's bestpath. */
export const SpeakerSectionDefaults = {
  controlSocket: ApiDefaults.SOCKET_PATH,
  logLevel: 'info',
  maxPaths: RibDefaults.MAX_PATHS,
  maxPathsIbgp: RibDefaults.MAX_PATHS,
} as const;
/** `speaker.health`: the liveness bound and what readiness requires unless told. */
export const HealthDefaults = {
  /** A timer turn this late is a stall: far beyond the 8 ms slices work is cut into, short of any hold time. */
  stallMs: 5_000,
  minStallMs: 100,
  maxStallMs: 600_000,
  /** Seconds a stall stays reported: one or two probes at Kubernetes' 10 s period see it. */
  stallWindow: 10,
  maxStallWindow: 3600,
  /** Ticks of the loop monitor: often enough to see a stall of stallMs, cheap enough to not matter. */
  tickMs: 250,
} as const;
/** `speaker.health.ready_requires.peers` keywords. */
export const HEALTH_PEER_KEYWORDS = ['none', 'any', 'all'] as const;
/** Sink names as `show sinks` prints them. */
export const HEALTH_SINK_NAME = /^(kernel|zebra|ovn-nb|ovn-table \S{1,256})$/;

/** pino's levels, quietest last. */
export const LOG_LEVELS = ['trace', 'debug', 'info', 'warn', 'error', 'fatal', 'silent'] as const;

export const MAX_SECONDS = 0xffff;

/** RFC 6793: AS numbers are 32 bits; 0 is reserved (RFC 7607) and AS_TRANS stands in for 4-octet ASNs. */
export const MIN_ASN = 1;
export const MAX_ASN = 0xffffffff;
export { AS_TRANS };
/** RFC 5396 asdot: "high.low", each half 16 bits. */
export const ASDOT_HALF_MAX = 0xffff;
export const ASDOT_HALF_BITS = 16;

export const MAX_PORT = 0xffff;
/** IP TTL / hop limit is one octet. */
export const MAX_TTL = 255;
/** FRR's `neighbor X ttl-security hops <1-254>`: RFC 5082 accepts TTL >= 256 - hops, so 255 would accept all. */
export const MAX_TTL_SECURITY_HOPS = 254;
/** Linux TCP_MD5SIG_MAXKEYLEN (include/uapi/linux/tcp.h): the kernel refuses longer RFC 2385 keys. */
export const MAX_MD5_PASSWORD_BYTES = 80;

export const U32_MAX = 0xffffffff;
/** Addresses a peer cannot have: the wildcards (RFC 1122, RFC 4291 2.5.2), broadcast, multicast. */
export const IPV4_UNSPECIFIED = '0.0.0.0';
export const IPV6_UNSPECIFIED = '::';
export const IPV4_BROADCAST = '255.255.255.255';
/** RFC 5771: 224.0.0.0/4. */
export const IPV4_MULTICAST_FIRST_OCTET = { min: 224, max: 239 } as const;
/** RFC 4291 section 2.7: ff00::/8. */
export const IPV6_MULTICAST_FIRST_BYTE = 0xff;

/** Names of speakers, peers, policies and lists: safe in logs, metrics labels and file names. */
export const NAME_PATTERN = /^[A-Za-z0-9][A-Za-z0-9_.-]{0,63}$/;
export const NAME_RULE = "letters, digits, '.', '_' and '-', starting with a letter or digit, at most 64";

/**
 * Families as GoBGP spells them (and the session layer takes them), by IP version. A family
 * is usable only if its version is in `speaker.ip_versions`.
 */
export const FAMILIES = {
  'ipv4-unicast': { afi: Afi.IPV4, safi: Safi.UNICAST, ipVersion: 4 },
  'ipv6-unicast': { afi: Afi.IPV6, safi: Safi.UNICAST, ipVersion: 6 },
} as const;
export type FamilyName = keyof typeof FAMILIES;
export const FAMILY_NAMES = Object.keys(FAMILIES) as readonly FamilyName[];

export const IP_VERSIONS = [4, 6] as const;
export type IpVersion = (typeof IP_VERSIONS)[number];

export const AUTH_TYPES = ['none', 'md5'] as const;
export const PEER_TYPES = ['ebgp', 'ibgp'] as const;
/** A template's `remote_as` besides a number: any AS but ours, or ours (FRR's remote-as external / internal). */
export const REMOTE_AS_KINDS = ['external', 'internal'] as const;

/**
 * Dynamic neighbours (`listen_ranges`): FRR's `bgp listen limit` default, per range here, and
 * its bound; the name a dynamic neighbour gets before its address (FRR prints `*ADDRESS`).
 */
export const ListenRangeDefaults = {
  limit: 100,
} as const;
export const MAX_LISTEN_LIMIT = 0xffff;
export const DYNAMIC_PEER_NAME_PREFIX = 'dyn-';
export const ORIGINS = ['igp', 'egp', 'incomplete'] as const;
export const LIST_ACTIONS = ['permit', 'deny'] as const;
export const STATEMENT_ACTIONS = ['accept', 'reject', 'next'] as const;
export const POLICY_FAMILIES = ['ipv4', 'ipv6'] as const;

/** `next_hop` of a static route: our own address on the session (FRR's `network` statement). */
export const NEXT_HOP_SELF = 'self';
/** Policy `set.next_hop` keywords besides an address; the RIB's export carries them out. */
export const SET_NEXT_HOP_KEYWORDS = ['self', 'unchanged'] as const;

/** `max_prefixes` settings left out: FRR's warning threshold; no restart until a reload. */
export const MaxPrefixDefaults = {
  warningThreshold: PolicyDefaults.WARNING_THRESHOLD_PERCENT,
  restartAfter: 0,
} as const;
export const PERCENT = 100;

/** FRR limits `set as-path prepend` to 10 copies. */
export const MAX_PREPEND_COUNT = 10;
/** FRR's prefix-list sequence numbers are 1..4294967295. */
export const MAX_SEQ = U32_MAX;

/**
 * IANA "BGP Well-known Communities" by the names FRR prints (RFC 1997, 3765, 7999, 8326),
 * plus FRR's `internet` (0:0). Upper-case underscore spellings are accepted too.
 */
export const WELL_KNOWN_COMMUNITIES: Readonly<Record<string, number>> = {
  'graceful-shutdown': 0xffff0000,
  blackhole: 0xffff029a,
  'no-export': 0xffffff01,
  'no-advertise': 0xffffff02,
  'no-export-subconfed': 0xffffff03,
  'local-as': 0xffffff03,
  'no-peer': 0xffffff04,
  internet: 0,
};
export const COMMUNITY_HALF_MAX = 0xffff;
export const COMMUNITY_HALF_BITS = 16;
export const LARGE_COMMUNITY_FIELDS = 3;

/** OVSDB's default port (ovsdb-server(1)); OVN's NB and SB listen on 6641 and 6642 by convention. */
export const OVSDB_DEFAULT_PORT = 6640;

/** Values shown in messages are cut to this many characters. */
export const MAX_SHOWN_VALUE_LENGTH = 60;
/** Unknown keys within this edit distance of a known one get a "did you mean". */
export const SUGGESTION_MAX_DISTANCE = 2;

/** `ovn.mode`: one speaker (or several for HA) advertising everything, or one per chassis. */
export const OVN_MODES = ['central', 'local'] as const;
/** `ovn.source`: derive routes, take OVN's own Advertised_Route (OVN 25.03+), or each where it fits. */
export { OVN_SOURCES };
/** `ovn.routes` keys, one per kind of OVN route: six derived, four of OVN's Advertised_Route. */
export const OVN_ROUTE_KINDS = [
  'floating_ips',
  'tenant_networks',
  'load_balancer_vips',
  'provider_ports',
  'pod_subnets',
  'service_vips',
  'nat',
  'lb',
  'connected',
  'static',
] as const;
export const OvnDefaults = {
  mode: 'central',
  source: 'auto',
  /** A burst of OVN changes (one ovn-nbctl transaction's notifications) is gathered this long. */
  coalesceMs: 20,
  /** Routes stay this long when OVN goes away: a database failover must not drop traffic. */
  holdTime: 60,
  /** The chassis' own Open_vSwitch database, where local mode finds its chassis name. */
  ovs: 'unix:/var/run/openvswitch/db.sock',
} as const;

/** `ovn_route_tables.preference`: what a table route's metric becomes (see routing/route-table-origin.ts). */
export const TABLE_PREFERENCES = ['med', 'prepend', 'local-only'] as const;
/**
 * `ovn_route_tables`: OVN 25.03's route exchange on a chassis. ovn-controller writes its routes
 * with protocol 84 (RTPROT_OVN), metric 100 where the tracked port is bound here and 1000
 * elsewhere; what we write for it to learn carries protocol 186 (RTPROT_BGP), as bgpd's would.
 */
export const OvnRouteTablesDefaults = {
  preference: 'med',
  localMetric: 100,
  prepend: 2,
  /** An ovn-controller restart empties the table for a few seconds: no withdrawal meanwhile. */
  holdTime: 30,
  protocol: 84,
  learnProtocol: 186,
  learnMetric: 20,
  onStop: 'flush',
} as const;
export const MAX_TABLE_PREPEND = 10;

/** `sinks.kernel`: Linux rtnetlink. Protocol 186 is RTPROT_BGP, what bgpd's routes carry via zebra. */
export const KernelSinkDefaults = { table: 254, metric: 20, protocol: 186, onStop: 'flush' } as const;
export const KERNEL_ON_STOP = ['keep', 'flush'] as const;
/** `sinks.zebra`: FRR's zebra over ZAPI. */
export const ZebraSinkDefaults = {
  socket: '/var/run/frr/zserv.api',
  instance: 1,
  distance: 20,
  metric: 0,
} as const;
/** `sinks.ovn_nb`: Logical_Router_Static_Route rows marked with this external_ids key. */
export const OvnNbSinkDefaults = { markKey: 'ovn-bgp-speaker' } as const;

/** Linux interface names (IFNAMSIZ 16 with the NUL): no '/', white space or '%' (a zone's separator). */
export const INTERFACE_NAME_PATTERN = /^(?!\.{1,2}$)[^/\s%]{1,15}$/;
export const INTERFACE_NAME_RULE = "an interface name: 1 to 15 characters, no '/', '%' or white space";

/** `mrt`: a dump and a recording only when configured; these are what an absent field means. */
export const MrtConfigDefaults = {
  /** Seconds between dumps; 0: only when asked (`dump rib`). */
  dumpInterval: 0,
  /** Seconds between recording files; 0: one file. */
  rotate: 0,
  messages: 'all',
} as const;
export const MRT_MESSAGES = ['all', 'updates'] as const;

/** Which Adj-RIB-In views go to a BMP collector (RFC 7854 section 4.2, the L flag). */
export const BMP_ROUTE_MONITORING = ['pre_policy', 'post_policy', 'both'] as const;
/** A day: the longest dump interval or rotation. */
export const MAX_MRT_SECONDS = 86_400;

/**
 * The most entries `routes:` may hold. Each is a YAML mapping: 100,000 of them take seconds
 * and hundreds of megabytes to read before a route exists, and a million exhaust the heap.
 * A table that large is an MRT file (`mrt inject`), which goes in at the speed of a peer.
 */
export const MAX_CONFIG_ROUTES = 10_000;
export const TOO_MANY_ROUTES_ADVICE =
  'originate a large table from an MRT file instead (ovn-bgp-speaker mrt inject FILE, docs/mrt.md)';
