import { KindedError } from '../../components/index.js';
import { describeError } from './constants.js';

/**
 * A protocol error that resets the session: the NOTIFICATION (code, subcode, data) to send.
 * `kind` is a stable string for logs and tests. Only this is ever thrown by the decoders;
 * softer RFC 7606 outcomes come back as values.
 */
export class BgpError extends KindedError {
  readonly code: number;
  readonly subcode: number;
  readonly data: Uint8Array;
  constructor(kind: string, code: number, subcode: number, data: Uint8Array = EMPTY, detail?: string) {
    super(kind, `${kind}: ${describeError(code, subcode)}${detail ? `: ${detail}` : ''}`);
    this.code = code;
    this.subcode = subcode;
    this.data = data;
  }
}

/**
 * Thrown by a Reader when bytes run out. The framer turns it into "wait for more";
 * inside a framed message it means the message lied about its lengths, and the caller
 * converts it to the BgpError its RFC section asks for.
 */
export class IncompleteError extends KindedError<'incomplete'> {
  readonly needed: number;
  constructor(needed: number) {
    super('incomplete', `incomplete: ${needed} more byte(s) needed`);
    this.needed = needed;
  }
}

export const EMPTY = new Uint8Array(0);
