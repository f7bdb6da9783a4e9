import {
  Afi,
  type AfiCode,
  attributesLeavingAs,
  makeAttributes,
  type PathAttributes,
  PrefixList,
  type PreparedAttributes,
  Safi,
  type UpdatePacker,
  type Writer,
} from '../bgp/wire/index.js';
import type { PolicyResult, RouteFilter } from '../policy/index.js';
import {
  applyNextHopRule,
  type ExportTarget,
  type OutboundWork,
  type RibOut,
  type RibPrefix,
} from '../rib/index.js';
import { SINGLE_PATH_ID } from './constants.js';
import { RouteStore } from './route-store.js';

/** What encoding for one Established session depends on. */
export interface ExportSession {
  /** Packs for this session's context (4-octet AS, message size). */
  readonly packer: UpdatePacker;
  /** Families negotiated with the peer: nothing else is sent. */
  readonly families: ReadonlySet<AfiCode>;
  /** Per family (IPv4, IPv6): the peer receives RFC 7911 path ids from us. */
  readonly addPathSend: readonly [boolean, boolean];
  /** Our addresses on the session, for a policy's `set next_hop self`. */
  readonly localIpv4: number | undefined;
  readonly localIpv6: Uint8Array | undefined;
  /** RFC 8950 agreed: our IPv6 address is the `self` of an IPv4 route too. */
  readonly extendedNextHop?: boolean;
  /** An eBGP peer: what export policy adds is held to RFC 4360 section 6 as well. */
  readonly ebgp?: boolean;
  /**
   * UPDATE bytes shared by every session with 4-octet ASNs (the update groups' interner):
   * undefined for a set it does not know, which this session then prepares itself.
   */
  readonly prepared?: (attrs: PathAttributes) => PreparedAttributes | undefined;
}

/** What the peer has from us, as `show advertised` and the counters read it. */
export interface AdvertisedRoutes {
  count(afi: AfiCode): number;
  lookup(prefix: RibPrefix): readonly { readonly pathId: number; readonly attrs: PathAttributes }[];
  entries(afi: AfiCode): number[];
  prefixOf(afi: AfiCode, entry: number): RibPrefix;
}

/**
 * The export side of one session after the update group: the Adj-RIB-Out's work through the
 * peer's export policy into UPDATE bytes. What was really sent (after policy) is kept, so a
 * withdrawal goes out only for a prefix the peer has from us, `show advertised` shows what
 * the peer got, and a changed policy that now rejects a prefix withdraws it.
 *
 * An export policy that accepts everything unchanged sends exactly what the Adj-RIB-Out holds:
 * then no record is kept here and the Adj-RIB-Out (negotiated families only) is the answer,
 * sparing a second prefix table per peer. A record is made from it when the policy changes
 * or a resync starts.
 */
