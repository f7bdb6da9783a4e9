import type { FsmAction, FsmEvent } from '../fsm/index.js';
import {
  BgpError,
  buildShutdown,
  CeaseSubcode,
  checkHeader,
  describeNotification,
  EMPTY,
  ErrorCode,
  encodeMessageBytes,
  HEADER_LENGTH,
  KEEPALIVE,
  MessageType,
  type NotificationMessage,
  shutdownMessage,
} from '../wire/index.js';
import { SessionError } from './errors.js';
import type { NotificationEvent } from './peer-events.js';

/*
 * Between messages and FSM events: what the session shell translates, kept free of state.
 */

/** A KEEPALIVE never changes (RFC 4271 4.4): encoded once. */
export const KEEPALIVE_BYTES = encodeMessageBytes(KEEPALIVE);

/** The Type octet ends the header (RFC 4271 section 4.1). */
const TYPE_OFFSET = HEADER_LENGTH - 1;

/** What goes in a log line for an event, when the caller gave no better reason. */
const EVENT_REASON: Partial<Record<FsmEvent['type'], string>> = {
  HoldTimer_Expires: 'hold timer expired',
  ConnectRetryTimer_Expires: 'connect retry timer expired',
  IdleHoldTimer_Expires: 'idle hold time over',
  KeepAliveMsg: 'keepalive received',
  TcpConnectionFails: 'connection closed',
};

export function reasonOf(event: FsmEvent): string {
  return EVENT_REASON[event.type] ?? event.type;
}

/**
 * The FSM event that answers a BgpError with its NOTIFICATION (RFC 4271 8.1.5: events 21, 22,
 * 28), or null for codes no event carries (ROUTE-REFRESH Message Error, RFC 7313).
 */
export function errorEvent(e: BgpError): FsmEvent | null {
  const detail = e.data.length > 0 ? { data: e.data } : {};
  switch (e.code) {
    case ErrorCode.MESSAGE_HEADER:
      return { type: 'BGPHeaderErr', subcode: e.subcode, ...detail };
    case ErrorCode.OPEN_MESSAGE:
      return { type: 'BGPOpenMsgErr', subcode: e.subcode, ...detail };
    case ErrorCode.UPDATE_MESSAGE:
      return { type: 'UpdateMsgErr', subcode: e.subcode, ...detail };
    default:
      return null;
  }
}

/** The NOTIFICATION a send-notification action asks for; Cease/2 and /4 carry RFC 9003 text. */
export function notificationOf(a: Extract<FsmAction, { type: 'send-notification' }>): NotificationMessage {
  const communicates =
    a.message !== undefined &&
    (a.subcode === CeaseSubcode.ADMINISTRATIVE_SHUTDOWN || a.subcode === CeaseSubcode.ADMINISTRATIVE_RESET);
  return communicates
    ? buildShutdown(a.message!, a.subcode as typeof CeaseSubcode.ADMINISTRATIVE_SHUTDOWN)
    : { type: 'notification', code: a.code, subcode: a.subcode, data: a.data ?? EMPTY };
}

/** A NOTIFICATION as the peer's events report it. */
export function notificationEvent(direction: 'sent' | 'received', n: NotificationMessage): NotificationEvent {
  return {
    direction,
    code: n.code,
    subcode: n.subcode,
    data: n.data,
    message: shutdownMessage(n),
    text: describeNotification(n),
  };
}

/** Counts whole UPDATE messages within `maxLength`; anything else is refused. */
export function countUpdates(bytes: Uint8Array, maxLength: number): number {
  let pos = 0;
  let count = 0;
  while (pos < bytes.length) {
    let length: number;
    try {
      if (bytes.length - pos < HEADER_LENGTH) throw new Error('truncated header');
      length = checkHeader(bytes, pos, maxLength);
    } catch (error) {
      const why = error instanceof BgpError ? error.message : String(error);
      throw new SessionError('invalid-message', `message at offset ${pos}: ${why}`);
    }
    if (bytes[pos + TYPE_OFFSET] !== MessageType.UPDATE) {
      throw new SessionError('invalid-message', `message at offset ${pos} is not an UPDATE`);
    }
    if (pos + length > bytes.length) {
      throw new SessionError('invalid-message', `message at offset ${pos} is cut short`);
    }
    pos += length;
    count++;
  }
  return count;
}
