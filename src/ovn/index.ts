/**
 * OVN route publication: the BGP routes that make OVN workloads reachable, derived from the
 * Northbound and Southbound databases or read from OVN's own SB Advertised_Route (pure,
 * incremental), and the watcher that keeps them current.
 */

export type { ApplyStats, DerivationResult, OvnRowChange, OvnSnapshot } from './derive.js';
export { compareClaims, deriveOvnRoutes, OvnDeriver } from './derive.js';
export { DYNAMIC_ROUTING_OPTION } from './derive-dynamic.js';
export { NEXTHOP_KEY, SELF_NEXT_HOP } from './derive-nexthop.js';
export {
  RouterTables,
  type RouterTablesComponents,
  type RouterTablesInit,
  SB_DATAPATHS,
} from './router-tables.js';
export { DEFAULT_OVS_REMOTE, localSystemId } from './system-id.js';
export {
  ADVERTISED_ROUTE_TABLE,
  NB_DATABASE,
  NB_MONITOR,
  SB_DATABASE,
  SB_MONITOR,
  SB_MONITOR_ADVERTISED,
  sbMonitor,
} from './tables.js';
export type {
  AdvertisedRouteKind,
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
  OvnSource,
  TenantSelect,
} from './types.js';
export { ADVERTISED_ROUTE_KINDS, DEFAULT_OVN_DERIVE_CONFIG, OVN_ROUTE_KINDS, OVN_SOURCES } from './types.js';
export {
  OVN_WATCHER_DEFAULTS,
  OvnWatcher,
  type OvnWatcherComponents,
  type OvnWatcherInit,
  type OvnWatcherState,
  type OvnWatcherStatus,
} from './watcher.js';
