/**
 * The control layer: what `show`, `watch` and the metrics see of the running speaker. It
 * shapes the state of the neighbours, the RIB, the OVN origin and the sinks into the api's
 * view types on request, and holds no routing rule.
 */

export { bmpView } from './bmp-view.js';
export { LOCAL_SOURCE_NAME, UNSPECIFIED_NEXT_HOP } from './constants.js';
export { findNeighbor } from './find-neighbor.js';
export { type MessageObserver, tapMessageStats } from './message-tap.js';
export { neighborDetail, neighborSummary, ribCounts } from './neighbor-view.js';
export { ovnPaths, ovnStats, ovnView, type RouteTableState, routeTablesView } from './ovn-view.js';
export { attributesView } from './path-view.js';
export { advertisedView, type OvnPaths, receivedView, ribView } from './rib-view.js';
export { type WatchedSession, WatchHub } from './watch-hub.js';
