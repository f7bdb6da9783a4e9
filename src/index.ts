/**
 * ovn-bgp-speaker as a library: build and run a speaker from a configuration (a YAML text, a
 * file, or a plain object validated like the file), drive a running one over its control
 * socket, and the BGP-4 message codec. Anything not exported here is internal.
 */

export {
  type CallOptions,
  ControlClientError,
  type ControlClientErrorKind,
  callControl,
  type NeighborDetail,
  type RibEntryView,
  type RibQuery,
  type SummaryView,
} from './api/index.js';
export * as wire from './bgp/wire/index.js';
export { KindedError, type Logger } from './components/index.js';
export {
  type Config,
  ConfigError,
  type LoadedConfig,
  loadConfig,
  parseConfig,
  type Validation,
  validateConfig,
} from './config/index.js';
export { Speaker, type SpeakerComponents } from './speaker/index.js';
