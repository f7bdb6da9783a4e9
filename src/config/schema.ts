import type { ReadyRequirements } from '../api/index.js';
import type { AfiCode } from '../bgp/wire/index.js';
import type { CommunitySetModel, MatchModel, SetModel } from '../policy/index.js';
import type {
  BMP_ROUTE_MONITORING,
  FamilyName,
  IpVersion,
  LOG_LEVELS,
  ORIGINS,
  OVN_MODES,
  OVN_SOURCES,
  TABLE_PREFERENCES,
} from './constants.js';

/*
 * The validated configuration: every default applied, every cross reference checked,
 * addresses in canonical text (RFC 5952), prefixes parsed, secrets read. Names are the file's
 * snake_case keys in camelCase. Plain readonly data, so two configurations compare by value.
 */

export type { FamilyName, IpVersion };
export type LogLevel = (typeof LOG_LEVELS)[number];
export type Origin = (typeof ORIGINS)[number];

/** A prefix as the API spells it: `{afi, addr, len}`, bits past `len` zero. */
export interface ConfigPrefix {
  readonly afi: AfiCode;
  readonly addr: string;
  readonly len: number;
}

/** RFC 8092: global administrator, local data 1, local data 2. */
export type LargeCommunity = readonly [number, number, number];

/** One OVSDB remote of a connection string. */
export type OvsdbRemote =
  | { readonly method: 'unix'; readonly path: string; readonly text: string }
  | {
      readonly method: 'tcp' | 'ssl';
      readonly host: string;
      readonly port: number;
      /** False when the port was left to OVSDB's default. */
      readonly portGiven: boolean;
      readonly text: string;
    };

export interface Config {
  readonly speaker: SpeakerConfig;
  readonly peers: readonly PeerConfig[];
  /** Dynamic neighbours' settings, by name, in file order. */
  readonly peerTemplates: readonly PeerTemplateConfig[];
  /** Prefixes whose addresses may connect as dynamic neighbours; no two alike. */
  readonly listenRanges: readonly ListenRangeConfig[];
  /** `routes` then `networks`, in file order; no two share a prefix. */
  readonly routes: readonly StaticRoute[];
  readonly policy: PolicyConfig;
  /** Absent: the speaker runs without OVN (static routes only). */
  readonly ovn: OvnConfig | undefined;
  /** Absent: no OVN route table is followed (OVN 25.03's route exchange on a chassis). */
  readonly ovnRouteTables: OvnRouteTablesConfig | undefined;
  /** Where best paths are installed; each absent one is not used. */
  readonly sinks: SinksConfig;
  /** Absent: no BMP collector is told anything. */
  readonly bmp: BmpConfig | undefined;
  /** Absent: no MRT dump on a timer and no recording. */
  readonly mrt: MrtConfig | undefined;
}

/** RFC 6396 MRT files (docs/mrt.md). */
export interface MrtConfig {
  /** TABLE_DUMP_V2 of the Loc-RIB every `interval` seconds (0: only when asked). */
  readonly dump: { readonly path: string; readonly interval: number } | undefined;
  /** BGP4MP recording, a new file every `rotate` seconds (0: one file). */
  readonly updates:
    | { readonly path: string; readonly rotate: number; readonly messages: 'all' | 'updates' }
    | undefined;
}

/** BMP (RFC 7854): the collectors our peers and their routes are sent to. */
export interface BmpConfig {
  readonly collectors: readonly BmpCollectorConfig[];
  /** Bytes waiting for one collector beyond which its queue is dropped. */
  readonly bufferLimit: number;
}

export interface BmpCollectorConfig {
  readonly address: string;
  readonly port: number;
  readonly routeMonitoring: BmpRouteMonitoring;
  /** Seconds; 0: no Statistics Reports. */
  readonly statisticsInterval: number;
  readonly minRetryMs: number;
  readonly maxRetryMs: number;
}

export type BmpRouteMonitoring = (typeof BMP_ROUTE_MONITORING)[number];

/** OVN 25.03+ on a chassis: the kernel tables ovn-controller fills, read and advertised, and learned routes written there. */
export interface OvnRouteTablesConfig {
  /** Where routers are looked up by name; undefined when every table is given by number. */
  readonly sb: readonly OvsdbRemote[] | undefined;
  readonly tables: readonly OvnRouteTableConfig[];
  readonly preference: TablePreference;
  readonly localMetric: number;
  readonly prepend: number;
  /** Seconds. */
  readonly holdTime: number;
  readonly protocol: number;
  readonly learnProtocol: number;
  readonly learnMetric: number;
  readonly onStop: 'keep' | 'flush';
  readonly communities: readonly number[];
  readonly largeCommunities: readonly LargeCommunity[];
}

