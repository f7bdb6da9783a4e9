import { ChangeBatch, type Rib, type UpdateGroups } from '../rib/index.js';

/**
 * Turns RIB changes into work for the sessions, coalesced: however many UPDATEs arrive in one
 * event-loop turn, the decision process runs once after them (setImmediate), the batch goes
 * to the update groups, and `delivered` tells the sessions there is something to send.
 */
export class RouteFlow {
  readonly #rib: Rib;
  readonly #groups: UpdateGroups;
  readonly #defer: (fn: () => void) => void;
  readonly #delivered: (changes: ChangeBatch) => void;
  /** Reused from flush to flush: the changes as columns, valid until the next flush. */
  readonly #batch = new ChangeBatch();
  readonly #onError: (error: unknown) => void;
  #scheduled = false;
  #waiters: (() => void)[] = [];
  #closed = false;

  constructor(
    rib: Rib,
    groups: UpdateGroups,
    defer: (fn: () => void) => void,
    delivered: (changes: ChangeBatch) => void,
    onError: (error: unknown) => void = () => {},
  ) {
    this.#rib = rib;
    this.#groups = groups;
    this.#defer = defer;
    this.#delivered = delivered;
    this.#onError = onError;
  }

  /** Something changed in the RIB: flush it after the current turn. */
  schedule(): void {
    if (this.#scheduled || this.#closed) return;
    this.#scheduled = true;
    this.#defer(() => {
      // A failure here must not take the process down with every session: report it.
      try {
        this.flush();
      } catch (error) {
        this.#onError(error);
      }
    });
  }

  /** Resolves after the next flush (push-back for peers that send faster than we decide). */
  whenFlushed(): Promise<void> {
    if (this.#closed) return Promise.resolve();
    this.schedule();
    return new Promise((resolve) => this.#waiters.push(resolve));
  }

  /** Runs the decision process now and hands the changes on; returns them (valid until the next flush). */
  flush(): ChangeBatch {
    this.#scheduled = false;
    const changes = this.#batch;
    changes.reset();
    this.#rib.flushInto(changes);
    if (changes.count > 0) this.#groups.applyBatch(changes);
    this.#delivered(changes);
    const waiters = this.#waiters;
    this.#waiters = [];
    for (const w of waiters) w();
    return changes;
  }

  /** No more flushes; waiters are released. */
  close(): void {
    this.#closed = true;
    const waiters = this.#waiters;
    this.#waiters = [];
    for (const w of waiters) w();
  }
}
