import {
  Afi,
  type AfiCode,
  type PathAttributes,
  type PrefixList,
  WireAttributes,
} from '../bgp/wire/index.js';
import { AddPathRibOut, type PathWishes } from './add-path-out.js';
import { AdjRibOut, NOT_ADVERTISED } from './adj-rib-out.js';
import { ChangeBatch } from './change-batch.js';
import { ExportInterner } from './export-interner.js';
import { type ExportContext, type ExportTarget, exportAttributes } from './export-rules.js';
import type { RankedPaths } from './loc-rib-view.js';
import { pathKey } from './path-ids.js';
import type { RouteSource } from './peer.js';
import type { RibPrefix } from './prefix-key.js';
import { type BestCursor, FIRST_BEST } from './rib.js';
import type { RouteChange } from './route-change.js';
import { WireExport, writeWireExport } from './wire-export.js';

interface CachedExport {
  readonly source: RouteSource;
  v4: PathAttributes | null | undefined;
  v6: PathAttributes | null | undefined;
  /** The export of the same attribute set from another source (rare). */
  next: CachedExport | null;
}

/** Slots of an update group's cache of received sets' exports (a power of two). */
const RECENT_SLOTS = 4096;

/** A peer as export sees it. */
export interface OutPeer {
  readonly id: string;
  /** Its BGP Identifier (u32). */
  readonly routerId: number;
  readonly target: ExportTarget;
  /**
   * RFC 7911 send: which paths the peer gets, and per family (IPv4, IPv6) whether add-path
   * send was negotiated (a family without it gets the best path alone). Absent: the best path
   * only, through the single-path Adj-RIB-Out.
   */
  readonly addPath?: AddPathExport;
}

/** Paths sent per prefix to an add-path peer: every path, the multipath set, or the N best. */
export type AddPathSelect = 'all' | 'ecmp' | number;

export interface AddPathExport {
  readonly select: AddPathSelect;
  readonly families: readonly [boolean, boolean];
}

/** Where add-path groups read every path of a prefix (a Rib is one). */
export interface RankedPathSource {
  rankedPaths(afi: AfiCode, words: ArrayLike<number>, off: number, len: number): RankedPaths | undefined;
  /** The prefixes the last flush decided, per family; filled while `trackTouched` is set. */
  readonly touched: readonly PrefixList[];
  trackTouched: boolean;
}

/** An Adj-RIB-Out of either kind. */
export type RibOut = AdjRibOut | AddPathRibOut;

/** Where Adj-RIB-Outs get the current best paths from when a peer joins (a Rib is one). */
export interface BestPathSource {
  collectBest(cursor: BestCursor, budget: number, out: ChangeBatch): BestCursor | null;
  /** Prefixes with a best path in a family. */
  bestCount(afi: AfiCode): number;
}

/**
 * Peers with equal export targets: the export of each (attribute set, source, family) is
 * computed once for all of them and interned, so they share attribute objects (and the
 * UPDATE bytes prepared for them). Each member keeps its own Adj-RIB-Out because two rules
 * are per peer: a route never goes back to the peer it came from, nor to the peer named by
 * its ORIGINATOR_ID.
 */
export class UpdateGroup {
  readonly key: string;
  readonly target: ExportTarget;
  readonly members = new Set<RibOut>();
  /** Null: single-path members (AdjRibOut); else add-path members (AddPathRibOut) and what they get. */
  readonly addPath: AddPathExport | null;
  /** Where an add-path group reads every path of a prefix. */
  private readonly ranked: RankedPathSource | null;
  private readonly ctx: ExportContext;
  private readonly interner: ExportInterner;
  /**
   * The exports of received sets, direct-mapped by the number the RIB gave each set
   * (`WireAttributes.internId`): slot k holds the last set, source and exports seen at
   * k mod RECENT_SLOTS. The routes of a set come in runs (one UPDATE's prefixes are
   * neighbours in the RIB), and runs interleave where paths of several sets alternate (add-path,
   * best paths from several peers), which a few thousand slots cover. A WeakMap from sets to
   * exports cost a full table's send about a fifth of its time (an entry and an object per set,
   * and the collector's weak-table work); these columns cost nothing per set, and hold at most
   * RECENT_SLOTS sets alive.
   */
  private readonly recentSets: (PathAttributes | undefined)[] = new Array(RECENT_SLOTS).fill(undefined);
  private readonly recentSources: (RouteSource | undefined)[] = new Array(RECENT_SLOTS).fill(undefined);
  private readonly recentV4: (PathAttributes | null | undefined)[] = new Array(RECENT_SLOTS).fill(undefined);
  private readonly recentV6: (PathAttributes | null | undefined)[] = new Array(RECENT_SLOTS).fill(undefined);
  /**
   * Any other set (a local route's, or one the RIB did not number) → its exports per source,
   * chained (usually one source per set). undefined: not computed yet.
   */
  private cache = new WeakMap<PathAttributes, CachedExport>();
  /** The last answer of exportOf: the routes of one UPDATE come in a run with one attribute set. */
  private lastAttrs: PathAttributes | null = null;
  private lastSource: RouteSource | null = null;
  private lastAfi: AfiCode = Afi.IPV4;
  private lastOut: PathAttributes | null = null;

