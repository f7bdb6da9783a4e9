import { makeAttributes, type PathAttributes } from '../../src/bgp/wire/attributes/types.js';
import { Afi, type AfiCode } from '../../src/bgp/wire/constants.js';
import { PrefixList } from '../../src/bgp/wire/prefix-list.js';
import { PrefixWalk } from './prefix-walk.js';

/** One attribute set and the prefixes [from, to) of the table that share it. */
export interface RouteGroup {
  readonly attrs: PathAttributes;
  readonly from: number;
  readonly to: number;
}

/** A generated table: all prefixes in one list (as a RIB holds them), grouped by attribute set. */
export interface Table {
  readonly afi: AfiCode;
  readonly prefixes: PrefixList;
  readonly groups: readonly RouteGroup[];
}

export interface TableOptions {
  readonly afi: AfiCode;
  readonly prefixes: number;
  /** Mean prefixes per attribute set (each group holds 1 .. 2*mean-1). */
  readonly perAttributeSet?: number;
  /** IPv4 next hop (u32) or IPv6 next hop bytes (16 or 32). */
  readonly nextHop?: number | Uint8Array;
  readonly localAs?: number;
  readonly seed?: number;
  /**
   * Shaped like the Internet's table rather than the compact default (see PrefixWalk). Off by
   * default, so the codec and policy benches keep their table.
   */
  readonly internet?: boolean;
}

/** mulberry32: small, fast, deterministic, so every run and every implementation sees the same table. */
export function rng(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

/**
 * A generated full table: unique, non-overlapping prefixes walked upward through the unicast
 * space, grouped ~`perAttributeSet` to an attribute set with AS paths of 2-6 hops, a MED on
 * some and communities on about a third. Deterministic for a given seed.
 */
export function generateTable(o: TableOptions): Table {
  const random = rng(o.seed ?? 1);
  const mean = o.perAttributeSet ?? 10;
  const localAs = o.localAs ?? 65001;
  const groups: RouteGroup[] = [];
  const list = new PrefixList(o.afi, false, o.prefixes);
  const v4 = o.afi === Afi.IPV4;
  const walk = new PrefixWalk(o.afi, o.internet === true);
  let made = 0;
  const nextHop = o.nextHop ?? (v4 ? 0xc6120101 : undefined);
  while (made < o.prefixes) {
    const size = Math.min(o.prefixes - made, 1 + Math.floor(random() * (2 * mean - 1)));
    for (let k = 0; k < size; k++) walk.push(list, random());
    groups.push({ attrs: randomAttributes(random, localAs, v4, nextHop), from: made, to: made + size });
    made += size;
  }
  return { afi: o.afi, prefixes: list, groups };
}

function randomAttributes(
  random: () => number,
  localAs: number,
  v4: boolean,
  nextHop: number | Uint8Array | undefined,
) {
  const hops = 2 + Math.floor(random() * 5);
  const asns = [localAs];
  for (let h = 1; h < hops; h++)
    asns.push(random() < 0.2 ? 4200000000 + Math.floor(random() * 1000) : 1 + Math.floor(random() * 64000));
  const attrs: PathAttributes = {
    origin: random() < 0.9 ? 0 : 2,
    asPath: [{ type: 2, asns }],
    med: random() < 0.3 ? Math.floor(random() * 1000) : undefined,
    communities:
      random() < 0.33
        ? Array.from(
            { length: 1 + Math.floor(random() * 4) },
            () => ((localAs << 16) | Math.floor(random() * 65536)) >>> 0,
          )
        : undefined,
  };
  if (v4) return makeAttributes({ ...attrs, nextHop: nextHop as number });
  const nh =
    nextHop instanceof Uint8Array
      ? nextHop
      : Uint8Array.from(Buffer.from('20010db8000100000000000000000001', 'hex'));
  return makeAttributes({ ...attrs, mpReach: { afi: Afi.IPV6, safi: 1, nextHop: nh, reserved: 0 } });
}
