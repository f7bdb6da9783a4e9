import {
  ErrorCode,
  HEADER_LENGTH,
  HeaderSubcode,
  MARKER_LENGTH,
  MAX_MESSAGE_LENGTH,
  MessageType,
} from './constants.js';
import { BgpError } from './errors.js';
import type { Writer } from './writer.js';

/**
 *   0                   1                   2                   3
 *   +-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+
 *   |                     Marker (16 octets of 0xff)                |
 *   +-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+
 *   |          Length               |      Type     |
 *   +-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+
 */

/** Smallest valid length of each message type (RFC 4271 sections 4.2-4.5, RFC 2918 section 3). */
const MIN_LENGTH: Record<number, number> = {
  [MessageType.OPEN]: 29,
  [MessageType.UPDATE]: 23,
  [MessageType.NOTIFICATION]: 21,
  [MessageType.KEEPALIVE]: 19,
  [MessageType.ROUTE_REFRESH]: 23,
};

/**
 * Checks the header at buf[pos] (19 bytes must be there) and returns the message length.
 * RFC 4271 section 6.1: a marker that is not all ones is Connection Not Synchronized; a length
 * out of range or below the type's minimum (or a KEEPALIVE longer than 19) is Bad Message
 * Length with the length field as data; an unknown type is Bad Message Type with the type.
 */
export function checkHeader(buf: Uint8Array, pos: number, maxLength = MAX_MESSAGE_LENGTH): number {
  for (let i = 0; i < MARKER_LENGTH; i++) {
    if (buf[pos + i] !== 0xff) {
      throw new BgpError(
        'header-marker',
        ErrorCode.MESSAGE_HEADER,
        HeaderSubcode.CONNECTION_NOT_SYNCHRONIZED,
      );
    }
  }
  const length = (buf[pos + 16] << 8) | buf[pos + 17];
  const type = buf[pos + 18];
  if (length < HEADER_LENGTH || length > maxLength) throw badLength(buf, pos, length);
  const min = MIN_LENGTH[type];
  if (min === undefined) {
    throw new BgpError(
      'header-type',
      ErrorCode.MESSAGE_HEADER,
      HeaderSubcode.BAD_MESSAGE_TYPE,
      buf.slice(pos + 18, pos + 19),
    );
  }
  if (length < min || (type === MessageType.KEEPALIVE && length !== HEADER_LENGTH))
    throw badLength(buf, pos, length);
  return length;
}

function badLength(buf: Uint8Array, pos: number, length: number): BgpError {
  return new BgpError(
    'header-length',
    ErrorCode.MESSAGE_HEADER,
    HeaderSubcode.BAD_MESSAGE_LENGTH,
    buf.slice(pos + 16, pos + 18),
    `length ${length}`,
  );
}

/** Writes a header with a zero length; `finishHeader` fills it in once the body is written. */
export function startHeader(w: Writer, type: number): number {
  const at = w.mark();
  w.fill(0xff, MARKER_LENGTH).u16(0).u8(type);
  return at;
}

export function finishHeader(w: Writer, at: number): number {
  const length = w.pos - at;
  w.patch16(at + MARKER_LENGTH, length);
  return length;
}
