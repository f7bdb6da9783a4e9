import {
  CeaseSubcode,
  describeError,
  ErrorCode,
  HEADER_LENGTH,
  HeaderSubcode,
  NOTIFICATION_FIXED_LENGTH,
  SHUTDOWN_COMMUNICATION_MAX_LENGTH,
} from './constants.js';
import { BgpError } from './errors.js';
import type { Reader } from './reader.js';
import { Writer } from './writer.js';

/*
 * RFC 4271 section 4.5:
 *   | Error code (1) | Error subcode (1) | Data (variable) |
 */

export interface NotificationMessage {
  readonly type: 'notification';
  readonly code: number;
  readonly subcode: number;
  readonly data: Uint8Array;
}

/** Cease subcodes that carry an RFC 9003 Shutdown Communication. */
export type ShutdownSubcode =
  | typeof CeaseSubcode.ADMINISTRATIVE_SHUTDOWN
  | typeof CeaseSubcode.ADMINISTRATIVE_RESET;

const utf8 = new TextDecoder('utf-8', { fatal: true, ignoreBOM: true });
const utf8Encoder = new TextEncoder();
/** UTF-8 continuation octets are 10xxxxxx. */
const UTF8_CONTINUATION_MASK = 0xc0;
const UTF8_CONTINUATION = 0x80;

/**
 * Decodes a NOTIFICATION body. The data is copied: it outlives the receive buffer in logs.
 *
 * A body under 2 octets throws 1/2 (RFC 4271 section 6.1, Bad Message Length, the Data field
 * being the erroneous Length field). RFC 4271 section 6.4 forbids answering a NOTIFICATION
 * with one, so the session only logs this error and closes.
 */
export function decodeNotification(r: Reader): NotificationMessage {
  const bodyLength = r.remaining;
  if (bodyLength < NOTIFICATION_FIXED_LENGTH) {
    const data = new Writer(2).u16(HEADER_LENGTH + bodyLength).finish();
    throw new BgpError(
      'notification-too-short',
      ErrorCode.MESSAGE_HEADER,
      HeaderSubcode.BAD_MESSAGE_LENGTH,
      data,
      `NOTIFICATION body is ${bodyLength} octet(s), at least ${NOTIFICATION_FIXED_LENGTH} needed`,
    );
  }
  const code = r.u8();
  const subcode = r.u8();
  return { type: 'notification', code, subcode, data: r.copy(r.remaining) };
}

export function encodeNotification(w: Writer, m: NotificationMessage): void {
  w.u8(m.code).u8(m.subcode).bytes(m.data);
}

/** The NOTIFICATION that reports a BgpError. */
export function notificationFromError(e: BgpError): NotificationMessage {
  return { type: 'notification', code: e.code, subcode: e.subcode, data: e.data };
}

function isShutdown(n: NotificationMessage): boolean {
  return (
    n.code === ErrorCode.CEASE &&
    (n.subcode === CeaseSubcode.ADMINISTRATIVE_SHUTDOWN || n.subcode === CeaseSubcode.ADMINISTRATIVE_RESET)
  );
}

/**
 * The RFC 9003 Shutdown Communication of a Cease/2 or Cease/4, or null when there is none or it
 * is invalid. Never throws: RFC 9003 section 4 asks only that an invalid Length or invalid UTF-8
 * be logged. Length 0 gives ''. Octets after the communication are ignored (as FRR and GoBGP do).
 *
 *   | Length (1) | Shutdown Communication (Length octets of UTF-8) |
 */
export function shutdownMessage(n: NotificationMessage): string | null {
  if (!isShutdown(n) || n.data.length === 0) return null;
  const length = n.data[0];
  if (length > n.data.length - 1) return null;
  try {
    return utf8.decode(n.data.subarray(1, 1 + length));
  } catch {
    return null;
  }
}

