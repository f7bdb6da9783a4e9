import { type BestCursor, ChangeBatch, FIRST_BEST, type Rib } from '../rib/index.js';
import { RoutingDefaults } from './constants.js';

/**
 * Something that takes the Loc-RIB's changes: the update groups (and through them every
 * session), each forwarding plane. Registered with RouteFlow, called in registration order.
 */
export interface RouteConsumer {
  /** For logs: "bgp", "kernel", "zebra", ... */
  readonly name: string;
  /**
   * The best-path changes of one flush (ECMP sets included), as columns: valid only during
   * the call, possibly empty. A consumer must not throw; a failure is reported, not retried.
   */
  accept(changes: ChangeBatch): void;
}

/**
 * Turns RIB changes into work for the consumers, coalesced: however many UPDATEs arrive in
 * one event-loop turn, the decision process runs once after them (setImmediate) and the
 * batch goes to every registered consumer. A consumer that lost its state (a sink that
 * reconnected) asks for a `replay` of every best path.
 */
export class RouteFlow {
  readonly #rib: Rib;
  readonly #defer: (fn: () => void) => void;
  readonly #consumers: RouteConsumer[] = [];
  /** Reused from flush to flush: the changes as columns, valid until the next flush. */
  readonly #batch = new ChangeBatch();
  readonly #onError: (error: unknown, consumer?: string) => void;
  #scheduled = false;
  #waiters: (() => void)[] = [];
  #closed = false;
  readonly #sliceSize: number;

  constructor(
    rib: Rib,
    defer: (fn: () => void) => void,
    onError: (error: unknown, consumer?: string) => void = () => {},
    sliceSize: number = RoutingDefaults.FLUSH_SLICE_PREFIXES,
  ) {
    this.#rib = rib;
    this.#defer = defer;
    this.#onError = onError;
    this.#sliceSize = sliceSize;
  }

  /** Adds a consumer of every later flush; returns its removal. */
  addConsumer(consumer: RouteConsumer): () => void {
    this.#consumers.push(consumer);
    return () => {
      const i = this.#consumers.indexOf(consumer);
      if (i >= 0) this.#consumers.splice(i, 1);
    };
  }

  /**
   * Something changed in the RIB: flush it after the current turn, a slice of prefixes per
   * turn (so a full table's backlog never holds the event loop for long: keepalives and the
   * kernel's answers get their turns in between).
   */
  schedule(): void {
    if (this.#scheduled || this.#closed) return;
    this.#scheduled = true;
    this.#defer(() => {
      // A failure here must not take the process down with every session: report it.
      try {
        this.flush(this.#sliceSize);
      } catch (error) {
        this.#onError(error);
      }
      if (this.#rib.pending > 0) this.schedule();
    });
  }

  /** Resolves after the next flush (push-back for peers that send faster than we decide). */
  whenFlushed(): Promise<void> {
    if (this.#closed) return Promise.resolve();
    this.schedule();
    return new Promise((resolve) => this.#waiters.push(resolve));
  }

  /**
   * Runs the decision process now on at most `budget` prefixes (all by default) and hands the
   * changes on; returns them (valid until the next flush).
   */
  flush(budget = Number.POSITIVE_INFINITY): ChangeBatch {
    this.#scheduled = false;
    const changes = this.#batch;
    changes.reset();
    this.#rib.flushInto(changes, budget);
    for (const c of this.#consumers) {
      try {
        c.accept(changes);
      } catch (error) {
        this.#onError(error, c.name);
      }
    }
    const waiters = this.#waiters;
    this.#waiters = [];
    for (const w of waiters) w();
    return changes;
  }

  /**
   * Every best path as 'add' changes, a slice per turn, handed to `into` (each batch valid
   * only during the call); resolves when all were offered. Changes flushed meanwhile reach
   * consumers as usual, and a prefix offered after such a change is offered as it is then.
   */
  replay(into: (slice: ChangeBatch) => void): Promise<void> {
    const slice = new ChangeBatch();
    return new Promise((resolve, reject) => {
      const step = (cursor: BestCursor) => {
        if (this.#closed) return resolve();
        try {
          slice.reset();
          const next = this.#rib.collectBest(cursor, RoutingDefaults.REPLAY_SLICE_ROUTES, slice);
          if (slice.count > 0) into(slice);
          slice.reset();
          if (next === null) resolve();
          else this.#defer(() => step(next));
        } catch (error) {
          reject(error);
        }
      };
      step(FIRST_BEST);
    });
  }

  /** No more flushes; waiters are released. */
  close(): void {
    this.#closed = true;
    const waiters = this.#waiters;
    this.#waiters = [];
    for (const w of waiters) w();
  }
}
