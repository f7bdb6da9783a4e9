/**
 * BGP's TCP transport beyond node:net: RFC 2385 TCP-MD5 keys and RFC 5082 GTSM / TTL on
 * listening and connecting sockets, through a few libc calls.
 */
export {
  type ConnectComponents,
  type ConnectInit,
  connectToPeer,
  type OutgoingConnection,
} from './connect.js';
export { AF, type AfNumber, TransportDefaults } from './constants.js';
export type { Endpoint } from './endpoint.js';
export { TransportError, type TransportErrorKind } from './errors.js';
export {
  BgpListener,
  createListener,
  type IncomingConnection,
  type ListenerComponents,
  type ListenerInit,
  type PeerEntry,
  type RangeEntry,
} from './listener.js';
export { type EncodedMd5Sig, encodeMd5Sig, type Md5KeySpec } from './md5.js';
export {
  fdOf,
  getTtlOptions,
  gtsm,
  type IpScope,
  setMd5Key,
  setSocketTtl,
  setTtlOptions,
  type TtlOptions,
} from './socket-options.js';