export class Exporter {
  #session: ExportSession;
  /** What was sent; null while the Adj-RIB-Out says it (accept-all policy, no resync). */
  #advertised: RouteStore | null;
  #adjOut: RibOut | null = null;
  /** During a resync: what was sent before it and has not been sent again yet. */
  #previous: RouteStore | null = null;
  #filter: RouteFilter;
  readonly #prepared = new WeakMap<PathAttributes, PreparedAttributes>();
  #selfNextHop = new WeakMap<PathAttributes, PathAttributes>();
  readonly #scoped = new WeakMap<PathAttributes, PathAttributes>();
  /** See nextHopRule. */
  #rule: ExportTarget | null = null;
  /** Per family (IPv4, IPv6): attributes → with the rule's next hop (null: cannot be sent). */
  #ruled: [WeakMap<PathAttributes, PathAttributes | null>, WeakMap<PathAttributes, PathAttributes | null>] = [
    new WeakMap(),
    new WeakMap(),
  ];

  constructor(filter: RouteFilter, session: ExportSession) {
    this.#filter = filter;
    this.#session = session;
    this.#advertised = filter.acceptsAll ? null : this.#newStore();
  }

  get session(): ExportSession {
    return this.#session;
  }

  /** Our addresses on the session changed (its interface was listed late): `self` means them now. */
  setLocalAddresses(localIpv4: number | undefined, localIpv6: Uint8Array | undefined): void {
    this.#session = { ...this.#session, localIpv4, localIpv6 };
    this.#selfNextHop = new WeakMap();
  }

  /**
   * Set when the update group kept each route's own next hop only so the export policy could
   * match on it or keep it (`next_hop: unchanged`): the target whose RFC 4271 section 5.1.3
   * rule then gives the next hop of every route the policy left to it (directive "default").
   * Null when the update group applied that rule itself, the usual case.
   */
  get nextHopRule(): ExportTarget | null {
    return this.#rule;
  }

  set nextHopRule(rule: ExportTarget | null) {
    if (rule === this.#rule) return;
    this.#rule = rule;
    this.#ruled = [new WeakMap(), new WeakMap()];
  }

  /** The Adj-RIB-Out whose work this encodes (null: none, the session cannot send). */
  track(out: RibOut | null): void {
    this.#adjOut = out;
  }

  get filter(): RouteFilter {
    return this.#filter;
  }

  /** What the peer has from us, by prefix, with the attributes it was sent. */
  get advertised(): AdvertisedRoutes {
    return this.#advertised ?? new SentRoutes(this.#adjOut, this.session.families);
  }

  set filter(f: RouteFilter) {
    // From now on what is sent may differ from the Adj-RIB-Out: record what the peer has.
    if (!f.acceptsAll && this.#advertised === null) this.#advertised = this.#sentByAdjRibOut();
    this.#filter = f;
  }

  /**
   * Appends the UPDATEs for one slice of Adj-RIB-Out work to `w`: withdrawals first, then
   * announcements grouped by the attributes policy left them with. Returns how many messages.
   */
  encode(work: OutboundWork, w: Writer): number {
    const gone: [PrefixList | null, PrefixList | null] = [null, null];
    const groups = new Map<PathAttributes, PrefixList>();
    /** Works packed as they came: their indexes in work.announce. */
    const announced: number[] = [];
    const families = this.session.families;
    const adv = this.#advertised;
    const prev = this.#previous;
    const filter = this.#filter;
    const addPath = this.session.addPathSend;
    const rule = this.#rule;
    // Withdrawn only when the peer has it (now, or from before a resync). Without a record
    // the Adj-RIB-Out withdraws only what it sent.
    const unsend = (list: PrefixList, i: number, at: number) => {
      const id = pathIdOf(list, i);
      const had = adv === null || adv.delete(list.afi, list.words, at, list.lens[i], id);
      if (prev?.delete(list.afi, list.words, at, list.lens[i], id) || had) append(gone, list, i, addPath);
    };
    for (const list of work.withdraw) {
      if (!families.has(list.afi)) continue;
      const wpp = list.wordsPerPrefix;
      for (let i = 0; i < list.count; i++) unsend(list, i, i * wpp);
    }
    const packer = this.session.packer;
    let messages = 0;
    for (let k = 0; k < work.announce.length; k++) {
      const { attrs, prefixes: list, from, to } = work.announce[k]!;
      const afi = list.afi;
      if (!families.has(afi)) continue;
      const wpp = list.wordsPerPrefix;
      if (filter.acceptsAll && rule === null && prev === null && list.addPath === addPath[slot(afi)]) {
        // Sent as the update group exported it (path ids included): pack the range as it is.
        if (adv)
          for (let i = from; i < to; i++)
            adv.set(afi, list.words, i * wpp, list.lens[i], pathIdOf(list, i), attrs);
        announced.push(k);
        continue;
      }
      for (let i = from; i < to; i++) {
        const r: PolicyResult | null = filter.acceptsAll
          ? null
          : filter.rejectsAll
            ? REJECTED
            : filter.evaluate(afi, list.words, i * wpp, list.lens[i], attrs);
        if (r !== null && !r.accept) {
          unsend(list, i, i * wpp);
          continue;
        }
        let out = r === null ? attrs : r.nextHop === 'self' ? this.#withSelfNextHop(r.attrs, afi) : r.attrs;
        if (out !== attrs && this.session.ebgp) out = this.#transitiveOnly(out);
        if (rule !== null && (r === null || r.nextHop === 'default')) {
          const ruled = this.#withRuleNextHop(out, afi, rule);
          if (ruled === null) {
            unsend(list, i, i * wpp);
            continue;
          }
          out = ruled;
        }
        adv?.set(afi, list.words, i * wpp, list.lens[i], pathIdOf(list, i), out);
        prev?.delete(afi, list.words, i * wpp, list.lens[i], pathIdOf(list, i));
        let group = groups.get(out);
        if (!group) {
          group = new PrefixList(afi, addPath[slot(afi)]);
          groups.set(out, group);
        }
        copyPrefix(group, list, i);
      }
    }
    for (const list of gone) {
      if (list) messages += packer.withdraw(w, list, Safi.UNICAST);
    }
    for (const [attrs, list] of groups) messages += packer.announce(w, this.#prepare(attrs), list);
    for (const k of announced) {
      const a = work.announce[k]!;
      messages += packer.announce(w, this.#prepare(a.attrs), a.prefixes, a.from, a.to);
    }
    return messages;
  }

  /**
   * The Adj-RIB-Out starts over (the update group changed): what it sends from now on is
   * recorded afresh, and `finishResync` withdraws whatever it did not send again. Call it
   * before the old Adj-RIB-Out is released: without a record, it says what the peer has.
   */
  beginResync(): void {
    const prev = this.#previous;
    const sent = this.#advertised ?? this.#sentByAdjRibOut();
    if (prev === null) {
      this.#previous = sent;
    } else {
      // A resync within a resync: what was sent since the first one is also the peer's now.
      for (const afi of [Afi.IPV4, Afi.IPV6] as const) {
        sent.visit(afi, 0, Number.POSITIVE_INFINITY, (words, off, len, id, attrs) => {
          prev.set(afi, words, off, len, id, attrs);
        });
      }
    }
    this.#advertised = this.#newStore();
  }

  /** The initial table is about to go out: size the record of what was sent for it. */
  reserve(afi: AfiCode, routes: number): void {
    this.#advertised?.reserve(afi, routes);
  }

  get resyncing(): boolean {
    return this.#previous !== null;
  }

  /** Appends withdrawals for what was sent before the resync and not since; returns the message count. */
  finishResync(w: Writer): number {
    const prev = this.#previous;
    if (prev === null) return 0;
    this.#previous = null;
    const gone: [PrefixList | null, PrefixList | null] = [null, null];
    const addPath = this.session.addPathSend;
    for (const afi of [Afi.IPV4, Afi.IPV6] as const) {
      const list = new PrefixList(afi, addPath[slot(afi)]);
      prev.visit(afi, 0, Number.POSITIVE_INFINITY, (words, off, len, id) => {
        const j = list.grow();
        list.lens[j] = len;
        for (let k = 0; k < list.wordsPerPrefix; k++)
          list.words[j * list.wordsPerPrefix + k] = words[off + k];
        if (list.addPath) list.pathIds[j] = id === 0 ? SINGLE_PATH_ID : id;
      });
      if (list.count > 0) gone[slot(afi)] = list;
    }
    let messages = 0;
    for (const list of gone) if (list) messages += this.session.packer.withdraw(w, list, Safi.UNICAST);
    // Everything sent is in the new Adj-RIB-Out again: it can say so itself.
    if (this.#filter.acceptsAll) this.#advertised = null;
    return messages;
  }

  /** Drops what was recorded as sent (the session is gone). */
  clear(): void {
    this.#advertised = this.#filter.acceptsAll ? null : this.#newStore();
    this.#adjOut = null;
    this.#previous = null;
  }

  /** A record of what the Adj-RIB-Out sent in the negotiated families. */
  #sentByAdjRibOut(): RouteStore {
    const store = this.#newStore();
    const out = this.#adjOut;
    if (!out) return store;
    for (const afi of this.session.families) {
      out.forEachAdvertised(afi, (words, off, len, attrs, pathId = 0) =>
        store.set(afi, words, off, len, pathId, attrs),
      );
    }
    return store;
  }

  /** A record of what was sent: keyed by path id too where the peer receives path ids. */
  #newStore(): RouteStore {
    return new RouteStore(this.session.addPathSend);
  }

  #prepare(attrs: PathAttributes): PreparedAttributes {
    const { packer, prepared } = this.session;
    if (prepared !== undefined && packer.ctx.as4) {
      const shared = prepared(attrs);
      if (shared !== undefined) return shared;
    }
    let p = this.#prepared.get(attrs);
    if (!p) {
      p = this.session.packer.prepare(attrs);
      this.#prepared.set(attrs, p);
    }
    return p;
  }

  /** RFC 4271 section 5.1.3 after the policy, for a route whose next hop the update group kept. */
  #withRuleNextHop(attrs: PathAttributes, afi: AfiCode, rule: ExportTarget): PathAttributes | null {
    const cache = this.#ruled[slot(afi)];
    let out = cache.get(attrs);
    if (out === undefined) {
      out = applyNextHopRule(attrs, afi, rule);
      cache.set(attrs, out);
    }
    return out;
  }

  /** RFC 4360 section 6: a policy's non-transitive extended communities do not leave the AS. */
  #transitiveOnly(attrs: PathAttributes): PathAttributes {
    let out = this.#scoped.get(attrs);
    if (!out) {
      out = attributesLeavingAs(attrs);
      this.#scoped.set(attrs, out);
    }
    return out;
  }

  /** A policy's `set next_hop self`: our address on this session replaces the next hop. */
  #withSelfNextHop(attrs: PathAttributes, afi: AfiCode): PathAttributes {
    let out = this.#selfNextHop.get(attrs);
    if (out) return out;
    const { localIpv4, localIpv6, extendedNextHop } = this.session;
    if (afi === Afi.IPV4 && extendedNextHop && localIpv6 !== undefined) {
      // As export-rules does on such a session: the IPv6 address, in MP_REACH_NLRI (AFI 1).
      out = makeAttributes({
        ...makeAttributes(attrs),
        nextHop: undefined,
        mpReach: { afi: Afi.IPV4, safi: Safi.UNICAST, nextHop: localIpv6, reserved: 0 },
      });
    } else if (afi === Afi.IPV4 && localIpv4 !== undefined) {
      // makeAttributes first: a spread alone would drop a wire-backed set's lazily decoded fields.
      out = makeAttributes({ ...makeAttributes(attrs), nextHop: localIpv4, mpReach: undefined });
    } else if (afi === Afi.IPV6 && localIpv6 !== undefined) {
      out = makeAttributes({
        ...makeAttributes(attrs),
        mpReach: { afi: Afi.IPV6, safi: Safi.UNICAST, nextHop: localIpv6, reserved: 0 },
      });
    } else {
      out = attrs;
    }
    this.#selfNextHop.set(attrs, out);
    return out;
  }
}

