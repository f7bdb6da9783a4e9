import type { AttrInterner } from './attributes/interner.js';
import {
  Afi,
  ErrorCode,
  HEADER_LENGTH,
  HeaderSubcode,
  MAX_EXTENDED_MESSAGE_LENGTH,
  MAX_MESSAGE_LENGTH,
  MessageType,
  Safi,
  UNSPECIFIC_SUBCODE,
} from './constants.js';
import { BgpError, IncompleteError } from './errors.js';
import { checkHeader, finishHeader, startHeader } from './header.js';
import { decodeKeepalive, type KeepaliveMessage } from './keepalive.js';
import type { Negotiated } from './negotiate.js';
import { decodeNotification, encodeNotification, type NotificationMessage } from './notification.js';
import { decodeOpen, encodeOpen, type OpenMessage } from './open.js';
import { Reader } from './reader.js';
import { decodeRouteRefresh, encodeRouteRefresh, type RouteRefreshMessage } from './route-refresh.js';
import { encodeUpdate, type UpdateInput, type UpdateMessage } from './update.js';
import { DEFAULT_UPDATE_CONTEXT, type UpdateContext } from './update-context.js';
import { UpdateDecoder } from './update-decode.js';
import { Writer } from './writer.js';

export type BgpMessage =
  | OpenMessage
  | UpdateMessage
  | NotificationMessage
  | KeepaliveMessage
  | RouteRefreshMessage;

/** An UPDATE to send: the fields of UpdateInput with the message tag. */
export type OutgoingUpdate = UpdateInput & { readonly type: 'update' };
export type OutgoingMessage = Exclude<BgpMessage, UpdateMessage> | OutgoingUpdate;

/** What decoding needs to know about the session; before OPENs are exchanged, the defaults. */
export interface MessageContext {
  readonly update: UpdateContext;
  /** 4096, or 65535 once RFC 8654 Extended Message is negotiated. */
  readonly maxLength: number;
  readonly enhancedRouteRefresh: boolean;
}

export const DEFAULT_MESSAGE_CONTEXT: MessageContext = {
  update: DEFAULT_UPDATE_CONTEXT,
  maxLength: MAX_MESSAGE_LENGTH,
  enhancedRouteRefresh: false,
};

/** The decoding context a negotiated session (and the connection it runs on) implies. */
export function messageContextOf(
  n: Negotiated,
  ebgp: boolean,
  connection: Pick<UpdateContext, 'localAddress' | 'linkLocalSession'> = {},
): MessageContext {
  const receives = (afi: number) =>
    n.addPath.some((f) => f.afi === afi && f.safi === Safi.UNICAST && f.receive);
  return {
    update: {
      as4: n.as4,
      addPathIpv4: receives(Afi.IPV4),
      addPathIpv6: receives(Afi.IPV6),
      ebgp,
      ...connection,
    },
    maxLength: n.extendedMessage ? MAX_EXTENDED_MESSAGE_LENGTH : MAX_MESSAGE_LENGTH,
    enhancedRouteRefresh: n.enhancedRouteRefresh,
  };
}

/**
 * Decodes whole messages (as the Framer hands them out) for one session. UPDATEs go through
 * one UpdateDecoder, so attribute sets are interned across the session.
 */
export class MessageDecoder {
  readonly ctx: MessageContext;
  private readonly updates: UpdateDecoder;
  private readonly reader = new Reader(new Uint8Array(0));

  constructor(
    ctx: MessageContext = DEFAULT_MESSAGE_CONTEXT,
    options: { interner?: AttrInterner; reuseLists?: boolean } = {},
  ) {
    this.ctx = ctx;
    this.updates = new UpdateDecoder(ctx.update, options);
  }

  decode(msg: Uint8Array): BgpMessage {
    const length = checkHeader(msg, 0, this.ctx.maxLength);
    if (length !== msg.length) {
      throw new BgpError(
        'header-length',
        ErrorCode.MESSAGE_HEADER,
        HeaderSubcode.BAD_MESSAGE_LENGTH,
        msg.slice(16, 18),
      );
    }
    const type = msg[18];
    if (type === MessageType.UPDATE) return this.updates.decode(msg, HEADER_LENGTH, length);
    const r = this.reader.reset(msg, HEADER_LENGTH, length);
    try {
      switch (type) {
        case MessageType.OPEN:
          return decodeOpen(r);
        case MessageType.NOTIFICATION:
          return decodeNotification(r);
        case MessageType.KEEPALIVE:
          return decodeKeepalive(r);
        default:
          return decodeRouteRefresh(r, { enhancedRouteRefresh: this.ctx.enhancedRouteRefresh });
      }
    } catch (e) {
      // Inside a framed message, running out of bytes means its own lengths lied.
      if (e instanceof IncompleteError) {
        throw type === MessageType.OPEN
          ? new BgpError('open-truncated', ErrorCode.OPEN_MESSAGE, UNSPECIFIC_SUBCODE)
          : new BgpError(
              'message-truncated',
              ErrorCode.MESSAGE_HEADER,
              HeaderSubcode.BAD_MESSAGE_LENGTH,
              msg.slice(16, 18),
            );
      }
      throw e;
    }
  }
}

/** Decodes one whole message with a fresh decoder: for tests, tools and the first OPEN. */
export function decodeMessage(msg: Uint8Array, ctx: MessageContext = DEFAULT_MESSAGE_CONTEXT): BgpMessage {
  return new MessageDecoder(ctx).decode(msg);
}

const TYPE_CODE = {
  open: MessageType.OPEN,
  update: MessageType.UPDATE,
  notification: MessageType.NOTIFICATION,
  keepalive: MessageType.KEEPALIVE,
  'route-refresh': MessageType.ROUTE_REFRESH,
} as const;

/** Appends one whole message (header included) to `w`; returns its length. */
export function encodeMessage(
  w: Writer,
  m: OutgoingMessage | BgpMessage,
  ctx: MessageContext = DEFAULT_MESSAGE_CONTEXT,
): number {
  const at = startHeader(w, TYPE_CODE[m.type]);
  switch (m.type) {
    case 'open':
      encodeOpen(w, m);
      break;
    case 'update':
      encodeUpdate(w, m, ctx.update);
      break;
    case 'notification':
      encodeNotification(w, m);
      break;
    case 'route-refresh':
      encodeRouteRefresh(w, m);
      break;
    case 'keepalive':
      break;
  }
  const length = finishHeader(w, at);
  if (length > ctx.maxLength) {
    w.pos = at;
    throw new RangeError(`${m.type} of ${length} bytes exceeds the ${ctx.maxLength}-byte message limit`);
  }
  return length;
}

/** One message as its own byte array. */
export function encodeMessageBytes(
  m: OutgoingMessage | BgpMessage,
  ctx: MessageContext = DEFAULT_MESSAGE_CONTEXT,
): Uint8Array {
  const w = new Writer(256);
  encodeMessage(w, m, ctx);
  return w.finish();
}
