/**
 * Numbers and names of the policy engine. Protocol numbers of the wire stay in
 * src/bgp/wire/constants.ts; these are the community registries and the defaults policies use.
 */
import { WellKnownCommunity } from '../bgp/wire/index.js';

/** The IANA registries and attribute sizes are the codec's; a policy names communities by them. */
export {
  EXT_COMMUNITY_BYTES,
  ExtCommunitySubType,
  ExtCommunityType,
  LARGE_COMMUNITY_FIELDS,
  MAX_SEGMENT_ASNS,
  WellKnownCommunity,
  wellKnownCommunityName,
} from '../bgp/wire/index.js';

/** Other spellings accepted in configuration, normalised to upper case with underscores. */
export const COMMUNITY_ALIASES: Readonly<Record<string, number>> = {
  LOCAL_AS: WellKnownCommunity.NO_EXPORT_SUBCONFED,
  /** FRR's "internet": 0:0. */
  INTERNET: 0,
};

/** A standard community is two 16-bit halves (RFC 1997 section 3: AS number, value). */
export const COMMUNITY_HALF_MAX = 0xffff;
export const COMMUNITY_HALF_BITS = 16;
export const U32_MAX = 0xffffffff;

/** FRR numbers prefix-list entries without a `seq` by steps of 5 above the highest so far. */
export const PREFIX_LIST_SEQ_STEP = 5;

/**
 * Prefix lists up to this size are scanned entry by entry: with so few entries a scan beats
 * walking the trie bit by bit. Larger ones use the trie (depth bounded by the prefix length).
 */
export const LINEAR_SCAN_MAX_ENTRIES = 8;

/** FRR limits `set as-path prepend last-as` to 10 copies; the same bound keeps paths sane here. */
export const MAX_PREPEND_COUNT = 10;

/** Defaults of the policy engine; read with `??` where a policy leaves one out. */
export const PolicyDefaults = {
  /** Max-prefix warns at this share of the limit unless configured otherwise (FRR's default). */
  WARNING_THRESHOLD_PERCENT: 75,
} as const;
export const PERCENT = 100;

/** RFC 4486 section 4: Cease/1 data is AFI(2) SAFI(1) prefix upper bound(4). */
export const MAX_PREFIX_DATA_LENGTH = 7;
