import { LONG_LIVED_STALE_TIME_MAX, MAX_HOLD_TIME, MIN_HOLD_TIME } from '../bgp/wire/index.js';
import {
  absolutePath,
  filePath,
  formatPrefix,
  ipAddress,
  keywordOrAddress,
  listenAddress,
  prefix,
  routerId,
} from './addresses.js';
import {
  ADD_PATH_SEND_KEYWORDS,
  AUTH_TYPES,
  FAMILY_NAMES,
  GracefulRestartDefaults,
  INTERFACE_NAME_PATTERN,
  INTERFACE_NAME_RULE,
  IP_VERSIONS,
  ListenDefaults,
  ListenRangeDefaults,
  LOG_LEVELS,
  MAX_ADD_PATH_SEND,
  MAX_CONFIG_ROUTES,
  MAX_LISTEN_LIMIT,
  MAX_MULTIPATHS,
  MAX_PORT,
  MAX_RESTART_TIME,
  MAX_SECONDS,
  MAX_STALE_ROUTES_TIME,
  MAX_TTL,
  MAX_TTL_SECURITY_HOPS,
  MaxPrefixDefaults,
  NEXT_HOP_SELF,
  ORIGINS,
  PEER_TYPES,
  PERCENT,
  REMOTE_AS_KINDS,
  SpeakerSectionDefaults,
  TOO_MANY_ROUTES_ADVICE,
  U32_MAX,
} from './constants.js';
import {
  boolean,
  type Context,
  type Decoded,
  dictionary,
  either,
  INVALID,
  integer,
  isBoolean,
  isMapping,
  isNumber,
  isString,
  list,
  map,
  object,
  oneOf,
  optional,
  required,
  scalar,
  secret,
  text,
} from './decoders.js';
import { bfdProfiles, peerBfd } from './sections-bfd.js';
import { bmpFields } from './sections-bmp.js';
import { healthFields } from './sections-health.js';
import { mrtFields } from './sections-mrt.js';
import { ovnFields } from './sections-ovn.js';
import { ovnRouteTablesFields } from './sections-ovn-tables.js';
import { policySections } from './sections-policy.js';
import { sinksFields } from './sections-sinks.js';
import { asn, community, extCommunityText, largeCommunity, name } from './values.js';

export type { RawBfdTimers, RawPeerBfd } from './sections-bfd.js';
export type { RawBmp } from './sections-bmp.js';
export type { RawOvn, RawOvnRoutes } from './sections-ovn.js';
export type { RawOvnRouteTables } from './sections-ovn-tables.js';
export type { RawPolicy, RawPrefixList, RawPrefixListEntry, RawStatement } from './sections-policy.js';
export type { RawSinks } from './sections-sinks.js';

/*
 * The file format, one table per section: key, decoder, whether required, default, and the
 * line the reference documentation prints. Checks that need two fields or two sections
 * (families against ip_versions, policy references, …) live in resolve.ts.
 */

const seconds = (min: number, max = MAX_SECONDS) =>
  integer(min, max, `a whole number of seconds ${min}..${max}`);

/** RFC 4271 section 4.2: zero, or at least three seconds. */
const holdTime = scalar(`0 or a whole number of seconds ${MIN_HOLD_TIME}..${MAX_HOLD_TIME}`, (v, bad) =>
  typeof v === 'number' && Number.isInteger(v) && (v === 0 || (v >= MIN_HOLD_TIME && v <= MAX_HOLD_TIME))
    ? v
    : bad(),
);

const timers = {
  hold_time: optional(holdTime, 'Hold time proposed in OPEN (RFC 4271 4.2); 0 turns keepalives off.', '90'),
  keepalive_time: optional(
    seconds(0),
    'Seconds between KEEPALIVEs; less than hold_time, 0 only with hold_time 0.',
    'hold_time / 3',
  ),
  connect_retry: optional(seconds(1), 'ConnectRetryTime: seconds between connection attempts.', '120'),
  idle_hold_time: optional(
    seconds(0),
    'Seconds to wait after a session reset before reconnecting or accepting again, doubled at each flap (GoBGP idle-hold-time-after-reset, BIRD error wait time); 0: at once, no back-off.',
    '5',
  ),
  max_idle_hold_time: optional(
    seconds(0),
    'Cap of the doubled wait; equal to idle_hold_time: a fixed wait (BIRD error wait time max).',
    '120',
  ),
  idle_hold_reset_time: optional(
    seconds(1),
    'Established this long: the next reset waits idle_hold_time again (BIRD error forget time).',
    '300',
  ),
} as const;

