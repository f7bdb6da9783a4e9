import { maskIpv4, maskWord } from '../address/index.js';
import { Afi, type AfiCode } from '../bgp/wire/index.js';
import { grown, nextCapacity, released } from './grow.js';
import { RibPrefix } from './prefix-key.js';

/** `lens` value of an entry on the free list (no prefix is 255 bits long). */
const FREE = 255;
const EMPTY_SLOT = 0;
/** A slot is the hash's top 7 bits over entry + 1 in the low 25. */
const TAG_SHIFT = 25;
const ENTRY_MASK = (1 << TAG_SHIFT) - 1;
const MAX_ENTRIES = ENTRY_MASK - 1;
/** From this many slots (8 MiB) on, growing fills the new table a region at a time (see rehash). */
const PARTITIONED_REHASH_SLOTS = 1 << 21;
const REHASH_REGION_BITS = 6;
/** Fewer appended entries than this are placed one by one, without sorting them first. */
const PARTITIONED_PLACE_ENTRIES = 1 << 16;
const MIN_SLOTS = 16;
/**
 * A table growing past this many slots (196k prefixes) is most likely taking a full table:
 * it grows straight to FULL_TABLE_SLOTS (8 MiB, room for 1.5M prefixes), placing its entries
 * once instead of three more times, each bigger than the last (a 1M table's last placement
 * alone was half its growth's cost).
 */
const SKIP_SLOTS_FROM = 1 << 18;
const FULL_TABLE_SLOTS = 1 << 21;
const MIN_ENTRIES = 8;
/** Slots are doubled before the table is 3/4 full: linear probing stays short. */
const MAX_LOAD_NUM = 3;
const MAX_LOAD_DEN = 4;

/** Called with the new entry capacity, so the owner can grow the columns it keeps per entry. */
export type GrowColumns = (capacity: number) => void;

/**
 * A set of prefixes (plus RFC 7911 path id when `withPathIds`) numbered by dense entry
 * indexes, for the RIBs to keep their per-route data in parallel typed arrays. Open
 * addressing with linear probing; keys live in struct-of-arrays columns (1 word per IPv4
 * prefix, 4 per IPv6), masked to the length. Nothing is allocated per prefix and the garbage
 * collector sees a handful of typed arrays instead of a million objects.
 *
 *   slots:  [ tag:7 e+1:25 | 0 | tag e+1 | ... ]  (power of two, <= 3/4 full)
 *   words:  [ w(e0) ... | w(e1) ... ]            (1 or 4 per entry)
 *   lens:   [ len(e0) | len(e1) | ... ]          (255 = free entry)
 *   pathIds:[ id(e0) | id(e1) | ... ]            (only with path ids)
 *
 * Each slot keeps 7 bits of the key's hash above the entry number: a probe reads the key
 * columns only when the tag matches (1 time in 128 for another key), so adding a new prefix
 * to a table far bigger than the cache costs one miss, and a slot is 4 bytes, not 8. Growing
 * walks the entries in order and hashes their keys again.
 *
 * Removal shifts later members of the probe run back (no tombstones), and freed entries
 * are reused, chained through their first word.
 *
 * A caller that knows its prefixes are new (a peer's initial table, offered once each) may
 * `append` them: entries without slots, placed all at once, region by region as a rehash
 * places them, when anything next reads the slots. Inserted one by one, each new prefix of a
 * table far bigger than the cache costs a miss on its home slot; placed in bulk, they cost a
 * sorted pass.
 */
