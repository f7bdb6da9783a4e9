import { addressBytes, parseIpv4 } from '../address/index.js';
import {
  Afi,
  AsPathSegmentType,
  makeAttributes,
  Origin,
  type PathAttributes,
  Safi,
} from '../bgp/wire/index.js';
import { NEXT_HOP_SELF } from '../config/index.js';
import type { RibPeer } from '../rib/index.js';
import { parsePrefix, type Rib, type RibPrefix } from '../rib/index.js';
import type { RouteFlow } from './route-flow.js';

/** A route originated here by a program (OVN derivation, the control API). */
export interface LocalRoute {
  /** "198.18.64.100/32", "2001:db8:64::100/128". */
  readonly prefix: string;
  /** An address of the prefix's family, or `self`: left out, so export puts ours on each session. */
  readonly nextHop: string;
  readonly communities?: readonly number[];
  readonly largeCommunities?: readonly (readonly [number, number, number])[];
  /** MULTI_EXIT_DISC (e.g. a kernel route's metric, as FRR's `redistribute table` carries it). */
  readonly med?: number;
  /** Our AS this many times in the AS_PATH, so the path looks longer to whoever compares (0: none). */
  readonly prepend?: number;
}

/**
 * The routes of one origin (`ovn`, `api`) in the RIB, by prefix: announcing a prefix again
 * with another next hop replaces its path in place, so peers get one UPDATE and never a
 * withdrawal in between. Attribute sets are shared by every route with the same next hop and
 * communities, so 50,000 floating IPs on 1,000 chassis make 1,000 sets, not 50,000.
 */
export class LocalOrigin {
  readonly #rib: Rib;
  readonly #origin: RibPeer;
  readonly #flow: RouteFlow;
  readonly #routes = new Map<string, { prefix: RibPrefix; key: string }>();
  readonly #attrs = new Map<string, { attrs: PathAttributes; users: number }>();

  constructor(rib: Rib, origin: RibPeer, flow: RouteFlow) {
    this.#rib = rib;
    this.#origin = origin;
    this.#flow = flow;
  }

  get size(): number {
    return this.#routes.size;
  }

  /** Prefixes held, as given. */
  prefixes(): IterableIterator<string> {
    return this.#routes.keys();
  }

  /** Originates or replaces the route of `route.prefix`. Throws on a next hop of the other family. */
  announce(route: LocalRoute): void {
    const prefix = parsePrefix(route.prefix);
    const key = attrsKey(route);
    const held = this.#routes.get(route.prefix);
    if (held?.key === key) return;
    const attrs = this.#share(key, prefix, route);
    this.#rib.originate(prefix, attrs, 0, this.#origin);
    if (held) this.#release(held.key);
    this.#routes.set(route.prefix, { prefix, key });
    this.#flow.schedule();
  }

  withdraw(prefix: string): void {
    const held = this.#routes.get(prefix);
    if (!held) return;
    this.#routes.delete(prefix);
    this.#rib.unoriginate(held.prefix, 0, this.#origin);
    this.#release(held.key);
    this.#flow.schedule();
  }

  /** Makes the origin hold exactly `routes`: what is not among them is withdrawn. */
  replaceAll(routes: readonly LocalRoute[]): void {
    const keep = new Set(routes.map((r) => r.prefix));
    for (const p of [...this.#routes.keys()]) if (!keep.has(p)) this.withdraw(p);
    for (const r of routes) this.announce(r);
  }

  withdrawAll(): void {
    for (const p of [...this.#routes.keys()]) this.withdraw(p);
  }

  #share(key: string, prefix: RibPrefix, route: LocalRoute): PathAttributes {
    const shared = this.#attrs.get(key);
    if (shared) {
      shared.users++;
      return shared.attrs;
    }
    const attrs = localAttributes(prefix, route, this.#rib.localAs);
    this.#attrs.set(key, { attrs, users: 1 });
    return attrs;
  }

  #release(key: string): void {
    const shared = this.#attrs.get(key);
    if (shared && --shared.users === 0) this.#attrs.delete(key);
  }
}

function attrsKey(r: LocalRoute): string {
  const v6 = r.prefix.includes(':') ? '6' : '4';
  return `${v6} ${r.nextHop} ${(r.communities ?? []).join(',')} ${(r.largeCommunities ?? []).map((c) => c.join(':')).join(',')} ${r.med ?? ''} ${r.prepend ?? 0}`;
}

/**
 * As an iBGP peer would get it (RFC 4271 section 5.1): ORIGIN IGP, an empty AS_PATH (or our AS
 * `prepend` times), the next hop as NEXT_HOP (IPv4) or MP_REACH_NLRI (IPv6, RFC 4760), MED and
 * communities as given.
 */
function localAttributes(prefix: RibPrefix, r: LocalRoute, localAs: number): PathAttributes {
  const ipv4 = prefix.afi === Afi.IPV4;
  const self = r.nextHop === NEXT_HOP_SELF;
  if (!self && ipv4 === r.nextHop.includes(':'))
    throw new Error(`${r.prefix}: next hop ${r.nextHop} is not of the prefix's family`);
  const large = r.largeCommunities ?? [];
  return makeAttributes({
    origin: Origin.IGP,
    asPath:
      (r.prepend ?? 0) > 0
        ? [{ type: AsPathSegmentType.AS_SEQUENCE, asns: new Array<number>(r.prepend ?? 0).fill(localAs) }]
        : [],
    nextHop: ipv4 && !self ? parseIpv4(r.nextHop) : undefined,
    med: r.med,
    mpReach:
      ipv4 || self
        ? undefined
        : { afi: Afi.IPV6, safi: Safi.UNICAST, nextHop: addressBytes(r.nextHop), reserved: 0 },
    communities: r.communities && r.communities.length > 0 ? r.communities : undefined,
    largeCommunities: large.length > 0 ? large.flat() : undefined,
  });
}