const listen = object('a mapping with address and port', {
  address: optional(
    ipAddress({ wildcard: true }),
    'Address to accept BGP connections on; "::" takes IPv4 as well.',
    `"${ListenDefaults.address}"`,
  ),
  port: optional(integer(0, MAX_PORT), 'TCP port; 0 picks a free one.', String(ListenDefaults.port)),
});

const gracefulRestartFields = object('a mapping of graceful restart settings', {
  enabled: optional(
    boolean,
    "Advertise the capability to every peer (with RFC 8538's N bit), keep a restarting peer's routes, stale, until it is back, and make SIGTERM a stop for a restart (no Cease).",
    'true',
  ),
  restart_time: optional(
    seconds(1, MAX_RESTART_TIME),
    "The Restart Time we advertise: how long peers keep our routes while we restart; also the longest our own restart waits for the peers' End-of-RIBs.",
    String(GracefulRestartDefaults.restartTime),
  ),
  stale_routes_time: optional(
    seconds(1, MAX_STALE_ROUTES_TIME),
    'How long a restarted peer has to send End-of-RIB, and a refreshing peer (RFC 7313) its EoRR; its routes not announced again by then are withdrawn.',
    String(GracefulRestartDefaults.staleRoutesTime),
  ),
});
export interface GracefulRestartInput {
  readonly enabled?: boolean;
  readonly restartTime?: number;
  readonly staleRoutesTime?: number;
}

const gracefulRestart = either<GracefulRestartInput>(
  'true, false or a mapping of graceful restart settings',
  [
    { when: isBoolean, decoder: map(boolean, (enabled) => ({ enabled })) },
    { when: isMapping, decoder: gracefulRestartFields },
  ],
);

const pathCount = integer(1, MAX_MULTIPATHS, `a number of paths 1..${MAX_MULTIPATHS}`);
const bestpath = object('a mapping of best-path settings', {
  max_paths: optional(
    pathCount,
    'Equal-cost paths installed when the best is eBGP or local, best included (FRR maximum-paths).',
    String(SpeakerSectionDefaults.maxPaths),
  ),
  max_paths_ibgp: optional(
    pathCount,
    'Equal-cost paths installed when the best is iBGP (FRR maximum-paths ibgp).',
    String(SpeakerSectionDefaults.maxPathsIbgp),
  ),
  multipath_relax: optional(
    boolean,
    'eBGP multipath across neighbor ASes (FRR bgp bestpath as-path multipath-relax).',
    'false',
  ),
  always_compare_med: optional(
    boolean,
    'Compare MED between paths from different ASes (FRR bgp always-compare-med).',
    'false',
  ),
});

const speakerFields = {
  name: required(name, 'Name of this speaker, for logs and metrics.'),
  local_as: required(asn, 'Our AS number: 65000, "65000" or asdot "1.10".'),
  router_id: required(routerId, 'BGP Identifier (RFC 6286), a dotted quad.'),
  ip_version: optional(oneOf(IP_VERSIONS), 'Carry one IP version only: 4 or 6 (Dragonflow).'),
  ip_versions: optional(
    list(oneOf(IP_VERSIONS), { min: 1, key: String, expected: 'a list of IP versions (4, 6)' }),
    'IP versions carried; peers and routes must stay within them.',
    '[4, 6]',
  ),
  listen: optional(listen, 'Where to accept BGP connections.'),
  ...timers,
  graceful_restart: optional(
    gracefulRestart,
    'RFC 4724 graceful restart with RFC 8538 (see docs/graceful-restart.md).',
    'false',
  ),
  bestpath: optional(bestpath, 'Decision process options: multipath (ECMP sets for the sinks) and MED.'),
  control_socket: optional(
    absolutePath,
    'Unix socket of the control API and CLI (mode 0600).',
    SpeakerSectionDefaults.controlSocket,
  ),
  metrics: optional(
    object('a mapping with listen', {
      listen: required(listenAddress, 'Address and port of the Prometheus endpoint, e.g. "127.0.0.1:9179".'),
    }),
    'Prometheus metrics endpoint; absent: no endpoint.',
  ),
  health: optional(
    object('a mapping of health settings', healthFields),
    'What /healthz and /readyz on the metrics listener answer (see docs/operations.md).',
  ),
  warm_up: optional(
    boolean,
    'As the speaker starts, run a synthetic table through the receive path so the first full table meets compiled code (about 0.2 s of CPU, during which no connection is served).',
    'true',
  ),
  log: optional(
    object('a mapping with level', {
      level: optional(oneOf(LOG_LEVELS), 'Least severe level logged.', SpeakerSectionDefaults.logLevel),
    }),
    'Logging.',
  ),
} as const;
const speaker = object('a mapping of speaker settings', speakerFields);
export type RawSpeaker = Decoded<typeof speakerFields>;

