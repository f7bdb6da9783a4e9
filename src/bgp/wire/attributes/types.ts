/** Decoded path attributes. One object per distinct attribute set (interned), never per prefix. */

export interface AsPathSegment {
  /** AsPathSegmentType: AS_SET 1, AS_SEQUENCE 2, AS_CONFED_SEQUENCE 3, AS_CONFED_SET 4. */
  readonly type: number;
  readonly asns: readonly number[];
}

export interface Aggregator {
  readonly as: number;
  /** IPv4 address as a u32. */
  readonly address: number;
}

export interface MpReach {
  readonly afi: number;
  readonly safi: number;
  /** 4 (IPv4), 16 (global) or 32 (global + link-local) bytes; RFC 8950 allows IPv6 for IPv4 NLRI. */
  readonly nextHop: Uint8Array;
  /** The octet after the next hop (RFC 2858's SNPA count, "Reserved" in RFC 4760); kept as sent. */
  readonly reserved: number;
}

export interface RawAttribute {
  readonly type: number;
  readonly flags: number;
  readonly value: Uint8Array;
}

/** Where an attribute stood and which flags it carried, so re-encoding reproduces the sender. */
export interface AttrSlot {
  readonly type: number;
  readonly flags: number;
}

export interface PathAttributes {
  origin?: number;
  asPath?: readonly AsPathSegment[];
  /** IPv4 next hop as a u32 (the NEXT_HOP attribute). */
  nextHop?: number;
  med?: number;
  localPref?: number;
  atomicAggregate?: boolean;
  aggregator?: Aggregator;
  /** RFC 1997 communities, each a u32. */
  communities?: readonly number[];
  originatorId?: number;
  clusterList?: readonly number[];
  mpReach?: MpReach;
  /** RFC 4360 extended communities: 8 bytes each, concatenated. */
  extCommunities?: Uint8Array;
  /** RFC 6793 AS4_PATH, from a 2-octet speaker. */
  as4Path?: readonly AsPathSegment[];
  as4Aggregator?: Aggregator;
  /** RFC 5701 IPv6 address-specific extended communities: 20 bytes each, concatenated. */
  ipv6ExtCommunities?: Uint8Array;
  /** RFC 8092 large communities as (global admin, local 1, local 2) triples, flattened. */
  largeCommunities?: readonly number[];
  /** Attributes we do not interpret; optional transitive ones are passed on with Partial set. */
  unknown?: readonly RawAttribute[];
  /** Received order and flags (absent on attributes built locally: canonical order is used). */
  layout?: readonly AttrSlot[];
}

export type Mutable<T> = { -readonly [K in keyof T]: T[K] };
export type MutableAttributes = Mutable<PathAttributes>;

/** RFC 7606 outcomes, least to most severe. Session reset is a thrown BgpError instead. */
export type UpdateAction = 'ok' | 'attribute-discard' | 'treat-as-withdraw';

export interface UpdateIssue {
  /** Stable name for logs and tests, e.g. "origin-invalid", "as-path-malformed". */
  readonly kind: string;
  readonly action: Exclude<UpdateAction, 'ok'>;
  /** The attribute concerned (0 when the problem is not one attribute's). */
  readonly attrType: number;
  /** The RFC 4271 section 6.3 subcode this would have been a NOTIFICATION with. */
  readonly subcode: number;
}

/**
 * Path attributes built locally (configuration, policy, tests), every field present in one
 * fixed order. One shape for all of them keeps the encoder's field reads monomorphic; objects
 * that lack fields make each read of an absent one a slow lookup.
 */
export function makeAttributes(init: PathAttributes): PathAttributes {
  return {
    origin: init.origin,
    asPath: init.asPath,
    nextHop: init.nextHop,
    med: init.med,
    localPref: init.localPref,
    atomicAggregate: init.atomicAggregate,
    aggregator: init.aggregator,
    communities: init.communities,
    originatorId: init.originatorId,
    clusterList: init.clusterList,
    mpReach: init.mpReach,
    extCommunities: init.extCommunities,
    as4Path: init.as4Path,
    as4Aggregator: init.as4Aggregator,
    ipv6ExtCommunities: init.ipv6ExtCommunities,
    largeCommunities: init.largeCommunities,
    unknown: init.unknown,
    layout: init.layout,
  };
}
