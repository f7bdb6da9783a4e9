import type { PathAttributes, UpdateIssue } from './types.js';

/** What one distinct attribute block decoded to; shared by every UPDATE that carries the same bytes. */
export interface InternedAttributes {
  readonly attrs: PathAttributes;
  readonly issues: readonly UpdateIssue[];
}

interface Entry extends InternedAttributes {
  readonly key: Uint8Array;
  readonly hash: number;
}

/**
 * Hash-consing of attribute blocks by their bytes (MP_REACH_NLRI's NLRI and MP_UNREACH_NLRI
 * left out), so an attribute set shared by many UPDATEs is decoded once and held once.
 * Bounded: past `maxEntries` the table starts afresh — values already handed out stay valid,
 * only sharing with them is lost.
 */
export class AttrInterner {
  private readonly table = new Map<number, Entry | Entry[]>();
  private entries = 0;
  readonly maxEntries: number;
  hits = 0;
  misses = 0;

  constructor(maxEntries = 1 << 20) {
    this.maxEntries = maxEntries;
  }

  get size(): number {
    return this.entries;
  }

  get(hash: number, key: Uint8Array, keyLen: number): InternedAttributes | undefined {
    const slot = this.table.get(hash);
    if (slot === undefined) return undefined;
    if (!Array.isArray(slot)) return sameKey(slot.key, key, keyLen) ? slot : undefined;
    for (const e of slot) if (sameKey(e.key, key, keyLen)) return e;
    return undefined;
  }

  /** Stores a copy of key[0, keyLen) with its decoded value. */
  put(hash: number, key: Uint8Array, keyLen: number, value: InternedAttributes): void {
    if (this.entries >= this.maxEntries) this.clear();
    const e: Entry = { attrs: value.attrs, issues: value.issues, key: key.slice(0, keyLen), hash };
    const slot = this.table.get(hash);
    if (slot === undefined) this.table.set(hash, e);
    else if (Array.isArray(slot)) slot.push(e);
    else this.table.set(hash, [slot, e]);
    this.entries++;
  }

  clear(): void {
    this.table.clear();
    this.entries = 0;
  }
}

function sameKey(a: Uint8Array, b: Uint8Array, len: number): boolean {
  if (a.length !== len) return false;
  for (let i = 0; i < len; i++) if (a[i] !== b[i]) return false;
  return true;
}
