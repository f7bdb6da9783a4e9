import { KindedError } from '../components/index.js';
/** Stable kinds of policy errors, for tests and for the configuration layer's messages. */
export type PolicyErrorKind =
  | 'invalid-prefix'
  | 'invalid-length-range'
  | 'family-mismatch'
  | 'duplicate-seq'
  | 'duplicate-name'
  | 'unknown-list'
  | 'invalid-community'
  | 'invalid-large-community'
  | 'invalid-extended-community'
  | 'invalid-regex'
  | 'invalid-number'
  | 'invalid-value';

/**
 * A policy definition that cannot be compiled. `path` names the field as the model spells it
 * ("prefixLists[CUSTOMERS].entries[2].le") so the configuration layer can point at the line.
 */
export class PolicyError extends KindedError<PolicyErrorKind> {
  readonly path: string;

  constructor(kind: PolicyErrorKind, path: string, message: string) {
    super(kind, `${path}: ${message}`);
    this.path = path;
  }
}

/** Checks an integer in [min, max]; `path` names it in the error. */
export function checkInteger(value: unknown, min: number, max: number, path: string): number {
  if (typeof value !== 'number' || !Number.isInteger(value) || value < min || value > max)
    throw new PolicyError(
      'invalid-number',
      path,
      `expected an integer in ${min}..${max}, got ${String(value)}`,
    );
  return value;
}

export function checkOneOf<T extends string>(value: unknown, allowed: readonly T[], path: string): T {
  if (typeof value !== 'string' || !allowed.includes(value as T))
    throw new PolicyError(
      'invalid-value',
      path,
      `expected one of ${allowed.join(', ')}, got ${String(value)}`,
    );
  return value as T;
}
