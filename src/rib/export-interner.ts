import {
  Afi,
  encodeUpdate,
  hashKey,
  type PathAttributes,
  type PreparedAttributes,
  UpdatePacker,
  Writer,
} from '../bgp/wire/index.js';
import { grown } from './grow.js';
import { type ContentIndex, InternTable } from './intern-table.js';

/** encodeUpdate's withdrawn-length and attribute-length fields, before the attributes. */
const UPDATE_PREFIX_BYTES = 4;
/** End of a hash chain. */
const NONE = -1;

/**
 * Exported attribute sets by content: their encoding with 4-octet ASNs, kept per id, found
 * by a 32-bit hash of it (a chain of ids per hash, compared byte by byte). A number keys the
 * Map, not a string of the bytes: no string to build and hash per new set, none to keep.
 */
export class EncodedContent implements ContentIndex<PathAttributes> {
  /** Per id: the attributes' bytes (after the UPDATE's two length fields). */
  readonly bytes: (Uint8Array | undefined)[] = [];
  readonly #w = new Writer(256);
  /** Hash → the first id of its chain. */
  readonly #heads = new Map<number, number>();
  #next = new Int32Array(64);
  #hashes = new Int32Array(64);
  /** What the last `find` encoded and hashed, for the `add` that follows a miss. */
  #lastFound: PathAttributes | null = null;
  #lastHash = 0;
  readonly #hash: typeof hashKey;

  /** `hash` is replaceable so tests can make every set collide. */
  constructor(hash: typeof hashKey = hashKey) {
    this.#hash = hash;
  }

  find(v: PathAttributes): number | undefined {
    const w = this.#w.reset();
    encodeUpdate(w, { attrs: v }, { as4: true });
    const h = this.#hash(w.buf, UPDATE_PREFIX_BYTES, w.pos);
    this.#lastFound = v;
    this.#lastHash = h;
    for (let id = this.#heads.get(h) ?? NONE; id !== NONE; id = this.#next[id])
      if (sameBytes(this.bytes[id]!, w.buf, UPDATE_PREFIX_BYTES, w.pos)) return id;
    return undefined;
  }

  add(id: number, v: PathAttributes): void {
    if (v !== this.#lastFound) this.find(v);
    this.#lastFound = null;
    if (id >= this.#next.length) {
      const cap = Math.max(id + 1, this.#next.length * 2);
      this.#next = grown(this.#next, cap);
      this.#hashes = grown(this.#hashes, cap);
    }
    const h = this.#lastHash;
    const w = this.#w;
    this.bytes[id] = w.buf.slice(UPDATE_PREFIX_BYTES, w.pos);
    this.#hashes[id] = h;
    this.#next[id] = this.#heads.get(h) ?? NONE;
    this.#heads.set(h, id);
  }

  remove(id: number): void {
    const h = this.#hashes[id];
    const head = this.#heads.get(h)!;
    if (head === id) {
      if (this.#next[id] === NONE) this.#heads.delete(h);
      else this.#heads.set(h, this.#next[id]);
    } else {
      let prev = head;
      while (this.#next[prev] !== id) prev = this.#next[prev];
      this.#next[prev] = this.#next[id];
    }
    this.bytes[id] = undefined;
    this.#lastFound = null;
  }
}

function sameBytes(a: Uint8Array, b: Uint8Array, from: number, to: number): boolean {
  if (a.length !== to - from) return false;
  for (let i = 0; i < a.length; i++) if (a[i] !== b[from + i]) return false;
  return true;
}

/**
 * Exported attribute sets interned by content (their encoding with 4-octet ASNs), so every
 * peer whose export gives the same attributes shares one object: its UPDATE bytes are
 * prepared once for every session with 4-octet ASNs (`prepared`), from that very encoding
 * where it is the same.
 */
export class ExportInterner extends InternTable<PathAttributes> {
  readonly #content: EncodedContent;
  /** Per id: the set's prepared UPDATE bytes for 4-octet-AS sessions, once asked for. */
  #prepared: (PreparedAttributes | undefined)[] = [];
  readonly #packer = new UpdatePacker({ as4: true });

  constructor(content = new EncodedContent()) {
    super(content);
    this.#content = content;
  }

  /**
   * The UPDATE bytes of an interned set for a session with 4-octet ASNs (as
   * `UpdatePacker.prepare` makes them); undefined when the set is not interned here.
   */
  prepared(attrs: PathAttributes): PreparedAttributes | undefined {
    const id = this.idOf(attrs);
    if (id === undefined) return undefined;
    let p = this.#prepared[id];
    if (p === undefined) {
      // Without MP_REACH_NLRI (kept apart for the NLRI) and in canonical order (no received
      // layout), the content's bytes are the prepared ones: the set is encoded once, not once
      // more per session.
      p =
        attrs.mpReach === undefined && attrs.layout === undefined
          ? { afi: Afi.IPV4, rest: this.#content.bytes[id]!, mpHeader: null }
          : this.#packer.prepare(attrs);
      this.#prepared[id] = p;
    }
    return p;
  }

  protected override freed(id: number): void {
    this.#prepared[id] = undefined;
  }
}
