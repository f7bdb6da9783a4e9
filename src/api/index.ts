/** The operator interface: the control socket and its client, Prometheus metrics. */

export type { Logger } from '../components/index.js';
export {
  CLI_KEYWORD,
  type CliReply,
  type CliRunner,
  type CliWrite,
  encodeCliReply,
  encodeCliRequest,
  type InProcessCall,
  parseCliRequest,
} from './cli-framing.js';
export { type CallOptions, ControlClientError, type ControlClientErrorKind, callControl } from './client.js';
export {
  ApiDefaults,
  CONTROL_API_VERSION,
  MAX_REQUEST_LINE_BYTES,
  MAX_RIB_LIMIT,
  SOCKET_PATH_ENV,
} from './constants.js';
export {
  type HealthAnswer,
  type HealthCheck,
  type HealthQuery,
  healthAnswer,
  healthQuery,
  type LoopReport,
  livenessChecks,
  type PeerRequirement,
  type ReadinessFacts,
  type ReadyRequirements,
  readinessChecks,
} from './health.js';
// The metrics themselves (SpeakerMetrics, on prom-client) are imported from './metrics.js' by
// whoever makes them: through this index, every process that reads a configuration would load
// prom-client (4-5 MB resident) whether it serves metrics or not.
export type { MessageTypeLabel, SpeakerMetrics, SpeakerMetricsInit } from './metrics.js';
export {
  type HealthSource,
  type ListenAddress,
  type MetricsServer,
  type MetricsServerInit,
  parseListenAddress,
  startMetricsServer,
} from './metrics-server.js';
export { CONTROL_METHODS, type ControlRequest, type ControlResponse, type RequestId } from './protocol.js';
export { type ControlServer, type ControlServerInit, startControlServer } from './server.js';
export { SocketFileError, type SocketFileErrorKind } from './socket-file.js';
export * from './types.js';
export { type Watch, watchControl } from './watch-client.js';
