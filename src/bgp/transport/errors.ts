import { constants as osConstants } from 'node:os';
import { KindedError } from '../../components/index.js';

/** Stable reasons a transport call fails; tests and logs match on these, never on message text. */
export type TransportErrorKind =
  | 'invalid-address'
  | 'family-mismatch'
  | 'md5-key-empty'
  | 'md5-key-too-long'
  | 'md5-prefix-length'
  | 'invalid-option'
  | 'syscall'
  | 'connect-failed'
  | 'connect-timeout'
  | 'connect-aborted';

export interface TransportErrorDetail {
  /** The peer (or local) address the call was about, as the caller gave it. */
  readonly address?: string;
  /** errno name (EINVAL, ECONNREFUSED, ...) when the kernel said no. */
  readonly code?: string;
  readonly errno?: number;
  /** The libc call that failed, e.g. 'setsockopt(TCP_MD5SIG)'. */
  readonly syscall?: string;
}

/** Every failure of the transport: a stable `kind`, and the errno name and peer when known. */
export class TransportError extends KindedError<TransportErrorKind> {
  readonly address: string | undefined;
  readonly code: string | undefined;
  readonly errno: number | undefined;
  readonly syscall: string | undefined;

  constructor(kind: TransportErrorKind, message: string, detail: TransportErrorDetail = {}, cause?: unknown) {
    super(kind, message, cause === undefined ? undefined : { cause });
    this.address = detail.address;
    this.code = detail.code;
    this.errno = detail.errno;
    this.syscall = detail.syscall;
  }
}

const errnoNames: Record<number, string> = {};
for (const [name, value] of Object.entries(osConstants.errno)) errnoNames[value] ??= name;

/** 'EINVAL' for 22; 'E<n>' for numbers node does not know. */
export function errnoName(errno: number): string {
  return errnoNames[errno] ?? `E${errno}`;
}
