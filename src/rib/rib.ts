import {
  Afi,
  type AfiCode,
  makeAttributes,
  type PathAttributes,
  type Prefix,
  PrefixList,
  type UpdateMessage,
} from '../bgp/wire/index.js';
import { AdjRibIn } from './adj-rib-in.js';
import { AttrTable } from './attr-table.js';
import { ChangeBatch } from './change-batch.js';
import {
  DenyReason,
  type DenyReasonText,
  LOCAL_PEER,
  MAX_PEERS,
  type OriginName,
  RibDefaults,
  WellKnownCommunity,
} from './constants.js';
import { DEFAULT_DECISION, type DecisionOptions } from './decision.js';
import { LocRib } from './loc-rib.js';
import type { EntryView, RankedPaths } from './loc-rib-view.js';
import { RibPeer, type RibPeerInit, type RouteSource } from './peer.js';
import { toRibPrefix } from './prefix-key.js';
import type { RouteAdd, RouteChange } from './route-change.js';
import { applyUpdateRules, type UpdateTarget } from './update-rules.js';

/** Where a walk over the best paths (`visitBest`) goes on: family slot (IPv4 0, IPv6 1) and entry. */
export interface BestCursor {
  readonly family: number;
  readonly entry: number;
}

export const FIRST_BEST: BestCursor = Object.freeze({ family: 0, entry: 0 });

export interface RibInit {
  readonly localAs: number;
  /** Our BGP Identifier, as a u32. */
  readonly routerId: number;
  /** RFC 4456 CLUSTER_ID when we reflect routes; defaults to the router id. */
  readonly clusterId?: number;
  /** LOCAL_PREF assumed for routes without one (eBGP-learned, local). Default 100. */
  readonly defaultLocalPref?: number;
  /** A missing MED is the worst instead of 0 ("bgp bestpath med missing-as-worst"). */
  readonly medMissingAsWorst?: boolean;
  readonly decision?: Partial<DecisionOptions>;
  /**
   * Whether a next hop is usable (RFC 4271 section 9.1.2: unresolvable next hops are not
   * eligible). Asked once per attribute set and family; call `nextHopsChanged` when the
   * answers change. Default: every next hop is usable.
   */
  readonly nextHopUsable?: (nextHop: string, afi: AfiCode) => boolean;
}

/** Routes of one peer and family. */
export interface PeerCounts {
  /** In the Adj-RIB-In (everything the peer sent and did not withdraw). */
  readonly received: number;
  /** Candidates in the Loc-RIB (received minus those denied by loop rules). */
  readonly accepted: number;
}

/**
 * The routing core: Adj-RIBs-In per peer, the Loc-RIB per family with the decision process,
 * and locally originated routes. Pure: input is UPDATEs, originations and peer events;
 * output is batches of RouteChange from `flush`. No I/O, no timers.
 */
export class Rib {
  readonly localAs: number;
  readonly routerId: number;
  readonly clusterId: number;
  readonly options: DecisionOptions;
  readonly attrs: AttrTable;
  private readonly locRibs: readonly [LocRib, LocRib];
  private readonly peers: (RibPeer | undefined)[] = [];
  private readonly byId = new Map<string, RibPeer>();
  private readonly origins = new Map<OriginName, RibPeer>();
  /** Removed peers whose index stays reserved until the next flush has reported their withdrawals. */
  private retired: number[] = [];
  /** Reused by `flush`, which hands out objects built from it. */
  private readonly flushed = new ChangeBatch();
  private freeIndexes: number[] = [];
  /** applyUpdate's target, made once: no object per UPDATE. */
  private readonly updateTarget: UpdateTarget<RibPeer> = {
    withdrawList: (peer, list) => this.withdraw(peer, list),
    announceList: (peer, list, attrs) => this.announce(peer, list, attrs),
  };

  constructor(init: RibInit) {
    checkU32('local AS', init.localAs);
    checkU32('router id', init.routerId);
    this.localAs = init.localAs;
    this.routerId = init.routerId >>> 0;
    this.clusterId = (init.clusterId ?? init.routerId) >>> 0;
    this.options = Object.freeze({ ...DEFAULT_DECISION, ...init.decision });
    this.attrs = new AttrTable({
      localAs: this.localAs,
      routerId: this.routerId,
      clusterId: this.clusterId,
      nextHopUsable: init.nextHopUsable,
    });
    const ctx = {
      attrs: this.attrs,
      peer: (i: number) => this.peers[i]!,
      options: this.options,
      defaultLocalPref: init.defaultLocalPref ?? RibDefaults.LOCAL_PREF,
      medMissingAsWorst: init.medMissingAsWorst ?? false,
    };
    this.locRibs = [new LocRib(Afi.IPV4, ctx), new LocRib(Afi.IPV6, ctx)];
    const local = RibPeer.origin(LOCAL_PEER, 'static', this.localAs, this.routerId);
    this.peers[LOCAL_PEER] = local;
    this.origins.set('static', local);
  }

