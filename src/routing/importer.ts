import { Afi, type AfiCode, type PathAttributes, PrefixList, type UpdateMessage } from '../bgp/wire/index.js';
import type { RouteFilter } from '../policy/index.js';
import { applyUpdateRules, type Rib, type RibPeer, type UpdateTarget } from '../rib/index.js';
import { RouteStore } from './route-store.js';

/**
 * The import side of one session: UPDATEs through the peer's import policy into the RIB.
 *
 * An import filter that accepts everything unchanged (iBGP without policy) hands UPDATEs to
 * the RIB as they are, and the RIB's Adj-RIB-In is then what the peer sent. Any other filter
 * is evaluated per prefix, and what the peer sent is kept here before policy (as GoBGP keeps
 * its adj-in), so `show received` lists rejected routes too and a changed policy is applied
 * again without asking the peer (soft reconfiguration inbound).
 */
export class Importer {
  readonly #rib: Rib;
  readonly #peer: RibPeer;
  /** Per family (IPv4, IPv6): the peer sends RFC 7911 path ids. */
  readonly #addPath: readonly [boolean, boolean];
  #filter: RouteFilter;
  /** What the peer sent, before policy; null while the filter accepts everything. */
  #received: RouteStore | null;
  /** A one-prefix list for re-evaluating stored routes. */
  readonly #one: [PrefixList, PrefixList];
  /** The UPDATE rules' target while routes go through the filter (made once). */
  readonly #throughPolicy: UpdateTarget<null> = {
    withdrawList: (_, list) => this.#withdraw(list),
    announceList: (_, list, attrs) => this.#announce(list, attrs),
  };

  constructor(rib: Rib, peer: RibPeer, filter: RouteFilter, addPath: readonly [boolean, boolean]) {
    this.#rib = rib;
    this.#peer = peer;
    this.#addPath = addPath;
    this.#filter = filter;
    this.#received = filter.acceptsAll ? null : new RouteStore(addPath);
    this.#one = [new PrefixList(Afi.IPV4, addPath[0], 1), new PrefixList(Afi.IPV6, addPath[1], 1)];
  }

  get filter(): RouteFilter {
    return this.#filter;
  }

  /** Prefixes the peer sent in a family, before policy. */
  received(afi: AfiCode): number {
    return this.#received ? this.#received.count(afi) : this.#rib.counts(this.#peer, afi).received;
  }

  /** What the peer sent for a prefix, before policy. */
  receivedFor(prefix: Parameters<RouteStore['lookup']>[0]): { pathId: number; attrs: PathAttributes }[] {
    if (this.#received) return this.#received.lookup(prefix);
    return this.#rib.adjRibIn(this.#peer).lookup(prefix);
  }

  /** The store of received routes, when one is kept (the filter is not accept-all). */
  get store(): RouteStore | null {
    return this.#received;
  }

  /** One UPDATE, by the rules of applyUpdateRules (RFC 4271 section 9, RFC 7606). */
  apply(u: UpdateMessage): void {
    if (this.#received === null) this.#rib.applyUpdate(this.#peer, u);
    else applyUpdateRules(u, this.#throughPolicy, null);
  }

  /**
   * Swaps the import filter. Returns true when stored routes must go through it again
   * (`reimport` in slices until it returns -1 for both families).
   */
  setFilter(filter: RouteFilter): boolean {
    const before = this.#filter;
    this.#filter = filter;
    if (before === filter) return false;
    if (this.#received === null) {
      if (filter.acceptsAll) return false;
      // The RIB's Adj-RIB-In held what the peer sent, unchanged: it becomes the store.
      const store = new RouteStore(this.#addPath);
      for (const r of this.#rib.adjRibIn(this.#peer).entries()) {
        store.set(r.prefix.afi, r.prefix.words(), 0, r.prefix.len, r.pathId, r.attrs);
      }
      this.#received = store;
    }
    return true;
  }

  /**
   * Sends stored routes of a family, from entry `cursor` on, through the current filter
   * again; returns where to continue, or -1 when the family is done.
   */
  reimport(afi: AfiCode, cursor: number, budget: number): number {
    const store = this.#received;
    if (!store) return -1;
    const one = this.#one[afi === Afi.IPV4 ? 0 : 1];
    one.count = 1;
    const next = store.visit(afi, cursor, budget, (words, off, len, pathId, attrs) => {
      one.lens[0] = len;
      for (let w = 0; w < one.wordsPerPrefix; w++) one.words[w] = words[off + w];
      if (one.addPath) one.pathIds[0] = pathId;
      this.#decide(one, 0, attrs);
    });
    return next;
  }

  /**
   * RFC 7313 section 4, the peer's BoRR for a family: what it sent before policy is stale too
   * until sent again (the RIB marks its own paths).
   */
  refreshBegin(afi: AfiCode): void {
    this.#received?.markStale(afi);
  }

  /**
   * The peer's EoRR: the routes of the family it did not send again leave the store, and the
   * RIB too (a soft reconfiguration in the meantime may have renewed their paths there).
   * Returns how many left the store.
   */
  refreshPurge(afi: AfiCode): number {
    const store = this.#received;
    if (!store) return 0;
    const one = this.#one[afi === Afi.IPV4 ? 0 : 1];
    return store.sweepStale(afi, (words, off, len, pathId) => {
      one.count = 1;
      one.lens[0] = len;
      for (let w = 0; w < one.wordsPerPrefix; w++) one.words[w] = words[off + w];
      if (one.addPath) one.pathIds[0] = pathId;
      this.#rib.withdraw(this.#peer, one);
    });
  }

  /** Every family went through `reimport`: a filter that accepts everything needs no store. */
  reimportDone(): void {
    if (this.#filter.acceptsAll) this.#received = null;
  }

  #withdraw(list: PrefixList): void {
    if (list.count === 0) return;
    const store = this.#received!;
    const wpp = list.wordsPerPrefix;
    for (let i = 0; i < list.count; i++) {
      store.delete(list.afi, list.words, i * wpp, list.lens[i], list.addPath ? list.pathIds[i] : 0);
    }
    this.#rib.withdraw(this.#peer, list);
  }

  #announce(list: PrefixList, attrs: PathAttributes): void {
    const n = list.count;
    if (n === 0) return;
    const store = this.#received!;
    const { afi, words, lens, pathIds, addPath } = list;
    const wpp = list.wordsPerPrefix;
    for (let i = 0; i < n; i++) store.set(afi, words, i * wpp, lens[i], addPath ? pathIds[i] : 0, attrs);
    const filter = this.#filter;
    if (filter.rejectsAll) {
      this.#rib.withdraw(this.#peer, list);
      return;
    }
    // Runs of prefixes with the same outcome go to the RIB as one range (one interning).
    let runStart = 0;
    let runAttrs: PathAttributes | null = null;
    for (let i = 0; i < n; i++) {
      const r = filter.evaluate(afi, words, i * wpp, lens[i], attrs);
      const out = r.accept ? r.attrs : null;
      if (out === runAttrs) continue;
      this.#settle(list, runStart, i, runAttrs);
      runStart = i;
      runAttrs = out;
    }
    this.#settle(list, runStart, n, runAttrs);
  }

  /** Prefixes [from, to) accepted with `attrs`, or rejected (null): withdrawn if held. */
  #settle(list: PrefixList, from: number, to: number, attrs: PathAttributes | null): void {
    if (to <= from) return;
    if (attrs) this.#rib.announce(this.#peer, list, attrs, from, to);
    else this.#rib.withdraw(this.#peer, list, from, to);
  }

  #decide(list: PrefixList, i: number, attrs: PathAttributes): void {
    const filter = this.#filter;
    const r = filter.rejectsAll
      ? null
      : filter.evaluate(list.afi, list.words, i * list.wordsPerPrefix, list.lens[i], attrs);
    this.#settle(list, i, i + 1, r?.accept ? r.attrs : null);
  }
}
