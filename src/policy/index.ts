/** Routing policy: per-peer import/export filters, RFC 8212 defaults and max-prefix. Pure. */

/** Communities print as the codec's attribute table prints them; policies read those forms back. */
export {
  extHi,
  extLo,
  formatCommunity,
  formatExtCommunity,
  formatLargeCommunity,
} from '../bgp/wire/index.js';
export {
  AsPathView,
  CompiledAsPathList,
  compileAsPathList,
  originAs,
  translateAsPathRegex,
} from './as-path-match.js';
export { AcceptAll, PolicyChain, RejectAll } from './chain.js';
export {
  CompiledCommunityList,
  CompiledLargeCommunityList,
  compileCommunityList,
  compileLargeCommunityList,
  parseCommunity,
  parseLargeCommunity,
} from './communities.js';
export { BUILTIN_POLICIES, CompiledLists, compileLists, compilePolicies, compilePolicy } from './compile.js';
export {
  ExtCommunitySubType,
  ExtCommunityType,
  PolicyDefaults,
  WellKnownCommunity,
  wellKnownCommunityName,
} from './constants.js';
export {
  type Direction,
  effectivePolicy,
  type PeerPolicies,
  type PeerPolicyInput,
  rfc8212Reason,
} from './effective.js';
export { PolicyError, type PolicyErrorKind } from './errors.js';
export {
  CompiledExtCommunityList,
  compileExtCommunityList,
  EXT_COMMUNITY_EXPECTED,
  type ExtCommunityPattern,
  encodeExtCommunities,
  parseExtCommunity,
  parseExtCommunityPattern,
} from './ext-communities.js';
export {
  checkMaxPrefixConfig,
  INITIAL_MAX_PREFIX_STATE,
  type MaxPrefixAction,
  type MaxPrefixConfig,
  type MaxPrefixFamily,
  MaxPrefixGuard,
  type MaxPrefixState,
  maxPrefixData,
  stepMaxPrefix,
} from './max-prefix.js';
export type * from './model.js';
export { Policy } from './policy.js';
export { CompiledPrefixList, compilePrefixList, type LookupStrategy, NO_ENTRY } from './prefix-match.js';
export type { Accepted, PolicyResult, Rejected, RouteFilter } from './results.js';
export type { NextHopDirective } from './set-actions.js';
