import { type AfiCode, PrefixList } from '../bgp/wire/index.js';
import type { OutboundWork } from './adj-rib-out.js';

/**
 * Lists kept for reuse at most: as many as a slice of add-path export work can take, one per
 * prefix at worst (RoutingDefaults.EXPORT_SLICE_PREFIXES). A transit-like table has one to
 * three prefixes per attribute set, so such a slice takes thousands of lists; with fewer
 * spares each slice made most of them anew, and they lived long enough to be promoted. At
 * most about 3.5 MB held.
 */
const MAX_SPARE = 8192;
/** A list that grew past this many prefixes is dropped rather than kept. */
const MAX_SPARE_CAPACITY = 256;

/**
 * The prefix lists of `take` work, handed back once packed (`release`) and reused by the next
 * `take`: withdrawals, and an add-path initial table's list per attribute set per slice
 * (a single-path take lays its announcements out in one list, TakeGroups). Allocating each
 * anew (three typed arrays, grown once or twice) cost a sixth of the send time, most of it in
 * the garbage collector. One pool serves every Adj-RIB-Out: a sender takes, packs and
 * releases in one turn, so only one slice's lists are out at a time. Work never released
 * (tests, other readers) is simply left to the collector.
 */
class WorkLists {
  readonly #spare: PrefixList[] = [];

  /** An empty list for a family, reused when one is spare. */
  list(afi: AfiCode, addPath: boolean): PrefixList {
    const l = this.#spare.pop();
    return l ? l.reset(afi, addPath) : new PrefixList(afi, addPath);
  }

  /** The work's lists may be reused: nothing reads them any more. */
  release(work: OutboundWork): void {
    for (const l of work.withdraw) this.#keep(l);
    // Works that share a list each have a range of it: the one whose range starts it keeps it.
    for (const a of work.announce) if (a.from === 0) this.#keep(a.prefixes);
  }

  /** Lists held for reuse. */
  get spare(): number {
    return this.#spare.length;
  }

  #keep(l: PrefixList): void {
    if (this.#spare.length < MAX_SPARE && l.lens.length <= MAX_SPARE_CAPACITY) this.#spare.push(l);
  }
}

export const workLists = new WorkLists();
