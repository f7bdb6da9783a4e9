/**
 * The base of every error the project throws on purpose: `kind` is a stable string for logs,
 * metrics, tests and callers that branch on it (`err instanceof KindedError && err.kind`), and
 * the message is for people.
 */
export class KindedError<K extends string = string> extends Error {
  readonly kind: K;

  constructor(kind: K, message: string, options?: ErrorOptions) {
    super(message, options);
    this.name = new.target.name;
    this.kind = kind;
  }
}
