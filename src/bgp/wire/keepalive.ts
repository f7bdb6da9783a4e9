import type { Reader } from './reader.js';
import type { Writer } from './writer.js';

/**
 * RFC 4271 section 4.4: a KEEPALIVE is the header alone. A non-empty body is a header error
 * (1/2, section 6.1) and is caught with the other length checks before the body is looked at.
 */
export interface KeepaliveMessage {
  readonly type: 'keepalive';
}

export const KEEPALIVE: KeepaliveMessage = Object.freeze({ type: 'keepalive' });

/** Present so every message type has a decode/encode pair; there is nothing to read. */
export function decodeKeepalive(_r: Reader): KeepaliveMessage {
  return KEEPALIVE;
}

export function encodeKeepalive(_w: Writer, _m: KeepaliveMessage): void {}
