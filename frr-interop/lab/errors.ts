/** Stable error kinds, for logs and for tests that assert what went wrong. */
export type LabErrorKind =
  | 'invalid-spec'
  | 'command-failed'
  | 'command-timeout'
  | 'daemon-not-ready'
  | 'daemon-exited'
  | 'wait-timeout'
  | 'unknown-peer'
  | 'unsupported'
  | 'state-file';

/** Every failure of the lab carries a `kind` so callers can branch without parsing messages. */
export class LabError extends Error {
  override readonly name = 'LabError';
  constructor(
    readonly kind: LabErrorKind,
    message: string,
  ) {
    super(message);
  }
}

export const invalid = (message: string): LabError => new LabError('invalid-spec', message);
