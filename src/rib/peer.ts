import { parseIpv4, parseIpv6 } from '../address/index.js';
import {
  LEARNED_PREFERENCE,
  LOCAL_ROUTE_WEIGHT,
  ORIGIN_PREFERENCE,
  type OriginName,
  RibDefaults,
} from './constants.js';

/** How a peer relates to us: RFC 4271 external/internal, RFC 4456 client or not. */
export type PeerKind = 'ebgp' | 'ibgp-client' | 'ibgp-nonclient';
/** Where a route came from: a peer of some kind, or originated here. */
export type SourceKind = PeerKind | 'local';

export const PEER_KINDS: readonly PeerKind[] = ['ebgp', 'ibgp-client', 'ibgp-nonclient'];

/** What the RIB needs to know about an established peer. */
export interface RibPeerInit {
  /** Stable name for logs and `show` (the peer's address is a good one). */
  readonly id: string;
  readonly kind: PeerKind;
  /** The peer's AS. */
  readonly asn: number;
  /** Its BGP Identifier from OPEN, as a u32. */
  readonly routerId: number;
  /** The peer's address on the session, IPv4 or IPv6 text: the last tie-break (RFC 4271 9.1.2.2 g). */
  readonly address: string;
  /**
   * The link of a peer found on it (BGP unnumbered): the interface a link-local next hop of
   * its routes is reached over.
   */
  readonly interface?: string;
  /** FRR "neighbor weight": step 0 of the decision process. Default 0. */
  readonly weight?: number;
  /** Occurrences of our own AS tolerated in AS_PATH ("allowas-in"). Default 0. */
  readonly allowasIn?: number;
}

/** A route's origin as route changes and `show` report it. One frozen object per peer. */
export interface RouteSource {
  readonly id: string;
  readonly kind: SourceKind;
  readonly asn: number;
  readonly routerId: number;
  readonly address: string;
  /** See RibPeerInit.interface. */
  readonly interface?: string;
}

/** A peer as registered in the RIB: its index keys the RIB's per-peer data. */
export class RibPeer {
  readonly index: number;
  readonly source: RouteSource;
  readonly weight: number;
  readonly allowasIn: number;
  /** ORIGIN_PREFERENCE of a local origin, LEARNED_PREFERENCE for a BGP peer; lower wins. */
  readonly originPreference: number;
  /** Sortable form of the address: IPv4 before IPv6, then numerically (as FRR's sockunion_cmp). */
  readonly addressKey: string;

  constructor(
    index: number,
    init: RibPeerInit | RouteSource,
    weight: number,
    allowasIn: number,
    originPreference: number = LEARNED_PREFERENCE,
  ) {
    this.index = index;
    this.source = Object.freeze({
      id: init.id,
      kind: init.kind,
      asn: init.asn,
      routerId: init.routerId >>> 0,
      address: init.address,
      ...(init.interface !== undefined && { interface: init.interface }),
    });
    this.weight = weight;
    this.allowasIn = allowasIn;
    this.originPreference = originPreference;
    this.addressKey = addressKey(init.address);
  }

  get id(): string {
    return this.source.id;
  }
  get kind(): SourceKind {
    return this.source.kind;
  }
  get ebgp(): boolean {
    return this.source.kind === 'ebgp';
  }
  /** A local origin (`static`, `api`, `ovn`), not a BGP peer. */
  get local(): boolean {
    return this.source.kind === 'local';
  }

  static fromInit(index: number, init: RibPeerInit): RibPeer {
    checkPeerInit(init);
    return new RibPeer(
      index,
      init,
      init.weight ?? RibDefaults.WEIGHT,
      init.allowasIn ?? RibDefaults.ALLOWAS_IN,
    );
  }

  /**
   * The pseudo-peer of one origin of locally originated routes: named after it, our AS, our
   * router id, FRR's local weight, and the origin's preference against the other origins.
   */
  static origin(index: number, name: OriginName, localAs: number, routerId: number): RibPeer {
    return new RibPeer(
      index,
      { id: name, kind: 'local', asn: localAs, routerId, address: '' },
      LOCAL_ROUTE_WEIGHT,
      0,
      ORIGIN_PREFERENCE[name],
    );
  }
}

function checkPeerInit(init: RibPeerInit): void {
  const bad = (what: string) => new Error(`peer ${init.id}: ${what}`);
  if (!['ebgp', 'ibgp-client', 'ibgp-nonclient'].includes(init.kind)) throw bad(`unknown kind ${init.kind}`);
  if (!isU32(init.asn) || init.asn === 0) throw bad(`invalid AS ${init.asn}`);
  if (!isU32(init.routerId)) throw bad(`invalid router id ${init.routerId}`);
  if (init.weight !== undefined && (!Number.isInteger(init.weight) || init.weight < 0 || init.weight > 65535))
    throw bad(`invalid weight ${init.weight}`);
  if (
    init.allowasIn !== undefined &&
    (!Number.isInteger(init.allowasIn) || init.allowasIn < 0 || init.allowasIn > 10)
  )
    throw bad(`invalid allowas-in ${init.allowasIn}`);
  addressKey(init.address);
}

function isU32(v: number): boolean {
  return Number.isInteger(v) && v >= 0 && v <= 0xffffffff;
}

/** "4" + 8 hex digits for IPv4, "6" + 32 for IPv6; "" (lowest) for the local pseudo-peer. */
export function addressKey(address: string): string {
  if (address === '') return '';
  if (address.includes(':')) {
    let s = '6';
    for (const w of parseIpv6(address)) s += w.toString(16).padStart(8, '0');
    return s;
  }
  return `4${parseIpv4(address).toString(16).padStart(8, '0')}`;
}
