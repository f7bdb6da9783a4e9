/**
 * What the speaker must do with a fuzz case, and the verdict on what it did.
 *
 * Each mutator says which reactions the RFCs permit for the bytes it made: a NOTIFICATION
 * with one of a few (code, subcode) pairs (RFC 4271 6.x, RFC 7606 where a session reset
 * applies), or the session staying up (no error, treat-as-withdraw or attribute discard,
 * RFC 7606 2). Where the outcome is exact (a flags conflict on ORIGIN is treat-as-withdraw, a
 * duplicate attribute is discarded and the route kept), the routes that must be gone or present
 * afterwards are named too. Where it is not (random bit flips), the permitted set is wide, but
 * never "anything": a header error for bytes past the header, a silent close, a malformed
 * reply or no reaction at all is always a violation.
 */
import type { RouteKey } from './wire.js';

/** Any subcode of the code. */
export const ANY = -1;

export type Pair = readonly [code: number, subcode: number];

export interface Expect {
  readonly notify: readonly Pair[];
  /** The Data the first pair's NOTIFICATION must carry, where RFC 4271 6 says what it is. */
  readonly data?: Buffer;
  /** The session may stay up. */
  readonly up: boolean;
  /** When up: routes `show received` must no longer hold (treat-as-withdraw). */
  readonly absent?: readonly RouteKey[];
  /** When up: routes it must hold (no error, or attribute discard). */
  readonly present?: readonly RouteKey[];
}

export interface FuzzCase {
  readonly kind: 'open' | 'update';
  readonly mutator: string;
  readonly bytes: Buffer;
  readonly expect: Expect;
}

export type Outcome =
  | { readonly kind: 'notification'; readonly code: number; readonly subcode: number; readonly data: Buffer }
  | { readonly kind: 'up' }
  | { readonly kind: 'closed' }
  | { readonly kind: 'malformed'; readonly detail: string }
  | { readonly kind: 'silent' };

export const permits = (e: Expect, code: number, subcode: number): boolean =>
  e.notify.some(([c, s]) => c === code && (s === ANY || s === subcode));

/** A violation message, or undefined when the outcome is one the case permits. */
export function judge(e: Expect, o: Outcome): string | undefined {
  switch (o.kind) {
    case 'notification': {
      if (!permits(e, o.code, o.subcode))
        return `NOTIFICATION ${o.code}/${o.subcode}, permitted: ${describe(e)}`;
      const [first] = e.notify;
      const strict = e.data && first && first[0] === o.code && first[1] === o.subcode;
      return strict && !o.data.equals(e.data!)
        ? `NOTIFICATION ${o.code}/${o.subcode} data ${o.data.toString('hex') || '(none)'}, want ${e.data!.toString('hex')}`
        : undefined;
    }
    case 'up':
      return e.up ? undefined : `session stayed up, permitted: ${describe(e)}`;
    case 'closed':
      return 'connection closed without a NOTIFICATION (RFC 4271 6: an error is reported before closing)';
    case 'malformed':
      return `malformed message from the speaker: ${o.detail}`;
    case 'silent':
      return 'no reaction: no NOTIFICATION, and the session did not take the next UPDATE';
  }
}

export function describe(e: Expect): string {
  const n = e.notify.map(([c, s]) => `${c}/${s === ANY ? '*' : s}`);
  return [...n, ...(e.up ? ['session up'] : [])].join(', ') || 'nothing';
}

export const routeText = (r: RouteKey): string =>
  r.pathId === undefined ? r.prefix : `${r.prefix} id ${r.pathId}`;
