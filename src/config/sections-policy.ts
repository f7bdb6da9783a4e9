import { IPV6_BITS } from '../address/index.js';
import { keywordOrAddress, prefixOrAny } from './addresses.js';
import {
  LIST_ACTIONS,
  MAX_PREPEND_COUNT,
  MAX_SEQ,
  POLICY_FAMILIES,
  SET_NEXT_HOP_KEYWORDS,
  STATEMENT_ACTIONS,
  U32_MAX,
} from './constants.js';
import {
  type Decoded,
  type Decoder,
  dictionary,
  either,
  integer,
  isList,
  isMapping,
  list,
  map,
  object,
  oneOf,
  optional,
  required,
} from './decoders.js';
import {
  asn,
  asPathRegex,
  communityPattern,
  communityText,
  extCommunityPattern,
  extCommunityText,
  largeCommunityPattern,
  largeCommunityText,
  medAction,
  name,
} from './values.js';

/*
 * The policy sections, in FRR's terms: prefix-list, community-list, large-community-list,
 * as-path access-list and route-map (here: policies of statements).
 */

const prefixListEntryFields = {
  seq: optional(
    integer(1, MAX_SEQ),
    'Order of evaluation, lowest first.',
    'previous rounded down to 5, plus 5',
  ),
  action: required(oneOf(LIST_ACTIONS), 'permit or deny.'),
  prefix: required(prefixOrAny, 'A prefix, or any.'),
  ge: optional(integer(0, IPV6_BITS), 'Match lengths from ge up (prefix length <= ge <= le).'),
  le: optional(integer(0, IPV6_BITS), 'Match lengths up to le.'),
} as const;
export type RawPrefixListEntry = Decoded<typeof prefixListEntryFields>;
const prefixListEntries = list(object('a prefix list entry', prefixListEntryFields), {
  min: 1,
  expected: 'a list of prefix list entries',
});
export interface RawPrefixList {
  /** How the file wrote it, which decides the paths of its entries. */
  readonly written: 'list' | 'mapping';
  readonly family?: (typeof POLICY_FAMILIES)[number];
  readonly entries?: readonly RawPrefixListEntry[];
}
/** A list of entries (the family is the entries'), or {family, entries} for a list of only "any". */
const prefixList = either<RawPrefixList>(
  'a list of prefix list entries, or a mapping with family and entries',
  [
    { when: isList, decoder: map(prefixListEntries, (entries) => ({ written: 'list' as const, entries })) },
    {
      when: isMapping,
      decoder: map(
        object('a mapping with family and entries', {
          family: optional(
            oneOf(POLICY_FAMILIES),
            'ipv4 or ipv6; needed when every entry is any.',
            "the entries' family",
          ),
          entries: required(prefixListEntries, 'The entries, in order.'),
        }),
        (l) => ({ written: 'mapping' as const, ...l }),
      ),
    },
  ],
);

const communityListEntry = (pattern: typeof communityPattern, what: string) =>
  object('a mapping with action and communities', {
    action: required(oneOf(LIST_ACTIONS), 'permit or deny.'),
    communities: required(
      list(pattern, { min: 1, key: String, expected: `a list of ${what}, * for any part` }),
      'The entry matches a route carrying all of them.',
    ),
  });

const asPathListEntryFields = {
  action: required(oneOf(LIST_ACTIONS), 'permit or deny.'),
  regex: optional(asPathRegex, 'FRR-style regex over the path; _ matches a delimiter.'),
  origin_as: optional(asn, 'The last AS of the path.'),
  contains_as: optional(asn, 'An AS anywhere in the path.'),
  min_length: optional(integer(0, U32_MAX), 'Shortest path length matched.'),
  max_length: optional(integer(0, U32_MAX), 'Longest path length matched.'),
} as const;
export type RawAsPathListEntry = Decoded<typeof asPathListEntryFields>;

const communityChange = (value: typeof communityText, pattern: typeof communityPattern, what: string) =>
  object('a mapping of community changes', {
    set: optional(
      list(value, { key: String, expected: `a list of ${what}` }),
      'Replace all (an empty list removes all).',
    ),
    remove: optional(
      list(pattern, { key: String, expected: `a list of ${what}, * for any part` }),
      'Remove those matching.',
    ),
    delete_list: optional(name, 'Remove those a permit entry of this list names.'),
    add: optional(list(value, { key: String, expected: `a list of ${what}` }), 'Add these.'),
  });

