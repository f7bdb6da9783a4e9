/**
 * The policy model: plain data, as the configuration layer produces it. Names and semantics
 * follow FRR (prefix-list, bgp community-list, bgp as-path access-list, route-map) so an
 * operator's FRR configuration translates line by line. `compilePolicies` checks it all and
 * turns it into evaluators; nothing here is read on the hot path.
 */

export type Family = 'ipv4' | 'ipv6';
export type ListAction = 'permit' | 'deny';

/**
 * One `ip prefix-list NAME seq N permit|deny PREFIX [ge G] [le L]` line. A route prefix of
 * length n inside `prefix` (of length p) matches when:
 * - neither ge nor le: n = p (exact);
 * - ge only: ge <= n <= max (32 or 128);
 * - le only: p <= n <= le;
 * - both: ge <= n <= le.
 * As in FRR, p <= ge <= le must hold, and a ge or le of 0 counts as not given.
 * `prefix: 'any'` is FRR's `any`: 0.0.0.0/0 le 32 (or ::/0 le 128).
 */
export interface PrefixListEntryModel {
  /** Order of evaluation, lowest first. Missing: FRR's rule, highest so far rounded down to 5, plus 5. */
  readonly seq?: number;
  readonly action: ListAction;
  /** "198.18.0.0/15", "2001:db8::/32" or "any"; bits past the length must be zero. */
  readonly prefix: string;
  readonly ge?: number;
  readonly le?: number;
}

/** First matching entry decides; no matching entry (or no entry at all) denies. */
export interface PrefixListModel {
  readonly name: string;
  /** Inferred from the entries when absent; every entry must be of this family. */
  readonly family?: Family;
  readonly entries: readonly PrefixListEntryModel[];
}

/**
 * One `bgp community-list standard NAME permit|deny C...` line: it matches a route that carries
 * every listed community. A community is "AS:value" (each 0-65535), a u32 in decimal, a
 * well-known name (NO_EXPORT, NO_ADVERTISE, NO_EXPORT_SUBCONFED, NO_PEER, BLACKHOLE,
 * GRACEFUL_SHUTDOWN; FRR's lower-case dashed spellings too), or a pattern with `*` for either
 * half: "65000:*", "*:666".
 */
export interface CommunityListEntryModel {
  readonly action: ListAction;
  readonly communities: readonly string[];
}

export interface CommunityListModel {
  readonly name: string;
  readonly entries: readonly CommunityListEntryModel[];
}

/** As CommunityListEntryModel, with large communities "global:local1:local2", `*` for any field. */
export interface LargeCommunityListEntryModel {
  readonly action: ListAction;
  readonly communities: readonly string[];
}

export interface LargeCommunityListModel {
  readonly name: string;
  readonly entries: readonly LargeCommunityListEntryModel[];
}

/**
 * One `bgp extcommunity-list standard NAME permit|deny ...` line: it matches a route that
 * carries every listed extended community (RFC 4360). Each is "rt:ASN:N", "rt:IPV4:N",
 * "soo:ASN:N", "soo:IPV4:N" (FRR's "rt 65000:1" too; an AS above 65535, or one written with
 * a trailing L, is the four-octet AS form of RFC 5668), or "0xTTSS:VVVVVVVVVVVV" for any type
 * (RFC 7153 registry) in hex. In patterns the local administrator may be `*`, and in the hex
 * form the sub-type `**` and the value `*`.
 */
export interface ExtCommunityListEntryModel {
  readonly action: ListAction;
  readonly communities: readonly string[];
}

export interface ExtCommunityListModel {
  readonly name: string;
  readonly entries: readonly ExtCommunityListEntryModel[];
}

/**
 * One `bgp as-path access-list NAME permit|deny REGEX` line, plus structured tests. The entry
 * matches when every condition given holds; an entry with none matches every path.
 */
