import {
  Afi,
  AttrFlag,
  AttrType,
  attributeEnd,
  encodeUpdate,
  hashKey,
  type PathAttributes,
  type PreparedAttributes,
  UpdateDecoder,
  UpdatePacker,
  WireAttributes,
  Writer,
} from '../bgp/wire/index.js';
import { grown } from './grow.js';
import type { ContentIndex } from './intern-table.js';
import { WireInternTable } from './wire-intern-table.js';

/** encodeUpdate's withdrawn-length and attribute-length fields, before the attributes. */
const UPDATE_PREFIX_BYTES = 4;
/** Slots of the id table at first; it doubles whenever it would be more than half full. */
const INITIAL_SLOTS = 1024;

/**
 * Exported attribute sets by content: their encoding with 4-octet ASNs, found by a 32-bit
 * hash of it in an open-addressed table of ids (compared byte by byte): nothing to build or
 * keep per set but two integers, where a Map by hash cost tens of bytes a set and its growth.
 *
 * A new set is kept as a compact one: the encoding, decoded into a wire-backed set over a
 * copy in an arena (`compact`). The exported set as built — a dozen fields, its AS_PATH as
 * arrays, about 1 KB of heap with the received set's decoded fields — is then garbage, and
 * the canonical set is its bytes plus one object, read lazily when anything asks.
 */
