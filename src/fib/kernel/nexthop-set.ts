import type { AfNumber } from '../../bgp/transport/index.js';
import { encodeNexthops, type KernelNexthop } from './route-message.js';

/**
 * One next-hop set as installed under routes of one family: the kernel next hops, their
 * canonical text (to compare with what a dump or a notification shows) and their attributes
 * encoded once. A full table has a million routes but a handful of sets, so sets are interned
 * and a route holds a reference.
 */
export interface NexthopSet {
  readonly family: AfNumber;
  readonly nexthops: readonly KernelNexthop[];
  /** "198.18.40.2@3*1,198.18.40.3@3*1": sorted, so the order of an ECMP set does not matter. */
  readonly canon: string;
  readonly attrs: Uint8Array;
}

/**
 * The comparable text of a next-hop list: gateway, device and weight of each, sorted. Flags
 * the kernel sets on its own (LINKDOWN, OFFLOAD...) do not count.
 */
export function canonicalNexthops(nexthops: readonly KernelNexthop[]): string {
  const parts = nexthops.map((n) => `${n.gateway ?? '-'}@${n.ifindex}*${n.weight}`);
  return parts.length === 1 ? parts[0] : parts.sort().join(',');
}

export class NexthopSets {
  readonly #sets = new Map<string, NexthopSet>();

  /** The interned set for these next hops under a route of `family`; encodes it the first time. */
  get(family: AfNumber, nexthops: readonly KernelNexthop[]): NexthopSet {
    const canon = canonicalNexthops(nexthops);
    const key = `${family}|${canon}`;
    let set = this.#sets.get(key);
    if (!set) {
      set = { family, nexthops, canon, attrs: encodeNexthops(family, nexthops) };
      this.#sets.set(key, set);
    }
    return set;
  }

  get size(): number {
    return this.#sets.size;
  }

  /** Drops sets no route uses any more (called after a reconcile). */
  retain(used: ReadonlySet<NexthopSet>): void {
    for (const [k, s] of this.#sets) if (!used.has(s)) this.#sets.delete(k);
  }
}
