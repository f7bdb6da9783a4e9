/**
 * Numbers and names of the policy engine. Protocol numbers of the wire stay in
 * src/bgp/wire/constants.ts; these are the community registries and the defaults policies use.
 */
import { WellKnownCommunity } from '../bgp/wire/index.js';

/** The IANA well-known communities registry is the codec's; a policy names them by it. */
export { WellKnownCommunity, wellKnownCommunityName } from '../bgp/wire/index.js';

/** Other spellings accepted in configuration, normalised to upper case with underscores. */
export const COMMUNITY_ALIASES: Readonly<Record<string, number>> = {
  LOCAL_AS: WellKnownCommunity.NO_EXPORT_SUBCONFED,
  /** FRR's "internet": 0:0. */
  INTERNET: 0,
};

/**
 * IANA "BGP Extended Communities" type registry (RFC 7153 section 5.1), the types a policy names
 * by keyword. The high-order type octet's bit 0x40 is RFC 4360's non-transitive bit.
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

/** An extended community is 8 octets (RFC 4360 section 2), handled as two 32-bit words. */
export const EXT_COMMUNITY_BYTES = 8;

/** A standard community is two 16-bit halves (RFC 1997 section 3: AS number, value). */
export const COMMUNITY_HALF_MAX = 0xffff;
export const COMMUNITY_HALF_BITS = 16;
/** Large communities are three 32-bit fields (RFC 8092 section 3). */
export const LARGE_COMMUNITY_FIELDS = 3;
export const U32_MAX = 0xffffffff;

export const IPV4_BITS = 32;
export const IPV6_BITS = 128;
export const IPV6_WORDS = 4;
export const IPV4_BYTES = 4;
export const IPV6_BYTES = 16;
export const WORD_BITS = 32;

/** FRR numbers prefix-list entries without a `seq` by steps of 5 above the highest so far. */
export const PREFIX_LIST_SEQ_STEP = 5;

/**
 * Prefix lists up to this size are scanned entry by entry: with so few entries a scan beats
 * walking the trie bit by bit. Larger ones use the trie (depth bounded by the prefix length).
 */
export const LINEAR_SCAN_MAX_ENTRIES = 8;

/** FRR limits `set as-path prepend last-as` to 10 copies; the same bound keeps paths sane here. */
export const MAX_PREPEND_COUNT = 10;
/** One AS_SEQUENCE segment holds at most 255 ASNs (its count is one octet, RFC 4271 section 4.3). */
export const MAX_SEGMENT_ASNS = 255;

/** Defaults of the policy engine; read with `??` where a policy leaves one out. */
export const PolicyDefaults = {
  /** Max-prefix warns at this share of the limit unless configured otherwise (FRR's default). */
  WARNING_THRESHOLD_PERCENT: 75,
} as const;
export const PERCENT = 100;

/** RFC 4486 section 4: Cease/1 data is AFI(2) SAFI(1) prefix upper bound(4). */
export const MAX_PREFIX_DATA_LENGTH = 7;