  constructor(
    key: string,
    target: ExportTarget,
    ctx: ExportContext,
    interner: ExportInterner,
    addPath: AddPathExport | null = null,
    ranked: RankedPathSource | null = null,
  ) {
    this.key = key;
    this.target = target;
    this.ctx = ctx;
    this.interner = interner;
    this.addPath = addPath;
    this.ranked = ranked;
    if (addPath && !ranked) throw new Error('an add-path update group needs a source of every path');
  }

  /** The interned export of a route for this group, or null when it is not sent. */
  exportOf(attrs: PathAttributes, source: RouteSource, afi: AfiCode): PathAttributes | null {
    if (attrs === this.lastAttrs && source === this.lastSource && afi === this.lastAfi) return this.lastOut;
    const out = this.computeExport(attrs, source, afi);
    this.lastAttrs = attrs;
    this.lastSource = source;
    this.lastAfi = afi;
    this.lastOut = out;
    return out;
  }

  private computeExport(attrs: PathAttributes, source: RouteSource, afi: AfiCode): PathAttributes | null {
    const id = attrs instanceof WireAttributes ? attrs.internId : -1;
    if (id >= 0) {
      const k = id & (RECENT_SLOTS - 1);
      if (this.recentSets[k] !== attrs || this.recentSources[k] !== source) {
        this.recentSets[k] = attrs;
        this.recentSources[k] = source;
        this.recentV4[k] = undefined;
        this.recentV6[k] = undefined;
      }
      const known = afi === Afi.IPV4 ? this.recentV4[k] : this.recentV6[k];
      if (known !== undefined) return known;
      const out = this.exportNow(attrs, source, afi);
      if (afi === Afi.IPV4) this.recentV4[k] = out;
      else this.recentV6[k] = out;
      return out;
    }
    const first = this.cache.get(attrs);
    let entry = first;
    while (entry !== undefined && entry.source !== source) entry = entry.next ?? undefined;
    if (entry === undefined) {
      entry = { source, v4: undefined, v6: undefined, next: first ?? null };
      this.cache.set(attrs, entry);
    }
    const known = afi === Afi.IPV4 ? entry.v4 : entry.v6;
    if (known !== undefined) return known;
    const out = this.exportNow(attrs, source, afi);
    if (afi === Afi.IPV4) entry.v4 = out;
    else entry.v6 = out;
    return out;
  }

  /** The interned export of a route for this group, computed (not cached). */
  private exportNow(attrs: PathAttributes, source: RouteSource, afi: AfiCode): PathAttributes | null {
    const wire = attrs instanceof WireAttributes ? attrs : null;
    // A received set decoded only for this export need not stay decoded: the export is kept
    // compact (ExportInterner), and the paths and lists would outlive it as garbage held.
    const fresh = wire !== null && !wire.hasDecoded;
    let out = wire !== null ? this.exportFromBytes(wire, source, afi) : undefined;
    if (out === undefined) {
      const made = exportAttributes(attrs, afi, source, this.target, this.ctx);
      out = made && this.interner.get(this.interner.intern(made));
    }
    if (fresh) wire.forgetDecoded();
    return out;
  }