export class PrefixTable {
  readonly afi: AfiCode;
  readonly withPathIds: boolean;
  readonly wordsPerPrefix: 1 | 4;
  /** Live entries. */
  size = 0;
  /** High-water mark: entries [0, end) have been used; the live ones have lens !== 255. */
  end = 0;
  capacity: number;
  words: Uint32Array;
  lens: Uint8Array;
  pathIds: Uint32Array;
  /** Where `prefetch` leaves what it read, so its loads are not optimized away. */
  touched = 0;
  /** Whether the last `insert` created the entry (false: it was there already). */
  added = false;
  /** Tag and entry + 1 (see slotOf); 0 marks an empty slot. */
  private slots: Int32Array;
  /** Slot count - 1. */
  private mask: number;
  private freeHead = -1;
  /** The last `appended` entries, [end - appended, end), have no slot yet. */
  private appended = 0;
  private readonly key = new Uint32Array(4);
  private readonly onGrow: GrowColumns | undefined;

  constructor(afi: AfiCode, withPathIds = false, onGrow?: GrowColumns, capacity = MIN_ENTRIES) {
    this.afi = afi;
    this.withPathIds = withPathIds;
    this.wordsPerPrefix = afi === Afi.IPV4 ? 1 : 4;
    this.onGrow = onGrow;
    this.capacity = Math.max(capacity, MIN_ENTRIES);
    this.words = new Uint32Array(this.capacity * this.wordsPerPrefix);
    this.lens = new Uint8Array(this.capacity);
    this.pathIds = new Uint32Array(withPathIds ? this.capacity : 0);
    let slots = MIN_SLOTS;
    while (slots * MAX_LOAD_NUM < this.capacity * MAX_LOAD_DEN) slots *= 2;
    this.slots = new Int32Array(slots);
    this.mask = slots - 1;
  }

  isLive(entry: number): boolean {
    return entry >= 0 && entry < this.end && this.lens[entry] !== FREE;
  }

  /** The entry of the prefix at src[off..] (1 or 4 words, host bits ignored), or -1. */
  find(src: ArrayLike<number>, off: number, len: number, pathId = 0): number {
    if (this.appended > 0) this.placeAppended();
    const slots = this.slots;
    const mask = this.mask;
    if (this.wordsPerPrefix === 1) {
      // IPv4, the bulk of a full table: one word, compared in place.
      const w = maskIpv4(src[off], len);
      const h = hash1(w, len, pathId);
      const tag = h >>> TAG_SHIFT;
      for (let i = h & mask; ; i = (i + 1) & mask) {
        const s = slots[i];
        if (s === EMPTY_SLOT) return -1;
        const e = (s & ENTRY_MASK) - 1;
        if (s >>> TAG_SHIFT === tag && this.words[e] === w && this.sameTail(e, len, pathId)) return e;
      }
    }
    const k = this.loadKey(src, off, len);
    const h = hash4(k, len, pathId);
    const tag = h >>> TAG_SHIFT;
    for (let i = h & mask; ; i = (i + 1) & mask) {
      const s = slots[i];
      if (s === EMPTY_SLOT) return -1;
      const e = (s & ENTRY_MASK) - 1;
      if (s >>> TAG_SHIFT === tag && this.matches4(e, k) && this.sameTail(e, len, pathId)) return e;
    }
  }

  /**
   * Touches the home slot of each prefix i in [from, to) of a list's columns, so the inserts
   * that follow find them in cache: the loads here are independent and overlap, where each
   * insert alone would wait for its own miss (a big table is mostly cache misses).
   */
  prefetch(words: ArrayLike<number>, lens: ArrayLike<number>, from: number, to: number): void {
    this.touchHomes(words, this.wordsPerPrefix, lens, null, from, to);
  }

  /**
   * As `prefetch`, for the columns of a change batch (4 words a prefix, any family): the home
   * slots of the prefixes of this table's family among changes [from, to).
   */
  prefetchChanges(words: Uint32Array, lens: Uint8Array, afis: Uint8Array, from: number, to: number): void {
    this.touchHomes(words, 4, lens, afis, from, to);
  }

