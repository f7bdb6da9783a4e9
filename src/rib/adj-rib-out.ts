import { Afi, type AfiCode, type PathAttributes, type PrefixList } from '../bgp/wire/index.js';
import type { ChangeBatch } from './change-batch.js';
import { EntryList } from './entry-list.js';
import { grown } from './grow.js';
import type { InternTable } from './intern-table.js';
import type { RibPrefix } from './prefix-key.js';
import { PrefixTable } from './prefix-table.js';
import { TakeGroups } from './take-groups.js';
import { workLists } from './work-lists.js';

/** `want`/`sent` value for "not advertised". */
export const NOT_ADVERTISED = -1;

/**
 * Prefixes [from, to) of a list to announce with one attribute set (UpdatePacker.announce takes
 * them as they are). Several works may share one list, each with its range.
 */
export interface AnnounceWork {
  readonly attrs: PathAttributes;
  readonly prefixes: PrefixList;
  readonly from: number;
  readonly to: number;
}

/** What a session has to send: withdrawals per family, then announcements per attribute set. */
export interface OutboundWork {
  readonly withdraw: readonly PrefixList[];
  readonly announce: readonly AnnounceWork[];
  /** Prefixes in this work. */
  readonly count: number;
}

/** isDirty value of an entry that goes out again even if unchanged (a ROUTE-REFRESH). */
const FORCED = 2;

/** One family: prefix → exported attribute id sent, and the pending wish while dirty. */
class FamilyOut {
  readonly table: PrefixTable;
  sent: Int32Array;
  want: Int32Array;
  isDirty: Uint8Array;
  readonly dirty = new EntryList();
  /** Prefixes whose `sent` is an attribute id. */
  advertised = 0;
  /**
   * Whether every prefix offered so far came from the initial table, in which each prefix
   * comes once: its next ones are then new, and are appended (PrefixTable.append).
   */
  initialOnly: boolean;

  constructor(afi: AfiCode, capacity?: number, initialOnly = false) {
    this.initialOnly = initialOnly;
    this.table = new PrefixTable(afi, false, (cap) => this.grow(cap), capacity);
    const cap = this.table.capacity;
    this.sent = new Int32Array(cap);
    this.want = new Int32Array(cap);
    this.isDirty = new Uint8Array(cap);
  }

  markDirty(e: number): void {
    this.isDirty[e] = 1;
    this.dirty.push(e);
  }

  private grow(cap: number): void {
    this.sent = grown(this.sent, cap);
    this.want = grown(this.want, cap);
    this.isDirty = grown(this.isDirty, cap);
  }
}

/**
 * Adj-RIB-Out of one peer (RFC 4271 section 3.2): what was advertised to it, by exported
 * attribute id. Offers record a wish; `take` turns the wishes that differ from what was sent
 * into work for the packer, so a withdrawal goes out only for what was sent and an unchanged
 * route is never sent twice. Several offers for one prefix before `take` collapse into one.
 */
export class AdjRibOut {
  readonly peerId: string;
  /** The peer's BGP Identifier: a route whose ORIGINATOR_ID it is never goes back to it. */
  readonly routerId: number;
  private readonly exported: InternTable<PathAttributes>;
  private readonly families: [FamilyOut | null, FamilyOut | null] = [null, null];
  readonly #attrsOf = (id: number) => this.exported.get(id);
  /** Set while the update group offers the initial table (`UpdateGroups.fill`). */
  #filling = false;

  constructor(peerId: string, routerId: number, exported: InternTable<PathAttributes>) {
    this.peerId = peerId;
    this.routerId = routerId;
    this.exported = exported;
  }

  /**
   * Sizes an empty family for `prefixes` routes (a joining peer's initial table), so filling
   * it does not grow and rehash its arrays a dozen times on the way.
   */
  reserve(afi: AfiCode, prefixes: number): void {
    const i = slot(afi);
    if (this.families[i] === null && prefixes > 0) this.families[i] = new FamilyOut(afi, prefixes, true);
  }

  /**
   * Offers between this and `endInitial` are of the initial table (each prefix once, in
   * the RIB's order).
   */
  beginInitial(): void {
    this.#filling = true;
  }

