type Growable = Int32Array | Int16Array | Uint32Array | Uint16Array | Uint8Array | Float64Array;

/** A copy of `a` with room for `cap` elements (the RIB's columns grow by doubling). */
export function grown<T extends Growable>(a: T, cap: number): T {
  const b = new (a.constructor as new (n: number) => T)(cap);
  b.set(a);
  released(a.byteLength);
  return b;
}

/** Columns of fewer entries than this double as they grow. */
export const RESERVE_FROM = 1 << 18;
/** Entries a column that outgrew RESERVE_FROM goes to at once. */
export const RESERVED_ENTRIES = 1 << 22;

/**
 * The capacity a column of `capacity` entries grows to (the RIB's prefix and path columns).
 * Below 256k entries it doubles. A column that outgrew that is most likely taking a full
 * table: it goes straight to room for 4M entries, which costs address space, not memory —
 * a column that big is a fresh zero-filled mapping (the speaker keeps malloc's mapping
 * threshold at 128 KiB, speaker-memory.ts), whose pages the kernel backs only once entries
 * are written. Doubling, a 1M table's columns were copied twice more, their fresh pages
 * faulted in twice over, and the copies they replaced waited for full collections.
 * Taking the reserve also lowers the collection threshold (COLLECT_AFTER_RESERVED_BYTES).
 */
export function nextCapacity(capacity: number): number {
  if (capacity < RESERVE_FROM || capacity >= RESERVED_ENTRIES) return capacity * 2;
  collectAfter = COLLECT_AFTER_RESERVED_BYTES; // a full table is here (see there)
  return RESERVED_ENTRIES;
}

/**
 * A replaced column is garbage at once, but V8 frees an ArrayBuffer's memory only in a full
 * collection, and starts one for outside memory only once that grew by 64 MiB since the last:
 * the old copies of a big table's columns (half the size of the new ones) can stay until the
 * load is over, and count in its peak. A process that wants them back sooner installs a
 * collector (`collectReplacedColumns`): once this many bytes were replaced, one full
 * collection runs at the end of the turn. 8 MiB: a full table's last doubling is well above it,
 * while a table of 100k prefixes, whose load a collection would slow by a tenth, stays below.
 */
export const COLLECT_AFTER_BYTES = 8 * 1024 * 1024;
/**
 * Once a column took its reserve (nextCapacity), the process holds a full table: what grows
 * later (the attribute sets' columns, 1.4 MB at 100k sets) grows rarely, and what it replaces
 * would otherwise still be garbage at the table's peak. 1 MiB then suffices.
 */
export const COLLECT_AFTER_RESERVED_BYTES = 1024 * 1024;
let collectAfter = COLLECT_AFTER_BYTES;
let deferReserved = false;
let collector: (() => void) | null = null;
let replacedBytes = 0;
let scheduled = false;

/**
 * While sessions send initial tables, the lower threshold waits (COLLECT_AFTER_BYTES holds):
 * a joining peer's Adj-RIB-Out and exported sets grow then, and a collection of the whole
 * heap per MiB they replace cost a twentieth of a full table's send.
 */
export function deferReservedCollections(defer: boolean): void {
  deferReserved = defer;
}

/** Installs (or, with null, removes) the full collection run after columns were replaced. */
export function collectReplacedColumns(collect: (() => void) | null): void {
  collector = collect;
  replacedBytes = 0;
  collectAfter = COLLECT_AFTER_BYTES;
}

/** Counts a column's bytes that were just replaced (grown's, or a table's own rebuilds). */
export function released(bytes: number): void {
  replacedBytes += bytes;
  const after = deferReserved ? COLLECT_AFTER_BYTES : collectAfter;
  if (collector === null || scheduled || replacedBytes < after) return;
  scheduled = true;
  setImmediate(collectNow);
}

function collectNow(): void {
  scheduled = false;
  replacedBytes = 0;
  collector?.();
}
