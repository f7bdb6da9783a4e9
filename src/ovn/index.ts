/**
 * OVN route publication: the BGP routes that make OVN workloads reachable, derived from the
 * Northbound and Southbound databases (pure, incremental), and the watcher that keeps them
 * current.
 */

export type { ApplyStats, DerivationResult, OvnRowChange, OvnSnapshot } from './derive.js';
export { compareClaims, deriveOvnRoutes, OvnDeriver } from './derive.js';
export { NEXTHOP_KEY, SELF_NEXT_HOP } from './derive-nexthop.js';
export {
  RouterTables,
  type RouterTablesComponents,
  type RouterTablesInit,
  SB_DATAPATHS,
} from './router-tables.js';
export { DEFAULT_OVS_REMOTE, localSystemId } from './system-id.js';
export { NB_DATABASE, NB_MONITOR, SB_DATABASE, SB_MONITOR } from './tables.js';
export type {
  Advertisement,
  AdvertisementDiff,
  LargeCommunity,
  NextHopPair,
  OvnDb,
  OvnDeriveConfig,
  OvnKindConfig,
  OvnOrigin,
  OvnProblem,
  OvnRouteKind,
  TenantSelect,
} from './types.js';
export { DEFAULT_OVN_DERIVE_CONFIG, OVN_ROUTE_KINDS } from './types.js';
export {
  OVN_WATCHER_DEFAULTS,
  OvnWatcher,
  type OvnWatcherComponents,
  type OvnWatcherInit,
  type OvnWatcherState,
  type OvnWatcherStatus,
} from './watcher.js';
