/** The lowest path id we send (RFC 7911 leaves the values to the sender; 0 reads as "none" in tools). */
export const FIRST_SENT_PATH_ID = 1;

/**
 * The path ids we send for one prefix to one peer (RFC 7911 section 3): a path keeps its id
 * for as long as it is sent, however often its attributes change, so the peer sees an
 * implicit replace and never a withdraw plus a new path. A path that leaves gives its id back,
 * but the id stays retired for the rest of the turn (`generation`) in which its withdrawal is
 * packed, so no other path takes it while that withdrawal has not gone out.
 */
export class PathIds {
  /** Path key (where the path came from and its received id) → the id we send it with. */
  readonly #byKey = new Map<string, number>();
  /** Ids given back, with the generation in which they were. */
  readonly #retired = new Map<number, number>();

  /** Paths holding an id. */
  get size(): number {
    return this.#byKey.size;
  }

  /** The id of a path, if it has one. */
  idOf(key: string): number | undefined {
    return this.#byKey.get(key);
  }

  /** The id of a path, given a fresh one (the lowest free) if it has none. */
  assign(key: string, generation: number): number {
    const known = this.#byKey.get(key);
    if (known !== undefined) return known;
    const used = new Set(this.#byKey.values());
    let id = FIRST_SENT_PATH_ID;
    for (;;) {
      const retiredAt = this.#retired.get(id);
      if (retiredAt === generation) {
        id++;
        continue;
      }
      if (retiredAt !== undefined) this.#retired.delete(id);
      if (!used.has(id)) break;
      id++;
    }
    this.#byKey.set(key, id);
    return id;
  }

  /** The path left: its id is free again from the next generation on. Returns the id, if any. */
  release(key: string, generation: number): number | undefined {
    const id = this.#byKey.get(key);
    if (id === undefined) return undefined;
    this.#byKey.delete(key);
    this.#retired.set(id, generation);
    return id;
  }

  /** Every (key, id) held. */
  entries(): IterableIterator<[string, number]> {
    return this.#byKey.entries();
  }
}

/** The key of a Loc-RIB path: the peer or origin it came from and the path id it came with. */
export function pathKey(sourceId: string, receivedPathId: number): string {
  return `${sourceId}#${receivedPathId}`;
}
