import { AF } from '../../bgp/transport/index.js';
import { type IfindexOf, isLinkLocal, sysfsIfindex } from '../link-local.js';
import type { FibNextHop } from '../route.js';
import type { RequestFailure } from './client.js';
import { Rtn, RtTable } from './constants.js';
import { rejectionText } from './errors.js';
import { canonicalNexthops } from './nexthop-set.js';
import { gatewayFamilyOf, type KernelNexthop, type KernelRoute } from './route-message.js';

/**
 * How one BGP next hop is reached, from the kernel's own routes:
 * - `connected`: on a subnet of ours: installed as is, on the device that subnet is on;
 * - `recursive`: behind a gateway (an iBGP next hop over the IGP): installed via that route's
 *   gateways and devices, which the kernel accepts where it would refuse the BGP next hop;
 * - `unresolved`: no usable route (or only our own, the default route, or a local address).
 */
export type Resolution =
  | {
      readonly kind: 'connected' | 'recursive';
      readonly nexthops: readonly KernelNexthop[];
      /** The route the lookup hit, and its table. */
      readonly through: string;
      readonly table: number;
    }
  | { readonly kind: 'unresolved'; readonly reason: string };

/** The lookup the resolver needs: RTM_GETROUTE with RTM_F_FIB_MATCH (RtnlClient.lookup). */
export type FibLookup = (address: string) => Promise<KernelRoute | RequestFailure>;

export interface ResolverInit {
  readonly table: number;
  readonly protocol: number;
}

/**
 * How the resolver names a next hop: its address, and for a link-local one learned from an
 * unnumbered peer the interface after '%' (fe80::1%eth1), so the same address on two links is
 * two next hops.
 */
export function nextHopKey(h: FibNextHop): string {
  return h.interface === undefined ? h.address : `${h.address}%${h.interface}`;
}

/**
 * A link-local next hop on a named interface: on that link by definition (RFC 4291 2.5.6), so
 * installed as is on that device (`via inet6 fe80::1 dev eth1` under an IPv4 route, RFC 8950).
 */
export function linkLocalResolution(address: string, iface: string, ifindex: number | undefined): Resolution {
  if (ifindex === undefined)
    return { kind: 'unresolved', reason: `link-local next hop ${address}: no interface ${iface}` };
  return {
    kind: 'connected',
    through: `${iface} (link-local)`,
    // No route decides it; the main table is where a watch would see the link's own route.
    table: RtTable.MAIN,
    nexthops: [{ gateway: address, gatewayFamily: AF.INET6, ifindex, weight: 1, flags: 0 }],
  };
}

/** What a FIB_MATCH answer means for a next hop (pure: unit-tested with hand-made answers). */
export function classify(address: string, hit: KernelRoute | RequestFailure, own: ResolverInit): Resolution {
  if ('errno' in hit)
    return { kind: 'unresolved', reason: `no route to ${address}: ${rejectionText(hit.errno, hit.detail)}` };
  const through = `${hit.prefix.addr}/${hit.prefix.len}`;
  if (hit.type === Rtn.LOCAL) return { kind: 'unresolved', reason: `${address} is a local address` };
  if (hit.type !== Rtn.UNICAST)
    return {
      kind: 'unresolved',
      reason: `${address} resolves to a non-unicast route ${through} (type ${hit.type})`,
    };
  if (hit.protocol === own.protocol && hit.table === own.table)
    return { kind: 'unresolved', reason: `${address} resolves only through our own route ${through}` };
  // As FRR's zebra by default (no `ip nht resolve-via-default`).
  if (hit.prefix.len === 0)
    return { kind: 'unresolved', reason: `${address} resolves only through the default route` };
  const family = gatewayFamilyOf(address);
  const viaGateway = hit.nexthops.filter((n) => n.gateway !== undefined && n.ifindex > 0);
  if (viaGateway.length > 0)
    return {
      kind: 'recursive',
      through,
      table: hit.table,
      nexthops: viaGateway.map((n) => ({
        gateway: n.gateway!,
        gatewayFamily: n.gatewayFamily ?? family,
        ifindex: n.ifindex,
        weight: 1,
        flags: 0,
      })),
    };
  const device = hit.nexthops.find((n) => n.ifindex > 0);
  if (!device) return { kind: 'unresolved', reason: `${address}: the route ${through} names no device` };
  return {
    kind: 'connected',
    through,
    table: hit.table,
    nexthops: [{ gateway: address, gatewayFamily: family, ifindex: device.ifindex, weight: 1, flags: 0 }],
  };
}

/**
 * Resolves BGP next hops through the kernel's routes and remembers the answers until `clear()`
 * (each reconcile starts afresh). Next hops are few (one per peer or so), so one lookup each.
 */
