import { addressBytes, parseIpv4 } from '../address/index.js';
import { Afi, makeAttributes, Origin, type PathAttributes, Safi } from '../bgp/wire/index.js';
import {
  NEXT_HOP_SELF,
  type Origin as OriginName,
  type ReloadPlan,
  type StaticRoute,
} from '../config/index.js';
import { encodeExtCommunities } from '../policy/index.js';
import type { Rib } from '../rib/index.js';

const ORIGIN_CODE: Readonly<Record<OriginName, number>> = {
  igp: Origin.IGP,
  egp: Origin.EGP,
  incomplete: Origin.INCOMPLETE,
};

/**
 * The attributes a configured route is originated with, as the RIB wants them (what an iBGP
 * peer would get): ORIGIN, an empty AS_PATH, MED, LOCAL_PREF and communities from the
 * configuration. Next hop `self` is left out, so export puts our address on each session
 * there (RFC 4271 section 5.1.3); a given next hop is NEXT_HOP (IPv4) or MP_REACH_NLRI (IPv6).
 */
export function staticAttributes(route: StaticRoute): PathAttributes {
  const self = route.nextHop === NEXT_HOP_SELF;
  const ipv4 = route.prefix.afi === Afi.IPV4;
  return makeAttributes({
    origin: ORIGIN_CODE[route.origin],
    asPath: [],
    nextHop: !self && ipv4 ? parseIpv4(route.nextHop) : undefined,
    mpReach:
      !self && !ipv4
        ? { afi: Afi.IPV6, safi: Safi.UNICAST, nextHop: addressBytes(route.nextHop), reserved: 0 }
        : undefined,
    med: route.med,
    localPref: route.localPref,
    communities: route.communities.length > 0 ? route.communities : undefined,
    largeCommunities: route.largeCommunities.length > 0 ? route.largeCommunities.flat() : undefined,
    extCommunities: encodeExtCommunities(route.extendedCommunities),
  });
}

/** Originates every configured route (`routes` and `networks`). */
export function originateAll(rib: Rib, routes: readonly StaticRoute[]): void {
  for (const r of routes) rib.originate(r.prefix, staticAttributes(r));
}

/** Carries out the route part of a reload: withdrawn, announced, re-announced with new attributes. */
export function applyRouteChanges(rib: Rib, plan: ReloadPlan['routes']): void {
  for (const r of plan.removed) rib.unoriginate(r.prefix);
  for (const r of plan.added) rib.originate(r.prefix, staticAttributes(r));
  for (const c of plan.changed) rib.originate(c.after.prefix, staticAttributes(c.after));
}