  /**
   * The interned export of a received set written from its bytes (wire-export.ts): null when
   * the route is not sent, undefined when that path does not cover it.
   */
  private exportFromBytes(
    attrs: WireAttributes,
    source: RouteSource,
    afi: AfiCode,
  ): PathAttributes | null | undefined {
    const r = writeWireExport(this.interner.writer, attrs, afi, source, this.target, this.ctx);
    if (r === WireExport.NOT_SENT) return null;
    if (r !== WireExport.WRITTEN) return undefined;
    return this.interner.get(this.interner.internWritten());
  }

  /** Offers one route change to the given members (all by default). */
  offer(change: RouteChange, to: Iterable<RibOut> = this.members): void {
    const p = change.prefix;
    WORDS[0] = p.w0;
    WORDS[1] = p.w1;
    WORDS[2] = p.w2;
    WORDS[3] = p.w3;
    if (this.addPath) this.offerRanked(p.afi, WORDS, 0, p.len, to);
    else if (change.kind === 'withdraw') this.offerRoute(p.afi, WORDS, 0, p.len, null, change.source, to);
    else this.offerRoute(p.afi, WORDS, 0, p.len, change.attrs, change.source, to);
  }

  /** Offers every change of a batch to every member. */
  offerBatch(batch: ChangeBatch): void {
    if (this.addPath) {
      this.offerTouched();
      return;
    }
    if (this.members.size !== 1) {
      for (let i = 0; i < batch.count; i++) this.offerAt(batch, i);
      return;
    }
    // One member (a peer alone in its group): a change from that very peer would only be
    // offered to it as "not advertised", a no-op while it holds nothing of that family —
    // the case of a peer sending its full table while nobody else listens.
    const only = [...this.members][0] as AdjRibOut;
    const sole = batch.soleSource;
    if (sole !== null && sole.kind !== 'local' && sole.id === only.peerId) {
      // The whole batch is that peer's own: nothing to look at unless it was sent routes.
      if (!only.holds(Afi.IPV4) && !only.holds(Afi.IPV6)) return;
    }
    for (let i = 0; i < batch.count; i++) {
      const source = batch.sources[i]!;
      if (source.kind !== 'local' && source.id === only.peerId && !only.holds(batch.afis[i] as AfiCode))
        continue;
      this.offerAt(batch, i);
    }
  }

  /**
   * Add-path members: every prefix the last flush decided, not just those whose best path
   * changed (a second path may have).
   */
  offerTouched(): void {
    for (const list of this.ranked!.touched) {
      const wpp = list.wordsPerPrefix;
      for (let i = 0; i < list.count; i++)
        this.offerRanked(list.afi, list.words, i * wpp, list.lens[i], this.members);
    }
  }

  /** Offers change i of a batch to the given members (all by default). */
  offerAt(batch: ChangeBatch, i: number, to: Iterable<RibOut> = this.members): void {
    if (this.addPath) {
      this.offerRanked(batch.afis[i] as AfiCode, batch.words, i * 4, batch.lens[i], to);
      return;
    }
    const attrs = batch.isAdd(i) ? batch.attrs[i]! : null;
    this.offerRoute(
      batch.afis[i] as AfiCode,
      batch.words,
      i * 4,
      batch.lens[i],
      attrs,
      batch.sources[i]!,
      to,
    );
  }

  /** A route (attrs null: withdrawn) offered to members, each by its per-peer rules. */
  private offerRoute(
    afi: AfiCode,
    words: ArrayLike<number>,
    off: number,
    len: number,
    attrs: PathAttributes | null,
    source: RouteSource,
    to: Iterable<RibOut>,
  ): void {
    // Nothing goes back to the peer it came from: a group holding only that peer (the usual
    // case while a peer sends its full table) needs no export computed at all.
    const exp = attrs === null || onlySender(to, source) ? null : this.exportOf(attrs, source, afi);
    if (exp === null) {
      for (const m of to) (m as AdjRibOut).offer(afi, words, off, len, NOT_ADVERTISED);
      return;
    }
    const id = this.interner.intern(exp);
    this.interner.ref(id); // held while members take their own references
    for (const m of to)
      (m as AdjRibOut).offer(afi, words, off, len, sendsTo(m, source, exp) ? id : NOT_ADVERTISED);
    this.interner.unref(id);
  }