export interface OvnRouteTableConfig {
  /** The router's name, or `table N`: what logs, `show` and the sink's name say. */
  readonly name: string;
  readonly router: string | undefined;
  readonly table: number | undefined;
  /** Policy names; empty: nothing is written into the table. */
  readonly learn: readonly string[];
}

export type TablePreference = (typeof TABLE_PREFERENCES)[number];

export interface SpeakerConfig {
  readonly name: string;
  readonly localAs: number;
  /** BGP Identifier, dotted quad. */
  readonly routerId: string;
  /** Which address families the speaker carries at all; peers and routes stay within them. */
  readonly ipVersions: readonly IpVersion[];
  readonly listen: { readonly address: string; readonly port: number };
  /** Defaults for peers, in seconds. */
  readonly holdTime: number;
  readonly keepaliveTime: number;
  readonly connectRetry: number;
  /** Reconnect back-off after a reset, in seconds (see Timers). */
  readonly idleHoldTime: number;
  readonly maxIdleHoldTime: number;
  readonly idleHoldResetTime: number;
  readonly gracefulRestart: GracefulRestartConfig;
  readonly bestpath: BestpathConfig;
  readonly controlSocket: string;
  readonly metrics: { readonly listen: { readonly address: string; readonly port: number } } | undefined;
  readonly health: HealthConfig;
  readonly log: { readonly level: LogLevel };
  /** `warm_up`, when the file sets it; absent means on (see src/speaker/warm-up.ts). */
  readonly warmUp?: boolean;
}

/** `speaker.health`: served on the metrics listener (/healthz, /readyz). */
export interface HealthConfig {
  /** Milliseconds late a timer turn must be to count as a stall. */
  readonly stallMs: number;
  /** Seconds a stall stays reported. */
  readonly stallWindow: number;
  readonly readyRequires: ReadyRequirements;
}

/** The decision process's options (FRR's maximum-paths and bestpath settings). */
export interface BestpathConfig {
  /** ECMP set size when the best path is eBGP-learned or local, best included. */
  readonly maxPaths: number;
  readonly maxPathsIbgp: number;
  readonly multipathRelax: boolean;
  readonly alwaysCompareMed: boolean;
}

/** RFC 4724. */
export interface GracefulRestartConfig {
  readonly enabled: boolean;
  /** Seconds the peer should keep our routes while we restart (the capability's Restart Time). */
  readonly restartTime: number;
  /** Seconds we keep a restarting peer's routes before dropping them. */
  readonly staleRoutesTime: number;
}

/** RFC 2385 TCP-MD5; the password comes from the file or from `password_file`. */
export type PeerAuth =
  | { readonly type: 'none' }
  | { readonly type: 'md5'; readonly password: string; readonly passwordFile: string | undefined };

/** A peer's AS: a number, or (dynamic neighbours) any AS but ours, or ours, as its OPEN says. */
export type RemoteAs = number | 'external' | 'internal';

export interface PeerConfig {
  readonly name: string;
  readonly description: string | undefined;
  /**
   * The peer's address; for a peer found on its link (`interface`), the interface's name, by
   * which it is shown and addressed (as FRR names such a neighbour).
   */
  readonly peerIp: string;
  /** BGP unnumbered: the link the peer is found on; undefined for a peer with an address. */
  readonly interface: string | undefined;
  /** The peer's TCP port. */
  readonly port: number;
  /** A number for a configured peer; a dynamic neighbour's may be external or internal. */
  readonly remoteAs: RemoteAs;
  /** Derived: ibgp when remote_as equals speaker.local_as (or is internal). */
  readonly type: 'ebgp' | 'ibgp';
  /** Set on a dynamic neighbour only: the range it connected from and its template. */
  readonly dynamic?: { readonly range: string; readonly template: string };
  readonly auth: PeerAuth;
  readonly holdTime: number;
  readonly keepaliveTime: number;
  readonly connectRetry: number;
  /** Reconnect back-off after a reset, in seconds (see Timers). */
  readonly idleHoldTime: number;
  readonly maxIdleHoldTime: number;
  readonly idleHoldResetTime: number;
  readonly passive: boolean;
  /** Administratively down: configured, never connected. */
  readonly shutdown: boolean;
  readonly families: readonly FamilyName[];
  readonly localAddress: string | undefined;
  /** TTL of our packets to an eBGP peer several hops away. */
  readonly ebgpMultihop: number | undefined;
  /** RFC 5082 GTSM: the peer is at most this many hops away. */
  readonly ttlSecurity: number | undefined;
  /**
   * RFC 7911 for every configured family. `send` advertises the capability; `sendPaths` says
   * which paths go out once the peer accepts them (absent when `send` is false).
   */
  readonly addPath: {
    readonly receive: boolean;
    readonly send: boolean;
    readonly sendPaths?: AddPathSendPaths;
  };
  readonly routeReflectorClient: boolean;
  readonly nextHopSelf: boolean;
  /** Keep the routes' own next hops towards this peer, eBGP too (FRR's attribute-unchanged next-hop). */
  readonly nextHopUnchanged: boolean;
  /** RFC 8654. */
  readonly extendedMessage: boolean;
  /** RFC 9494 Long-lived Stale Time in seconds; undefined: off. */
  readonly longLivedStaleTime: number | undefined;
  /** RFC 8950 for IPv4 unicast over an IPv6 session. */
  readonly extendedNextHop: boolean;
  /** RFC 7313, advertised in our OPEN. */
  readonly enhancedRouteRefresh: boolean;
  readonly maxPrefixes: MaxPrefixes | undefined;
  /** RFC 5880 BFD tied to the session; undefined: off. */
  readonly bfd: BfdConfig | undefined;
  /** Policy chains; RFC 8212: for an eBGP peer an empty chain accepts and sends nothing. */
  readonly import: readonly string[];
  readonly export: readonly string[];
}