const maxPrefixFields = object('a mapping with limit', {
  limit: required(integer(1, U32_MAX), 'Prefixes accepted from the peer in each family.'),
  warning_only: optional(boolean, 'Only log when over the limit instead of closing the session.', 'false'),
  warning_threshold: optional(
    integer(1, PERCENT),
    'Percent of the limit at which to log a warning.',
    String(MaxPrefixDefaults.warningThreshold),
  ),
  restart_after: optional(
    seconds(0, U32_MAX),
    'Seconds before reconnecting after the limit closed the session; 0 waits for a reload.',
    String(MaxPrefixDefaults.restartAfter),
  ),
});
export interface MaxPrefixesInput {
  readonly limit?: number;
  readonly warningOnly?: boolean;
  readonly warningThreshold?: number;
  readonly restartAfter?: number;
}
const maxPrefixes = either<MaxPrefixesInput>('a prefix count or a mapping with limit', [
  { when: isNumber, decoder: map(integer(1, U32_MAX), (limit) => ({ limit })) },
  { when: isMapping, decoder: maxPrefixFields },
]);

/** `add_path.send`: which paths go to the peer (RFC 7911), or false for none. */
const addPathSend = either<boolean | number | 'all' | 'ecmp'>(
  `true, false, all, ecmp or a path count 1..${MAX_ADD_PATH_SEND}`,
  [
    { when: isBoolean, decoder: boolean },
    { when: isNumber, decoder: integer(1, MAX_ADD_PATH_SEND, `a path count 1..${MAX_ADD_PATH_SEND}`) },
    { when: isString, decoder: oneOf(ADD_PATH_SEND_KEYWORDS) },
  ],
);

const policyNames = list(name, { key: String, expected: 'a list of policy names' });

/** A number, or `external` / `internal` (FRR's remote-as external and internal). */
const remoteAs = scalar<number | (typeof REMOTE_AS_KINDS)[number]>(
  `${asn.expected}, ${REMOTE_AS_KINDS.join(' or ')}`,
  (v, bad, path) => {
    const kind = REMOTE_AS_KINDS.find((k) => k === v);
    if (kind !== undefined) return kind;
    // The AS number's own problem (AS_TRANS, an unquoted asdot) says more than "expected".
    const scratch: Context = { problems: [], warnings: [] };
    const n = asn.decode(v, path, scratch);
    return n === INVALID
      ? bad(scratch.problems[0]?.message.startsWith('expected') ? undefined : scratch.problems[0]?.message)
      : n;
  },
);

