import type { PathAttributes } from '../bgp/wire/attributes/types.js';
import { Afi, type AfiCode } from '../bgp/wire/constants.js';
import type { AttrTable } from './attr-table.js';
import type { RibPeer } from './peer.js';
import type { RibPrefix } from './prefix-key.js';
import { PrefixTable } from './prefix-table.js';

const NONE = -1;

/** One family's routes from one peer: prefix (+ path id) → attribute id. */
class FamilyRoutes {
  readonly table: PrefixTable;
  attr: Int32Array;

  constructor(afi: AfiCode, withPathIds: boolean) {
    this.table = new PrefixTable(afi, withPathIds, (cap) => this.grow(cap));
    this.attr = new Int32Array(this.table.capacity);
  }

  private grow(capacity: number): void {
    const a = new Int32Array(capacity);
    a.set(this.attr);
    this.attr = a;
  }
}

/**
 * Adj-RIB-In of one peer (RFC 4271 section 3.2): the routes it advertised, as received
 * (before import policy), each holding a reference to its interned attribute set. The
 * peer is implicit, so a route costs its key and one 4-byte attribute id.
 */
export class AdjRibIn {
  readonly peer: RibPeer;
  private readonly attrs: AttrTable;
  private readonly families: (FamilyRoutes | null)[] = [null, null];

  constructor(peer: RibPeer, attrs: AttrTable) {
    this.peer = peer;
    this.attrs = attrs;
  }

  /** Routes held for a family. */
  count(afi: AfiCode): number {
    return this.families[slot(afi)]?.table.size ?? 0;
  }

  get size(): number {
    return this.count(Afi.IPV4) + this.count(Afi.IPV6);
  }

  /**
   * Stores the route (an implicit withdraw of the previous one, RFC 4271 section 3.1) and
   * returns the attribute id it replaced, or -1. Returning `attrId` means a duplicate.
   */
  set(
    afi: AfiCode,
    withPathIds: boolean,
    words: ArrayLike<number>,
    off: number,
    len: number,
    pathId: number,
    attrId: number,
  ): number {
    const f = this.family(afi, withPathIds);
    const e = f.table.insert(words, off, len, pathId);
    if (f.table.added) {
      f.attr[e] = attrId;
      this.attrs.ref(attrId);
      return NONE;
    }
    const prev = f.attr[e];
    if (prev !== attrId) {
      this.attrs.ref(attrId);
      f.attr[e] = attrId;
      this.attrs.unref(prev);
    }
    return prev;
  }

  /** Removes the route; returns its attribute id (no longer referenced by this table), or -1. */
  delete(afi: AfiCode, words: ArrayLike<number>, off: number, len: number, pathId: number): number {
    const f = this.families[slot(afi)];
    if (!f) return NONE;
    const e = f.table.find(words, off, len, pathId);
    if (e < 0) return NONE;
    const prev = f.attr[e];
    f.table.remove(e);
    this.attrs.unref(prev);
    return prev;
  }

  /** The attributes held for a prefix (one per path id), for `show ... received-routes`. */
  lookup(prefix: RibPrefix): { pathId: number; attrs: PathAttributes }[] {
    const f = this.families[slot(prefix.afi)];
    if (!f) return [];
    const t = f.table;
    const words = prefix.words();
    const out: { pathId: number; attrs: PathAttributes }[] = [];
    if (!t.withPathIds) {
      const e = t.find(words, 0, prefix.len);
      if (e >= 0) out.push({ pathId: 0, attrs: this.attrs.get(f.attr[e]) });
      return out;
    }
    // With path ids, a prefix is several keys: scan (a `show` command, not the hot path).
    const wpp = t.wordsPerPrefix;
    for (let e = 0; e < t.end; e++) {
      if (!t.isLive(e) || t.lens[e] !== prefix.len) continue;
      let same = true;
      for (let w = 0; w < wpp; w++) if (t.words[e * wpp + w] !== words[w]) same = false;
      if (same) out.push({ pathId: t.pathIds[e], attrs: this.attrs.get(f.attr[e]) });
    }
    return out;
  }

  /**
   * Removes up to `budget` routes of `afi`, reporting each (so a peer going down can be
   * unwound in chunks between keepalives). Returns how many routes of that family remain.
   */
  drain(
    afi: AfiCode,
    budget: number,
    visit: (words: Uint32Array, off: number, len: number, pathId: number, attrId: number) => void,
  ): number {
    const f = this.families[slot(afi)];
    if (!f) return 0;
    const t = f.table;
    for (let e = t.end - 1; e >= 0 && budget > 0; e--) {
      if (!t.isLive(e)) continue;
      const attrId = f.attr[e];
      visit(t.words, e * t.wordsPerPrefix, t.lens[e], t.pathId(e), attrId);
      t.remove(e);
      this.attrs.unref(attrId);
      budget--;
    }
    return t.size;
  }

  /** Every route: (prefix, path id, attributes). */
  *entries(): Generator<{ prefix: RibPrefix; pathId: number; attrs: PathAttributes }> {
    for (const f of this.families) {
      if (!f) continue;
      const t = f.table;
      for (let e = 0; e < t.end; e++) {
        if (t.isLive(e)) yield { prefix: t.prefix(e), pathId: t.pathId(e), attrs: this.attrs.get(f.attr[e]) };
      }
    }
  }

  get byteLength(): number {
    let n = 0;
    for (const f of this.families) if (f) n += f.table.byteLength + f.attr.byteLength;
    return n;
  }

  private family(afi: AfiCode, withPathIds: boolean): FamilyRoutes {
    const i = slot(afi);
    let f = this.families[i];
    if (!f) {
      f = new FamilyRoutes(afi, withPathIds);
      this.families[i] = f;
    } else if (f.table.withPathIds !== withPathIds && f.table.size > 0) {
      // RFC 7911 is negotiated per session: a change means a new session and a fresh table.
      throw new Error(`peer ${this.peer.id}: add-path mode changed within a session`);
    } else if (f.table.withPathIds !== withPathIds) {
      f = new FamilyRoutes(afi, withPathIds);
      this.families[i] = f;
    }
    return f;
  }
}

function slot(afi: AfiCode): number {
  return afi === Afi.IPV4 ? 0 : 1;
}
