import { type PathAttributes, PrefixList } from '../bgp/wire/index.js';
import type { AnnounceWork } from './adj-rib-out.js';
import { grown } from './grow.js';
import type { PrefixTable } from './prefix-table.js';

/**
 * The announcements of one `take`, grouped by attribute id into ranges of a single list: the
 * entries are picked first (entry, id), each id counted; then every prefix is copied to its
 * id's range, ids in the order they first came, prefixes in the order they were picked. A list
 * per attribute set cost a transit table's send a fifth of its take and pack time: a slice
 * touched thousands of lists, each cold in cache, where these few columns stay warm.
 */
export class TakeGroups {
  /** The picked entries and their ids. */
  #entries = new Int32Array(1024);
  #ids = new Int32Array(1024);
  #picked = 0;
  /** Per group (in order of first coming): its id, its size, then where it is filled next. */
  #groupIds = new Int32Array(1024);
  #sizes = new Int32Array(1024);
  #groups = 0;
  /** Per id: its group, valid while its stamp is the current one (nothing cleared between takes). */
  #stamp = new Int32Array(1024);
  #groupOf = new Int32Array(1024);
  #now = 0;
  /** The last id picked and its group: an attribute set's prefixes come in runs. */
  #lastId = -1;
  #lastGroup = -1;

  /** Starts a take's family. */
  begin(): void {
    this.#picked = 0;
    this.#groups = 0;
    this.#lastId = -1;
    if (++this.#now === 0x7fffffff) {
      this.#stamp.fill(0);
      this.#now = 1;
    }
  }

  /** Entry `e` is announced with attribute id `id`. */
  pick(e: number, id: number): void {
    const k = this.#picked;
    if (k === this.#entries.length) {
      this.#entries = grown(this.#entries, k * 2);
      this.#ids = grown(this.#ids, k * 2);
    }
    this.#entries[k] = e;
    this.#ids[k] = id;
    this.#picked = k + 1;
    let g = this.#lastGroup;
    if (id !== this.#lastId) {
      g = this.#groupFor(id);
      this.#lastId = id;
      this.#lastGroup = g;
    }
    this.#sizes[g]++;
  }

  /**
   * Copies the picked prefixes from `t` into one list, grouped, and adds a work per group to
   * `out` (the attributes from `attrsOf`).
   */
  lay(t: PrefixTable, attrsOf: (id: number) => PathAttributes, out: AnnounceWork[]): void {
    const n = this.#picked;
    if (n === 0) return;
    const list = new PrefixList(t.afi, false, n);
    list.count = n;
    const sizes = this.#sizes;
    // Sizes become each group's start, then its next free place as it fills.
    let at = 0;
    for (let g = 0; g < this.#groups; g++) {
      const size = sizes[g];
      out.push({ attrs: attrsOf(this.#groupIds[g]), prefixes: list, from: at, to: at + size });
      sizes[g] = at;
      at += size;
    }
    const wpp = t.wordsPerPrefix;
    const entries = this.#entries;
    const ids = this.#ids;
    let lastId = -1;
    let g = -1;
    for (let k = 0; k < n; k++) {
      const id = ids[k];
      if (id !== lastId) {
        g = this.#groupOf[id];
        lastId = id;
      }
      const i = sizes[g]++;
      const e = entries[k];
      list.lens[i] = t.lens[e];
      if (wpp === 1) list.words[i] = t.words[e];
      else for (let w = 0; w < 4; w++) list.words[i * 4 + w] = t.words[e * 4 + w];
    }
  }

  #groupFor(id: number): number {
    if (id >= this.#stamp.length) {
      const cap = Math.max(id + 1, this.#stamp.length * 2);
      this.#stamp = grown(this.#stamp, cap);
      this.#groupOf = grown(this.#groupOf, cap);
    }
    if (this.#stamp[id] === this.#now) return this.#groupOf[id];
    const g = this.#groups++;
    if (g === this.#groupIds.length) {
      this.#groupIds = grown(this.#groupIds, g * 2);
      this.#sizes = grown(this.#sizes, g * 2);
    }
    this.#groupIds[g] = id;
    this.#sizes[g] = 0;
    this.#stamp[id] = this.#now;
    this.#groupOf[id] = g;
    return g;
  }
}
