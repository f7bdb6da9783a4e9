/**
 * BMP (RFC 7854), the monitored router's side: the message codec (pure), and the station
 * that keeps collectors told of our peers, their Adj-RIBs-In and their counters.
 */

export {
  BmpCollector,
  type CollectorComponents,
  type CollectorInit,
  type CollectorState,
  type CollectorStatus,
} from './collector.js';
export * from './constants.js';
export { bmpMessageLength, decodeBmp, decodeBmpStream } from './decode.js';
export { dumpSession } from './dump.js';
export { encodeBmp, encodeBmpBytes, initiationTlvs, terminationTlvs, textTlv } from './encode.js';
export { BmpError, type BmpErrorKind } from './errors.js';
export type * from './messages.js';
export { bgpIdOf, peerDownReason, perPeerHeader, type RibView, RouteMessages } from './route-messages.js';
export type {
  AcceptedPath,
  BmpEvents,
  MonitoredPeer,
  MonitoredSession,
  RouteVisitor,
  SessionEnding,
} from './session.js';
export { BmpStation, type StationComponents } from './station.js';
