import {
  Afi,
  encodeUpdate,
  type PathAttributes,
  type PreparedAttributes,
  UpdatePacker,
  Writer,
} from '../bgp/wire/index.js';
import { InternTable } from './intern-table.js';

/** encodeUpdate's withdrawn-length and attribute-length fields, before the attributes. */
const UPDATE_PREFIX_BYTES = 4;
/** String.fromCharCode takes arguments on the stack: convert in bounded chunks. */
const CHUNK = 4096;

/**
 * Exported attribute sets interned by content (their encoding with 4-octet ASNs), so every
 * peer whose export gives the same attributes shares one object: its UPDATE bytes are
 * prepared once for every session with 4-octet ASNs (`prepared`). One string key per
 * attribute set, never per route.
 */
export class ExportInterner extends InternTable<PathAttributes> {
  readonly #w: Writer;
  /** Per id: the set's prepared UPDATE bytes for 4-octet-AS sessions, once asked for or known. */
  #prepared: (PreparedAttributes | undefined)[] = [];
  readonly #packer = new UpdatePacker({ as4: true });

  constructor() {
    const w = new Writer(256);
    super((a) => contentKey(w, a));
    this.#w = w;
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
      p = this.#packer.prepare(attrs);
      this.#prepared[id] = p;
    }
    return p;
  }

  protected override added(id: number, v: PathAttributes): void {
    // The content key was just encoded: without MP_REACH_NLRI (kept apart for the NLRI) and
    // in canonical order (no received layout), its attributes are the prepared bytes, so the
    // set is encoded once, not once more per session.
    if (v.mpReach === undefined && v.layout === undefined) {
      const w = this.#w;
      this.#prepared[id] = { afi: Afi.IPV4, rest: w.buf.slice(UPDATE_PREFIX_BYTES, w.pos), mpHeader: null };
    } else {
      this.#prepared[id] = undefined;
    }
  }

  protected override freed(id: number): void {
    this.#prepared[id] = undefined;
  }
}

function contentKey(w: Writer, a: PathAttributes): string {
  w.reset();
  encodeUpdate(w, { attrs: a }, { as4: true });
  let s = '';
  for (let i = UPDATE_PREFIX_BYTES; i < w.pos; i += CHUNK) {
    s += String.fromCharCode.apply(
      null,
      w.buf.subarray(i, Math.min(w.pos, i + CHUNK)) as unknown as number[],
    );
  }
  return s;
}
