/** The OVN Northbound sink: best paths as marked Logical_Router_Static_Route rows of one router. */
export {
  MAIN_ROUTE_TABLE,
  NB_DATABASE,
  OVN_NB_DEFAULTS,
  ovnNbSinkMonitor,
  POLICY_DST_IP,
  RouteColumn,
  RouterColumn,
  Table,
} from './constants.js';
export { OvnNbError, type OvnNbErrorKind } from './errors.js';
export { OwnedRoutes } from './owned.js';
export {
  isEmptyPlan,
  type NewRow,
  PRECONDITION_OP,
  type Precondition,
  planOperations,
  planRoutes,
  type RoutePlan,
  rowOf,
  type Wanted,
  type WantedRoute,
  wantedRoute,
} from './plan.js';
export {
  findRouter,
  hasMark,
  type OwnedRow,
  ovnIpPrefix,
  ownedRow,
  parseIpPrefix,
  type RouterView,
  type RouteSettings,
  routeKey,
} from './rows.js';
export {
  failureKind,
  type NbClient,
  type OvnNbComponents,
  type OvnNbStatus,
  OvnNbTarget,
  type OvnNbTargetInit,
} from './target.js';
