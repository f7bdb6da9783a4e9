import { Afi, type AfiCode, type PathAttributes } from '../bgp/wire/index.js';
import {
  type ChangeBatch,
  nextHopText,
  type RibPrefix,
  type RouteAdd,
  type RouteChange,
  type RoutePath,
} from '../rib/index.js';
import { isLinkLocal } from './link-local.js';

/** One next hop of a route to install: an address of either family (RFC 8950 allows IPv6 for IPv4). */
export interface FibNextHop {
  /** Canonical text (RFC 5952 for IPv6). */
  readonly address: string;
  readonly afi: AfiCode;
  /**
   * The interface of a link-local next hop: the link of the unnumbered peer the route came
   * from. Absent for every other next hop.
   */
  readonly interface?: string;
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
  return nextHopsOfPaths(change.multipath, change.prefix.afi);
}

function nextHopsOfPaths(paths: readonly RoutePath[], afi: AfiCode): FibNextHop[] {
  const out: FibNextHop[] = [];
  for (const path of paths) addNextHop(out, path.attrs, afi, path.source.interface);
  return out;
}

/**
 * Appends the next hop of one path, unless it has none usable or `out` holds it already. A
 * link-local one takes the interface of the unnumbered peer it came from (`link`).
 */
function addNextHop(out: FibNextHop[], attrs: PathAttributes, afi: AfiCode, link: string | undefined): void {
  const address = nextHopText(attrs, afi) ?? ipv4OverIpv6NextHop(attrs, afi);
  if (address === undefined) return;
  const iface = link !== undefined && isLinkLocal(address) ? link : undefined;
  if (out.some((h) => h.address === address && h.interface === iface)) return;
  const afiOf = address.includes(':') ? Afi.IPV6 : Afi.IPV4;
  out.push(iface === undefined ? { address, afi: afiOf } : { address, afi: afiOf, interface: iface });
}

/** RFC 8950: an IPv4 route whose MP_REACH_NLRI carries an IPv6 next hop. */
function ipv4OverIpv6NextHop(attrs: PathAttributes, afi: AfiCode): string | undefined {
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

/**
 * Change i of a batch as a forwarding plane change, read from the columns: no RouteChange is
 * built, and a single best path's next hops come from `memo`, so the prefixes of one attribute
 * set (a full table arrives in such runs) share one next-hop list instead of each making its own.
 */
export function fibChangeAt(batch: ChangeBatch, i: number, memo: NextHopMemo): FibChange {
  const prefix = batch.prefix(i);
  if (!batch.isAdd(i)) return { kind: 'withdraw', prefix };
  const multipath = batch.multipaths[i];
  const nextHops = multipath
    ? nextHopsOfPaths(multipath, prefix.afi)
    : memo.of(batch.attrs[i]!, prefix.afi, batch.sources[i]?.interface);
  if (nextHops.length === 0) return { kind: 'withdraw', prefix };
  return { kind: 'add', route: { prefix, nextHops } };
}

/**
 * The next hops of the last attribute set asked for (per family): shared, so never to be
 * changed. Another attribute set with the same next hop (another AS path, a MED) gets the same
 * list back, so a sink that remembers work by list sees one list for a whole peer's table.
 */
export class NextHopMemo {
  #attrs: PathAttributes | undefined;
  #afi: AfiCode = Afi.IPV4;
  #link: string | undefined;
  #hops: readonly FibNextHop[] = [];

  /** `link`: the interface of the unnumbered peer the path came from, if it came from one. */
  of(attrs: PathAttributes, afi: AfiCode, link?: string): readonly FibNextHop[] {
    if (attrs !== this.#attrs || afi !== this.#afi || link !== this.#link) {
      const hops: FibNextHop[] = [];
      addNextHop(hops, attrs, afi, link);
      if (afi !== this.#afi || !sameAddresses(hops, this.#hops)) this.#hops = hops;
      this.#attrs = attrs;
      this.#afi = afi;
      this.#link = link;
    }
    return this.#hops;
  }

  /** Lets go of the attribute set, so a memo kept between batches holds none alive. */
  clear(): void {
    this.#attrs = undefined;
    this.#hops = [];
  }
}

function sameAddresses(a: readonly FibNextHop[], b: readonly FibNextHop[]): boolean {
  if (a.length !== b.length) return false;
  for (let i = 0; i < a.length; i++)
    if (a[i].address !== b[i].address || a[i].interface !== b[i].interface) return false;
  return true;
}
