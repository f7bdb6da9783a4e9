import { AF } from '../../bgp/transport/index.js';
import { Afi } from '../../bgp/wire/index.js';
import type { RibPrefix } from '../../rib/index.js';
import { type IfindexOf, isLinkLocal } from '../link-local.js';
import type { FibNextHop, FibRoute } from '../route.js';
import type { ZapiPrefix } from './address.js';
import { NexthopType, VRF_DEFAULT, ZapiSafi, ZebraFlag } from './constants.js';
import type { ZapiNexthop, ZapiRoute } from './route-message.js';

/** How our routes are owned and ranked in zebra. */
export interface RouteOwner {
  /** ZEBRA_ROUTE_BGP in the session's dialect (9 in FRR 8.4, 10 in 10.3). */
  readonly routeType: number;
  readonly instance: number;
  readonly distance: number;
  readonly metric: number;
  /** ZEBRA_FLAG_ALLOW_RECURSION: let zebra resolve a next hop that is not on a connected subnet. */
  readonly allowRecursion: boolean;
}

export function zapiPrefix(p: RibPrefix): ZapiPrefix {
  return { family: p.afi === Afi.IPV4 ? AF.INET : AF.INET6, len: p.len, addr: p.addr };
}

/** The key routes and notifications share: "198.18.0.0/24", RFC 5952 text for IPv6. */
export function routeKey(p: RibPrefix): string {
  return `${p.addr}/${p.len}`;
}

/**
 * A FibRoute as a ZAPI route, as bgpd builds one for an eBGP path: gateway-only next hops
 * (type IPV4/IPV6, ifindex 0) that zebra resolves over its connected routes, at most
 * `multipath` of them (zebra's CAPABILITIES limit; the FibRoute lists them best first). A
 * link-local next hop from an unnumbered peer goes as bgpd sends one: IPV6_IFINDEX, with the
 * index of the peer's interface (`ifindexOf`; `convertible` has checked that it has one).
 */
export function toZapiRoute(
  route: FibRoute,
  owner: RouteOwner,
  multipath: number,
  ifindexOf: IfindexOf = noInterfaces,
): ZapiRoute {
  const nexthops: ZapiNexthop[] = route.nextHops
    .slice(0, Math.max(1, multipath))
    .map((nh) => zapiNexthop(nh, ifindexOf));
  return {
    type: owner.routeType,
    instance: owner.instance,
    flags: owner.allowRecursion ? ZebraFlag.ALLOW_RECURSION : 0,
    safi: ZapiSafi.UNICAST,
    prefix: zapiPrefix(route.prefix),
    nexthops,
    distance: owner.distance,
    metric: owner.metric,
  };
}

function zapiNexthop(nh: FibNextHop, ifindexOf: IfindexOf): ZapiNexthop {
  const base = { vrfId: VRF_DEFAULT, flags: 0, gate: nh.address };
  if (nh.afi === Afi.IPV4) return { ...base, type: NexthopType.IPV4, ifindex: 0 };
  if (nh.interface === undefined) return { ...base, type: NexthopType.IPV6, ifindex: 0 };
  const ifindex = ifindexOf(nh.interface);
  if (ifindex === undefined) throw new Error(noInterface(nh));
  return { ...base, type: NexthopType.IPV6_IFINDEX, ifindex };
}

/**
 * Why a route cannot go to zebra as we send routes, or undefined when it can: a link-local
 * next hop is usable only on its interface, so one from a numbered peer (no interface known)
 * or on an interface this host no longer has is refused.
 */
export function convertible(route: FibRoute, ifindexOf: IfindexOf = noInterfaces): string | undefined {
  if (route.nextHops.length === 0) return 'no next hop';
  for (const nh of route.nextHops) {
    if (nh.afi !== Afi.IPV6 || !isLinkLocal(nh.address)) continue;
    if (nh.interface === undefined) return `link-local next hop ${nh.address} needs an interface`;
    if (ifindexOf(nh.interface) === undefined) return noInterface(nh);
  }
  return undefined;
}

const noInterfaces: IfindexOf = () => undefined;

function noInterface(nh: FibNextHop): string {
  return `link-local next hop ${nh.address}: no interface ${nh.interface} on this host`;
}
