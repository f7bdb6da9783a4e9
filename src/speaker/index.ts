/**
 * The running speaker: the composition root that builds sessions, RIB, policy, update groups,
 * a neighbour per peer, the origins, the sinks, the control socket and metrics from a
 * configuration, starts them, applies reloads, stops them, and runs as a process
 * (`run --config FILE`).
 */
export { SpeakerDefaults } from './constants.js';
export { type CompiledPolicies, compileConfigPolicies, peerPolicies } from './policies.js';
export { applyReloadPlan, type ReloadHost } from './reload.js';
export { type ProcessSignals, type RunOptions, RunStatus, runSpeaker } from './run.js';
export { sessionPeerInit } from './session-init.js';
export { Speaker, type SpeakerComponents } from './speaker.js';