  /** The `static` origin: configured routes. */
  get local(): RibPeer {
    return this.peers[LOCAL_PEER]!;
  }

  /**
   * The pseudo-peer of an origin of local routes (`static`, `api`, `ovn`), made on first use.
   * Each origin's routes are paths of their own: the same prefix from two origins is two
   * paths the decision process chooses between (ORIGIN_PREFERENCE), never an overwrite.
   */
  origin(name: OriginName): RibPeer {
    let o = this.origins.get(name);
    if (!o) {
      o = RibPeer.origin(this.allocateIndex(), name, this.localAs, this.routerId);
      this.peers[o.index] = o;
      this.origins.set(name, o);
    }
    return o;
  }

  locRib(afi: AfiCode): LocRib {
    return this.locRibs[afi === Afi.IPV4 ? 0 : 1];
  }

  /** Registers an established peer. Its id must be unique among current peers. */
  addPeer(init: RibPeerInit): RibPeer {
    if (this.byId.has(init.id) || init.id === 'local')
      throw new Error(`peer ${init.id} is already in the RIB`);
    const peer = RibPeer.fromInit(this.allocateIndex(), init);
    this.peers[peer.index] = peer;
    this.byId.set(init.id, peer);
    return peer;
  }

  peer(id: string): RibPeer | undefined {
    return this.byId.get(id);
  }

  /**
   * The same peer back on a new session (its paths kept across a graceful restart): its paths
   * stay where they are; the source is renewed when the OPEN says something new (a new BGP
   * Identifier). Returns the peer to use from now on.
   */
  renewPeer(peer: RibPeer, init: RibPeerInit): RibPeer {
    this.check(peer);
    if (init.id !== peer.id) throw new Error(`peer ${peer.id} cannot be renewed as ${init.id}`);
    const s = peer.source;
    const same =
      s.kind === init.kind &&
      s.asn === init.asn &&
      s.routerId === init.routerId >>> 0 &&
      s.address === init.address &&
      s.interface === init.interface &&
      peer.weight === (init.weight ?? RibDefaults.WEIGHT) &&
      peer.allowasIn === (init.allowasIn ?? RibDefaults.ALLOWAS_IN);
    if (same) return peer;
    const renewed = RibPeer.fromInit(peer.index, init);
    this.peers[peer.index] = renewed;
    this.byId.set(init.id, renewed);
    // Router ids and kinds take part in the decision: every prefix is decided again.
    this.locRibs[0].markAllDirty();
    this.locRibs[1].markAllDirty();
    return renewed;
  }

  /**
   * Marks every path the peer sent in a family stale: its session ended gracefully (RFC 4724
   * section 4.2). The paths keep forwarding but lose to fresh ones; a new announcement makes a
   * path fresh again. Returns how many became stale.
   */
  markStale(peer: RibPeer, afi: AfiCode): number {
    this.check(peer);
    return this.locRib(afi).markStale(peer.index);
  }

  /**
   * Withdraws up to `budget` of the peer's stale paths of a family (End-of-RIB, or a timer ran
   * out), a chunk at a time so keepalives are not starved. Returns how many stay stale.
   */
  sweepStale(peer: RibPeer, afi: AfiCode, budget = Number.POSITIVE_INFINITY): number {
    this.check(peer);
    const loc = this.locRib(afi);
    loc.sweepStale(peer.index, budget);
    return loc.staleFrom(peer.index);
  }

