import type { BfdStateName } from './constants.js';

/*
 * What crosses between the speaker and the BFD worker: plain, structured-cloneable data.
 */

/** One BFD session to run: to a BGP peer's address, single hop (RFC 5881) or multihop (RFC 5883). */
export interface BfdSessionSpec {
  readonly peer: string;
  /** Our source address; undefined: the kernel's choice for the route to the peer. */
  readonly local: string | undefined;
  readonly multihop: boolean;
  /** Multihop: how many hops the peer may be away (its packets arrive with TTL 256 - hops or more). */
  readonly hops: number;
  readonly minTxMs: number;
  readonly minRxMs: number;
  readonly multiplier: number;
  /** The peer's UDP port, when not the standard one (tests). */
  readonly port?: number;
}

export type BfdTimersSpec = Pick<BfdSessionSpec, 'minTxMs' | 'minRxMs' | 'multiplier'>;

/** What `show` and the metrics read of a session. */
export interface BfdStatus {
  readonly state: BfdStateName;
  readonly remoteState: BfdStateName;
  readonly localDiscr: number;
  readonly remoteDiscr: number;
  readonly localDiag: number;
  readonly remoteDiag: number;
  readonly multihop: boolean;
  /** The interval we send at and the Detection Time of the peer's packets, in ms (0: not running). */
  readonly txIntervalMs: number;
  readonly detectionTimeMs: number;
  /** The peer's advertised values (0 until heard). */
  readonly remoteMinRxMs: number;
  readonly remoteMinTxMs: number;
  readonly remoteMultiplier: number;
  readonly remoteControlPlaneIndependent: boolean;
  /** A Poll Sequence is waiting for the peer's Final. */
  readonly polling: boolean;
  readonly transitions: number;
  /** Wall-clock ms of the last state change. */
  readonly lastChangeAt: number;
  /** Why the session last went Down from Up or Init, in words; null while it never did. */
  readonly lastDownReason: string | null;
}

/** A state change, as the speaker hears it. */
export interface BfdTransition {
  readonly from: BfdStateName;
  readonly to: BfdStateName;
  readonly diag: number;
  /** RFC 5882 section 3.2: the peer said AdminDown; its path did not fail. */
  readonly remoteAdminDown: boolean;
  /** Wall-clock ms. */
  readonly at: number;
}

export type ToWorker =
  | { readonly type: 'add'; readonly id: number; readonly spec: BfdSessionSpec }
  | { readonly type: 'update'; readonly id: number; readonly timers: BfdTimersSpec }
  | { readonly type: 'remove'; readonly id: number }
  | { readonly type: 'close' };

export type FromWorker =
  | { readonly type: 'ready'; readonly ports: { readonly singleHop: number; readonly multiHop: number } }
  | { readonly type: 'status'; readonly id: number; readonly status: BfdStatus }
  | {
      readonly type: 'transition';
      readonly id: number;
      readonly transition: BfdTransition;
      readonly status: BfdStatus;
    }
  | {
      readonly type: 'log';
      readonly level: 'debug' | 'info' | 'warn' | 'error';
      readonly message: string;
      readonly fields: Readonly<Record<string, unknown>>;
    }
  | { readonly type: 'closed' };