export class EncodedContent implements ContentIndex<PathAttributes> {
  readonly #w = new Writer(256);
  /** iBGP's rules and 4-octet ASNs: every attribute an export carries is kept as it is. */
  readonly #decoder = new UpdateDecoder(
    { as4: true, ebgp: false, addPathIpv4: false, addPathIpv6: false },
    { reuseLists: true },
  );
  /** Per id: the canonical encoding is raw[start, end) (a compact set's arena, or a copy). */
  #raw: (Uint8Array | undefined)[] = [];
  #start = new Int32Array(64);
  #end = new Int32Array(64);
  /** Open addressing, probed linearly from a set's hash: id + 1 per slot, 0 when empty. */
  #slots = new Int32Array(INITIAL_SLOTS);
  #count = 0;
  /** Per id: its hash, for removing and for growing the table. */
  #hashes = new Int32Array(64);
  /** What the last `find` encoded and hashed, for the `add` that follows a miss. */
  #lastFound: PathAttributes | null = null;
  #lastHash = 0;
  /** The set `compact` made from the last encoding: known new, and already hashed. */
  #compacted: WireAttributes | null = null;
  readonly #hash: typeof hashKey;

  /** `hash` is replaceable so tests can make every set collide. */
  constructor(hash: typeof hashKey = hashKey) {
    this.#hash = hash;
  }

  find(v: PathAttributes): number | undefined {
    if (v === this.#compacted) return undefined;
    const w = this.#w.reset();
    encodeUpdate(w, { attrs: v }, { as4: true });
    this.#lastFound = v;
    return this.#lookup();
  }

  /**
   * The writer an export written as bytes goes into (an UPDATE body, as encodeUpdate writes
   * it), for `findWritten`.
   */
  get writer(): Writer {
    return this.#w;
  }

  /** As `find`, for a set the caller wrote into `writer` itself; `compactWritten` may follow a miss. */
  findWritten(): number | undefined {
    this.#lastFound = null;
    return this.#lookup();
  }

  /** The id of the encoding in the writer, by its hash. */
  #lookup(): number | undefined {
    const w = this.#w;
    const h = this.#hash(w.buf, UPDATE_PREFIX_BYTES, w.pos);
    this.#lastHash = h;
    this.#compacted = null;
    const slots = this.#slots;
    const mask = slots.length - 1;
    for (let i = h & mask; slots[i] !== 0; i = (i + 1) & mask) {
      const id = slots[i] - 1;
      if (
        this.#hashes[id] === h &&
        sameBytes(this.#raw[id]!, this.#start[id], this.#end[id], w.buf, UPDATE_PREFIX_BYTES, w.pos)
      )
        return id;
    }
    return undefined;
  }

  /**
   * After a `findWritten` that missed: the set written by rib/wire-export.ts, from checked
   * bytes, as a compact wire-backed set (without decode's checks).
   */
  compactWritten(): WireAttributes {
    const w = this.#w;
    const attrs = this.#decoder.trustedAttributes(w.buf, 0, w.pos);
    this.#compacted = attrs;
    this.#lastFound = attrs;
    return attrs;
  }

  /**
   * After a `find` that missed: the set it encoded as a compact wire-backed set, or null when
   * the bytes do not decode back cleanly (the set as built is then kept instead).
   */
  compact(): WireAttributes | null {
    const w = this.#w;
    let attrs: PathAttributes | null;
    try {
      const u = this.#decoder.decode(w.buf, 0, w.pos);
      attrs = u.action === 'ok' ? u.attrs : null;
    } catch {
      return null;
    }
    if (!(attrs instanceof WireAttributes) || attrs.issues.length > 0) return null;
    this.#compacted = attrs;
    this.#lastFound = attrs;
    return attrs;
  }

  /** Whether `attrs` is the compact set made for `id` (its bytes are the ones held for it). */
  isCompact(id: number, attrs: WireAttributes): boolean {
    return (
      attrs.raw === this.#raw[id] && attrs.rawStart === this.#start[id] && attrs.rawEnd === this.#end[id]
    );
  }

  add(id: number, v: PathAttributes): void {
    if (v !== this.#lastFound) this.find(v);
    this.#lastFound = null;
    if (id >= this.#hashes.length) {
      const cap = Math.max(id + 1, this.#hashes.length * 2);
      this.#hashes = grown(this.#hashes, cap);
      this.#start = grown(this.#start, cap);
      this.#end = grown(this.#end, cap);
    }
    const c = this.#compacted;
    if (c !== null && v === c) {
      this.#raw[id] = c.raw;
      this.#start[id] = c.rawStart;
      this.#end[id] = c.rawEnd;
    } else {
      const w = this.#w;
      this.#raw[id] = w.buf.slice(UPDATE_PREFIX_BYTES, w.pos);
      this.#start[id] = 0;
      this.#end[id] = w.pos - UPDATE_PREFIX_BYTES;
    }
    this.#compacted = null;
    this.#hashes[id] = this.#lastHash;
    if ((this.#count + 1) * 2 > this.#slots.length) this.#grow();
    this.#place(this.#slots, id);
    this.#count++;
  }

  remove(id: number): void {
    const slots = this.#slots;
    const mask = slots.length - 1;
    let i = this.#hashes[id] & mask;
    while (slots[i] !== id + 1) i = (i + 1) & mask;
    // Backward-shift deletion: a later entry of the run moves into the hole unless its own
    // slot lies cyclically after the hole, so every probe still meets no gap before its id.
    for (let j = (i + 1) & mask; slots[j] !== 0; j = (j + 1) & mask) {
      const home = this.#hashes[slots[j] - 1] & mask;
      const stays = i <= j ? i < home && home <= j : i < home || home <= j;
      if (stays) continue;
      slots[i] = slots[j];
      i = j;
    }
    slots[i] = 0;
    this.#count--;
    this.#raw[id] = undefined;
    this.#lastFound = null;
    this.#compacted = null;
  }

  #place(slots: Int32Array, id: number): void {
    const mask = slots.length - 1;
    let i = this.#hashes[id] & mask;
    while (slots[i] !== 0) i = (i + 1) & mask;
    slots[i] = id + 1;
  }

  #grow(): void {
    const old = this.#slots;
    const slots = new Int32Array(old.length * 2);
    for (let i = 0; i < old.length; i++) if (old[i] !== 0) this.#place(slots, old[i] - 1);
    this.#slots = slots;
  }

  /**
   * A live id's encoding as an UPDATE carries it to a 4-octet-AS session: every attribute
   * but MP_REACH_NLRI (`rest`), and MP_REACH_NLRI's value without NLRI (`mpHeader`), which
   * encodeUpdate writes first.
   */
  prepared(id: number): PreparedAttributes {
    const raw = this.#raw[id]!;
    const start = this.#start[id];
    const end = this.#end[id];
    const reachEnd = raw[start + 1] === AttrType.MP_REACH_NLRI ? attributeEnd(raw, start) : start;
    if (reachEnd === start)
      return { afi: Afi.IPV4, rest: raw, restStart: reachEnd, restEnd: end, mpHeader: null };
    const valueStart = start + ((raw[start] & AttrFlag.EXTENDED_LENGTH) !== 0 ? 4 : 3);
    return {
      afi: (raw[valueStart] << 8) | raw[valueStart + 1],
      rest: raw,
      restStart: reachEnd,
      restEnd: end,
      mpHeader: raw.subarray(valueStart, reachEnd),
    };
  }
}

function sameBytes(
  a: Uint8Array,
  aFrom: number,
  aTo: number,
  b: Uint8Array,
  from: number,
  to: number,
): boolean {
  if (aTo - aFrom !== to - from) return false;
  for (let i = aFrom, j = from; i < aTo; i++, j++) if (a[i] !== b[j]) return false;
  return true;
}

/**
 * Exported attribute sets interned by content (their encoding with 4-octet ASNs), so every
 * peer whose export gives the same attributes shares one set, kept compact (EncodedContent),
 * and its UPDATE bytes are prepared once for every session with 4-octet ASNs (`prepared`),
 * straight from that encoding.
 */
export class ExportInterner extends WireInternTable {
  readonly #content: EncodedContent;
  /** Per id: the prepared UPDATE bytes of a set not in canonical order, once asked for. */
  #prepared: (PreparedAttributes | undefined)[] = [];
  readonly #packer = new UpdatePacker({ as4: true });

  constructor(content = new EncodedContent()) {
    super(content);
    this.#content = content;
  }

  /**
   * The id of `v` or of a set equal by content. A new set is held as its compact twin:
   * `get(id)` is then not `v` but equal to it.
   */
  override intern(v: PathAttributes): number {
    const known = this.idOf(v);
    if (known !== undefined) return known;
    const same = this.#content.find(v);
    if (same !== undefined) return same;
    return super.intern(this.#content.compact() ?? v);
  }

  /**
   * The writer a caller fills with an export's encoding (an UPDATE body, 4-octet ASNs,
   * canonical order) for `internWritten`.
   */
  get writer(): Writer {
    return this.#content.writer;
  }

  /**
   * The id of the set wire-export.ts wrote in `writer` (from a received set's checked bytes),
   * interned as its compact set when new.
   */
  internWritten(): number {
    const same = this.#content.findWritten();
    if (same !== undefined) return same;
    return super.intern(this.#content.compactWritten());
  }

  /**
   * The UPDATE bytes of an interned set for a session with 4-octet ASNs (as
   * `UpdatePacker.prepare` makes them); undefined when the set is not interned here.
   */
  prepared(attrs: PathAttributes): PreparedAttributes | undefined {
    const id = this.idOf(attrs);
    if (id === undefined) return undefined;
    // In canonical order (a compact set's bytes are its encoding; a set as built has no
    // received layout) the content's bytes are the prepared ones: the set is encoded once,
    // not once more per session. Their ranges are made anew at each ask, not kept: a kept
    // object per set would be a full table's worth of them for the collector to promote.
    const canonical =
      attrs instanceof WireAttributes ? this.#content.isCompact(id, attrs) : attrs.layout === undefined;
    if (canonical) return this.#content.prepared(id);
    let p = this.#prepared[id];
    if (p === undefined) {
      p = this.#packer.prepare(attrs);
      this.#prepared[id] = p;
    }
    return p;
  }

  protected override freed(id: number): void {
    this.#prepared[id] = undefined;
  }
}