/**
 * A dynamic neighbour's settings before it connects: a peer's, without its name, address,
 * port, and what a passive session cannot use (passive, local_address, shutdown).
 */
export interface PeerTemplateConfig
  extends Omit<
    PeerConfig,
    | 'name'
    | 'peerIp'
    | 'port'
    | 'passive'
    | 'shutdown'
    | 'localAddress'
    | 'families'
    | 'dynamic'
    | 'interface'
  > {
  /** The template's own name. */
  readonly name: string;
  /** Undefined: the family of the connecting address. */
  readonly families: readonly FamilyName[] | undefined;
}

export interface ListenRangeConfig {
  readonly prefix: ConfigPrefix;
  /** "198.18.0.0/24", canonical. */
  readonly text: string;
  readonly template: string;
  /** Dynamic neighbours of this range at most at once. */
  readonly limit: number;
}

/** A peer's BFD timers, in milliseconds, with the profile they came from. */
export interface BfdConfig {
  readonly minRx: number;
  readonly minTx: number;
  readonly multiplier: number;
  /** The bfd_profiles name, when the peer named one. */
  readonly profile: string | undefined;
}

/** Paths sent per prefix with add-path: every path, the multipath set, or the N best. */
export type AddPathSendPaths = 'all' | 'ecmp' | number;

export interface MaxPrefixes {
  /** Prefixes accepted from the peer in each family (as FRR's maximum-prefix). */
  readonly limit: number;
  /** Only log when over the limit; otherwise the session is closed (RFC 4486 Cease/1). */
  readonly warningOnly: boolean;
  /** Percent of the limit at which a warning is logged. */
  readonly warningThreshold: number;
  /** Seconds before reconnecting after the limit closed the session; 0: stay down until a reload or reset. */
  readonly restartAfter: number;
}

export interface StaticRoute {
  readonly prefix: ConfigPrefix;
  /** 'self' (our address on each session) or an address of the prefix's family. */
  readonly nextHop: string;
  readonly origin: Origin;
  readonly med: number | undefined;
  readonly localPref: number | undefined;
  readonly communities: readonly number[];
  readonly largeCommunities: readonly LargeCommunity[];
  /** As written ("rt:65000:1"), already checked; encoded when the route is originated. */
  readonly extendedCommunities: readonly string[];
}

export interface OvnConfig {
  readonly nb: readonly OvsdbRemote[];
  readonly sb: readonly OvsdbRemote[];
  /** Files for ssl: remotes. */
  readonly ssl:
    | { readonly privateKey: string; readonly certificate: string; readonly caCert: string }
    | undefined;
  readonly mode: OvnMode;
  /** Where routes come from: derived, OVN's Advertised_Route, or each where it fits. */
  readonly source: OvnSource;
  /** Our chassis name (local mode); undefined: read from the local Open_vSwitch row. */
  readonly chassis: string | undefined;
  /** The local Open_vSwitch database (local mode without chassis). */
  readonly ovs: string;
  readonly localNextHop: NextHopPair;
  /** Per chassis name. */
  readonly chassisNextHops: ReadonlyMap<string, NextHopPair>;
  readonly coalesceMs: number;
  /** Seconds routes stay while OVN is unreachable. */
  readonly holdTime: number;
  readonly routes: OvnRoutesConfig;
}

