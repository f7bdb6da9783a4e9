/** The routing core: prefix keys, Adj-RIB-In, Loc-RIB and the decision process, export and Adj-RIB-Out. */

export { AddPathRibOut, type PathWishes } from './add-path-out.js';
export { AdjRibIn } from './adj-rib-in.js';
export { AdjRibOut, type AnnounceWork, NOT_ADVERTISED, type OutboundWork } from './adj-rib-out.js';
export {
  AttrTable,
  type AttrTableInit,
  countAs,
  neighborAs,
  nextHopText,
} from './attr-table.js';
export { ChangeBatch } from './change-batch.js';
export {
  BestPathReason,
  type BestPathReasonText,
  DenyReason,
  type DenyReasonText,
  LEARNED_PREFERENCE,
  LOCAL_PEER,
  LOCAL_ROUTE_WEIGHT,
  MAX_PEERS,
  MED_WORST,
  ORIGIN_PREFERENCE,
  type OriginName,
  RibDefaults,
  WellKnownCommunity,
} from './constants.js';
export {
  type Candidate,
  type Comparator,
  compareAge,
  compareAsPath,
  compareClusterLength,
  compareIgpMetric,
  compareLocalPref,
  compareLocalRoute,
  compareMed,
  compareNeighborAddress,
  compareOrigin,
  compareOriginPreference,
  comparePathId,
  comparePaths,
  comparePeerType,
  compareRouterId,
  compareStale,
  compareWeight,
  DECISION_STEPS,
  DEFAULT_DECISION,
  type DecisionOptions,
  type DecisionStep,
  multipathSet,
  type PairResult,
  type Selection,
  selectBest,
} from './decision.js';
export { ExportInterner } from './export-interner.js';
export {
  applyNextHopRule,
  communitiesAllow,
  type ExportContext,
  type ExportTarget,
  exportAttributes,
  mayAdvertise,
} from './export-rules.js';
export { InternTable } from './intern-table.js';
export { LocRib, type LocRibContext } from './loc-rib.js';
export type { EntryView, PathView, RankedPaths } from './loc-rib-view.js';
export { FIRST_SENT_PATH_ID, PathIds, pathKey } from './path-ids.js';
export {
  addressKey,
  PEER_KINDS,
  type PeerKind,
  RibPeer,
  type RibPeerInit,
  type RouteSource,
  type SourceKind,
} from './peer.js';
export {
  formatPrefix,
  IPV4_MAX_LEN,
  IPV6_MAX_LEN,
  ipv4Key,
  ipv4KeyAddress,
  ipv4KeyLength,
  ipv6Key,
  maxLength,
  parsePrefix,
  prefixKey,
  prefixWords,
  RibPrefix,
  toRibPrefix,
} from './prefix-key.js';
export { type GrowColumns, PrefixTable } from './prefix-table.js';
export { type BestCursor, FIRST_BEST, type PeerCounts, Rib, type RibInit } from './rib.js';
export type { RouteAdd, RouteChange, RoutePath, RouteSink, RouteWithdraw } from './route-change.js';
export { hasLongLivedStale } from './stale-paths.js';
export {
  type AddPathExport,
  type AddPathSelect,
  type BestPathSource,
  type OutPeer,
  type RankedPathSource,
  type RibOut,
  targetKey,
  UpdateGroup,
  UpdateGroups,
} from './update-groups.js';
export { applyUpdateRules, type UpdateTarget } from './update-rules.js';
