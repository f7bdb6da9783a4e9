/**
 * Defaults and names of the routing core. Protocol numbers stay in src/bgp/wire/constants.ts;
 * what is here is RIB policy (defaults as FRR ships them) and the reason strings `show` prints.
 */

/** Defaults of the routing core, as FRR ships them; read with `??` where an init leaves one out. */
export const RibDefaults = {
  /** RFC 4271 section 5.1.5 leaves LOCAL_PREF to the operator; 100 is what FRR, GoBGP and BIRD use. */
  LOCAL_PREF: 100,
  /** Equal-cost paths installed: best path only, as FRR without "maximum-paths". */
  MAX_PATHS: 1,
  /** FRR "neighbor weight" when none is set: step 0 of the decision process decides nothing. */
  WEIGHT: 0,
  /** Occurrences of our own AS tolerated in AS_PATH without "allowas-in". */
  ALLOWAS_IN: 0,
} as const;

/** FRR gives locally originated routes this weight, so they win step 0 of the decision process. */
export const LOCAL_ROUTE_WEIGHT = 32768;

/** A missing MED treated as the worst ("bgp bestpath med missing-as-worst"). */
export const MED_WORST = 0xffffffff;

/** Peer index of the `static` origin: the pseudo-peer that owns configured routes. */
export const LOCAL_PEER = 0;

/** Peers and origins a RIB holds at once: the Loc-RIB keeps a path's peer index in 16 bits (-1: none). */
export const MAX_PEERS = 0x7fff;

/**
 * Origins of locally originated routes and their preference, lower wins (as an administrative
 * distance). The same prefix from two origins is two paths; when weight, LOCAL_PREF and the
 * local-route step cannot tell them apart, this decides: what the operator configured
 * (`static`) over what a program announced (`api`) over what came from OVN (`ovn`, derived from
 * its databases; `ovn-table`, read from the kernel table ovn-controller fills) over what an
 * MRT file injected (`mrt`).
 */
export const ORIGIN_PREFERENCE = { static: 10, api: 20, ovn: 30, 'ovn-table': 30, mrt: 40 } as const;
export type OriginName = keyof typeof ORIGIN_PREFERENCE;

/** The preference of paths learned from BGP peers: after every local origin (the local-route step has ordered them already). */
export const LEARNED_PREFERENCE = 255;

/**
 * Why the best path won, as FRR's `show bgp ... json` prints "selectionReason", so operators
 * can compare the two side by side. One entry per step of the decision process.
 */
export const BestPathReason = {
  FIRST: 'First path received',
  STALE: 'Not stale',
  WEIGHT: 'Weight',
  LOCAL_PREF: 'Local Pref',
  LOCAL_ROUTE: 'Local Route',
  ORIGIN_PREFERENCE: 'Origin preference',
  AS_PATH: 'AS Path',
  ORIGIN: 'Origin',
  MED: 'MED',
  PEER_TYPE: 'Peer Type',
  IGP_METRIC: 'IGP Metric',
  OLDER: 'Older Path',
  ROUTER_ID: 'Router ID',
  CLUSTER_LENGTH: 'Cluster length',
  NEIGHBOR_IP: 'Neighbor IP',
  NOTHING_LEFT: 'Nothing left to compare',
} as const;
export type BestPathReasonText = (typeof BestPathReason)[keyof typeof BestPathReason];

/** The IANA well-known communities registry is the codec's (NO_EXPORT, LLGR_STALE, ...). */
export { WellKnownCommunity } from '../bgp/wire/index.js';

/** Why a received route did not enter the Loc-RIB. */
export const DenyReason = {
  AS_PATH_LOOP: 'as-path-loop',
  ORIGINATOR_ID_LOOP: 'originator-id-loop',
  CLUSTER_LIST_LOOP: 'cluster-list-loop',
} as const;
export type DenyReasonText = (typeof DenyReason)[keyof typeof DenyReason];