export type OvnMode = (typeof OVN_MODES)[number];
export type OvnSource = (typeof OVN_SOURCES)[number];

export interface NextHopPair {
  readonly ipv4?: string;
  readonly ipv6?: string;
}

export interface OvnKindConfig {
  readonly enabled: boolean;
  readonly communities: readonly number[];
  readonly largeCommunities: readonly LargeCommunity[];
}

export type TenantSelect =
  | { readonly kind: 'all' }
  | { readonly kind: 'prefixes'; readonly prefixes: readonly ConfigPrefix[] }
  | { readonly kind: 'marker'; readonly marker: string };

export interface OvnRoutesConfig {
  readonly floatingIps: OvnKindConfig;
  readonly tenantNetworks: OvnKindConfig & { readonly select: TenantSelect };
  readonly loadBalancerVips: OvnKindConfig;
  readonly providerPorts: OvnKindConfig;
  readonly podSubnets: OvnKindConfig;
  readonly serviceVips: OvnKindConfig;
  /** Advertised_Route kinds (OVN 25.03+); nat and lb default to floatingIps and loadBalancerVips. */
  readonly nat: OvnKindConfig;
  readonly lb: OvnKindConfig;
  readonly connected: OvnKindConfig;
  readonly static: OvnKindConfig;
}

export interface SinksConfig {
  readonly kernel: KernelSinkConfig | undefined;
  readonly zebra: ZebraSinkConfig | undefined;
  readonly ovnNb: OvnNbSinkConfig | undefined;
}

export interface KernelSinkConfig {
  readonly table: number;
  readonly metric: number;
  readonly protocol: number;
  readonly onStop: 'keep' | 'flush';
  /** Policy names; empty: every best path. */
  readonly install: readonly string[];
}

export interface ZebraSinkConfig {
  readonly socket: string;
  readonly instance: number;
  readonly distance: number;
  readonly metric: number;
  readonly install: readonly string[];
}

export interface OvnNbSinkConfig {
  readonly router: string;
  readonly outputPort: string | undefined;
  readonly routeTable: string | undefined;
  readonly install: readonly string[];
}

/*
 * Routing policy, in the shape src/policy compiles (FRR's prefix-list, community-list,
 * as-path access-list and route-map). Community and prefix texts are kept as written: the
 * policy compiler reads the same syntax this layer has already checked.
 */

export type ListAction = 'permit' | 'deny';
export type PolicyFamily = 'ipv4' | 'ipv6';
export type StatementAction = 'accept' | 'reject' | 'next';

export interface PolicyConfig {
  readonly prefixLists: readonly PrefixListConfig[];
  readonly communityLists: readonly CommunityListConfig[];
  readonly largeCommunityLists: readonly CommunityListConfig[];
  readonly extendedCommunityLists: readonly CommunityListConfig[];
  readonly asPathLists: readonly AsPathListConfig[];
  readonly policies: readonly PolicyDefinition[];
}

export interface PrefixListEntry {
  readonly seq?: number;
  readonly action: ListAction;
  /** Canonical "addr/len", or "any". */
  readonly prefix: string;
  readonly ge?: number;
  readonly le?: number;
}

export interface PrefixListConfig {
  readonly name: string;
  /** The family of the entries; absent when every entry is "any". */
  readonly family?: PolicyFamily;
  readonly entries: readonly PrefixListEntry[];
}

export interface CommunityListConfig {
  readonly name: string;
  readonly entries: readonly { readonly action: ListAction; readonly communities: readonly string[] }[];
}

export interface AsPathListEntry {
  readonly action: ListAction;
  readonly regex?: string;
  readonly originAs?: number;
  readonly containsAs?: number;
  readonly minLength?: number;
  readonly maxLength?: number;
}

export interface AsPathListConfig {
  readonly name: string;
  readonly entries: readonly AsPathListEntry[];
}

/** Policy match, set and community changes are the policy model's own shapes (src/policy). */
export type MatchConfig = MatchModel;
export type CommunityChange = CommunitySetModel;
export type SetConfig = SetModel;

export interface StatementConfig {
  readonly name?: string;
  readonly match?: MatchConfig;
  readonly set?: SetConfig;
  readonly action: StatementAction;
}

export interface PolicyDefinition {
  readonly name: string;
  readonly statements: readonly StatementConfig[];
  readonly defaultAction?: StatementAction;
}
