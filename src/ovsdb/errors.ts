import { KindedError } from '../components/index.js';
/**
 * Every failure the OVSDB client reports is an OvsdbError with a stable `kind` for logs, tests
 * and callers that branch on it. Protocol errors (from the peer) close the connection and
 * lead to a reconnect; caller errors (bad ops, bad values) only reject the call.
 */
export type OvsdbErrorKind =
  /** The byte stream is not a sequence of JSON objects/arrays (RFC 7047 section 4 framing). */
  | 'malformed-json'
  /** One message grew past `maxMessageBytes` before it ended. */
  | 'oversize-message'
  /** Valid JSON that is not a JSON-RPC 1.0 request, notification or response. */
  | 'bad-message'
  /** A response whose id matches no request we have outstanding. */
  | 'unknown-response-id'
  /** The server answered a request with a non-null `error` member. */
  | 'rpc-error'
  /** A transact reply carried an operation error or a commit-time error. */
  | 'transaction-failed'
  /** A datum does not fit its column type (RFC 7047 section 5.1). */
  | 'bad-datum'
  /** An update names a row the replica cannot apply it to, or is mis-shaped. */
  | 'bad-update'
  /** A schema (RFC 7047 section 3.2) we cannot read, or a table/column it lacks. */
  | 'bad-schema'
  /** A remote string we cannot parse (`unix:`, `tcp:`, `ssl:`). */
  | 'bad-remote'
  /** The transport failed to open, or closed under us. */
  | 'connection-failed'
  | 'connection-lost'
  /** Nothing received for two probe intervals (our echo went unanswered). */
  | 'inactivity-timeout'
  | 'request-timeout'
  /** The server is not one we may use: not connected to its cluster, not leader, stale, other cluster. */
  | 'server-unusable'
  | 'not-connected'
  | 'closed';

export class OvsdbError extends KindedError<OvsdbErrorKind> {
  /** Extra facts for the kind: the server's error object, the op index, the remote, ... */
  readonly data: Readonly<Record<string, unknown>>;

  constructor(kind: OvsdbErrorKind, message: string, data: Record<string, unknown> = {}) {
    super(kind, `${kind}: ${message}`);
    this.data = data;
  }
}

/**
 * A transact that failed: `opIndex` is the failing operation, or -1 for a commit-time error
 * (ovsdb-server appends one extra result element for those). `error` and `details` are the
 * server's strings, e.g. "constraint violation" and its explanation.
 */
export class TransactionError extends OvsdbError {
  readonly opIndex: number;
  readonly error: string;
  readonly details: string | undefined;

  constructor(opIndex: number, error: string, details: string | undefined) {
    const where = opIndex < 0 ? 'commit' : `operation ${opIndex}`;
    super('transaction-failed', `${where}: ${error}${details ? `: ${details}` : ''}`, {
      opIndex,
      error,
      details,
    });
    this.name = 'TransactionError';
    this.opIndex = opIndex;
    this.error = error;
    this.details = details;
  }
}

/** Short text for a value in an error message: never the whole of a large input. */
export function preview(value: unknown, max = 120): string {
  let text: string;
  try {
    text = typeof value === 'string' ? JSON.stringify(value) : (JSON.stringify(value) ?? String(value));
  } catch {
    text = String(value);
  }
  return text.length > max ? `${text.slice(0, max)}…` : text;
}