/**
 * Who decides a session's next hops. An export policy that matches on the next hop or keeps it
 * must see the route's own: the update group then keeps it (`nextHopUnchanged`, so such peers
 * form groups of their own) and the exporter applies the peer's own rule (RFC 4271 section
 * 5.1.3) to the routes the policy leaves to it (`rule`). Peers whose policy never looks at the
 * next hop keep the group deciding it, once for all of them; so do peers that keep next hops
 * anyway (`next_hop_unchanged`).
 */
export function nextHopPlan(
  target: ExportTarget,
  filter: RouteFilter,
): { readonly group: ExportTarget; readonly rule: ExportTarget | null } {
  if (!filter.readsNextHop || target.nextHopUnchanged === true) return { group: target, rule: null };
  return { group: { ...target, nextHopUnchanged: true }, rule: target };
}

const REJECTED: PolicyResult = Object.freeze({ accept: false, reason: 'export policy rejects every route' });

function slot(afi: AfiCode): 0 | 1 {
  return afi === Afi.IPV4 ? 0 : 1;
}

function append(
  gone: [PrefixList | null, PrefixList | null],
  from: PrefixList,
  i: number,
  addPath: readonly [boolean, boolean],
): void {
  const s = slot(from.afi);
  let list = gone[s];
  if (!list) {
    list = new PrefixList(from.afi, addPath[s]);
    gone[s] = list;
  }
  copyPrefix(list, from, i);
}

