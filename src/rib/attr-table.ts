import { formatAddress, formatIpv4 } from '../address/index.js';
import {
  Afi,
  type AfiCode,
  type AsPathSegment,
  AsPathSegmentType,
  asPathLength,
  effectiveAsPath,
  Origin,
  type PathAttributes,
  WireAttributes,
} from '../bgp/wire/index.js';
import { grown } from './grow.js';
import { WireInternTable } from './wire-intern-table.js';
import { ZeroColumn } from './zero-column.js';

const HAS_MED = 1;
const HAS_LOCAL_PREF = 2;
const HAS_ORIGINATOR_ID = 4;
const ORIGINATOR_IS_US = 8;
const CLUSTER_HAS_US = 16;

/** Next-hop verdict per family: 2 bits each (0 not asked yet, 1 usable, 2 unusable). */
const NH_UNKNOWN = 0;
const NH_USABLE = 1;
const NH_UNUSABLE = 2;
const MAX_COUNT = 255;

export interface AttrTableInit {
  readonly localAs: number;
  readonly routerId: number;
  readonly clusterId: number;
  /** Whether a next hop may be used (resolvable, reachable). Asked once per attribute set and family. */
  readonly nextHopUsable?: (nextHop: string, afi: AfiCode) => boolean;
}

/**
 * The attribute sets routes refer to, by id, with what the decision process reads from them
 * decoded once per set into typed columns (routes share sets ~10 to 1 in a full table, and
 * reading a lazily decoded AS_PATH per comparison would cost far more).
 */
export class AttrTable extends WireInternTable {
  readonly localAs: number;
  readonly routerId: number;
  readonly clusterId: number;
  private readonly nextHopHook: ((nextHop: string, afi: AfiCode) => boolean) | undefined;
  /** Scratch for `added`: AS path length, neighbor AS, occurrences of our AS. */
  private readonly pathFacts = new Float64Array(3);
  asPathLength = new Uint32Array(64);
  /** RFC 4271 9.1.2.2 (c) neighborAS: leftmost AS of a leading AS_SEQUENCE, else the local AS. */
  neighborAs = new Uint32Array(64);
  origin = new Uint8Array(64);
  med = new Uint32Array(64);
  /** Sparse: from external peers there is no LOCAL_PREF, and ORIGINATOR_ID only in a reflected route. */
  private readonly localPref = new ZeroColumn();
  private readonly originatorId = new ZeroColumn();
  clusterListLength = new Uint16Array(64);
  /** Times our AS appears in AS_PATH (clamped at 255), for loop detection with allowas-in. */
  ownAsCount = new Uint8Array(64);
  private flags = new Uint8Array(64);
  private nextHopState = new Uint8Array(64);

  constructor(init: AttrTableInit) {
    super();
    this.localAs = init.localAs;
    this.routerId = init.routerId;
    this.clusterId = init.clusterId;
    this.nextHopHook = init.nextHopUsable;
  }

  hasMed(id: number): boolean {
    return (this.flags[id] & HAS_MED) !== 0;
  }
  hasLocalPref(id: number): boolean {
    return (this.flags[id] & HAS_LOCAL_PREF) !== 0;
  }
  hasOriginatorId(id: number): boolean {
    return (this.flags[id] & HAS_ORIGINATOR_ID) !== 0;
  }
  /** LOCAL_PREF (when hasLocalPref). */
  localPrefOf(id: number): number {
    return this.localPref.get(id);
  }
  /** ORIGINATOR_ID (when hasOriginatorId). */
  originatorIdOf(id: number): number {
    return this.originatorId.get(id);
  }
  /** RFC 4456 section 8: ORIGINATOR_ID is our router id: the route left us and came back. */
  originatorIsUs(id: number): boolean {
    return (this.flags[id] & ORIGINATOR_IS_US) !== 0;
  }
  /** RFC 4456 section 8: our CLUSTER_ID is in CLUSTER_LIST: a reflection loop. */
  clusterListHasUs(id: number): boolean {
    return (this.flags[id] & CLUSTER_HAS_US) !== 0;
  }

  /** The effective AS_PATH (AS4_PATH merged per RFC 6793 section 4.2.3). */
  asPath(id: number): readonly AsPathSegment[] {
    return effectiveAsPath(this.get(id));
  }