export class NextHopResolver {
  readonly #lookup: FibLookup;
  readonly #own: ResolverInit;
  readonly #ifindexOf: IfindexOf;
  readonly #cache = new Map<string, Resolution>();

  constructor(lookup: FibLookup, own: ResolverInit, ifindexOf: IfindexOf = sysfsIfindex) {
    this.#lookup = lookup;
    this.#own = own;
    this.#ifindexOf = ifindexOf;
  }

  clear(): void {
    this.#cache.clear();
  }

  /** By nextHopKey: the address, with '%interface' for a link-local next hop of an unnumbered peer. */
  get(address: string): Resolution | undefined {
    return this.#cache.get(address);
  }

  /** Looks up every address not known yet (in parallel: they are few); returns how many were new. */
  async resolve(addresses: Iterable<string>): Promise<number> {
    const todo = [...new Set(addresses)].filter((a) => !this.#cache.has(a));
    for (const [a, r] of await this.#lookAll(todo)) this.#cache.set(a, r);
    return todo.length;
  }

  /** Looks the addresses up again; returns those that now resolve otherwise (or newly, or no longer). */
  async refresh(addresses: Iterable<string>): Promise<string[]> {
    const changed: string[] = [];
    for (const [a, r] of await this.#lookAll([...new Set(addresses)])) {
      const before = this.#cache.get(a);
      if (before !== undefined && sameResolution(before, r)) continue;
      this.#cache.set(a, r);
      changed.push(a);
    }
    return changed;
  }

  /** The tables that answered lookups with a route (where a change can move a next hop). */
  tables(): number[] {
    const out = new Set<number>();
    for (const r of this.#cache.values()) if (r.kind !== 'unresolved') out.add(r.table);
    return [...out];
  }

  addresses(): IterableIterator<string> {
    return this.#cache.keys();
  }

  #lookAll(addresses: readonly string[]): Promise<[string, Resolution][]> {
    return Promise.all(
      addresses.map(async (a): Promise<[string, Resolution]> => {
        const zone = a.indexOf('%');
        if (zone > 0) {
          const iface = a.slice(zone + 1);
          return [a, linkLocalResolution(a.slice(0, zone), iface, this.#ifindexOf(iface))];
        }
        if (isLinkLocal(a))
          return [a, { kind: 'unresolved', reason: `link-local next hop ${a} needs an interface` }];
        return [a, classify(a, await this.#lookup(a), this.#own)];
      }),
    );
  }

  /**
   * The kernel next hops for a route's BGP next hops: the union of their resolutions, in order,
   * without duplicates. Unresolved ones are left out as long as one resolves (as zebra does with
   * inactive next hops); when none does, the first one's reason.
   */
  nexthopsFor(
    routeFamily: number,
    hops: readonly FibNextHop[],
  ): { readonly nexthops: KernelNexthop[] } | { readonly reason: string } {
    const out: KernelNexthop[] = [];
    const seen = new Set<string>();
    let reason: string | undefined;
    for (const h of hops) {
      if (routeFamily === AF.INET6 && !h.address.includes(':')) {
        reason ??= `an IPv6 route cannot have the IPv4 next hop ${h.address}`;
        continue;
      }
      const r = this.#cache.get(nextHopKey(h));
      if (!r || r.kind === 'unresolved') {
        reason ??= r?.reason ?? `${nextHopKey(h)} not resolved`;
        continue;
      }
      for (const nh of r.nexthops) {
        const k = `${nh.gateway}@${nh.ifindex}`;
        if (seen.has(k)) continue;
        seen.add(k);
        out.push(nh);
      }
    }
    return out.length > 0 ? { nexthops: out } : { reason: reason ?? 'no next hop' };
  }

  /** For status(): every next hop looked up and how it resolved. */
  entries(): { address: string; resolution: Resolution }[] {
    return [...this.#cache].map(([address, resolution]) => ({ address, resolution }));
  }
}

function sameResolution(a: Resolution, b: Resolution): boolean {
  if (a.kind === 'unresolved') return b.kind === 'unresolved' && a.reason === b.reason;
  if (b.kind === 'unresolved') return false;
  return (
    a.kind === b.kind &&
    a.through === b.through &&
    a.table === b.table &&
    a.nexthops.length === b.nexthops.length &&
    a.nexthops.every((n, i) => n.gateway === b.nexthops[i].gateway && n.ifindex === b.nexthops[i].ifindex)
  );
}

/** A resolution as a log line says it. */
export function describeResolution(r: Resolution): string {
  return r.kind === 'unresolved' ? r.reason : `${r.kind} via ${r.through}: ${canonicalNexthops(r.nexthops)}`;
}
