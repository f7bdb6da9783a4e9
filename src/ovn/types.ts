/* The contract of OVN route derivation: what goes in (config), what comes out (advertisements, problems). */

/**
 * Route kinds, in the order a prefix claimed twice is settled (the earlier kind wins). The
 * first six are derived from NB and SB by the speaker; the last four are OVN's own
 * (SB Advertised_Route, OVN 25.03+), told apart by what NB holds for the prefix.
 */
export const OVN_ROUTE_KINDS = [
  'floatingIps',
  'providerPorts',
  'serviceVips',
  'loadBalancerVips',
  'podSubnets',
  'tenantNetworks',
  'nat',
  'lb',
  'connected',
  'static',
] as const;
export type OvnRouteKind = (typeof OVN_ROUTE_KINDS)[number];

/** The kinds of SB Advertised_Route rows (what `dynamic-routing-redistribute` names). */
export const ADVERTISED_ROUTE_KINDS = ['nat', 'lb', 'connected', 'static'] as const;
export type AdvertisedRouteKind = (typeof ADVERTISED_ROUTE_KINDS)[number];

/**
 * Where routes come from. derive: the speaker derives them from NB and SB (any OVN version);
 * advertised_routes: only OVN's own SB Advertised_Route rows (OVN 25.03+); auto: Advertised_Route
 * for routers with options:dynamic-routing=true once OVN has filled it for them, derivation for
 * every other router (and for an OVN without the table).
 */
export const OVN_SOURCES = ['derive', 'advertised_routes', 'auto'] as const;
export type OvnSource = (typeof OVN_SOURCES)[number];

export type OvnDb = 'nb' | 'sb';

/** The OVN row a route or problem comes from. */
export interface OvnOrigin {
  readonly db: OvnDb;
  readonly table: string;
  readonly uuid: string;
  /** Human name, e.g. `router1/198.18.64.100` for a NAT row. */
  readonly name: string;
}

export type LargeCommunity = readonly [global: number, local1: number, local2: number];

export interface Advertisement {
  /** Canonical prefix: host bits clear, RFC 5952 IPv6 text, e.g. `198.18.64.100/32`. */
  readonly prefix: string;
  readonly nextHop: string;
  readonly kind: OvnRouteKind;
  readonly origin: OvnOrigin;
  /** How the next hop was chosen, e.g. `chassis hv1 (Port_Binding vm1), Encap ip`. */
  readonly why: string;
  /** RFC 1997 communities as 32-bit numbers, from the kind's config. */
  readonly communities: readonly number[];
  /** RFC 8092 large communities, from the kind's config. */
  readonly largeCommunities: readonly LargeCommunity[];
}

export interface OvnProblem {
  /** Stable: 'port-unbound', 'gateway-unbound', 'chassis-no-address', 'duplicate-prefix', ... */
  readonly kind: string;
  readonly origin: OvnOrigin;
  readonly message: string;
}

/** What changed: an announce of a prefix already announced replaces its path (no withdraw first). */
export interface AdvertisementDiff {
  readonly announce: Advertisement[];
  readonly withdraw: Advertisement[];
}

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
  | 'all'
  /** Networks inside one of these prefixes. */
  | { readonly prefixes: readonly string[] }
  /** Networks of routers or switches whose external_ids hold this key (value not "false"). */
  | { readonly marker: string };

export interface OvnDeriveConfig {
  readonly source: OvnSource;
  /** central: every route, next hops of third parties; local: only what our chassis hosts. */
  readonly mode: 'central' | 'local';
  /** Our chassis name (Chassis.name, the system-id), required in local mode. */
  readonly localChassis?: string;
  /** Our own next hop in local mode. */
  readonly localNextHop?: NextHopPair;
  /** Next hops by chassis name; they win over what the chassis says about itself. */
  readonly chassisNextHops: Readonly<Record<string, NextHopPair>>;
  readonly kinds: {
    readonly floatingIps: OvnKindConfig;
    readonly tenantNetworks: OvnKindConfig & { readonly select: TenantSelect };
    readonly loadBalancerVips: OvnKindConfig;
    readonly providerPorts: OvnKindConfig;
    readonly podSubnets: OvnKindConfig;
    readonly serviceVips: OvnKindConfig;
    readonly nat: OvnKindConfig;
    readonly lb: OvnKindConfig;
    readonly connected: OvnKindConfig;
    readonly static: OvnKindConfig;
  };
}

const on: OvnKindConfig = { enabled: true, communities: [], largeCommunities: [] };

/** Every kind on, no communities, central mode, source auto: a base to spread overrides onto. */
export const DEFAULT_OVN_DERIVE_CONFIG: OvnDeriveConfig = {
  source: 'auto',
  mode: 'central',
  chassisNextHops: {},
  kinds: {
    floatingIps: on,
    tenantNetworks: { ...on, select: 'all' },
    loadBalancerVips: on,
    providerPorts: on,
    podSubnets: on,
    serviceVips: on,
    nat: on,
    lb: on,
    connected: on,
    static: on,
  },
};
