/**
 * BFD (RFC 5880), single hop (RFC 5881) and multihop (RFC 5883), asynchronous mode without
 * authentication or Echo: a pure session core (`session.ts`, the 6.8.6 reception table in
 * `table.ts`), the engine that runs sessions' timers and demultiplexes packets, and the
 * service that runs the engine and its UDP sockets in a worker thread, away from the
 * speaker's busy event loop.
 */
export {
  BfdDefaults,
  BfdDiag,
  BfdPort,
  BfdState,
  type BfdStateName,
  diagText,
  STATE_NAMES,
} from './constants.js';
export { type Arrival, BfdEngine, type BfdEngineComponents, type BfdTransport } from './engine.js';
export {
  type ControlPacket,
  type Decoded,
  type DiscardKind,
  decodeControl,
  encodeControl,
} from './packet.js';
export { type BfdHandle, type BfdListener, BfdService, type BfdServiceInit } from './service.js';
export type { BfdSessionSpec, BfdStatus, BfdTimersSpec, BfdTransition } from './types.js';
