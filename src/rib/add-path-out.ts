import { Afi, type AfiCode, type PathAttributes, type PrefixList } from '../bgp/wire/index.js';
import type { OutboundWork } from './adj-rib-out.js';
import { EntryList } from './entry-list.js';
import type { InternTable } from './intern-table.js';
import { PathIds } from './path-ids.js';
import type { RibPrefix } from './prefix-key.js';
import { PrefixTable } from './prefix-table.js';
import { workLists } from './work-lists.js';

/** Paths wished for one prefix: path key → exported attribute id (each holding a reference). */
export type PathWishes = Map<string, number>;

/** One prefix: the ids we send its paths with, what was sent, and the pending wish. */
interface PrefixOut {
  readonly ids: PathIds;
  /** Path key → exported attribute id sent (holding a reference). */
  readonly sent: Map<string, number>;
  /** While dirty: what should be sent; null when nothing is pending. */
  want: PathWishes | null;
  /** A ROUTE-REFRESH: send again even what is unchanged. */
  forced: boolean;
}

class FamilyPaths {
  readonly table: PrefixTable;
  readonly slots: (PrefixOut | undefined)[] = [];
  readonly dirty = new EntryList();
  /** Paths whose `sent` holds an attribute id. */
  advertised = 0;

  constructor(afi: AfiCode, capacity?: number) {
    this.table = new PrefixTable(afi, false, undefined, capacity);
  }
}

/**
 * Adj-RIB-Out of a peer that receives several paths per prefix (RFC 7911 section 3): what
 * was advertised, keyed by (prefix, path id). The update group offers the whole set of paths
 * a prefix should have at the peer; `take` sends the difference: a withdrawal with its path
 * id for a path that left, an announcement for a path that is new or changed, nothing for
 * one that is unchanged. Path ids come from `PathIds`, stable while a path stays.
 *
 * A family the peer did not negotiate add-path for is offered at most one path, under one
 * key, and its lists carry no path ids: the one path is replaced in place as it would be by
 * the single-path Adj-RIB-Out.
 */
export class AddPathRibOut {
  readonly peerId: string;
  readonly routerId: number;
  /** Per family (IPv4, IPv6): path ids go on the wire. */
  readonly withPathIds: readonly [boolean, boolean];
  private readonly exported: InternTable<PathAttributes>;
  private readonly families: [FamilyPaths | null, FamilyPaths | null] = [null, null];
  /** Counts `take` calls: an id given back in one is not handed out again in the same one. */
  private generation = 0;

  constructor(
    peerId: string,
    routerId: number,
    exported: InternTable<PathAttributes>,
    withPathIds: readonly [boolean, boolean],
  ) {
    this.peerId = peerId;
    this.routerId = routerId;
    this.exported = exported;
    this.withPathIds = withPathIds;
  }

  reserve(afi: AfiCode, prefixes: number): void {
    const i = slot(afi);
    if (this.families[i] === null && prefixes > 0) this.families[i] = new FamilyPaths(afi, prefixes);
  }

  /** Paths advertised (as of the last `take`). */
  count(afi: AfiCode): number {
    return this.families[slot(afi)]?.advertised ?? 0;
  }

  holds(afi: AfiCode): boolean {
    return this.families[slot(afi)] !== null;
  }

  get pending(): number {
    return (this.families[0]?.dirty.count ?? 0) + (this.families[1]?.dirty.count ?? 0);
  }

  /** Entries of the prefixes with a path advertised (`prefixAt` reads one). */
  advertisedEntries(afi: AfiCode): number[] {
    const f = this.families[slot(afi)];
    const out: number[] = [];
    if (!f) return out;
    for (let e = 0; e < f.table.end; e++)
      if (f.table.isLive(e) && (f.slots[e]?.sent.size ?? 0) > 0) out.push(e);
    return out;
  }

  prefixAt(afi: AfiCode, entry: number): RibPrefix {
    return this.families[slot(afi)]!.table.prefix(entry);
  }

  /** Every path advertised in a family, with its attributes and the path id sent (0 without ids). */
  forEachAdvertised(
    afi: AfiCode,
    visit: (words: Uint32Array, off: number, len: number, attrs: PathAttributes, pathId: number) => void,
  ): void {
    const f = this.families[slot(afi)];
    if (!f) return;
    const t = f.table;
    const ids = this.withPathIds[slot(afi)];
    for (let e = 0; e < t.end; e++) {
      const s = f.slots[e];
      if (!t.isLive(e) || !s) continue;
      for (const [key, attr] of s.sent)
        visit(t.words, e * t.wordsPerPrefix, t.lens[e], this.exported.get(attr), ids ? s.ids.idOf(key)! : 0);
    }
  }

  /** The paths last sent for a prefix, by the path id they went with. */
  sentPaths(prefix: RibPrefix): { pathId: number; attrs: PathAttributes }[] {
    const f = this.families[slot(prefix.afi)];
    if (!f) return [];
    const e = f.table.find(prefix.words(), 0, prefix.len);
    const s = e < 0 ? undefined : f.slots[e];
    if (!s) return [];
    const ids = this.withPathIds[slot(prefix.afi)];
    return [...s.sent]
      .map(([key, attr]) => ({ pathId: ids ? s.ids.idOf(key)! : 0, attrs: this.exported.get(attr) }))
      .sort((a, b) => a.pathId - b.pathId);
  }

