import { KindedError } from '../../components/index.js';
/**
 * Every failure of the zebra client is a ZapiError with a stable `kind`. Wire errors (from the
 * peer) close the connection and lead to a reconnect; caller errors only reject the call.
 */
export type ZapiErrorKind =
  /** A header whose marker byte is not 0xFE: not a ZAPI stream, or a ZAPI older than version 1. */
  | 'bad-marker'
  /**
   * A header whose version is not the one we speak (ZSERV_VERSION 6), or a zebra that answers
   * HELLO as neither FRR 8.4 nor FRR 10.3 would: a command numbering this client does not know.
   */
  | 'unsupported-version'
  /** A header length under 10 or over zebra's packet size. */
  | 'bad-length'
  /** A body shorter than its fields, or a field with a value the message cannot carry. */
  | 'malformed'
  /** Something we would send does not fit a frame or a field (too many next hops, bad prefix). */
  | 'unencodable'
  /** zebra did not answer HELLO with CAPABILITIES in time. */
  | 'handshake-timeout'
  | 'connection-failed'
  | 'connection-lost'
  | 'not-connected'
  | 'closed';

export class ZapiError extends KindedError<ZapiErrorKind> {
  readonly data: Readonly<Record<string, unknown>>;

  constructor(kind: ZapiErrorKind, message: string, data: Record<string, unknown> = {}) {
    super(kind, `${kind}: ${message}`);
    this.data = data;
  }
}
