import type { PathAttributes } from '../bgp/wire/index.js';
import type { BestPathReasonText } from './constants.js';
import type { RouteSource } from './peer.js';
import type { RibPrefix } from './prefix-key.js';

/** A selected path: its attributes (shared, interned) and where it came from. */
export interface RoutePath {
  readonly attrs: PathAttributes;
  readonly source: RouteSource;
  /** RFC 7911 path id as received (0 without add-path), or the local origination's id. */
  readonly pathId: number;
}

/** The best path (and equal-cost set) of a prefix was installed or replaced. */
export interface RouteAdd {
  readonly kind: 'add';
  readonly prefix: RibPrefix;
  /** The best path's attributes (= best.attrs). */
  readonly attrs: PathAttributes;
  readonly best: RoutePath;
  /** Paths to install, best first; [best] without multipath. */
  readonly multipath: readonly RoutePath[];
  /** Where the best path came from (= best.source). */
  readonly source: RouteSource;
  /** The decision step that chose the best path. */
  readonly reason: BestPathReasonText;
}

/** The prefix has no usable path any more. */
export interface RouteWithdraw {
  readonly kind: 'withdraw';
  readonly prefix: RibPrefix;
  /** Where the withdrawn best path had come from. */
  readonly source: RouteSource;
}

/**
 * What the Loc-RIB tells sinks and Adj-RIB-Outs, in batches: emitted only when a prefix's
 * best path or equal-cost set really changed, at most once per prefix per batch.
 */
export type RouteChange = RouteAdd | RouteWithdraw;

/**
 * A consumer of route changes (kernel, OVN NB, zebra). It owns only what it marked as its own
 * and never touches anything else.
 */
export interface RouteSink {
  apply(batch: readonly RouteChange[]): void | Promise<void>;
  /** After a restart: make the target hold exactly these routes (all 'add'). */
  reconcile(all: readonly RouteAdd[]): void | Promise<void>;
  close(): void | Promise<void>;
}
