/**
 * The route pipeline between sessions and the RIB: each session's UPDATEs through import
 * policy into the Adj-RIB-In and Loc-RIB, the Loc-RIB's change batches to every consumer
 * (update groups, forwarding planes), and each session's Adj-RIB-Out through export policy
 * into UPDATEs. Local origins (static routes, OVN) feed the same RIB.
 */
export { MS_PER_SECOND, RoutingDefaults, SINGLE_PATH_ID } from './constants.js';
export { type AdvertisedRoutes, Exporter, type ExportSession } from './exporter.js';
export { Importer } from './importer.js';
export { LocalOrigin, type LocalRoute } from './local-origin.js';
export { MaxPrefixWatch, type MaxPrefixWatchComponents } from './max-prefix-watch.js';
export { PeerClearing } from './peer-clearing.js';
export { PeerRoutes, type PeerRoutesComponents, type PeerRoutesInit } from './peer-routes.js';
export {
  RestartDeferral,
  type RestartDeferralComponents,
  type RestartDeferralInit,
  type RestartDeferralStatus,
} from './restart-deferral.js';
export { type RouteConsumer, RouteFlow } from './route-flow.js';
export { RouteStore, type StoredRouteVisitor } from './route-store.js';
export {
  hostRoute,
  MED_LEAVING,
  RouteTableOrigin,
  type RouteTableOriginInit,
  type TablePreference,
  type TableRouteView,
} from './route-table-origin.js';
export {
  type InterfaceTable,
  peerOnLink,
  type SessionAddresses,
  sessionAddresses,
} from './session-addresses.js';
export { SessionExport, type SessionExportComponents } from './session-export.js';
export {
  type LongLivedNegotiated,
  type StalePhase,
  StaleRoutes,
  type StaleRoutesComponents,
  type StaleStatus,
} from './stale-routes.js';
export { applyRouteChanges, originateAll, staticAttributes } from './static-origin.js';