  /**
   * RFC 9494 section 4.2: the peer's Restart Time is over, its stale paths of a family stay
   * for the long-lived stale time, with LLGR_STALE added to their communities, least preferred;
   * those carrying NO_LLGR go now. Returns how many stay.
   */
  markLongLivedStale(peer: RibPeer, afi: AfiCode): number {
    this.check(peer);
    const table = this.attrs;
    const relabelled = new Map<number, number>();
    const relabel = (id: number): number => {
      let to = relabelled.get(id);
      if (to === undefined) {
        const attrs = table.get(id);
        const communities = attrs.communities ?? [];
        if (communities.includes(WellKnownCommunity.NO_LLGR)) to = -1;
        else {
          // A copy, not a spread: received sets decode their fields on first read.
          const marked = makeAttributes(attrs);
          marked.communities = [...communities, WellKnownCommunity.LLGR_STALE];
          to = table.intern(marked);
          table.ref(to); // held while the paths take it
        }
        relabelled.set(id, to);
      }
      return to;
    };
    const marked = this.locRib(afi).markLongLivedStale(peer.index, relabel);
    for (const id of relabelled.values()) if (id >= 0) table.unref(id);
    return marked;
  }

  /** Stale paths of the peer in a family. */
  staleCount(peer: RibPeer, afi: AfiCode): number {
    this.check(peer);
    return this.locRib(afi).staleFrom(peer.index);
  }

  /**
   * RFC 7313 section 4: the peer sent a BoRR for a family. Every path it sent in it is stale
   * until sent again; unlike a restart's stale paths they keep their preference (the peer still
   * holds them), so nothing is decided again. Returns how many paths are marked.
   */
  markRefreshStale(peer: RibPeer, afi: AfiCode): number {
    this.check(peer);
    return this.locRib(afi).markRefreshStale(peer.index);
  }

  /**
   * RFC 7313 section 4: the peer's EoRR (or our wait for it ran out). Withdraws up to `budget`
   * of its paths of a family not sent again since its BoRR. Returns how many stay stale.
   */
  sweepRefreshStale(peer: RibPeer, afi: AfiCode, budget = Number.POSITIVE_INFINITY): number {
    this.check(peer);
    const loc = this.locRib(afi);
    loc.sweepRefreshStale(peer.index, budget);
    return loc.refreshStaleFrom(peer.index);
  }

  /** The peer's route refresh of a family is abandoned (its session ended): the marks go, the paths stay. */
  clearRefreshStale(peer: RibPeer, afi: AfiCode): void {
    this.check(peer);
    this.locRib(afi).clearRefreshStale(peer.index);
  }

  /** Paths of the peer in a family not sent again since its BoRR. */
  refreshStaleCount(peer: RibPeer, afi: AfiCode): number {
    this.check(peer);
    return this.locRib(afi).refreshStaleFrom(peer.index);
  }

  adjRibIn(peer: RibPeer): AdjRibIn {
    this.check(peer);
    return new AdjRibIn(peer, this.attrs, this.locRibs);
  }

  /**
   * Withdraws up to `budget` routes the peer sent (session down, or a chunk of it so
   * keepalives are not starved). Returns how many remain.
   */
  clearPeer(peer: RibPeer, budget = Number.POSITIVE_INFINITY): number {
    this.check(peer);
    let left = 0;
    for (const loc of this.locRibs) {
      budget -= loc.drainPeer(peer.index, budget);
      left += loc.receivedFrom(peer.index);
    }
    return left;
  }

  /** Forgets a peer after withdrawing everything it sent; the next flush reports the changes. */
  removePeer(peer: RibPeer): void {
    if (peer.local) throw new Error('a local origin cannot be removed');
    this.clearPeer(peer);
    this.byId.delete(peer.id);
    this.retired.push(peer.index);
  }

  /**
   * Applies one decoded UPDATE (RFC 4271 section 9): withdrawals first, then announcements
   * (a prefix in both ends announced). RFC 7606 treat-as-withdraw turns the announcements into
   * withdrawals. Families other than IPv4/IPv6 unicast are left alone.
   */
  applyUpdate(peer: RibPeer, u: UpdateMessage): void {
    applyUpdateRules(u, this.updateTarget, peer);
  }

  /** Routes [from, to) of `list` announced by `peer` with `attrs`. */
  announce(peer: RibPeer, list: PrefixList, attrs: PathAttributes, from = 0, to = list.count): void {
    if (to <= from) return;
    this.check(peer);
    const loc = this.locRib(list.afi);
    const table = this.attrs;
    const id = table.intern(attrs);
    table.ref(id); // held while the batch is applied
    const denied = this.denyReason(peer, id) !== undefined;
    const wpp = list.afi === Afi.IPV4 ? 1 : 4;
    const { words, lens, pathIds, addPath } = list;
    const index = peer.index;
    if (!addPath) loc.table.prefetch(words, lens, from, to);
    for (let i = from; i < to; i++) {
      loc.upsert(index, words, i * wpp, lens[i], addPath ? pathIds[i] : 0, id, denied);
    }
    table.unref(id);
  }

