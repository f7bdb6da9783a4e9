/**
 * A typed event emitter whose listeners may push back: a listener that returns a promise (a
 * thenable) tells the emitter's owner to wait for it before producing more. A listener that
 * throws is reported to `onListenerError` and never breaks the session that emitted.
 */
export type EventMap = { readonly [event: string]: readonly unknown[] };
export type Listener<A extends readonly unknown[]> = (...args: A) => unknown;

export function isThenable(v: unknown): v is PromiseLike<unknown> {
  return (
    v !== null &&
    (typeof v === 'object' || typeof v === 'function') &&
    typeof (v as { then?: unknown }).then === 'function'
  );
}

export class Emitter<E extends EventMap> {
  // Copy on write: `emit` walks the array it found, whatever listeners do meanwhile, without
  // copying it per event (an UPDATE is one).
  readonly #listeners = new Map<keyof E, readonly Listener<E[keyof E]>[]>();
  readonly #onListenerError: (event: string, error: unknown) => void;

  constructor(onListenerError: (event: string, error: unknown) => void) {
    this.#onListenerError = onListenerError;
  }

  /** Adds a listener; returns a function that removes it. */
  on<K extends keyof E>(event: K, listener: Listener<E[K]>): () => void {
    const list = this.#listeners.get(event) ?? [];
    const l = listener as Listener<E[keyof E]>;
    if (!list.includes(l)) this.#listeners.set(event, [...list, l]);
    return () => this.off(event, listener);
  }

  off<K extends keyof E>(event: K, listener: Listener<E[K]>): void {
    const list = this.#listeners.get(event);
    if (list)
      this.#listeners.set(
        event,
        list.filter((l) => l !== listener),
      );
  }

  listenerCount(event: keyof E): number {
    return this.#listeners.get(event)?.length ?? 0;
  }

  /** Calls every listener in order; returns a promise when any of them asked to be waited for. */
  emit<K extends keyof E>(event: K, ...args: E[K]): PromiseLike<unknown> | undefined {
    const list = this.#listeners.get(event);
    if (!list || list.length === 0) return undefined;
    let waits: PromiseLike<unknown>[] | undefined;
    for (let i = 0; i < list.length; i++) {
      try {
        const r = list[i](...args);
        if (isThenable(r)) {
          waits ??= [];
          // A rejected wait is the listener's failure; the emitter only waited for it.
          waits.push(
            Promise.resolve(r).catch((error: unknown) => this.#onListenerError(String(event), error)),
          );
        }
      } catch (error) {
        this.#onListenerError(String(event), error);
      }
    }
    if (!waits) return undefined;
    return waits.length === 1 ? waits[0] : Promise.all(waits);
  }
}
