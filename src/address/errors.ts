/** What is wrong with a text that should be an address or a prefix; callers branch on it. */
export type AddressErrorKind =
  | 'invalid-address'
  | 'missing-length'
  | 'invalid-length'
  | 'length-out-of-range'
  | 'host-bits-set';

/**
 * A text that is not the address or prefix it should be: a stable `kind` and a message that says
 * what is wrong. The same shape as components' KindedError, written out here because this
 * module stands on nothing else in src/.
 */
export class AddressError extends Error {
  readonly kind: AddressErrorKind;
  /** The text as the caller gave it. */
  readonly text: string;

  constructor(kind: AddressErrorKind, text: string, message: string) {
    super(message);
    this.name = 'AddressError';
    this.kind = kind;
    this.text = text;
  }
}
