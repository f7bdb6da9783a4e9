import { Afi, type AfiCode, type PathAttributes } from '../bgp/wire/index.js';
import type { BestPathReasonText } from './constants.js';
import { grown } from './grow.js';
import type { RouteSource } from './peer.js';
import { RibPrefix } from './prefix-key.js';
import type { RouteAdd, RouteChange, RoutePath } from './route-change.js';

const ADD = 1;
const WITHDRAW = 2;
const WORDS = 4;
const INITIAL = 256;
/** Object columns up to this many changes are cleared and kept by `reset`, bigger ones dropped. */
const KEEP_ROOM = 1 << 16;

/**
 * Route changes as columns, for the hot consumers (update groups): a full table's worth of
 * changes is a few typed arrays reused from batch to batch, not two objects per prefix.
 * `change(i)` builds the RouteChange object for whoever wants one (sinks, tests, the API).
 *
 *   i:  kind | afi | len | words[4i..4i+4) | attrs | source | pathId | reason | multipath
 */
export class ChangeBatch {
  count = 0;
  kinds = new Uint8Array(INITIAL);
  afis = new Uint8Array(INITIAL);
  lens = new Uint8Array(INITIAL);
  words = new Uint32Array(INITIAL * WORDS);
  pathIds = new Uint32Array(INITIAL);
  /** The best path's attributes; undefined for a withdrawal. */
  attrs: (PathAttributes | undefined)[] = [];
  /** Where the best path came from (for a withdrawal: the withdrawn one). */
  sources: (RouteSource | undefined)[] = [];
  reasons: (BestPathReasonText | undefined)[] = [];
  /** The equal-cost set when it has more than the best path; null otherwise. */
  multipaths: (readonly RoutePath[] | null)[] = [];
  /**
   * The source of every change when they all share one (a peer's full table arriving), so a
   * consumer can pass over the whole batch at once; null when they do not or it is empty.
   */
  soleSource: RouteSource | null = null;

  /** Empties the batch, keeping its room. */
  reset(): void {
    // Drop the references so a held batch keeps no attribute set alive. Truncating the arrays
    // would free their backing stores and regrow them batch after batch (V8 trims at length
    // 0); clearing in place keeps them, unless a huge batch would leave too much room behind.
    const n = this.count;
    if (n > KEEP_ROOM) {
      this.attrs = [];
      this.sources = [];
      this.reasons = [];
      this.multipaths = [];
    } else {
      const { attrs, sources, reasons, multipaths } = this;
      for (let i = 0; i < n; i++) {
        attrs[i] = undefined;
        sources[i] = undefined;
        reasons[i] = undefined;
        multipaths[i] = null;
      }
    }
    this.count = 0;
    this.soleSource = null;
  }

  isAdd(i: number): boolean {
    return this.kinds[i] === ADD;
  }

  pushAdd(
    afi: AfiCode,
    words: ArrayLike<number>,
    off: number,
    len: number,
    attrs: PathAttributes,
    source: RouteSource,
    pathId: number,
    reason: BestPathReasonText,
    multipath: readonly RoutePath[] | null,
  ): void {
    const i = this.slot(ADD, afi, words, off, len, source);
    this.attrs[i] = attrs;
    this.sources[i] = source;
    this.pathIds[i] = pathId;
    this.reasons[i] = reason;
    this.multipaths[i] = multipath;
  }

  pushWithdraw(afi: AfiCode, words: ArrayLike<number>, off: number, len: number, source: RouteSource): void {
    const i = this.slot(WITHDRAW, afi, words, off, len, source);
    this.attrs[i] = undefined;
    this.sources[i] = source;
    this.pathIds[i] = 0;
    this.reasons[i] = undefined;
    this.multipaths[i] = null;
  }

  /** The prefix of change i. */
  prefix(i: number): RibPrefix {
    return RibPrefix.fromWords(this.afis[i] as AfiCode, this.words, i * WORDS, this.lens[i]);
  }

  /** Change i as the object sinks and the API take. */
  change(i: number): RouteChange {
    const prefix = this.prefix(i);
    const source = this.sources[i]!;
    if (this.kinds[i] === WITHDRAW) return { kind: 'withdraw', prefix, source };
    const multipath = this.multipaths[i];
    const best: RoutePath = multipath
      ? multipath[0]
      : { attrs: this.attrs[i]!, source, pathId: this.pathIds[i] };
    const route: RouteAdd = {
      kind: 'add',
      prefix,
      attrs: best.attrs,
      best,
      multipath: multipath ?? [best],
      source,
      reason: this.reasons[i]!,
    };
    return route;
  }

  toArray(): RouteChange[] {
    const out: RouteChange[] = [];
    for (let i = 0; i < this.count; i++) out.push(this.change(i));
    return out;
  }

  private slot(
    kind: number,
    afi: AfiCode,
    words: ArrayLike<number>,
    off: number,
    len: number,
    source: RouteSource,
  ): number {
    const i = this.count;
    if (i === this.kinds.length) this.grow(i * 2);
    if (i === 0) this.soleSource = source;
    else if (this.soleSource !== source) this.soleSource = null;
    this.kinds[i] = kind;
    this.afis[i] = afi;
    this.lens[i] = len;
    const w = i * WORDS;
    this.words[w] = words[off];
    if (afi === Afi.IPV4) {
      this.words[w + 1] = 0;
      this.words[w + 2] = 0;
      this.words[w + 3] = 0;
    } else {
      this.words[w + 1] = words[off + 1];
      this.words[w + 2] = words[off + 2];
      this.words[w + 3] = words[off + 3];
    }
    this.count = i + 1;
    return i;
  }

  private grow(cap: number): void {
    this.kinds = grown(this.kinds, cap);
    this.afis = grown(this.afis, cap);
    this.lens = grown(this.lens, cap);
    this.words = grown(this.words, cap * WORDS);
    this.pathIds = grown(this.pathIds, cap);
  }
}