export interface AsPathListEntryModel {
  readonly action: ListAction;
  /**
   * Over the path as FRR prints it, "65001 65002 {65003,65004} (65005)"; `_` stands for a
   * delimiter: start, end, space, comma, brace or parenthesis. "^$" is a locally originated route.
   */
  readonly regex?: string;
  /** The last AS of a path that ends in an AS_SEQUENCE (a path ending in an AS_SET has none). */
  readonly originAs?: number;
  /** Anywhere in the path, sets and confederation segments included. */
  readonly containsAs?: number;
  /** Path length as the decision process counts it (a set counts 1, confederation segments 0). */
  readonly minLength?: number;
  readonly maxLength?: number;
}

export interface AsPathListModel {
  readonly name: string;
  readonly entries: readonly AsPathListEntryModel[];
}

/** Every condition given must hold; an empty match matches every route. Lists are named. */
export interface MatchModel {
  readonly prefixList?: string;
  readonly communityList?: string;
  readonly largeCommunityList?: string;
  readonly extendedCommunityList?: string;
  readonly asPath?: string;
  /** A prefix list the next hop must be permitted by, taken as a host prefix (/32, /128). */
  readonly nextHop?: string;
  readonly family?: Family;
}

/**
 * Community changes, applied in this order: `set` replaces them all ([] removes them all),
 * `remove` takes out those matching the patterns, `deleteList` those a permit entry of the
 * named list names (FRR `set comm-list NAME delete`), `add` appends the missing ones.
 */
export interface CommunitySetModel {
  readonly set?: readonly string[];
  readonly remove?: readonly string[];
  readonly deleteList?: string;
  readonly add?: readonly string[];
}

export interface SetModel {
  readonly localPref?: number;
  /** A value, or "+n" / "-n" to adjust the received MED (absent counts as 0), held within 0..2^32-1. */
  readonly med?: number | string;
  readonly communities?: CommunitySetModel;
  readonly largeCommunities?: CommunitySetModel;
  /** Extended communities: the same changes; `deleteList` names an extended community list. */
  readonly extendedCommunities?: CommunitySetModel;
  /** `count` copies of `as` (default: the local AS given to the compiler) put in front of the path. */
  readonly asPathPrepend?: { readonly as?: number; readonly count: number };
  /**
   * "self" and "unchanged" are passed on to whoever sends the route (the RIB's export); an
   * address replaces the next hop of routes of its own family only, as FRR's separate
   * `set ip next-hop` and `set ipv6 next-hop global`.
   */
  readonly nextHop?: string;
}

export type StatementAction = 'accept' | 'reject' | 'next';

/**
 * One route-map entry. On a match: `reject` stops with the route rejected; otherwise the sets
 * apply, then `accept` stops with the route accepted and `next` goes on to the next statement
 * (FRR's `on-match next`), whose matches see the changed attributes.
 */
export interface StatementModel {
  readonly name?: string;
  readonly match?: MatchModel;
  readonly set?: SetModel;
  readonly action: StatementAction;
}

/**
 * A policy: statements in order, then `defaultAction` (FRR's implicit deny when absent).
 * `next` hands the route, with whatever was set, to the following policy of the peer's chain.
 */
export interface PolicyModel {
  readonly name: string;
  readonly statements: readonly StatementModel[];
  readonly defaultAction?: StatementAction;
}

/** The named lists policies refer to. */
export interface ListDefinitions {
  readonly prefixLists?: readonly PrefixListModel[];
  readonly communityLists?: readonly CommunityListModel[];
  readonly largeCommunityLists?: readonly LargeCommunityListModel[];
  readonly extendedCommunityLists?: readonly ExtCommunityListModel[];
  readonly asPathLists?: readonly AsPathListModel[];
}

/** Everything the configuration defines about routing policy. */
export interface PolicyDefinitions extends ListDefinitions {
  readonly policies: readonly PolicyModel[];
}

export interface CompileOptions {
  /** Our AS: what `asPathPrepend` without `as` prepends. */
  readonly localAs?: number;
}
