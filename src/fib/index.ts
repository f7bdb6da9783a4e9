/** Forwarding planes fed by the Loc-RIB: the route contract every sink shares. */

export {
  type KernelProblem,
  type KernelStatus,
  KernelTarget,
  type KernelTargetInit,
} from './kernel/index.js';
export {
  type OvnNbStatus,
  OvnNbTarget,
  type OvnNbTargetInit,
} from './ovn-nb/index.js';
export {
  type FibChange,
  type FibNextHop,
  type FibRoute,
  type FibTarget,
  fibChangeAt,
  fibNextHops,
  NextHopMemo,
  type NotInstalled,
  toFibChange,
} from './route.js';
export {
  SinkDriver,
  type SinkDriverComponents,
  type SinkDriverInit,
  SinkRetry,
  type SinkState,
  type SinkStatus,
} from './sink-driver.js';
export { type ZebraRouteState, type ZebraStatus, ZebraTarget, type ZebraTargetInit } from './zebra/index.js';