  /** `done`: the initial table is complete, and the prefixes appended get their slots now. */
  endInitial(done: boolean): void {
    this.#filling = false;
    if (!done) return;
    for (const f of this.families) {
      if (f === null || !f.initialOnly) continue;
      f.initialOnly = false;
      f.table.placeAppended();
    }
  }

  /**
   * Touches the table slots of changes [from, to) of a batch about to be offered, so their
   * offers find them in cache (see PrefixTable.prefetch).
   */
  prefetch(batch: ChangeBatch, from: number, to: number): void {
    for (const f of this.families)
      if (f !== null && !(this.#filling && f.initialOnly))
        f.table.prefetchChanges(batch.words, batch.lens, batch.afis, from, to);
  }

  /** Prefixes advertised (as of the last `take`). */
  count(afi: AfiCode): number {
    return this.families[slot(afi)]?.advertised ?? 0;
  }

  /** Entries of the prefixes advertised in a family, for listings (`prefixAt` reads one). */
  advertisedEntries(afi: AfiCode): number[] {
    const f = this.families[slot(afi)];
    const out: number[] = [];
    if (!f) return out;
    for (let e = 0; e < f.table.end; e++) if (f.table.isLive(e) && f.sent[e] !== NOT_ADVERTISED) out.push(e);
    return out;
  }

  prefixAt(afi: AfiCode, entry: number): RibPrefix {
    return this.families[slot(afi)]!.table.prefix(entry);
  }

  /** Every prefix advertised in a family, with the attributes sent. */
  forEachAdvertised(
    afi: AfiCode,
    visit: (words: Uint32Array, off: number, len: number, attrs: PathAttributes) => void,
  ): void {
    const f = this.families[slot(afi)];
    if (!f) return;
    const t = f.table;
    for (let e = 0; e < t.end; e++) {
      if (t.isLive(e) && f.sent[e] !== NOT_ADVERTISED)
        visit(t.words, e * t.wordsPerPrefix, t.lens[e], this.exported.get(f.sent[e]));
    }
  }

  /** Prefixes with a change not yet taken. */
  get pending(): number {
    return (this.families[0]?.dirty.count ?? 0) + (this.families[1]?.dirty.count ?? 0);
  }

  /** The exported attributes last sent for a prefix, if any. */
  sentFor(prefix: RibPrefix): PathAttributes | undefined {
    const f = this.families[slot(prefix.afi)];
    if (!f) return undefined;
    const e = f.table.find(prefix.words(), 0, prefix.len);
    if (e < 0 || f.sent[e] === NOT_ADVERTISED) return undefined;
    return this.exported.get(f.sent[e]);
  }

  /** What was last sent for a prefix, as the one path it has (path id 0: none on the wire). */
  sentPaths(prefix: RibPrefix): { pathId: number; attrs: PathAttributes }[] {
    const attrs = this.sentFor(prefix);
    return attrs ? [{ pathId: 0, attrs }] : [];
  }

  /**
   * Wish the prefix (`len` bits of words[off..], 1 or 4 words) advertised with exported
   * attribute `id`, or withdrawn (NOT_ADVERTISED).
   */
  /** Whether anything of the family was ever offered for sending (a withdrawal offer is a no-op otherwise). */
  holds(afi: AfiCode): boolean {
    return this.families[slot(afi)] !== null;
  }

  offer(afi: AfiCode, words: ArrayLike<number>, off: number, len: number, id: number): void {
    const i = slot(afi);
    let f = this.families[i];
    if (!f) {
      if (id === NOT_ADVERTISED) return;
      f = new FamilyOut(afi);
      this.families[i] = f;
    }
    const t = f.table;
    // Another offer may be of a prefix the initial table has yet to reach: from then on,
    // each is looked up.
    const initial = this.#filling && f.initialOnly;
    if (!this.#filling) f.initialOnly = false;
    let e: number;
    if (id === NOT_ADVERTISED) {
      if (initial) return; // a prefix of the initial table is new: never sent, nothing pending
      e = t.find(words, off, len);
      if (e < 0) return; // never sent, nothing pending
    } else {
      e = initial ? t.append(words, off, len) : t.insert(words, off, len);
      if (t.added) {
        f.sent[e] = NOT_ADVERTISED;
        f.want[e] = NOT_ADVERTISED;
        f.isDirty[e] = 0;
      }
    }
    if (!f.isDirty[e]) {
      if (f.sent[e] === id) return;
      f.want[e] = NOT_ADVERTISED;
      f.markDirty(e);
    }
    if (f.want[e] !== id) {
      if (id !== NOT_ADVERTISED) this.exported.ref(id);
      if (f.want[e] !== NOT_ADVERTISED) this.exported.unref(f.want[e]);
      f.want[e] = id;
    }
  }

  /**
   * The changes to send, at most `limit` prefixes (the rest stays for the next call), and
   * records them as sent. Withdrawals only for prefixes that were advertised; nothing for a
   * prefix whose wish equals what was sent.
   */
  take(limit = Number.POSITIVE_INFINITY): OutboundWork {
    const withdraw: PrefixList[] = [];
    const announce: AnnounceWork[] = [];
    const groups = takeGroups;
    let count = 0;
    let budget = limit;
    for (const f of this.families) {
      if (!f || budget <= 0) continue;
      const t = f.table;
      const afi = t.afi;
      let gone: PrefixList | null = null;
      const n = Math.min(f.dirty.count, budget);
      const dirty = f.dirty.items;
      groups.begin();
      for (let k = 0; k < n; k++) {
        const e = dirty[k];
        const forced = f.isDirty[e] === FORCED;
        f.isDirty[e] = 0;
        const want = f.want[e];
        const sent = f.sent[e];
        if (want === sent && !(forced && want !== NOT_ADVERTISED)) {
          if (want !== NOT_ADVERTISED) this.exported.unref(want);
          else t.remove(e);
          continue;
        }
        if (want === NOT_ADVERTISED) {
          gone ??= workLists.list(afi, false);
          append(gone, t, e);
          this.exported.unref(sent);
          f.sent[e] = NOT_ADVERTISED;
          f.advertised--;
          t.remove(e);
        } else {
          groups.pick(e, want);
          if (sent !== NOT_ADVERTISED) this.exported.unref(sent);
          else f.advertised++;
          f.sent[e] = want; // the wish's reference now belongs to `sent`
        }
        count++;
      }
      // Before dropFirst: removed entries were withdrawn, never picked.
      groups.lay(t, this.#attrsOf, announce);
      f.dirty.dropFirst(n);
      budget -= n;
      if (gone) withdraw.push(gone);
    }
    return { withdraw, announce, count };
  }

  /** The work of a `take` is packed and read no more: its lists serve the next `take`. */
  release(work: OutboundWork): void {
    workLists.release(work);
  }

  /**
   * Everything advertised goes out again at the next `take` (ROUTE-REFRESH, RFC 2918), pending
   * withdrawals included.
   */
  refresh(): void {
    for (const f of this.families) {
      if (!f) continue;
      const t = f.table;
      for (let e = 0; e < t.end; e++) {
        if (!t.isLive(e) || f.sent[e] === NOT_ADVERTISED) continue;
        if (!f.isDirty[e]) {
          // The wish is what was sent; both hold a reference until take() settles it.
          this.exported.ref(f.sent[e]);
          f.want[e] = f.sent[e];
          f.markDirty(e);
        }
        // The peer still has the route, so `sent` stays: a later withdrawal must still go out.
        f.isDirty[e] = FORCED;
      }
    }
  }

  /** Drops all state and the references it holds (the session is gone). */
  clear(): void {
    for (const f of this.families) {
      if (!f) continue;
      const t = f.table;
      for (let e = 0; e < t.end; e++) {
        if (!t.isLive(e)) continue;
        if (f.sent[e] !== NOT_ADVERTISED) this.exported.unref(f.sent[e]);
        if (f.isDirty[e] && f.want[e] !== NOT_ADVERTISED) this.exported.unref(f.want[e]);
      }
    }
    this.families[0] = null;
    this.families[1] = null;
  }
}

/** One for every Adj-RIB-Out: a take runs from start to end with no other in between. */
const takeGroups = new TakeGroups();

function slot(afi: AfiCode): number {
  return afi === Afi.IPV4 ? 0 : 1;
}

function append(list: PrefixList, t: PrefixTable, e: number): void {
  const i = list.grow();
  list.lens[i] = t.lens[e];
  const wpp = t.wordsPerPrefix;
  for (let w = 0; w < wpp; w++) list.words[i * wpp + w] = t.words[e * wpp + w];
}
