/** The interop lab: network namespaces with FRR, GoBGP and BIRD peers for the speaker. */
export type { Addresses, LabLink, LinkEnd } from './addressing.js';
export { BirdDaemon } from './bird.js';
export { birdProtocolName, renderBirdConfig } from './bird-config.js';
export { parseBirdProtocols, parseBirdRoutes } from './bird-parse.js';
export type {
  BgpDaemon,
  NeighborStatus,
  NotificationInfo,
  ReceivedRoute,
  RouteQuery,
} from './daemon.js';
export { demoLabOptions } from './demo.js';
export { LabError, type LabErrorKind } from './errors.js';
export { type RunOptions, type RunResult, run, runResult } from './exec.js';
export { FrrDaemon } from './frr.js';
export { renderBfddConfig, renderFrrConfig } from './frr-config.js';
export { parseFrrNeighbors, parseFrrRoutes } from './frr-parse.js';
export { GobgpDaemon } from './gobgp.js';
export { renderGobgpConfig } from './gobgp-config.js';
export { parseGobgpLog, parseGobgpNeighbors, parseGobgpRib } from './gobgp-parse.js';
export { Lab, type LabLocation, type LabPeer, type SpawnOptions, type TeardownReport } from './lab.js';
export {
  createNamespace,
  createVeth,
  deleteNamespace,
  execInNamespace,
  linkLocalAddress,
  listNamespaces,
  namespacePids,
  type VethEnd,
} from './netns.js';
export {
  isRunning,
  type ProcessRecord,
  recordOf,
  type SpawnedProcess,
  spawnDetached,
  stopProcesses,
} from './process.js';
export { DaemonRoot, unmountRootCopies } from './root.js';
export type {
  AddPathMode,
  BgpState,
  DaemonImpl,
  DaemonSpec,
  Family,
  NeighborSpec,
  Originate,
} from './spec.js';
export type { OwnedProcess } from './state.js';
export { normaliseState } from './states.js';
export {
  type DaemonRelease,
  type LabLinkOptions,
  type LabOptions,
  type LabPeerOptions,
  type LabSpeakerOptions,
  planTopology,
  type SessionOptions,
  type SpeakerSessionOptions,
} from './topology.js';
