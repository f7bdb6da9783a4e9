/** The OVN Northbound sink: best paths as marked Logical_Router_Static_Route rows of one router. */
export {
  MAIN_ROUTE_TABLE,
  NB_DATABASE,
  OVN_NB_DEFAULTS,
  ovnNbSinkMonitor,
  POLICY_DST_IP,
  PRECONDITION_OP,
  RouteColumn,
  RouterColumn,
  Table,
} from './constants.js';
export { failureKind, OvnNbError, type OvnNbErrorKind } from './errors.js';
export { OwnedRoutes } from './owned.js';
export {
  isEmptyPlan,
  type NewRow,
  type Precondition,
  planOperations,
  planRoutes,
  type RoutePlan,
  rowOf,
  type Wanted,
  type WantedRoute,
  wantedRoute,
} from './plan.js';
export { RepairLoop } from './repair.js';
export {
  findRouter,
  hasMark,
  type OwnedRow,
  ovnIpPrefix,
  ownedRow,
  parseIpPrefixColumn,
  type RouterView,
  type RouteSettings,
  routeKey,
} from './rows.js';
export { OvnNbTarget } from './target.js';
export type { NbClient, OvnNbComponents, OvnNbStatus, OvnNbTargetInit } from './types.js';