  /**
   * Add-path members: the prefix's paths as the RIB has them now, selected for each member
   * (not back to the peer a path came from, nor to its ORIGINATOR_ID), offered as a set.
   * A family without add-path gets the best path alone, as the single-path Adj-RIB-Out would.
   */
  private offerRanked(
    afi: AfiCode,
    words: ArrayLike<number>,
    off: number,
    len: number,
    to: Iterable<RibOut>,
  ): void {
    const ranked = this.ranked!.rankedPaths(afi, words, off, len);
    const select = this.addPath!.select;
    for (const m of to as Iterable<AddPathRibOut>) {
      const wish: PathWishes = new Map();
      if (ranked) {
        const withIds = m.withPathIds[afi === Afi.IPV4 ? 0 : 1];
        const pool = !withIds
          ? ranked.paths.slice(0, 1)
          : select === 'ecmp'
            ? ranked.multipath
            : ranked.paths;
        const limit = typeof select === 'number' && withIds ? select : Number.POSITIVE_INFINITY;
        for (const p of pool) {
          if (wish.size >= limit) break;
          if (p.source.kind !== 'local' && p.source.id === m.peerId) continue;
          const exp = this.exportOf(p.attrs, p.source, afi);
          if (exp === null || !sendsTo(m, p.source, exp)) continue;
          const id = this.interner.intern(exp);
          this.interner.ref(id); // the wish's reference, passed to the Adj-RIB-Out
          wish.set(withIds ? pathKey(p.source.id, p.pathId) : '', id);
        }
      }
      m.offerPaths(afi, words, off, len, wish);
    }
  }
}

/** Changes whose Adj-RIB-Out slots `fill` touches at once before offering them. */
const PREFETCH_BLOCK = 32;

/** Scratch words of a RibPrefix being offered (read at once, never kept). */
const WORDS = new Uint32Array(4);

function onlySender(to: Iterable<RibOut>, source: RouteSource): boolean {
  if (source.kind === 'local') return false;
  for (const m of to) if (m.peerId !== source.id) return false;
  return true;
}

/** Per-peer rules: not back to the sender; not to the peer that originated it into the cluster (RFC 4456 section 8). */
function sendsTo(m: RibOut, source: RouteSource, exp: PathAttributes): boolean {
  if (source.id === m.peerId && source.kind !== 'local') return false;
  return exp.originatorId === undefined || exp.originatorId !== m.routerId;
}

/** The key of a target: equal keys, equal exports. */
export function targetKey(t: ExportTarget): string {
  const hex = (b: Uint8Array | undefined) =>
    b ? Array.from(b, (x) => x.toString(16).padStart(2, '0')).join('') : '';
  const subnets = (t.sharedSubnets ?? []).map((s: RibPrefix) => s.toString()).sort();
  return JSON.stringify([
    t.kind,
    t.localIpv4 ?? null,
    hex(t.localIpv6),
    hex(t.localIpv6LinkLocal),
    t.nextHopSelf === true,
    t.nextHopUnchanged === true,
    t.medUnchanged === true,
    subnets,
    t.longLivedGracefulRestart === true,
    t.extendedNextHop === true,
  ]);
}

/**
 * The export side: update groups and one Adj-RIB-Out per peer. Feed it every batch the RIB
 * flushes; each peer's `take` then yields the UPDATE work for its session.
 */
export class UpdateGroups {
  readonly ctx: ExportContext;
  readonly interner = new ExportInterner();
  private readonly groups = new Map<string, UpdateGroup>();
  private readonly peers = new Map<string, { out: RibOut; group: UpdateGroup }>();
  /** Where add-path groups read every path; set by the first add-path peer's `attach`. */
  private ranked: RankedPathSource | null = null;
  /** Slices of initial tables pass through here. */
  private readonly scratch = new ChangeBatch();

  constructor(ctx: ExportContext) {
    this.ctx = ctx;
  }

  /**
   * Adds a peer (session established) and offers it every current best path: its first
   * `take` is the initial table. Throws when the peer is there already or its target cannot
   * carry any route (an eBGP peer needs a local address for next-hop-self).
   */
  join(peer: OutPeer, rib: BestPathSource & Partial<RankedPathSource>): RibOut {
    const out = this.attach(peer, rib);
    this.fill(peer.id, rib, FIRST_BEST, Number.POSITIVE_INFINITY);
    return out;
  }

