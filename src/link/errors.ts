import { KindedError } from '../components/index.js';

/** Stable reasons neighbour discovery fails; logs and tests match on these. */
export type LinkErrorKind = 'invalid-interface' | 'no-interface' | 'syscall';

export class LinkError extends KindedError<LinkErrorKind> {
  /** errno name when the kernel said no. */
  readonly code: string | undefined;

  constructor(kind: LinkErrorKind, message: string, code?: string) {
    super(kind, message);
    this.code = code;
  }
}
