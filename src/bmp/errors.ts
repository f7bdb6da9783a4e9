import { KindedError } from '../components/index.js';

export type BmpErrorKind = 'incomplete' | 'bad-version' | 'bad-length' | 'bad-type' | 'bad-body';

/**
 * A BMP stream the decoder cannot read. `incomplete` means more bytes may still make a
 * message (a framer waits); every other kind means the bytes are wrong.
 */
export class BmpError extends KindedError<BmpErrorKind> {}