  /** Prefix i's key at words[i * stride]; with `afis`, only the prefixes of this table's family. */
  private touchHomes(
    words: ArrayLike<number>,
    stride: number,
    lens: ArrayLike<number>,
    afis: Uint8Array | null,
    from: number,
    to: number,
  ): void {
    if (this.size + (to - from) > ((this.mask + 1) * MAX_LOAD_NUM) / MAX_LOAD_DEN) return; // about to grow
    if (this.appended > 0) return; // the slots are not read before the appended are placed
    const slots = this.slots;
    const mask = this.mask;
    const afi = this.afi;
    let sink = 0;
    if (this.wordsPerPrefix === 1) {
      for (let i = from; i < to; i++) {
        if (afis !== null && afis[i] !== afi) continue;
        sink |= slots[hash1(maskIpv4(words[i * stride], lens[i]), lens[i], 0) & mask];
      }
    } else {
      for (let i = from; i < to; i++) {
        if (afis !== null && afis[i] !== afi) continue;
        const k = this.loadKey(words, i * stride, lens[i]);
        sink |= slots[hash4(k, lens[i], 0) & mask];
      }
    }
    this.touched = sink;
  }

  /** The entry of the prefix, created if missing (`added` tells which). */
  insert(src: ArrayLike<number>, off: number, len: number, pathId = 0): number {
    if (this.appended > 0) this.placeAppended();
    if ((this.size + 1) * MAX_LOAD_DEN > (this.mask + 1) * MAX_LOAD_NUM)
      this.rehash(grownSlots(this.mask + 1));
    const slots = this.slots;
    const mask = this.mask;
    let i: number;
    if (this.wordsPerPrefix === 1) {
      const w = maskIpv4(src[off], len);
      const h = hash1(w, len, pathId);
      const tag = h >>> TAG_SHIFT;
      for (i = h & mask; ; i = (i + 1) & mask) {
        const s = slots[i];
        if (s === EMPTY_SLOT) break;
        const e = (s & ENTRY_MASK) - 1;
        if (s >>> TAG_SHIFT === tag && this.words[e] === w && this.sameTail(e, len, pathId)) {
          this.added = false;
          return e;
        }
      }
      const e = this.allocate();
      this.words[e] = w;
      return this.place(i, h, e, len, pathId);
    }
    const k = this.loadKey(src, off, len);
    const h = hash4(k, len, pathId);
    const tag = h >>> TAG_SHIFT;
    for (i = h & mask; ; i = (i + 1) & mask) {
      const s = slots[i];
      if (s === EMPTY_SLOT) break;
      const e = (s & ENTRY_MASK) - 1;
      if (s >>> TAG_SHIFT === tag && this.matches4(e, k) && this.sameTail(e, len, pathId)) {
        this.added = false;
        return e;
      }
    }
    const e = this.allocate();
    this.words.set(k, e * 4);
    return this.place(i, h, e, len, pathId);
  }

  /**
   * Adds a prefix the caller knows is not in the table, without placing it in a slot yet
   * (see the class comment); returns its entry. A table with freed entries to reuse inserts.
   */
  append(src: ArrayLike<number>, off: number, len: number, pathId = 0): number {
    if (this.freeHead >= 0) return this.insert(src, off, len, pathId);
    const e = this.allocate();
    if (this.wordsPerPrefix === 1) this.words[e] = maskIpv4(src[off], len);
    else this.words.set(this.loadKey(src, off, len), e * 4);
    this.lens[e] = len;
    if (this.withPathIds) this.pathIds[e] = pathId;
    this.size++;
    this.appended++;
    this.added = true;
    return e;
  }

  /** Places the appended entries: in a table grown to hold them, or in the one there is. */
  placeAppended(): void {
    if (this.appended === 0) return;
    let slotCount = this.mask + 1;
    while (this.size * MAX_LOAD_DEN > slotCount * MAX_LOAD_NUM) slotCount = grownSlots(slotCount);
    if (slotCount !== this.mask + 1) this.rehash(slotCount);
    else this.placeEntries(this.slots, this.mask, this.end - this.appended, this.end);
    this.appended = 0;
  }

