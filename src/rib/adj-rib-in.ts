import { Afi, type AfiCode, type PathAttributes } from '../bgp/wire/index.js';
import type { AttrTable } from './attr-table.js';
import type { LocRib } from './loc-rib.js';
import type { RibPeer } from './peer.js';
import type { RibPrefix } from './prefix-key.js';

/**
 * Adj-RIB-In of one peer (RFC 4271 section 3.2): the routes it advertised, after import policy,
 * denied ones (loops) included. The routes live in the Loc-RIBs' path pools, one prefix table
 * for every peer; this is the per-peer view `show` and soft reconfiguration read.
 */
export class AdjRibIn {
  readonly peer: RibPeer;
  private readonly attrs: AttrTable;
  private readonly locRibs: readonly [LocRib, LocRib];

  constructor(peer: RibPeer, attrs: AttrTable, locRibs: readonly [LocRib, LocRib]) {
    this.peer = peer;
    this.attrs = attrs;
    this.locRibs = locRibs;
  }

  /** Routes held for a family. */
  count(afi: AfiCode): number {
    return this.locRib(afi).receivedFrom(this.peer.index);
  }

  get size(): number {
    return this.count(Afi.IPV4) + this.count(Afi.IPV6);
  }

  /** The attributes held for a prefix (one per path id), for `show ... received-routes`. */
  lookup(prefix: RibPrefix): { pathId: number; attrs: PathAttributes }[] {
    return this.locRib(prefix.afi)
      .pathsOf(this.peer.index, prefix)
      .map((r) => ({ pathId: r.pathId, attrs: this.attrs.get(r.attrId) }));
  }

  /** Every route: (prefix, path id, attributes). */
  entries(): { prefix: RibPrefix; pathId: number; attrs: PathAttributes }[] {
    const out: { prefix: RibPrefix; pathId: number; attrs: PathAttributes }[] = [];
    for (const loc of this.locRibs) {
      loc.forEachPathOf(this.peer.index, (prefix, pathId, attrId) =>
        out.push({ prefix, pathId, attrs: this.attrs.get(attrId) }),
      );
    }
    return out;
  }

  private locRib(afi: AfiCode): LocRib {
    return this.locRibs[afi === Afi.IPV4 ? 0 : 1];
  }
}