/**
 * Copies prefix i of `from` into `to`: with its path id when both carry them (an add-path
 * Adj-RIB-Out's work), our one path id when only `to` does.
 */
function copyPrefix(to: PrefixList, from: PrefixList, i: number): void {
  const j = to.grow();
  to.lens[j] = from.lens[i];
  const wpp = from.wordsPerPrefix;
  for (let k = 0; k < wpp; k++) to.words[j * wpp + k] = from.words[i * wpp + k];
  if (to.addPath) to.pathIds[j] = from.addPath ? from.pathIds[i] : SINGLE_PATH_ID;
}

/** The path id a list gives prefix i (0 without path ids): the key of what was sent. */
function pathIdOf(list: PrefixList, i: number): number {
  return list.addPath ? list.pathIds[i] : 0;
}

/** The Adj-RIB-Out as the record of what was sent, in the families the session carries. */
class SentRoutes implements AdvertisedRoutes {
  readonly #out: RibOut | null;
  readonly #families: ReadonlySet<AfiCode>;

  constructor(out: RibOut | null, families: ReadonlySet<AfiCode>) {
    this.#out = out;
    this.#families = families;
  }

  count(afi: AfiCode): number {
    return this.#out && this.#families.has(afi) ? this.#out.count(afi) : 0;
  }

  lookup(prefix: RibPrefix): { pathId: number; attrs: PathAttributes }[] {
    if (!this.#out || !this.#families.has(prefix.afi)) return [];
    return this.#out.sentPaths(prefix);
  }

  entries(afi: AfiCode): number[] {
    return this.#out && this.#families.has(afi) ? this.#out.advertisedEntries(afi) : [];
  }

  prefixOf(afi: AfiCode, entry: number): RibPrefix {
    return this.#out!.prefixAt(afi, entry);
  }
}
