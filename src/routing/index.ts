/**
 * The route pipeline between sessions and the RIB: each configured peer's neighbour (its
 * session's events, operator actions, max-prefix, route refresh, its routes kept across its
 * graceful restart), each session's UPDATEs through import policy into the Adj-RIB-In and
 * Loc-RIB, the Loc-RIB's change batches to every consumer (the `bgp` consumer that feeds the
 * update groups and the live sessions, forwarding planes), and each session's Adj-RIB-Out
 * through export policy into UPDATEs. Local origins (static routes, the control API, OVN)
 * feed the same RIB; our own graceful restart holds sinks and sessions until the peers are back.
 */
export { ApiRoutes } from './api-routes.js';
export { MS_PER_SECOND, RoutingDefaults, SINGLE_PATH_ID } from './constants.js';
export {
  type Admission,
  admission,
  DynamicNeighbors,
  type DynamicNeighborsComponents,
  type DynamicSettings,
  rangeOf,
} from './dynamic-neighbors.js';
export { type AdvertisedRoutes, Exporter, type ExportSession, nextHopPlan } from './exporter.js';
export { Importer } from './importer.js';
export { LocalOrigin, type LocalRoute } from './local-origin.js';
export { MaxPrefixWatch, type MaxPrefixWatchComponents, maxPrefixConfig } from './max-prefix-watch.js';
export {
  type ChunkSource,
  MrtInjections,
  type MrtInjectionsComponents,
  type MrtInjectionView,
} from './mrt-injections.js';
export {
  Neighbor,
  type NeighborComponents,
  type NotificationRecord,
  type SessionMonitor,
  type StopCause,
} from './neighbor.js';
export { type BfdSessions, bfdPath, bfdSpec, NeighborBfd, type NeighborBfdHost } from './neighbor-bfd.js';
export { NeighborRestart, type NeighborRestartComponents, type ReturningPeer } from './neighbor-restart.js';
export { deriveConfig, OvnPublishing, type OvnPublishingComponents } from './ovn-publishing.js';
export {
  advertisedGracefulRestart,
  OwnRestart,
  type OwnRestartComponents,
  type OwnRestartInit,
} from './own-restart.js';
export { PeerClearing } from './peer-clearing.js';
export { PeerRoutes, type PeerRoutesComponents, type PeerRoutesInit } from './peer-routes.js';
export {
  RefreshStale,
  type RefreshStaleComponents,
  type RefreshStaleInit,
  type RefreshStaleStore,
  type RefreshStatus,
} from './refresh-stale.js';
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
  connectedNetworks,
  type InterfaceTable,
  peerOnLink,
  type SessionAddresses,
  sessionAddresses,
} from './session-addresses.js';
export { SessionExport, type SessionExportComponents } from './session-export.js';
export { SessionExports } from './session-exports.js';
export {
  type LongLivedNegotiated,
  type StalePhase,
  StaleRoutes,
  type StaleRoutesComponents,
  type StaleStatus,
} from './stale-routes.js';
export { applyRouteChanges, originateAll, staticAttributes } from './static-origin.js';
