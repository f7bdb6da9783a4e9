/**
 * The running speaker: the composition root that builds sessions, RIB, policy, update groups,
 * static routes, the control socket and metrics from a configuration, binds every peer's
 * session to the RIB both ways, applies reloads, and runs as a process (`run --config FILE`).
 */
export { SpeakerDefaults } from './constants.js';
export { attributesView } from './control.js';
export { type MessageObserver, tapMessageStats } from './message-tap.js';
export { type BindingComponents, PeerBinding, type StopCause } from './peer-binding.js';
export { type CompiledPolicies, compileConfigPolicies, maxPrefixConfig, peerPolicies } from './policies.js';
export { applyReloadPlan, type ReloadHost } from './reload.js';
export { type ProcessSignals, type RunOptions, RunStatus, runSpeaker } from './run.js';
export { sessionPeerInit } from './session-init.js';
export { Speaker, type SpeakerComponents } from './speaker.js';