  /** The attributes of the path sent with the lowest id, if any (what a single-path view shows). */
  sentFor(prefix: RibPrefix): PathAttributes | undefined {
    return this.sentPaths(prefix)[0]?.attrs;
  }

  /**
   * Wish the prefix to have exactly these paths at the peer (empty: none). The wish's
   * references pass to this Adj-RIB-Out. A later offer before `take` replaces it.
   */
  offerPaths(afi: AfiCode, words: ArrayLike<number>, off: number, len: number, wish: PathWishes): void {
    const i = slot(afi);
    let f = this.families[i];
    if (!f) {
      if (wish.size === 0) return;
      f = new FamilyPaths(afi);
      this.families[i] = f;
    }
    const t = f.table;
    let e: number;
    if (wish.size === 0) {
      e = t.find(words, off, len);
      if (e < 0) return;
    } else {
      e = t.insert(words, off, len);
      if (t.added) f.slots[e] = { ids: new PathIds(), sent: new Map(), want: null, forced: false };
    }
    const s = f.slots[e]!;
    if (s.want === null) {
      if (sameWishes(s.sent, wish)) {
        this.unrefAll(wish);
        return;
      }
      f.dirty.push(e);
    } else {
      this.unrefAll(s.want);
    }
    s.want = wish;
  }

  /**
   * The changes to send for at most `limit` prefixes, recorded as sent: withdrawals (with the
   * path ids that leave) first, then announcements grouped by exported attribute set.
   */
  take(limit = Number.POSITIVE_INFINITY): OutboundWork {
    const gen = ++this.generation;
    const withdraw: PrefixList[] = [];
    // A list per set here (add-path peers are few): its range is the whole list.
    const announce = new Map<number, { attrs: PathAttributes; prefixes: PrefixList; from: 0; to: number }>();
    let count = 0;
    let budget = limit;
    for (let fi = 0; fi < 2; fi++) {
      const f = this.families[fi];
      if (!f || budget <= 0) continue;
      const t = f.table;
      const ids = this.withPathIds[fi];
      let gone: PrefixList | null = null;
      const n = Math.min(f.dirty.count, budget);
      const dirty = f.dirty.items;
      for (let k = 0; k < n; k++) {
        const e = dirty[k];
        const s = f.slots[e]!;
        const want = s.want!;
        const forced = s.forced;
        s.want = null;
        s.forced = false;
        for (const [key, attr] of s.sent) {
          if (want.has(key)) continue;
          const id = s.ids.release(key, gen)!;
          gone ??= workLists.list(t.afi, ids);
          append(gone, t, e, id);
          this.exported.unref(attr);
          s.sent.delete(key);
          f.advertised--;
          count++;
        }
        for (const [key, attr] of want) {
          const was = s.sent.get(key);
          if (was === attr && !forced) {
            this.exported.unref(attr);
            continue;
          }
          const id = s.ids.assign(key, gen);
          let work = announce.get(attr);
          if (!work) {
            work = { attrs: this.exported.get(attr), prefixes: workLists.list(t.afi, ids), from: 0, to: 0 };
            announce.set(attr, work);
          }
          append(work.prefixes, t, e, id);
          work.to = work.prefixes.count;
          if (was === undefined) f.advertised++;
          else this.exported.unref(was);
          s.sent.set(key, attr); // the wish's reference now belongs to `sent`
          count++;
        }
        if (s.sent.size === 0) {
          t.remove(e);
          f.slots[e] = undefined;
        }
      }
      f.dirty.dropFirst(n);
      budget -= n;
      if (gone) withdraw.push(gone);
    }
    return { withdraw, announce: [...announce.values()], count };
  }

  /** The work of a `take` is packed and read no more: its lists serve the next `take`. */
  release(work: OutboundWork): void {
    workLists.release(work);
  }

  /** Everything advertised goes out again at the next `take` (ROUTE-REFRESH, RFC 2918). */
  refresh(): void {
    for (const f of this.families) {
      if (!f) continue;
      for (let e = 0; e < f.table.end; e++) {
        const s = f.slots[e];
        if (!f.table.isLive(e) || !s || s.sent.size === 0) continue;
        if (s.want === null) {
          s.want = new Map(s.sent);
          for (const attr of s.want.values()) this.exported.ref(attr);
          f.dirty.push(e);
        }
        s.forced = true;
      }
    }
  }

  clear(): void {
    for (const f of this.families) {
      if (!f) continue;
      for (let e = 0; e < f.table.end; e++) {
        const s = f.slots[e];
        if (!f.table.isLive(e) || !s) continue;
        this.unrefAll(s.sent);
        if (s.want) this.unrefAll(s.want);
      }
    }
    this.families[0] = null;
    this.families[1] = null;
  }

  private unrefAll(wish: PathWishes): void {
    for (const attr of wish.values()) this.exported.unref(attr);
  }
}

function sameWishes(a: Map<string, number>, b: Map<string, number>): boolean {
  if (a.size !== b.size) return false;
  for (const [key, attr] of b) if (a.get(key) !== attr) return false;
  return true;
}

function slot(afi: AfiCode): number {
  return afi === Afi.IPV4 ? 0 : 1;
}

function append(list: PrefixList, t: PrefixTable, e: number, pathId: number): void {
  const i = list.grow();
  list.lens[i] = t.lens[e];
  const wpp = t.wordsPerPrefix;
  for (let w = 0; w < wpp; w++) list.words[i * wpp + w] = t.words[e * wpp + w];
  if (list.addPath) list.pathIds[i] = pathId;
}
