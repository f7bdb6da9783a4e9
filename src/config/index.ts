/**
 * The configuration: one YAML file, validated at start and on every reload (SIGHUP). Problems
 * name the field path, the bad value and its line; a reload that fails keeps the running
 * configuration, and a reload that succeeds comes with the plan that applies it without
 * resetting the sessions it does not concern.
 */

export { formatPrefix, parsePrefix } from './addresses.js';
export { CheckStatus, checkConfigFile } from './check.js';
export {
  AUTH_TYPES,
  FAMILIES,
  FAMILY_NAMES,
  HealthDefaults,
  ListenDefaults,
  NEXT_HOP_SELF,
  SpeakerSectionDefaults,
  WELL_KNOWN_COMMUNITIES,
} from './constants.js';
export {
  describePlan,
  type Effect,
  type FieldChange,
  type PeerChange,
  planPeerChange,
  planReload,
  type ReloadPlan,
  type RouteChange,
} from './diff.js';
export { type LoadedConfig, type LoadOptions, loadConfig, type ParseOptions, parseConfig } from './load.js';
export { notActedOnWarnings } from './not-acted-on.js';
export {
  ConfigError,
  type ConfigErrorKind,
  formatPath,
  formatProblem,
  HIDDEN,
  type Path,
  type Problem,
} from './problem.js';
export { redactConfig } from './redact.js';
export { configReference, formatReference, type ReferenceRow } from './reference.js';
export { dynamicPeerConfig, dynamicPeerName } from './resolve-dynamic.js';
export type { PeerEdit } from './runtime-peers.js';
export { decodeRoute, type RouteInput } from './runtime-route.js';
export type * from './schema.js';
export {
  ConfigStore,
  type ConfigStoreOptions,
  type ReloadOutcome,
  reloadOnSighup,
  type SignalSource,
} from './store.js';
export { type ValidateOptions, type Validation, validateConfig } from './validate.js';
export { parseCommunity } from './values.js';