  /**
   * Adds a peer with an empty Adj-RIB-Out: it gets the changes of every later batch, and its
   * initial table through `fill`, a slice at a time, so a full table never blocks the event
   * loop (keepalives of every session stay on time). Throws as `join` does.
   */
  attach(peer: OutPeer, rib?: Partial<RankedPathSource>): RibOut {
    if (this.peers.has(peer.id)) throw new Error(`peer ${peer.id} already has an Adj-RIB-Out`);
    const t = peer.target;
    if (t.kind === 'ebgp' && t.localIpv4 === undefined && t.localIpv6 === undefined)
      throw new Error(`peer ${peer.id}: an eBGP target needs localIpv4 or localIpv6 for next-hop-self`);
    const ap = peer.addPath ?? null;
    if (ap && !this.ranked) {
      if (!rib?.rankedPaths || !rib.touched)
        throw new Error(`peer ${peer.id}: add-path needs every path of the RIB`);
      this.ranked = rib as RankedPathSource;
    }
    // Add-path and single-path peers never share a group: their Adj-RIB-Outs differ in kind.
    const key = ap ? `${targetKey(t)}|add-path ${ap.select} ${ap.families.join(',')}` : targetKey(t);
    let group = this.groups.get(key);
    if (!group) {
      group = new UpdateGroup(key, t, this.ctx, this.interner, ap, ap && this.ranked);
      this.groups.set(key, group);
    }
    if (ap) this.ranked!.trackTouched = true;
    const out = ap
      ? new AddPathRibOut(peer.id, peer.routerId >>> 0, this.interner, ap.families)
      : new AdjRibOut(peer.id, peer.routerId >>> 0, this.interner);
    group.members.add(out);
    this.peers.set(peer.id, { out, group });
    return out;
  }

  /**
   * Offers an attached peer up to `budget` current best paths from `cursor` on; returns where
   * to go on, or null when its initial table is complete.
   */
  fill(peerId: string, rib: BestPathSource, cursor: BestCursor, budget: number): BestCursor | null {
    const p = this.peers.get(peerId);
    if (!p) throw new Error(`peer ${peerId} has no Adj-RIB-Out`);
    if (cursor.family === 0 && cursor.entry === 0) {
      p.out.reserve(Afi.IPV4, rib.bestCount(Afi.IPV4));
      p.out.reserve(Afi.IPV6, rib.bestCount(Afi.IPV6));
    }
    const batch = this.scratch;
    batch.reset();
    const next = rib.collectBest(cursor, budget, batch);
    const only = [p.out];
    const single = p.out instanceof AdjRibOut ? p.out : null;
    // The initial table's prefixes are appended to the Adj-RIB-Out while nothing else was
    // offered to it (AdjRibOut.beginInitial); otherwise a block's slots are touched together
    // first, so their cache misses overlap instead of each insert waiting for its own (the
    // Adj-RIB-Out of a full table is far bigger than the cache).
    single?.beginInitial();
    try {
      for (let from = 0; from < batch.count; from += PREFETCH_BLOCK) {
        const to = Math.min(from + PREFETCH_BLOCK, batch.count);
        single?.prefetch(batch, from, to);
        for (let i = from; i < to; i++) p.group.offerAt(batch, i, only);
      }
    } finally {
      single?.endInitial(next === null);
    }
    batch.reset();
    return next;
  }

  /** Removes a peer (session down) and releases what its Adj-RIB-Out held. */
  leave(peerId: string): void {
    const p = this.peers.get(peerId);
    if (!p) return;
    p.out.clear();
    p.group.members.delete(p.out);
    if (p.group.members.size === 0) this.groups.delete(p.group.key);
    this.peers.delete(peerId);
    if (this.ranked && ![...this.groups.values()].some((g) => g.addPath)) this.ranked.trackTouched = false;
  }

  /** Offers a flushed batch to every peer. */
  apply(changes: readonly RouteChange[]): void {
    for (const group of this.groups.values()) {
      if (group.addPath) group.offerTouched();
      else for (const c of changes) group.offer(c);
    }
  }

  /** Offers a flushed batch of columns to every peer. */
  applyBatch(batch: ChangeBatch): void {
    for (const group of this.groups.values()) group.offerBatch(batch);
  }

  adjRibOut(peerId: string): RibOut | undefined {
    return this.peers.get(peerId)?.out;
  }

  groupOf(peerId: string): UpdateGroup | undefined {
    return this.peers.get(peerId)?.group;
  }

  get groupCount(): number {
    return this.groups.size;
  }
}
