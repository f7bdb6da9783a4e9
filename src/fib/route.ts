import { Afi, type AfiCode } from '../bgp/wire/index.js';
import { nextHopText, type RibPrefix, type RouteAdd, type RouteChange } from '../rib/index.js';

/** One next hop of a route to install: an address of either family (RFC 8950 allows IPv6 for IPv4). */
export interface FibNextHop {
  /** Canonical text (RFC 5952 for IPv6). */
  readonly address: string;
  readonly afi: AfiCode;
}

/** A route as a forwarding plane takes it: the prefix and its equal-cost next hops, best first. */
export interface FibRoute {
  readonly prefix: RibPrefix;
  /** Never empty; no duplicates. */
  readonly nextHops: readonly FibNextHop[];
}

export type FibChange =
  | { readonly kind: 'add'; readonly route: FibRoute }
  | { readonly kind: 'withdraw'; readonly prefix: RibPrefix };

/**
 * A forwarding plane as a sink drives it (kernel, OVN NB, zebra). It owns only what carries
 * its mark and never touches anything else. A failed `apply` rejects as a whole: the caller
 * retries the changes still wanted (coalesced with newer ones) after a back-off.
 */
export interface FibTarget {
  /** For logs, metrics and `show`: "kernel", "ovn-nb", "zebra". */
  readonly name: string;
  /** Makes the target hold these changes: an add replaces whatever we installed for the prefix. */
  apply(changes: readonly FibChange[]): Promise<void>;
  /** Makes the routes we own in the target exactly `all`: missing added, stale deleted, nothing else touched. */
  reconcile(all: readonly FibRoute[]): Promise<void>;
  close(): Promise<void>;
  /** Wanted prefixes the plane does not hold, each with why (the first `limit`); for `show sinks`. */
  notInstalled?(limit: number): readonly NotInstalled[];
  /** The target's own counters beyond the driver's (conflicts, routes put back, ...); for `show sinks`. */
  details?(): readonly SinkDetail[];
  /**
   * Families of routes of ours the plane holds, kept from before we started and still
   * forwarding: only a target that keeps its routes when we stop answers (graceful restart's F bit).
   */
  held?(): Promise<readonly AfiCode[]>;
}

export interface SinkDetail {
  readonly name: string;
  readonly value: number | string;
}

export interface NotInstalled {
  readonly prefix: string;
  readonly reason: string;
}

/** The ECMP set of a best-path change as next hops, best first; empty when no path has a usable one. */
export function fibNextHops(change: RouteAdd): FibNextHop[] {
  const afi = change.prefix.afi;
  const out: FibNextHop[] = [];
  for (const path of change.multipath) {
    const address = nextHopText(path.attrs, afi) ?? ipv4OverIpv6NextHop(path.attrs, afi);
    if (address === undefined || out.some((h) => h.address === address)) continue;
    out.push({ address, afi: address.includes(':') ? Afi.IPV6 : Afi.IPV4 });
  }
  return out;
}

/** RFC 8950: an IPv4 route whose MP_REACH_NLRI carries an IPv6 next hop. */
function ipv4OverIpv6NextHop(attrs: RouteAdd['attrs'], afi: AfiCode): string | undefined {
  const mp = attrs.mpReach;
  if (afi !== Afi.IPV4 || !mp || mp.nextHop.length < 16) return undefined;
  return nextHopText(attrs, mp.afi as AfiCode);
}

/** A Loc-RIB change as a forwarding plane change; a best path without a usable next hop withdraws. */
export function toFibChange(change: RouteChange): FibChange {
  if (change.kind === 'withdraw') return { kind: 'withdraw', prefix: change.prefix };
  const nextHops = fibNextHops(change);
  if (nextHops.length === 0) return { kind: 'withdraw', prefix: change.prefix };
  return { kind: 'add', route: { prefix: change.prefix, nextHops } };
}
