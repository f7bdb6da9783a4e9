/**
 * BGP sessions: the shell that binds the RFC 4271 FSM to TCP (one listener, active and
 * passive connections, collision detection), timers, framing and OPEN negotiation, and hands
 * the layers above decoded UPDATEs with backpressure both ways.
 */
export {
  childLogger,
  type Logger,
  type Scheduler,
  silentLogger,
  systemScheduler,
  type TimerHandle,
} from '../../components/index.js';
export {
  type AddPathSetting,
  resolvePeerConfig,
  type SessionPeerConfig,
  type SessionPeerInit,
} from './config.js';
export { FAMILY, FAMILY_NAMES, type FamilyName, familyName, SessionDefaults } from './constants.js';
export { SessionConfigError, SessionError, type SessionErrorKind } from './errors.js';
export { endsGracefully } from './graceful.js';
export { nextHopFacts } from './next-hop-facts.js';
export { checkFamilies, type GracefulRestartState, localCapabilities, localOpen } from './open.js';
export { Peer, type PeerComponents } from './peer.js';
export type {
  CollisionEvent,
  ConnectionInfo,
  EstablishedInfo,
  Family,
  NotificationEvent,
  PeerEvents,
  SessionEnd,
  StateChange,
} from './peer-events.js';
export {
  type ListenInit,
  Sessions,
  type SessionsComponents,
  type SessionsInit,
  type SessionsPeerInit,
} from './sessions.js';
export type { MessageCounts, MessageStats } from './stats.js';
export type { MessageTap, TapPoint } from './tap.js';
