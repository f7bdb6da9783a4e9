/**
 * The running speaker: the composition root that builds sessions, RIB, policy, update groups,
 * static routes, the control socket and metrics from a configuration, binds every peer's
 * session to the RIB both ways, applies reloads, and runs as a process (`run --config FILE`).
 */
export { SINGLE_PATH_ID, SpeakerDefaults } from './constants.js';
export { attributesView, formatAsPath } from './control.js';
export { Exporter, type ExportSession } from './export.js';
export { Importer } from './import.js';
export { type InterfaceTable, type SessionAddresses, sessionAddresses } from './local-addresses.js';
export { type MessageObserver, tapMessageStats } from './message-tap.js';
export { Outbound, type OutboundComponents } from './outbound.js';
export { type BindingComponents, PeerBinding, type StopCause } from './peer-binding.js';
export { type CompiledPolicies, compileConfigPolicies, maxPrefixConfig, peerPolicies } from './policies.js';
export { applyReloadPlan, type ReloadHost } from './reload.js';
export { RouteFlow } from './route-flow.js';
export { RouteStore, type StoredRouteVisitor } from './route-store.js';
export { type ProcessSignals, type RunOptions, RunStatus, runSpeaker } from './run.js';
export { sessionPeerInit } from './session-init.js';
export { Speaker, type SpeakerComponents } from './speaker.js';
export { applyRouteChanges, originateAll, staticAttributes } from './static-routes.js';