const matchFields = {
  prefix_list: optional(name, 'A prefix_lists name that must permit the prefix.'),
  community_list: optional(name, 'A community_lists name that must permit the route.'),
  large_community_list: optional(name, 'A large_community_lists name that must permit the route.'),
  extended_community_list: optional(name, 'An extended_community_lists name that must permit the route.'),
  as_path: optional(name, 'An as_path_lists name that must permit the path.'),
  next_hop: optional(name, 'A prefix_lists name that must permit the next hop.'),
  family: optional(oneOf(POLICY_FAMILIES), 'ipv4 or ipv6 routes only.'),
} as const;

const setFields = {
  local_pref: optional(integer(0, U32_MAX), 'LOCAL_PREF.'),
  med: optional(medAction, 'A value, or "+N"/"-N".'),
  communities: optional(
    communityChange(communityText, communityPattern, 'communities'),
    'set, remove, delete_list, add.',
  ),
  large_communities: optional(
    communityChange(largeCommunityText, largeCommunityPattern, 'large communities'),
    'set, remove, delete_list, add.',
  ),
  extended_communities: optional(
    communityChange(extCommunityText, extCommunityPattern, 'extended communities'),
    'set, remove, delete_list, add.',
  ),
  as_path_prepend: optional(
    object('a mapping with count', {
      as: optional(asn, 'The AS to prepend.', 'speaker.local_as'),
      count: required(integer(1, MAX_PREPEND_COUNT), 'How many copies.'),
    }),
    'Prepend copies of an AS.',
  ),
  next_hop: optional(
    keywordOrAddress(SET_NEXT_HOP_KEYWORDS),
    "self (our address), unchanged (the route's own, to an eBGP peer too), or an address for routes of its version.",
  ),
} as const;

const statementFields = {
  name: optional(name, 'For logs.'),
  match: optional(object('a mapping of match conditions', matchFields), 'All given conditions must hold.'),
  set: optional(object('a mapping of attribute changes', setFields), 'Changes applied on a match.'),
  action: required(oneOf(STATEMENT_ACTIONS), 'accept, reject, or next (go on to the next statement).'),
} as const;
export type RawStatement = Decoded<typeof statementFields>;

const policyFields = {
  statements: required(
    list(object('a mapping with action', statementFields), { min: 1, expected: 'a list of statements' }),
    'In order.',
  ),
  default_action: optional(oneOf(STATEMENT_ACTIONS), 'When no statement decided.', 'reject'),
} as const;
export type RawPolicy = Decoded<typeof policyFields>;

const named = <T>(what: string, value: Decoder<T>) =>
  dictionary(`a mapping of ${what} names to definitions`, name, value);

/** The policy sections of the top level. */
export const policySections = {
  prefix_lists: optional(
    named('prefix list', prefixList),
    'FRR ip prefix-list: entries, or {family, entries}.',
  ),
  community_lists: optional(
    named(
      'community list',
      list(communityListEntry(communityPattern, 'communities'), { min: 1, expected: 'a list of entries' }),
    ),
    'FRR bgp community-list standard.',
  ),
  large_community_lists: optional(
    named(
      'large community list',
      list(communityListEntry(largeCommunityPattern, 'large communities'), {
        min: 1,
        expected: 'a list of entries',
      }),
    ),
    'FRR bgp large-community-list standard.',
  ),
  extended_community_lists: optional(
    named(
      'extended community list',
      list(communityListEntry(extCommunityPattern, 'extended communities'), {
        min: 1,
        expected: 'a list of entries',
      }),
    ),
    'FRR bgp extcommunity-list standard: rt:ASN:N, soo:IPV4:N, 0xTTSS:hex.',
  ),
  as_path_lists: optional(
    named(
      'AS-path list',
      list(object('an AS-path list entry', asPathListEntryFields), { min: 1, expected: 'a list of entries' }),
    ),
    'FRR bgp as-path access-list.',
  ),
  policies: optional(named('policy', object('a mapping with statements', policyFields)), 'Route maps.'),
} as const;
