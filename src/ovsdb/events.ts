import type { Logger } from '../components/index.js';

/**
 * A minimal typed event hub. A listener that throws is logged and skipped: one consumer's bug
 * must never stop the replica, or the other consumers, from receiving updates.
 */
export class Emitter<Events extends Record<string, unknown>> {
  readonly #listeners = new Map<keyof Events, Set<(value: never) => void>>();
  readonly #log: Logger;

  constructor(log: Logger) {
    this.#log = log;
  }

  on<K extends keyof Events>(event: K, listener: (value: Events[K]) => void): () => void {
    let set = this.#listeners.get(event);
    if (!set) {
      set = new Set();
      this.#listeners.set(event, set);
    }
    set.add(listener as (value: never) => void);
    return () => set.delete(listener as (value: never) => void);
  }

  emit<K extends keyof Events>(event: K, value: Events[K]): void {
    const set = this.#listeners.get(event);
    if (!set) return;
    for (const listener of [...set]) {
      try {
        (listener as (value: Events[K]) => void)(value);
      } catch (err) {
        this.#log.error({ err, event: String(event) }, 'ovsdb: event listener threw');
      }
    }
  }
}
