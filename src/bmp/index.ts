/**
 * BMP (RFC 7854), the monitored router's side: the message codec (pure), and the station
 * that keeps collectors told of our peers, their Adj-RIBs-In and their counters.
 */
export * from './constants.js';
export { bmpMessageLength, decodeBmp, decodeBmpStream } from './decode.js';
export { encodeBmp, encodeBmpBytes, initiationTlvs, terminationTlvs, textTlv } from './encode.js';
export { BmpError, type BmpErrorKind } from './errors.js';
export type * from './messages.js';