  /** Asks the next-hop hook once per attribute set and family; true when no hook is set. */
  nextHopUsable(id: number, afi: AfiCode): boolean {
    const hook = this.nextHopHook;
    if (!hook) return true;
    const shift = afi === Afi.IPV4 ? 0 : 2;
    let state = (this.nextHopState[id] >> shift) & 3;
    if (state === NH_UNKNOWN) {
      const nh = nextHopText(this.get(id), afi);
      state = nh === undefined || hook(nh, afi) ? NH_USABLE : NH_UNUSABLE;
      this.nextHopState[id] |= state << shift;
    }
    return state === NH_USABLE;
  }

  /** Forget next-hop verdicts (the hook's answers changed). */
  resetNextHops(): void {
    this.nextHopState.fill(0);
  }

  protected override growColumns(capacity: number): void {
    this.asPathLength = grown(this.asPathLength, capacity);
    this.neighborAs = grown(this.neighborAs, capacity);
    this.origin = grown(this.origin, capacity);
    this.med = grown(this.med, capacity);
    this.localPref.grow(capacity);
    this.originatorId.grow(capacity);
    this.clusterListLength = grown(this.clusterListLength, capacity);
    this.ownAsCount = grown(this.ownAsCount, capacity);
    this.flags = grown(this.flags, capacity);
    this.nextHopState = grown(this.nextHopState, capacity);
  }

  protected override added(id: number, a: PathAttributes): void {
    const facts = this.pathFacts;
    // From the received bytes when possible: the decoded path is then only made for export.
    if (!(a instanceof WireAttributes && a.asPathFacts(this.localAs, facts))) {
      const path = effectiveAsPath(a);
      facts[0] = asPathLength(path);
      facts[1] = neighborAs(path, this.localAs);
      facts[2] = countAs(path, this.localAs);
    }
    this.asPathLength[id] = facts[0];
    this.neighborAs[id] = facts[1];
    this.ownAsCount[id] = Math.min(MAX_COUNT, facts[2]);
    this.origin[id] = a.origin ?? Origin.INCOMPLETE;
    let f = 0;
    if (a.med !== undefined) {
      f |= HAS_MED;
      this.med[id] = a.med;
    }
    if (a.localPref !== undefined) {
      f |= HAS_LOCAL_PREF;
      this.localPref.set(id, a.localPref, this.capacity);
    }
    if (a.originatorId !== undefined) {
      f |= HAS_ORIGINATOR_ID;
      this.originatorId.set(id, a.originatorId, this.capacity);
      if (a.originatorId === this.routerId) f |= ORIGINATOR_IS_US;
    }
    const clusters = a.clusterList;
    this.clusterListLength[id] = clusters ? Math.min(clusters.length, 0xffff) : 0;
    if (clusters?.includes(this.clusterId)) f |= CLUSTER_HAS_US;
    this.flags[id] = f;
    this.nextHopState[id] = 0;
  }
}

/**
 * RFC 4271 9.1.2.2 (c): the neighbor AS is the first AS of the path when the path starts with
 * an AS_SEQUENCE (confederation segments skipped, RFC 5065 section 5.3); for an empty path or
 * one that starts with an AS_SET it is the local AS.
 */
export function neighborAs(path: readonly AsPathSegment[], localAs: number): number {
  for (const seg of path) {
    if (seg.type === AsPathSegmentType.AS_CONFED_SEQUENCE || seg.type === AsPathSegmentType.AS_CONFED_SET)
      continue;
    return seg.type === AsPathSegmentType.AS_SEQUENCE && seg.asns.length > 0 ? seg.asns[0] : localAs;
  }
  return localAs;
}

/** Occurrences of `asn` in every segment (RFC 4271 section 9.1.2: a path with our AS is a loop). */
export function countAs(path: readonly AsPathSegment[], asn: number): number {
  let n = 0;
  for (const seg of path) for (const a of seg.asns) if (a === asn) n++;
  return n;
}

/**
 * The next hop a route of family `afi` uses: MP_REACH_NLRI's when it is of that family
 * (RFC 4760; its global address when a link-local follows), else NEXT_HOP for IPv4.
 */
export function nextHopText(a: PathAttributes, afi: AfiCode): string | undefined {
  const mp = a.mpReach;
  if (mp && mp.afi === afi && mp.nextHop.length >= 4) {
    return formatAddress(mp.nextHop.length >= 16 ? mp.nextHop.subarray(0, 16) : mp.nextHop);
  }
  if (afi === Afi.IPV4 && a.nextHop !== undefined) return formatIpv4(a.nextHop);
  return undefined;
}
