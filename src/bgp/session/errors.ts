import { KindedError } from '../../components/index.js';
/** Stable reasons a session call fails; tests and logs match on these, never on message text. */
export type SessionErrorKind =
  /** send/refresh with no Established session. */
  | 'not-established'
  /** The socket already holds MAX_WRITE_QUEUE_BYTES unsent: wait for `drain()`. */
  | 'write-queue-full'
  /** The family was not negotiated on this session (RFC 4760 / RFC 2918 section 4). */
  | 'family-not-negotiated'
  /** The peer did not advertise Route Refresh (RFC 2918 section 4). */
  | 'route-refresh-not-negotiated'
  /** sendRaw got bytes that are not whole UPDATE messages within the negotiated size. */
  | 'invalid-message'
  /** The session went down while the caller waited (drain). */
  | 'session-down'
  | 'unknown-peer'
  | 'duplicate-peer'
  | 'closed';

export class SessionError extends KindedError<SessionErrorKind> {
  constructor(kind: SessionErrorKind, message: string) {
    super(kind, message);
  }
}

/** An invalid peer setting; `field` names it. */
export class SessionConfigError extends KindedError<'session-config'> {
  readonly field: string;
  constructor(field: string, detail: string) {
    super('session-config', `peer config: ${field} ${detail}`);
    this.field = field;
  }
}
