import { Afi, type AfiCode, type PathAttributes } from '../bgp/wire/index.js';
import type { RibPrefix } from '../rib/index.js';
import { PrefixTable } from '../rib/index.js';

/** One family: prefix (+ path id) → the attributes held for it. */
class FamilyStore {
  readonly table: PrefixTable;
  /** Per entry; undefined on free entries so nothing is kept alive by a removed route. */
  readonly attrs: (PathAttributes | undefined)[] = [];
  /**
   * RFC 7313 route refresh, once the peer began one: per entry the refresh it was last set
   * in (undefined: before the first). An entry below `refresh` was not sent again.
   */
  stamps: number[] | null = null;
  refresh = 0;

  constructor(afi: AfiCode, withPathIds: boolean, capacity?: number) {
    this.table = new PrefixTable(afi, withPathIds, undefined, capacity);
  }
}

/** A route as a store visits it: the words stay valid only during the call. */
export type StoredRouteVisitor = (
  words: Uint32Array,
  off: number,
  len: number,
  pathId: number,
  attrs: PathAttributes,
) => void;

/**
 * Routes of one peer and one direction, by prefix, with the attribute object each carries:
 * what a peer sent before import policy (for `show received` and soft reconfiguration), or
 * what we sent it after export policy (for `show advertised` and exact withdrawals).
 * Attribute objects are shared (interned upstream), so a route costs its key and a pointer.
 */
export class RouteStore {
  /** Per family (IPv4, IPv6): keys carry RFC 7911 path ids (routes from an ADD-PATH peer). */
  readonly #withPathIds: readonly [boolean, boolean];
  readonly #families: [FamilyStore | null, FamilyStore | null] = [null, null];

  constructor(withPathIds: readonly [boolean, boolean] = [false, false]) {
    this.#withPathIds = withPathIds;
  }

  count(afi: AfiCode): number {
    return this.#families[slot(afi)]?.table.size ?? 0;
  }

  /** Sizes an empty family for `routes` (a table about to be sent), sparing the growth on the way. */
  reserve(afi: AfiCode, routes: number): void {
    const i = slot(afi);
    if (this.#families[i] === null && routes > 0)
      this.#families[i] = new FamilyStore(afi, this.#withPathIds[i], routes);
  }

  /** Stores (or replaces) a route; returns the attributes it replaced. */
  set(
    afi: AfiCode,
    words: ArrayLike<number>,
    off: number,
    len: number,
    pathId: number,
    attrs: PathAttributes,
  ): PathAttributes | undefined {
    const f = this.#family(afi);
    const e = f.table.insert(words, off, len, this.#withPathIds[slot(afi)] ? pathId : 0);
    const prev = f.table.added ? undefined : f.attrs[e];
    f.attrs[e] = attrs;
    if (f.stamps) f.stamps[e] = f.refresh;
    return prev;
  }

  /** RFC 7313 section 4, the peer's BoRR: every route of the family is stale until set again. */
  markStale(afi: AfiCode): void {
    const f = this.#families[slot(afi)];
    if (!f) return;
    f.stamps ??= [];
    f.refresh++;
  }

  /**
   * RFC 7313 section 4, the peer's EoRR: removes the routes of the family not set again since
   * `markStale`, each shown to `visitor` first. Returns how many went.
   */
  sweepStale(afi: AfiCode, visitor: StoredRouteVisitor): number {
    const f = this.#families[slot(afi)];
    const stamps = f?.stamps;
    if (!f || !stamps) return 0;
    const t = f.table;
    const wpp = t.wordsPerPrefix;
    let removed = 0;
    for (let e = 0; e < t.end; e++) {
      if (!t.isLive(e) || (stamps[e] ?? -1) >= f.refresh) continue;
      visitor(t.words, e * wpp, t.lens[e], t.pathId(e), f.attrs[e]!);
      t.remove(e);
      f.attrs[e] = undefined;
      removed++;
    }
    return removed;
  }

  /** The attributes stored for a route, if any. */
  get(
    afi: AfiCode,
    words: ArrayLike<number>,
    off: number,
    len: number,
    pathId = 0,
  ): PathAttributes | undefined {
    const f = this.#families[slot(afi)];
    if (!f) return undefined;
    const e = f.table.find(words, off, len, this.#withPathIds[slot(afi)] ? pathId : 0);
    return e < 0 ? undefined : f.attrs[e];
  }

  /** Removes a route; false when it was not there. */
  delete(afi: AfiCode, words: ArrayLike<number>, off: number, len: number, pathId = 0): boolean {
    const f = this.#families[slot(afi)];
    if (!f) return false;
    const e = f.table.find(words, off, len, this.#withPathIds[slot(afi)] ? pathId : 0);
    if (e < 0) return false;
    f.table.remove(e);
    f.attrs[e] = undefined;
    return true;
  }

  /** Every route of a prefix (several with path ids), for `show`. */
  lookup(prefix: RibPrefix): { readonly pathId: number; readonly attrs: PathAttributes }[] {
    const out: { pathId: number; attrs: PathAttributes }[] = [];
    const f = this.#families[slot(prefix.afi)];
    if (!f) return out;
    const t = f.table;
    const words = prefix.words();
    if (!t.withPathIds) {
      const e = t.find(words, 0, prefix.len);
      if (e >= 0) out.push({ pathId: 0, attrs: f.attrs[e]! });
      return out;
    }
    // With path ids a prefix is several keys: scan (a `show` command, not the hot path).
    const wpp = t.wordsPerPrefix;
    for (let e = 0; e < t.end; e++) {
      if (!t.isLive(e) || t.lens[e] !== prefix.len) continue;
      let same = true;
      for (let w = 0; w < wpp; w++) if (t.words[e * wpp + w] !== words[w]) same = false;
      if (same) out.push({ pathId: t.pathIds[e], attrs: f.attrs[e]! });
    }
    return out;
  }

  /**
   * Visits the routes of a family from entry `cursor` on, at most `budget` of them, and
   * returns the cursor to continue from (-1 when the end was reached). Safe against changes
   * between calls: removed entries are skipped, and routes added since were already handled
   * by whoever added them.
   */
  visit(afi: AfiCode, cursor: number, budget: number, visitor: StoredRouteVisitor): number {
    const f = this.#families[slot(afi)];
    if (!f) return -1;
    const t = f.table;
    const wpp = t.wordsPerPrefix;
    let e = cursor;
    for (; e < t.end && budget > 0; e++) {
      if (!t.isLive(e)) continue;
      visitor(t.words, e * wpp, t.lens[e], t.pathId(e), f.attrs[e]!);
      budget--;
    }
    return e >= t.end ? -1 : e;
  }

  /** Live prefixes of a family as entry numbers, for listings (`prefixOf` reads one). */
  entries(afi: AfiCode): number[] {
    const f = this.#families[slot(afi)];
    if (!f) return [];
    const out: number[] = [];
    for (let e = 0; e < f.table.end; e++) if (f.table.isLive(e)) out.push(e);
    return out;
  }

  prefixOf(afi: AfiCode, entry: number): RibPrefix {
    return this.#families[slot(afi)]!.table.prefix(entry);
  }

  clear(): void {
    this.#families[0] = null;
    this.#families[1] = null;
  }

  #family(afi: AfiCode): FamilyStore {
    const i = slot(afi);
    let f = this.#families[i];
    if (!f) {
      f = new FamilyStore(afi, this.#withPathIds[i]);
      this.#families[i] = f;
    }
    return f;
  }
}

function slot(afi: AfiCode): 0 | 1 {
  return afi === Afi.IPV4 ? 0 : 1;
}
