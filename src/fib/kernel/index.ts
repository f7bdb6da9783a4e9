/** The Linux kernel as a forwarding plane: our own rtnetlink codec over the netlink add-on's socket. */

export { type IfindexOf, isLinkLocal, sysfsIfindex } from '../link-local.js';
export {
  type EncodeRequest,
  type RequestFailure,
  RtnlClient,
  type RtnlClientInit,
} from './client.js';
export * from './constants.js';
export { decodeAck, decodeDone, type NlAck, writeAck } from './control.js';
export { encodeOps, type RouteMark } from './encode-ops.js';
export { KernelError, type KernelErrorKind, rejectionText } from './errors.js';
export {
  MONITOR_GROUPS,
  type RouteEvent,
  RouteMonitor,
  type RouteMonitorInit,
  routeTableOf,
} from './monitor.js';
export { canonicalNexthops, type NexthopSet, NexthopSets } from './nexthop-set.js';
export { forEachAttr, type NlMessage, NlView, NlWriter, nlAlign, splitMessages } from './nl-buffer.js';
export type { Problem } from './owned.js';
export {
  type Found,
  planInSteps,
  planReconcile,
  type ReconcilePlan,
  type RouteOp,
  type Wanted,
} from './plan.js';
export { RepairBudget, type RepairVerdict } from './repair.js';
export {
  classify,
  linkLocalResolution,
  NextHopResolver,
  nextHopKey,
  type Resolution,
} from './resolve.js';
export {
  decodeRoute,
  encodeNexthops,
  familyOf,
  gatewayFamilyOf,
  type KernelNexthop,
  type KernelRoute,
  type NewRouteOptions,
  type RouteKey,
  writeDelRoute,
  writeDumpRoutes,
  writeGetRoute,
  writeNewRoute,
  writeUnicastRoute,
} from './route-message.js';
export {
  openRtnlSocket,
  type RtnlSocket,
  type RtnlSocketFactory,
  type RtnlSocketOptions,
  type SocketError,
} from './rtnl-socket.js';
export { KernelTableReader } from './table-reader.js';
export {
  applyTableEvent,
  KeyShare,
  ProtocolSet,
  type TableChange,
  type TableRoute,
  TableRoutes,
  tableEventMatters,
} from './table-routes.js';
export type {
  TableReaderComponents,
  TableReaderHandlers,
  TableReaderInit,
  TableReaderStatus,
  TableSyncReason,
} from './table-types.js';
export { KernelTarget } from './target.js';
export type { KernelComponents, KernelProblem, KernelStatus, KernelTargetInit } from './types.js';