  /** Routes [from, to) of `list` withdrawn by `peer`. Unknown prefixes are ignored. */
  withdraw(peer: RibPeer, list: PrefixList, from = 0, to = list.count): void {
    if (to <= from) return;
    this.check(peer);
    const loc = this.locRib(list.afi);
    const wpp = list.afi === Afi.IPV4 ? 1 : 4;
    const { words, lens, pathIds, addPath } = list;
    for (let i = from; i < to; i++) loc.remove(peer.index, words, i * wpp, lens[i], addPath ? pathIds[i] : 0);
  }

  /**
   * Originates a route here (OVN-derived, configured). `pathId` tells several originations of
   * one prefix apart (e.g. one per next hop). Attributes as they should be exported to iBGP:
   * ORIGIN, NEXT_HOP / MP_REACH_NLRI, optional MED and communities; AS_PATH empty.
   */
  originate(prefix: Prefix, attrs: PathAttributes, pathId = 0, origin: RibPeer = this.local): void {
    this.checkOrigin(origin);
    const p = toRibPrefix(prefix);
    const table = this.attrs;
    const id = table.intern(attrs);
    table.ref(id);
    this.locRib(p.afi).upsert(origin.index, p.words(), 0, p.len, pathId, id);
    table.unref(id);
  }

  /** Stops originating a route. Returns false when it was not originated. */
  unoriginate(prefix: Prefix, pathId = 0, origin: RibPeer = this.local): boolean {
    this.checkOrigin(origin);
    const p = toRibPrefix(prefix);
    return this.locRib(p.afi).remove(origin.index, p.words(), 0, p.len, pathId);
  }

  /** Runs the decision process on everything that changed since the last flush. */
  flush(): RouteChange[] {
    const batch = this.flushed;
    batch.reset();
    this.flushInto(batch);
    const changes = batch.toArray();
    batch.reset();
    return changes;
  }

  /**
   * Prefixes decided by the last flush, per family (IPv4, IPv6), whatever their best path
   * did: filled only while `trackTouched` is set (some peer receives several paths).
   */
  readonly touched: readonly [PrefixList, PrefixList] = [new PrefixList(Afi.IPV4), new PrefixList(Afi.IPV6)];
  trackTouched = false;

  /**
   * `flush` into a batch of columns (the speaker's path: no objects per prefix), deciding at
   * most `budget` prefixes (IPv4 first); `pending` says how many are left for the next call.
   */
  flushInto(out: ChangeBatch, budget = Number.POSITIVE_INFINITY): void {
    const [t4, t6] = this.touched;
    t4.reset(Afi.IPV4, false);
    t6.reset(Afi.IPV6, false);
    const decided = this.locRibs[0].flush(out, this.trackTouched ? t4 : undefined, budget);
    if (decided < budget) this.locRibs[1].flush(out, this.trackTouched ? t6 : undefined, budget - decided);
    // A retired peer's number is given out again only once no undecided prefix can name it.
    if (this.pending > 0) return;
    for (const index of this.retired) {
      this.peers[index] = undefined;
      this.freeIndexes.push(index);
    }
    this.retired = [];
  }

  /** Prefixes waiting for `flush`. */
  get pending(): number {
    return this.locRibs[0].pending + this.locRibs[1].pending;
  }

  /** The next-hop hook's answers changed: every prefix is decided again at the next flush. */
  nextHopsChanged(): void {
    this.attrs.resetNextHops();
    this.locRibs[0].markAllDirty();
    this.locRibs[1].markAllDirty();
  }

  /** Where routes come from now: the origins and every registered peer (an MRT dump's peer index). */
  sources(): RouteSource[] {
    const out: RouteSource[] = [];
    for (const p of this.peers) if (p) out.push(p.source);
    return out;
  }

  /**
   * Why the route would not enter the Loc-RIB, or undefined: our AS in AS_PATH more often
   * than allowas-in permits (RFC 4271 section 9.1.2), our router id as ORIGINATOR_ID or our
   * cluster id in CLUSTER_LIST (RFC 4456 section 8).
   */
  denyReason(peer: RibPeer, attrId: number): DenyReasonText | undefined {
    if (peer.local) return undefined;
    const a = this.attrs;
    if (a.ownAsCount[attrId] > peer.allowasIn) return DenyReason.AS_PATH_LOOP;
    if (!peer.ebgp) {
      if (a.originatorIsUs(attrId)) return DenyReason.ORIGINATOR_ID_LOOP;
      if (a.clusterListHasUs(attrId)) return DenyReason.CLUSTER_LIST_LOOP;
    }
    return undefined;
  }