const peerFields = {
  name: required(name, 'Unique name of the peer.'),
  description: optional(
    text({ expected: 'a non-empty string', maxLength: 256 }),
    'Free text, for show commands.',
  ),
  peer_ip: optional(ipAddress(), "The peer's address; exactly one of peer_ip and interface."),
  interface: optional(
    text({ expected: INTERFACE_NAME_RULE, pattern: INTERFACE_NAME_PATTERN }),
    "BGP unnumbered, as FRR's `neighbor IF interface`: the peer is whoever is at the other end of this link, at the IPv6 link-local address learned from its router advertisements (we send ours on the link). IPv4 and IPv6 routes go over the one IPv6 session with RFC 8950 next hops (extended_next_hop is on by default), and the peer is shown by the interface's name.",
  ),
  port: optional(integer(1, MAX_PORT), "The peer's TCP port.", '179'),
  remote_as: required(
    remoteAs,
    "The peer's AS number; external: any AS but ours, internal: ours (FRR's remote-as external and internal), checked on its OPEN (RFC 4271 6.2 Bad Peer AS otherwise).",
  ),
  type: optional(oneOf(PEER_TYPES), 'Checked against remote_as and local_as when given.'),
  auth_type: optional(oneOf(AUTH_TYPES), 'none, or md5 for RFC 2385 TCP-MD5.', 'none'),
  password: secret(
    text({ expected: 'a non-empty string' }),
    'MD5 password (at most 80 bytes); exactly one of password and password_file with md5.',
  ),
  password_file: optional(
    filePath,
    'File holding the MD5 password (one trailing newline is dropped); only its owner may have access (mode 0600 or 0400).',
  ),
  ...timers,
  passive: optional(boolean, 'Never connect; wait for the peer to connect.', 'false'),
  shutdown: optional(boolean, 'Administratively down: configured but never connected.', 'false'),
  families: optional(
    list(oneOf(FAMILY_NAMES), {
      min: 1,
      key: String,
      expected: `a list of families (${FAMILY_NAMES.join(', ')})`,
    }),
    'Address families negotiated (RFC 4760).',
    'the family of peer_ip; ipv4-unicast and ipv6-unicast with interface',
  ),
  local_address: optional(ipAddress(), 'Source address of our connections; same version as peer_ip.'),
  ebgp_multihop: optional(integer(1, MAX_TTL), 'TTL for an eBGP peer that is not directly connected.'),
  ttl_security: optional(
    integer(1, MAX_TTL_SECURITY_HOPS),
    'RFC 5082 GTSM: the peer is at most this many hops away.',
  ),
  add_path: optional(
    object('a mapping with receive and send', {
      receive: optional(boolean, 'Accept several paths per prefix.', 'false'),
      send: optional(
        addPathSend,
        'Paths sent per prefix: all, ecmp (the multipath set), N (the N best in decision order), true (all) or false (none).',
        'false',
      ),
    }),
    'RFC 7911 ADD-PATH for every configured family.',
  ),
  route_reflector_client: optional(boolean, 'Reflect iBGP routes to this iBGP peer (RFC 4456).', 'false'),
  next_hop_self: optional(boolean, 'Put our address as next hop on routes sent to this peer.', 'false'),
  next_hop_unchanged: optional(
    boolean,
    "Send each route with its own next hop, to an eBGP peer too (FRR's attribute-unchanged next-hop): central OVN mode across a routed hop; a route without one gets ours.",
    'false',
  ),
  extended_message: optional(boolean, 'Offer RFC 8654 messages up to 65535 bytes.', 'false'),
  long_lived_stale_time: optional(
    seconds(1, LONG_LIVED_STALE_TIME_MAX),
    'RFC 9494 long-lived graceful restart, only with speaker.graceful_restart: the Long-lived Stale Time offered to this peer (how long it keeps our routes past our Restart Time) and the longest its routes stay past its Restart Time (its own time when shorter), least preferred and marked LLGR_STALE.',
  ),
  extended_next_hop: optional(
    boolean,
    "RFC 8950: IPv4 routes with IPv6 next hops over this IPv6 session (FRR's capability extended-nexthop); needs ipv4-unicast in families.",
    'false',
  ),
  enhanced_route_refresh: optional(
    boolean,
    'Offer RFC 7313 enhanced route refresh (BoRR/EoRR around a refresh). Off by default: FRR 8.4 leaves a refresh unanswered once it is agreed and no End-of-RIB was exchanged.',
    'false',
  ),
  max_prefixes: optional(maxPrefixes, 'A limit, or {limit, warning_only, warning_threshold, restart_after}.'),
  bfd: optional(
    peerBfd,
    "BFD (RFC 5880) tied to the session as FRR's neighbor bfd: true (300 ms, 300 ms, 3), a bfd_profiles name, or {min_rx, min_tx, multiplier}; multihop (RFC 5883) when ebgp_multihop, ttl_security above 1, or an iBGP peer off our subnets says so. BFD Down closes the session at once.",
    'false',
  ),
  import: optional(policyNames, 'Policies applied, in order, to routes received (RFC 8212).', '[]'),
  export: optional(policyNames, 'Policies applied, in order, to routes sent (RFC 8212).', '[]'),
} as const;
const peer = object('a mapping of peer settings', peerFields);
export type RawPeer = Decoded<typeof peerFields>;

/*
 * A peer template: a peer's settings without what names one peer (name, address, port), and
 * without what a passive session from a range cannot use (passive, local_address, shutdown,
 * and the reconnect timers: a dynamic neighbour never connects and is forgotten when down).
 * The peer section's rows are taken as they are, so a new peer setting reaches templates too.
 */
const {
  name: _name,
  peer_ip: _peerIp,
  port: _port,
  passive: _passive,
  local_address: _localAddress,
  shutdown: _shutdown,
  families: _families,
  connect_retry: _connectRetry,
  idle_hold_time: _idleHoldTime,
  max_idle_hold_time: _maxIdleHoldTime,
  idle_hold_reset_time: _idleHoldResetTime,
  ...templatePeerFields
} = peerFields;
const templateFields = {
  families: optional(
    list(oneOf(FAMILY_NAMES), {
      min: 1,
      key: String,
      expected: `a list of families (${FAMILY_NAMES.join(', ')})`,
    }),
    'Address families negotiated (RFC 4760).',
    'the family of the connecting address',
  ),
  ...templatePeerFields,
} as const;
const peerTemplate = object('a mapping of peer settings', templateFields);
export type RawPeerTemplate = Decoded<typeof templateFields>;