  private place(slot: number, h: number, e: number, len: number, pathId: number): number {
    this.lens[e] = len;
    if (this.withPathIds) this.pathIds[e] = pathId;
    this.slots[slot] = slotOf(h, e);
    this.size++;
    this.added = true;
    return e;
  }

  remove(entry: number): void {
    if (!this.isLive(entry)) throw new Error(`prefix table: entry ${entry} is not live`);
    if (this.appended > 0) this.placeAppended();
    const slots = this.slots;
    const mask = this.mask;
    let i = this.hashEntry(entry) & mask;
    while ((slots[i] & ENTRY_MASK) !== entry + 1) i = (i + 1) & mask;
    // Backward-shift deletion: move later members of the run into the hole when their home
    // slot does not lie cyclically in (hole, j].
    let hole = i;
    for (let j = (i + 1) & mask; slots[j] !== EMPTY_SLOT; j = (j + 1) & mask) {
      const home = this.hashEntry((slots[j] & ENTRY_MASK) - 1) & mask;
      const between = hole <= j ? home > hole && home <= j : home > hole || home <= j;
      if (!between) {
        slots[hole] = slots[j];
        hole = j;
      }
    }
    slots[hole] = EMPTY_SLOT;
    this.lens[entry] = FREE;
    this.words[entry * this.wordsPerPrefix] = this.freeHead;
    this.freeHead = entry;
    this.size--;
  }

  /** The prefix of a live entry, for the API. */
  prefix(entry: number): RibPrefix {
    return RibPrefix.fromWords(this.afi, this.words, entry * this.wordsPerPrefix, this.lens[entry]);
  }

  pathId(entry: number): number {
    return this.withPathIds ? this.pathIds[entry] : 0;
  }

  /** Empties the table, keeping its capacity. */
  clear(): void {
    this.slots.fill(0);
    this.lens.fill(0, 0, this.end); // past `end`, untouched: maybe never backed by memory (nextCapacity)
    this.size = 0;
    this.end = 0;
    this.appended = 0;
    this.freeHead = -1;
  }

  /** Bytes held by the typed arrays (for the memory figures). */
  get byteLength(): number {
    return this.slots.byteLength + this.words.byteLength + this.lens.byteLength + this.pathIds.byteLength;
  }

  private allocate(): number {
    if (this.freeHead >= 0) {
      const e = this.freeHead;
      this.freeHead = this.words[e * this.wordsPerPrefix] | 0;
      return e;
    }
    if (this.end === this.capacity) {
      if (this.capacity >= MAX_ENTRIES) throw new Error(`prefix table: more than ${MAX_ENTRIES} prefixes`);
      this.growEntries(Math.min(nextCapacity(this.capacity), MAX_ENTRIES));
    }
    return this.end++;
  }

  private growEntries(capacity: number): void {
    this.words = grown(this.words, capacity * this.wordsPerPrefix);
    this.lens = grown(this.lens, capacity);
    if (this.withPathIds) this.pathIds = grown(this.pathIds, capacity);
    this.capacity = capacity;
    this.onGrow?.(capacity);
  }

  /** Places every live entry, the appended ones too, in a table of `slotCount` slots. */
  private rehash(slotCount: number): void {
    const slots = new Int32Array(slotCount);
    this.placeEntries(slots, slotCount - 1, 0, this.end);
    released(this.slots.byteLength);
    this.slots = slots;
    this.mask = slotCount - 1;
    this.appended = 0;
  }

