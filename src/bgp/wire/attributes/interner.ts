import type { WireAttributes } from './wire-attributes.js';

/**
 * Hash-consing of attribute blocks by their bytes (MP_REACH_NLRI's NLRI and MP_UNREACH_NLRI
 * left out, see WireAttributes.raw), so an attribute set shared by many UPDATEs is checked
 * and held once. Open addressing over typed arrays: a lookup allocates nothing, unlike a Map
 * keyed by 32-bit hashes (which boxes every key above 2^30). Bounded: past `maxEntries`, or
 * once the sets held reach `maxBytes` of attribute bytes (a peer sending a new set in every
 * large UPDATE), the table starts afresh — values already handed out stay valid, only sharing
 * with them is lost.
 */
export class AttrInterner {
  readonly maxEntries: number;
  readonly maxBytes: number;
  /**
   * Entry index + 1 in the low TAG_SHIFT bits, the hash's top bits above (most mismatches are
   * told apart without reading the entry); 0 is an empty slot. At most half full.
   */
  private slots = new Int32Array(INITIAL_SLOTS);
  private entries: WireAttributes[] = [];
  /**
   * Each entry's full hash, so a table's growth places the entries again without reading
   * their bytes: hashing every held set anew cost about 6% of receiving a transit-like table.
   */
  private hashes = new Int32Array(INITIAL_SLOTS / 2);
  private bytes = 0;

  constructor(maxEntries = 1 << 20, maxBytes = 64 * 1024 * 1024) {
    if (!(maxEntries >= 1 && maxEntries <= MAX_ENTRIES))
      throw new RangeError(`attribute interner: maxEntries ${maxEntries} is outside 1..${MAX_ENTRIES}`);
    this.maxEntries = maxEntries;
    this.maxBytes = maxBytes;
  }

  /** Attribute bytes of the sets held. */
  get heldBytes(): number {
    return this.bytes;
  }

  get size(): number {
    return this.entries.length;
  }

  /**
   * The attribute set whose key is key[keyAt, keyAt + keyLen), hashed with hashKey (an int32),
   * checked for sessions like this one (`checkedFor`: the same bytes from an iBGP and an eBGP
   * peer do not make the same set, RFC 7606 section 7.5).
   */
  get(
    hash: number,
    key: Uint8Array,
    keyAt: number,
    keyLen: number,
    checkedFor = 0,
  ): WireAttributes | undefined {
    const slots = this.slots;
    const mask = slots.length - 1;
    const tag = hash >>> TAG_SHIFT;
    for (let i = hash & mask; ; i = (i + 1) & mask) {
      const s = slots[i];
      if (s === 0) return undefined;
      if (s >>> TAG_SHIFT === tag) {
        const attrs = this.entries[(s & ENTRY_MASK) - 1];
        if (attrs.checkedFor === checkedFor && sameKey(attrs, key, keyAt, keyLen)) return attrs;
      }
    }
  }

  /** Holds a set under `hash`, which must be hashKey of its bytes (growing hashes them again). */
  put(hash: number, attrs: WireAttributes): void {
    const len = attrs.rawEnd - attrs.rawStart;
    if (this.entries.length >= this.maxEntries || this.bytes + len > this.maxBytes) this.clear();
    if ((this.entries.length + 1) * 2 > this.slots.length) this.grow();
    this.hashes[this.entries.length] = hash;
    this.entries.push(attrs);
    this.bytes += len;
    place(this.slots, hash, this.entries.length);
  }

  clear(): void {
    this.slots = new Int32Array(INITIAL_SLOTS);
    this.entries = [];
    this.hashes = new Int32Array(INITIAL_SLOTS / 2);
    this.bytes = 0;
  }

  /** Twice the slots (and room for as many entries as they may hold). */
  private grow(): void {
    const slots = new Int32Array(this.slots.length * 2);
    const hashes = new Int32Array(slots.length / 2);
    hashes.set(this.hashes);
    for (let e = 0; e < this.entries.length; e++) place(slots, hashes[e], e + 1);
    this.slots = slots;
    this.hashes = hashes;
  }
}

const INITIAL_SLOTS = 2048;
const TAG_SHIFT = 21;
const ENTRY_MASK = (1 << TAG_SHIFT) - 1;
/** Entries + 1 fit below the tag. */
const MAX_ENTRIES = ENTRY_MASK - 1;

function place(slots: Int32Array, hash: number, entry: number): void {
  const mask = slots.length - 1;
  let i = hash & mask;
  while (slots[i] !== 0) i = (i + 1) & mask;
  slots[i] = ((hash >>> TAG_SHIFT) << TAG_SHIFT) | entry;
}

/**
 * The interning hash of key[from, to): MurmurHash3's 32-bit mixing over little-endian words,
 * a quarter of the dependent multiplies of a byte-wise hash.
 */
export function hashKey(key: Uint8Array, from: number, to: number): number {
  let h = (to - from) ^ 0x9747b28c;
  let i = from;
  for (const last = to - 3; i < last; i += 4) {
    let k = key[i] | (key[i + 1] << 8) | (key[i + 2] << 16) | (key[i + 3] << 24);
    k = Math.imul(k, 0xcc9e2d51);
    k = (k << 15) | (k >>> 17);
    h ^= Math.imul(k, 0x1b873593);
    h = (h << 13) | (h >>> 19);
    h = (Math.imul(h, 5) + 0xe6546b64) | 0;
  }
  let k = 0;
  for (let shift = 0; i < to; i++, shift += 8) k |= key[i] << shift;
  k = Math.imul(k, 0xcc9e2d51);
  k = (k << 15) | (k >>> 17);
  h ^= Math.imul(k, 0x1b873593);
  h ^= h >>> 16;
  h = Math.imul(h, 0x85ebca6b);
  h ^= h >>> 13;
  h = Math.imul(h, 0xc2b2ae35);
  h ^= h >>> 16;
  return h | 0; // a small integer, never a heap number
}

function sameKey(attrs: WireAttributes, key: Uint8Array, keyAt: number, len: number): boolean {
  const start = attrs.rawStart;
  if (attrs.rawEnd - start !== len) return false;
  const raw = attrs.raw;
  for (let i = 0; i < len; i++) if (raw[start + i] !== key[keyAt + i]) return false;
  return true;
}