/**
 * A Cease NOTIFICATION carrying `text` as its Shutdown Communication, cut to at most 255 octets
 * on a UTF-8 character boundary (RFC 9003 section 2).
 */
export function buildShutdown(
  text: string,
  subcode: ShutdownSubcode = CeaseSubcode.ADMINISTRATIVE_SHUTDOWN,
): NotificationMessage {
  let bytes = utf8Encoder.encode(text);
  if (bytes.length > SHUTDOWN_COMMUNICATION_MAX_LENGTH) {
    let end = SHUTDOWN_COMMUNICATION_MAX_LENGTH;
    // Back up over continuation octets so the cut lands before a character's first octet.
    while (end > 0 && (bytes[end] & UTF8_CONTINUATION_MASK) === UTF8_CONTINUATION) end--;
    bytes = bytes.subarray(0, end);
  }
  const data = new Uint8Array(1 + bytes.length);
  data[0] = bytes.length;
  data.set(bytes, 1);
  return { type: 'notification', code: ErrorCode.CEASE, subcode, data };
}

/**
 * "CEASE/ADMINISTRATIVE_SHUTDOWN (6/2): "maintenance"" for logs; an RFC 8538 Hard Reset names
 * the NOTIFICATION it carries: "CEASE/HARD_RESET (6/9) for CEASE/ADMINISTRATIVE_SHUTDOWN (6/2)".
 */
export function describeNotification(n: NotificationMessage): string {
  const base = describeError(n.code, n.subcode);
  const cause = hardResetCause(n);
  if (cause) return `${base} for ${describeNotification(cause)}`;
  const text = shutdownMessage(n);
  return text === null ? base : `${base}: ${JSON.stringify(text)}`;
}

/**
 * RFC 8538 section 5: the Cease subcodes whose suggested behaviour is Hard Reset (the session
 * ends for good and the routes go). Administrative Reset is "provide user control": like FRR's
 * default we keep it graceful, so `neighbor reset` refreshes the routes without a gap.
 */
export const HARD_RESET_CEASE_SUBCODES: ReadonlySet<number> = new Set([
  CeaseSubcode.MAXIMUM_NUMBER_OF_PREFIXES_REACHED,
  CeaseSubcode.ADMINISTRATIVE_SHUTDOWN,
  CeaseSubcode.PEER_DE_CONFIGURED,
  CeaseSubcode.HARD_RESET,
]);

export function isHardReset(n: Pick<NotificationMessage, 'code' | 'subcode'>): boolean {
  return n.code === ErrorCode.CEASE && n.subcode === CeaseSubcode.HARD_RESET;
}

/**
 * The NOTIFICATION to send once both sides set the N bit: a Cease that ends the session for
 * good goes as Hard Reset carrying it (RFC 8538 section 3), anything else unchanged.
 *
 *   Cease / Hard Reset, Data: | Error Code (1) | Subcode (1) | Data (variable) |
 */
export function withHardReset(n: NotificationMessage): NotificationMessage {
  if (n.code !== ErrorCode.CEASE || !HARD_RESET_CEASE_SUBCODES.has(n.subcode) || isHardReset(n)) return n;
  const data = new Uint8Array(NOTIFICATION_FIXED_LENGTH + n.data.length);
  data[0] = n.code;
  data[1] = n.subcode;
  data.set(n.data, NOTIFICATION_FIXED_LENGTH);
  return { type: 'notification', code: ErrorCode.CEASE, subcode: CeaseSubcode.HARD_RESET, data };
}

/** The NOTIFICATION a Hard Reset carries (RFC 8538 section 3), or null (not one, or too short). */
export function hardResetCause(n: NotificationMessage): NotificationMessage | null {
  if (!isHardReset(n) || n.data.length < NOTIFICATION_FIXED_LENGTH) return null;
  return {
    type: 'notification',
    code: n.data[0],
    subcode: n.data[1],
    data: n.data.subarray(NOTIFICATION_FIXED_LENGTH),
  };
}