  /**
   * Places the live entries of [from, to) in `slots`, hashing their keys. Many are placed
   * region by region: the entries are first sorted by which 64th of the table their home slot
   * lies in (a counting sort), so each region's random writes stay in cache instead of missing
   * all over a table many times the cache's size.
   */
  private placeEntries(slots: Int32Array, mask: number, from: number, to: number): void {
    const lens = this.lens;
    if (mask + 1 < PARTITIONED_REHASH_SLOTS || to - from < PARTITIONED_PLACE_ENTRIES) {
      for (let e = from; e < to; e++) {
        if (lens[e] === FREE) continue;
        const h = this.hashEntry(e);
        slots[emptySlot(slots, mask, h)] = slotOf(h, e);
      }
      return;
    }
    const shift = Math.log2(mask + 1) - REHASH_REGION_BITS;
    const starts = new Int32Array((1 << REHASH_REGION_BITS) + 1);
    let live = 0;
    for (let e = from; e < to; e++) {
      if (lens[e] === FREE) continue;
      starts[((this.hashEntry(e) & mask) >>> shift) + 1]++;
      live++;
    }
    for (let r = 1; r < starts.length; r++) starts[r] += starts[r - 1];
    // (hash, slot value) pairs in region order.
    const sorted = new Int32Array(2 * live);
    for (let e = from; e < to; e++) {
      if (lens[e] === FREE) continue;
      const h = this.hashEntry(e);
      const at = starts[(h & mask) >>> shift]++;
      sorted[2 * at] = h;
      sorted[2 * at + 1] = slotOf(h, e);
    }
    // `sorted` dies young: a scavenge frees it, unlike a replaced column (grow.ts).
    for (let k = 0; k < sorted.length; k += 2) slots[emptySlot(slots, mask, sorted[k])] = sorted[k + 1];
  }

  private loadKey(src: ArrayLike<number>, off: number, len: number): Uint32Array {
    const k = this.key;
    for (let i = 0; i < 4; i++) k[i] = maskWord(src[off + i], i, len);
    return k;
  }

  private sameTail(e: number, len: number, pathId: number): boolean {
    return this.lens[e] === len && (!this.withPathIds || this.pathIds[e] === pathId);
  }

  private matches4(e: number, k: Uint32Array): boolean {
    const words = this.words;
    const b = e * 4;
    return words[b] === k[0] && words[b + 1] === k[1] && words[b + 2] === k[2] && words[b + 3] === k[3];
  }

  private hashEntry(e: number): number {
    const pathId = this.withPathIds ? this.pathIds[e] : 0;
    if (this.wordsPerPrefix === 1) return hash1(this.words[e], this.lens[e], pathId);
    const k = this.key;
    for (let w = 0; w < 4; w++) k[w] = this.words[e * 4 + w];
    return hash4(k, this.lens[e], pathId);
  }
}

/** The first empty slot from the home of hash h on (linear probing). */
function emptySlot(slots: Int32Array, mask: number, h: number): number {
  let i = h & mask;
  while (slots[i] !== EMPTY_SLOT) i = (i + 1) & mask;
  return i;
}

function slotOf(h: number, e: number): number {
  return ((h >>> TAG_SHIFT) << TAG_SHIFT) | (e + 1);
}

function seed(len: number, pathId: number): number {
  return Math.imul(len + 1, 0x9e3779b1) ^ Math.imul(pathId, 0x27d4eb2f);
}

/** Exported for the tests that force two keys into one hash. */
export function hash1(w: number, len: number, pathId: number): number {
  return mix(seed(len, pathId) ^ w);
}

function hash4(k: Uint32Array, len: number, pathId: number): number {
  let h = mix(seed(len, pathId) ^ k[0]);
  h = mix(h ^ k[1]);
  h = mix(h ^ k[2]);
  return mix(h ^ k[3]);
}

/** murmur3's finalizer: consecutive prefixes (a table walks the address space) spread evenly. */
function mix(h: number): number {
  h ^= h >>> 16;
  h = Math.imul(h, 0x85ebca6b);
  h ^= h >>> 13;
  h = Math.imul(h, 0xc2b2ae35);
  h ^= h >>> 16;
  // Signed, as the Int32Array slots hold it.
  return h | 0;
}

/** The slot count a table of `slots` grows to: double, but see SKIP_SLOTS_FROM. */
function grownSlots(slots: number): number {
  return slots >= SKIP_SLOTS_FROM && slots < FULL_TABLE_SLOTS ? FULL_TABLE_SLOTS : slots * 2;
}
