import { KindedError } from '../../components/index.js';
import { OvsdbError, TransactionError } from '../../ovsdb/index.js';
import { PRECONDITION_OP, WAIT_FAILED } from './constants.js';

/** Every failure of the OVN NB target: a stable `kind` for logs, tests and the driver's retry. */
export type OvnNbErrorKind =
  /** No Logical_Router of the configured name (yet): retried until it appears. */
  | 'no-router'
  /** More than one Logical_Router has the name (NB does not index names). */
  | 'ambiguous-router'
  /** No synced NB session: nothing was sent. */
  | 'not-connected'
  /** The session died with the transaction out: it may or may not have committed. */
  | 'outcome-unknown'
  /** The router kept changing under us: every re-planned transaction failed its precondition. */
  | 'conflict'
  /** ovsdb-server refused the transaction (nothing committed). */
  | 'rejected'
  /** A given client does not replicate the columns the sink reads. */
  | 'not-monitored'
  | 'bad-config'
  | 'closed';

export class OvnNbError extends KindedError<OvnNbErrorKind> {
  constructor(kind: OvnNbErrorKind, message: string, options?: { cause?: unknown }) {
    super(kind, `${kind}: ${message}`, options);
  }
}

/**
 * What a transact failure means. Only a server's answer tells what happened: a failed precondition
 * (re-plan) or a refusal (nothing committed). A request that never reached the server is
 * 'not-connected'; any other loss leaves the outcome unknown.
 */
export function failureKind(err: unknown, closed = false): OvnNbErrorKind {
  if (closed) return 'closed';
  if (err instanceof TransactionError)
    return err.opIndex === PRECONDITION_OP && err.error === WAIT_FAILED ? 'conflict' : 'rejected';
  if (err instanceof OvsdbError) {
    if (err.kind === 'not-connected') return 'not-connected';
    // Encoding failed before anything was sent.
    if (err.kind === 'bad-datum' || err.kind === 'bad-schema') return 'rejected';
  }
  return 'outcome-unknown';
}