  counts(peer: RibPeer, afi: AfiCode): PeerCounts {
    this.check(peer);
    const loc = this.locRib(afi);
    return { received: loc.receivedFrom(peer.index), accepted: loc.pathsFrom(peer.index) };
  }

  /** The best path of a prefix as last reported by flush. */
  best(prefix: Prefix): RouteAdd | undefined {
    const p = toRibPrefix(prefix);
    return this.locRib(p.afi).selection(p);
  }

  /**
   * A peer's paths of a prefix (its Adj-RIB-In after import policy), each with why the loop
   * rules keep it out of the decision, if they do: for `show received`.
   */
  peerPaths(peer: RibPeer, prefix: Prefix): { pathId: number; denied?: DenyReasonText }[] {
    this.check(peer);
    const p = toRibPrefix(prefix);
    return this.locRib(p.afi)
      .pathsOf(peer.index, p)
      .map((r) => {
        const denied = this.denyReason(peer, r.attrId);
        return denied === undefined ? { pathId: r.pathId } : { pathId: r.pathId, denied };
      });
  }

  /** Every path of a prefix and why the best one won (`show bgp <prefix>`). */
  lookup(prefix: Prefix): EntryView | undefined {
    const p = toRibPrefix(prefix);
    return this.locRib(p.afi).explain(p);
  }

  /** Every reported best path, as 'add' changes (a sink's reconcile, a new peer's table). */
  forEachBest(visit: (route: RouteAdd) => void, afi?: AfiCode): void {
    if (afi !== Afi.IPV6) this.locRibs[0].forEachSelected(visit);
    if (afi !== Afi.IPV4) this.locRibs[1].forEachSelected(visit);
  }

  /**
   * Appends up to `budget` best paths from `cursor` on to `out` (as 'add' changes), IPv4 then
   * IPv6, for a peer's initial table sent a slice per turn. Returns where to go on, or null
   * when every best path was collected. A change made between slices reaches the peer through
   * its update group as usual; a prefix collected after such a change is offered as it is
   * then, which is the same.
   */
  collectBest(cursor: BestCursor, budget: number, out: ChangeBatch): BestCursor | null {
    let { family, entry } = cursor;
    const start = out.count;
    while (family < this.locRibs.length) {
      const next = this.locRibs[family].collectSelected(entry, budget - (out.count - start), out);
      if (next >= 0) return { family, entry: next };
      family++;
      entry = 0;
    }
    return null;
  }

  /** A prefix's eligible paths in decision order and its multipath set (add-path export). */
  rankedPaths(afi: AfiCode, words: ArrayLike<number>, off: number, len: number): RankedPaths | undefined {
    return this.locRib(afi).rankedPaths(words, off, len);
  }

  bestCount(afi: AfiCode): number {
    return this.locRib(afi).selected;
  }

  snapshot(afi?: AfiCode): RouteAdd[] {
    const all: RouteAdd[] = [];
    this.forEachBest((r) => all.push(r), afi);
    return all;
  }

  /** Bytes held by the typed arrays of the Loc-RIBs, Adj-RIBs-In included (not attribute objects). */
  get byteLength(): number {
    return this.locRibs[0].byteLength + this.locRibs[1].byteLength;
  }

  private allocateIndex(): number {
    if (this.freeIndexes.length) return this.freeIndexes.pop()!;
    // The Loc-RIB keeps a path's peer in 16 bits.
    if (this.peers.length >= MAX_PEERS) throw new Error(`rib: more than ${MAX_PEERS} peers and origins`);
    return this.peers.length;
  }

  private checkOrigin(origin: RibPeer): void {
    if (!origin.local || this.origins.get(origin.id as OriginName) !== origin)
      throw new Error(`${origin.id} is not an origin of this RIB`);
  }

  private check(peer: RibPeer): void {
    if (this.peers[peer.index] !== peer || (!peer.local && this.byId.get(peer.id) !== peer))
      throw new Error(`peer ${peer.id} is not in the RIB`);
  }
}

function checkU32(what: string, v: number): void {
  if (!Number.isInteger(v) || v < 0 || v > 0xffffffff) throw new Error(`invalid ${what}: ${v}`);
}