const listenRangeFields = {
  prefix: required(
    prefix,
    'Addresses that may connect as dynamic neighbours (FRR bgp listen range, GoBGP dynamic-neighbors); a configured peer inside it wins.',
  ),
  template: required(name, 'The peer_templates entry each dynamic neighbour of the range is built from.'),
  limit: optional(
    integer(1, MAX_LISTEN_LIMIT),
    "At most this many dynamic neighbours from this range at once; further connections are refused (FRR's bgp listen limit, counted per range).",
    String(ListenRangeDefaults.limit),
  ),
} as const;
const listenRange = object('a mapping with prefix and template', listenRangeFields);
export type RawListenRange = Decoded<typeof listenRangeFields>;

const routeFields = {
  prefix: required(prefix, 'The prefix to originate; host bits must be zero.'),
  next_hop: optional(keywordOrAddress([NEXT_HOP_SELF]), 'self, or an address of the same version.', 'self'),
  origin: optional(oneOf(ORIGINS), 'ORIGIN attribute.', 'igp'),
  med: optional(integer(0, U32_MAX), 'MULTI_EXIT_DISC.'),
  local_pref: optional(integer(0, U32_MAX), 'LOCAL_PREF (sent to iBGP peers only).'),
  communities: optional(
    list(community, { key: String, expected: 'a list of communities ("AS:VALUE" or a well-known name)' }),
    'Communities (RFC 1997).',
    '[]',
  ),
  large_communities: optional(
    list(largeCommunity, {
      key: (c) => c.join(':'),
      expected: 'a list of large communities ("GLOBAL:LOCAL1:LOCAL2")',
    }),
    'Large communities (RFC 8092).',
    '[]',
  ),
  extended_communities: optional(
    list(extCommunityText, {
      key: String,
      expected: 'a list of extended communities ("rt:65000:1", "soo:...")',
    }),
    'Extended communities (RFC 4360), as in extended_community_lists.',
    '[]',
  ),
} as const;
export const routeSchema = object('a mapping with prefix', routeFields);
const route = routeSchema;
export type RawRoute = Decoded<typeof routeFields>;

const topFields = {
  speaker: required(speaker, 'This speaker.'),
  peers: optional(list(peer, { expected: 'a list of peers' }), 'BGP neighbours.', '[]'),
  peer_templates: optional(
    dictionary('a mapping of template names to peer settings', name, peerTemplate),
    "Settings of dynamic neighbours, by name (FRR's peer-group): a peer's, without name, peer_ip, port, passive, local_address, shutdown and the reconnect timers.",
    '{}',
  ),
  listen_ranges: optional(
    list(listenRange, { expected: 'a list of listen ranges' }),
    'Prefixes whose addresses may connect as dynamic neighbours, each from a template; we never connect to them.',
    '[]',
  ),
  routes: optional(
    list(route, {
      expected: 'a list of routes',
      max: { count: MAX_CONFIG_ROUTES, advice: TOO_MANY_ROUTES_ADVICE },
    }),
    `Static routes to originate, at most ${MAX_CONFIG_ROUTES} (a larger table: mrt inject).`,
    '[]',
  ),
  networks: optional(
    list(prefix, { key: formatPrefix, expected: 'a list of prefixes' }),
    "Prefixes to originate with next hop self (FRR's network).",
    '[]',
  ),
  ...policySections,
  bfd_profiles: optional(
    bfdProfiles,
    "Named BFD timers {min_rx, min_tx, multiplier} for peers' bfd (FRR bfd profile).",
  ),
  ovn: optional(
    object('a mapping with nb and sb', ovnFields),
    'OVN databases and what is advertised from them; absent: no OVN.',
  ),
  ovn_route_tables: optional(
    object('a mapping with tables', ovnRouteTablesFields),
    "OVN 25.03+ on a chassis: the routing tables ovn-controller fills, advertised, and learned routes written back (FRR's place in OVN's dynamic routing); absent: none.",
  ),
  sinks: optional(
    object('a mapping of sinks', sinksFields),
    'Where best paths are installed; absent: nowhere.',
  ),
  bmp: optional(
    object('a mapping with collectors', bmpFields),
    'BMP (RFC 7854): our peers, their routes and counters sent to monitoring collectors; absent: none.',
  ),
  mrt: optional(
    object('a mapping with dump or updates', mrtFields),
    'RFC 6396 MRT files: Loc-RIB dumps and message recordings (docs/mrt.md); absent: none.',
  ),
} as const;

/** The whole file. */
export const configSchema = object('a mapping with a speaker section', topFields);
export type RawConfig = Decoded<typeof topFields>;
