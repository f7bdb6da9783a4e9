import type { WireAttributes } from './wire-attributes.js';

/**
 * Hash-consing of attribute blocks by their bytes (MP_REACH_NLRI's NLRI and MP_UNREACH_NLRI
 * left out, see WireAttributes.raw), so an attribute set shared by many UPDATEs is checked
 * and held once. Open addressing over typed arrays: a lookup allocates nothing, unlike a Map
 * keyed by 32-bit hashes (which boxes every key above 2^30). Bounded: past `maxEntries` the
 * table starts afresh — values already handed out stay valid, only sharing with them is lost.
 */
export class AttrInterner {
  readonly maxEntries: number;
  private hashes = new Uint32Array(1024);
  /** Entry index + 1 per slot; 0 is empty. */
  private slots = new Int32Array(1024);
  private entries: WireAttributes[] = [];

  constructor(maxEntries = 1 << 20) {
    this.maxEntries = maxEntries;
  }

  get size(): number {
    return this.entries.length;
  }

  get(hash: number, key: Uint8Array, keyAt: number, keyLen: number): WireAttributes | undefined {
    const mask = this.slots.length - 1;
    for (let i = hash & mask; ; i = (i + 1) & mask) {
      const e = this.slots[i];
      if (e === 0) return undefined;
      if (this.hashes[i] === hash) {
        const attrs = this.entries[e - 1];
        if (sameKey(attrs, key, keyAt, keyLen)) return attrs;
      }
    }
  }

  put(hash: number, attrs: WireAttributes): void {
    if (this.entries.length >= this.maxEntries) this.clear();
    if ((this.entries.length + 1) * 2 > this.slots.length) this.grow();
    this.entries.push(attrs);
    this.place(hash, this.entries.length);
  }

  clear(): void {
    this.hashes = new Uint32Array(1024);
    this.slots = new Int32Array(1024);
    this.entries = [];
  }

  private place(hash: number, entry: number): void {
    const mask = this.slots.length - 1;
    let i = hash & mask;
    while (this.slots[i] !== 0) i = (i + 1) & mask;
    this.slots[i] = entry;
    this.hashes[i] = hash;
  }

  private grow(): void {
    const oldSlots = this.slots;
    const oldHashes = this.hashes;
    this.slots = new Int32Array(oldSlots.length * 2);
    this.hashes = new Uint32Array(oldSlots.length * 2);
    for (let i = 0; i < oldSlots.length; i++) if (oldSlots[i] !== 0) this.place(oldHashes[i], oldSlots[i]);
  }
}

function sameKey(attrs: WireAttributes, key: Uint8Array, keyAt: number, len: number): boolean {
  const start = attrs.rawStart;
  if (attrs.rawEnd - start !== len) return false;
  const raw = attrs.raw;
  for (let i = 0; i < len; i++) if (raw[start + i] !== key[keyAt + i]) return false;
  return true;
}
