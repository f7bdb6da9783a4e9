import { filePath, formatPrefix, ipAddress, ovsdbRemotes, prefix } from './addresses.js';
import { OVN_MODES, OVN_ROUTE_KINDS, OVN_SOURCES, OvnDefaults } from './constants.js';
import {
  boolean,
  type Decoded,
  dictionary,
  either,
  integer,
  isMapping,
  isString,
  list,
  object,
  oneOf,
  optional,
  required,
  text,
} from './decoders.js';
import { community, largeCommunity, name } from './values.js';

const nextHops = object('a mapping with ipv4 and/or ipv6', {
  ipv4: optional(ipAddress({ version: 4 }), 'IPv4 next hop.'),
  ipv6: optional(ipAddress({ version: 6 }), 'IPv6 next hop.'),
});

const communityFields = {
  enabled: optional(boolean, 'Advertise routes of this kind.', 'true'),
  communities: optional(
    list(community, { key: String, expected: 'a list of communities ("AS:VALUE" or a well-known name)' }),
    'Communities (RFC 1997) put on every route of this kind.',
    '[]',
  ),
  large_communities: optional(
    list(largeCommunity, { key: (c) => c.join(':'), expected: 'a list of large communities' }),
    'Large communities (RFC 8092) put on every route of this kind.',
    '[]',
  ),
} as const;
const kind = object('a mapping with enabled, communities, large_communities', communityFields);

const selectAll = oneOf(['all'] as const);
const tenantSelect = either<'all' | { readonly prefixes?: readonly unknown[]; readonly marker?: string }>(
  'all, {prefixes: [...]} or {marker: KEY}',
  [
    { when: isString, decoder: selectAll },
    {
      when: isMapping,
      decoder: object('a mapping with prefixes or marker', {
        prefixes: optional(
          list(prefix, { key: formatPrefix, expected: 'a list of prefixes' }),
          'Advertise tenant networks inside these.',
        ),
        marker: optional(
          text({ expected: 'an external_ids key', pattern: /^[A-Za-z0-9_.:-]{1,128}$/ }),
          'Advertise the networks of switches or routers whose external_ids hold this key (value "true").',
        ),
      }),
    },
  ],
);

const tenantKind = object('a mapping with enabled, select, communities', {
  ...communityFields,
  enabled: optional(boolean, 'Advertise routable tenant networks.', 'false'),
  select: optional(
    tenantSelect,
    'Which tenant networks: all, a prefix allow-list, or an external_ids marker.',
    'all',
  ),
});

const routesFields = {
  floating_ips: optional(kind, 'NAT dnat_and_snat external IPs as host routes via the chassis.'),
  tenant_networks: optional(tenantKind, "Tenant networks not SNATed, via the router's gateway port IP."),
  load_balancer_vips: optional(
    kind,
    'Load-balancer VIPs reachable through a router gateway, via its chassis.',
  ),
  provider_ports: optional(kind, 'IPs of ports on provider (localnet) switches, via their chassis.'),
  pod_subnets: optional(kind, "ovn-kubernetes node subnets, via the node's address."),
  service_vips: optional(kind, 'ovn-kubernetes service VIPs on GR_<node> routers, via that node.'),
  nat: optional(
    kind,
    "Advertised_Route rows of NAT external IPs (OVN 25.03+), via the tracked port's chassis; default: as floating_ips.",
    'floating_ips',
  ),
  lb: optional(
    kind,
    "Advertised_Route rows of load-balancer VIPs (OVN 25.03+), via the tracked port's chassis; default: as load_balancer_vips.",
    'load_balancer_vips',
  ),
  connected: optional(
    kind,
    "Advertised_Route rows of the router's port networks (OVN 25.03+), via its gateway port address.",
  ),
  static: optional(
    kind,
    'Advertised_Route rows of static routes, and any other row OVN advertises (OVN 25.03+), via the gateway port address.',
  ),
} as const;
export type RawOvnRoutes = Decoded<typeof routesFields>;
export const OVN_KIND_KEYS = OVN_ROUTE_KINDS;

export const ovnFields = {
  nb: required(ovsdbRemotes, 'OVN Northbound connection string, e.g. "tcp:198.18.0.10:6641".'),
  sb: required(ovsdbRemotes, 'OVN Southbound connection string, e.g. "tcp:198.18.0.10:6642".'),
  ssl: optional(
    object('a mapping with private_key, certificate and ca_cert', {
      private_key: required(filePath, 'PEM private key.'),
      certificate: required(filePath, 'PEM certificate.'),
      ca_cert: required(filePath, 'PEM CA certificate.'),
    }),
    'Files for ssl: remotes.',
  ),
  mode: optional(
    oneOf(OVN_MODES),
    'central: advertise every route with the chassis as next hop; local: only what is bound to our chassis, next hop ourselves.',
    OvnDefaults.mode,
  ),
  source: optional(
    oneOf(OVN_SOURCES),
    "derive: the speaker derives every route from NB and SB; advertised_routes: only OVN's own SB Advertised_Route (OVN 25.03+); auto: Advertised_Route for routers with options:dynamic-routing=true, derivation for the others and for OVN before 25.03.",
    OvnDefaults.source,
  ),
  chassis: optional(
    name,
    "Our own chassis (local mode): its name in the Southbound Chassis table; default the local Open_vSwitch row's external_ids:system-id.",
  ),
  ovs: optional(
    ovsdbRemotes,
    'The local Open_vSwitch database, read once in local mode when chassis is not given.',
    `"${OvnDefaults.ovs}"`,
  ),
  local_next_hop: optional(nextHops, 'Our own next hops (local mode); default: our address on each session.'),
  chassis_next_hops: optional(
    dictionary('a mapping of chassis names to next hops', name, nextHops),
    'Next hops per chassis; else Chassis other_config/external_ids ovn-bgp-speaker-nexthop-ipv4/-ipv6, else its Encap IP.',
  ),
  coalesce_ms: optional(
    integer(0, 10_000),
    'Milliseconds a burst of OVN changes is gathered before routes change.',
    String(OvnDefaults.coalesceMs),
  ),
  hold_time: optional(
    integer(0, 86_400),
    'Seconds OVN-derived routes stay advertised while OVN is unreachable (0: withdraw at once).',
    String(OvnDefaults.holdTime),
  ),
  routes: optional(
    object('a mapping of route kinds', routesFields),
    'Which kinds of routes are advertised, with which communities.',
  ),
} as const;
export type RawOvn = Decoded<typeof ovnFields>;
