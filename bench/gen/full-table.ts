import { makeAttributes, type PathAttributes } from '../../src/bgp/wire/attributes/types.js';
import { Afi, type AfiCode } from '../../src/bgp/wire/constants.js';
import { PrefixList } from '../../src/bgp/wire/prefix-list.js';

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
   * Shaped like the Internet's table rather than the compact default: IPv4 lengths spread over
   * /8-/24 (the /8-/19 are aggregates covering the more-specifics that follow them, which also
   * keeps a million prefixes inside the unicast space), and no special-purpose
   * space (RFC 6890: private, loopback, documentation, benchmarking), which real peers filter
   * and BIRD refuses as bogus. Off by default, so the codec and policy benches keep their table.
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

/** Length mix of a real IPv4 table: mostly /24, the rest spread over /16-/23. */
const V4_LENGTHS: readonly [number, number][] = [
  [24, 0.6],
  [23, 0.1],
  [22, 0.12],
  [21, 0.06],
  [20, 0.05],
  [19, 0.03],
  [18, 0.015],
  [17, 0.01],
  [16, 0.015],
];
/** An Internet table: mostly /24, a /16-/23 spread and a thin tail down to /8. */
const V4_INTERNET_LENGTHS: readonly [number, number][] = [
  [24, 0.6121],
  [23, 0.09],
  [22, 0.12],
  [21, 0.055],
  [20, 0.05],
  [19, 0.03],
  [18, 0.015],
  [17, 0.01],
  [16, 0.015],
  [15, 0.001],
  [14, 0.0008],
  [13, 0.0005],
  [12, 0.0003],
  [11, 0.0001],
  [10, 0.0001],
  [9, 0.00005],
  [8, 0.00005],
];
/** In an Internet table, prefixes shorter than this are covering aggregates with more-specifics inside. */
const COVERING_BELOW = 20;
/** How far the walk moves past a covering aggregate: one /24, so what follows lies inside it. */
const COVERING_STEP = 2 ** (32 - 24);

/** RFC 6890 special-purpose IPv4 blocks, as [start, end) in ascending order; unicast ends at 224/4. */
const V4_SPECIAL: readonly [number, number][] = [
  ['0.0.0.0', 8],
  ['10.0.0.0', 8],
  ['100.64.0.0', 10],
  ['127.0.0.0', 8],
  ['169.254.0.0', 16],
  ['172.16.0.0', 12],
  ['192.0.0.0', 24],
  ['192.0.2.0', 24],
  ['192.168.0.0', 16],
  ['198.18.0.0', 15],
  ['198.51.100.0', 24],
  ['203.0.113.0', 24],
].map(([a, len]) => {
  const start = (a as string).split('.').reduce((n, o) => n * 256 + Number(o), 0);
  return [start, start + 2 ** (32 - (len as number))] as [number, number];
});
const V4_UNICAST_END = 0xe0000000;
/** RFC 6890 IPv6 blocks inside 2000::/3 (IETF protocol assignments, documentation), top 64 bits. */
const V6_SPECIAL: readonly [bigint, bigint][] = [
  [0x2001000000000000n, 0x2001020000000000n],
  [0x20010db800000000n, 0x20010db900000000n],
];

/**
 * The first start >= `at`, aligned to `span`, whose block [start, start + span) misses every
 * special block. One pass: the blocks are sorted, and moving past one never moves back into another.
 */
function clearV4(at: number, span: number): number {
  let start = Math.ceil(at / span) * span;
  for (const [from, to] of V4_SPECIAL)
    if (start < to && start + span > from) start = Math.ceil(to / span) * span;
  return start;
}

function clearV6(at: bigint, span: bigint): bigint {
  const align = (x: bigint) => ((x + span - 1n) / span) * span;
  let start = align(at);
  for (const [from, to] of V6_SPECIAL) if (start < to && start + span > from) start = align(to);
  return start;
}

/** IPv6: mostly /48, then /32-/47 and a few /29. */
const V6_LENGTHS: readonly [number, number][] = [
  [48, 0.6],
  [44, 0.08],
  [40, 0.07],
  [36, 0.05],
  [32, 0.15],
  [29, 0.05],
];

function pickLength(table: readonly [number, number][], r: number): number {
  let acc = 0;
  for (const [len, p] of table) {
    acc += p;
    if (r < acc) return len;
  }
  return table[0][0];
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
  // IPv4 cursor over 1.0.0.0 - 223.255.255.255; IPv6 over 2000::/3 (as a 64-bit top half).
  let cursor = v4 ? 0x01000000 : 0x2000000000000000n;
  let made = 0;
  const nextHop = o.nextHop ?? (v4 ? 0xc6120101 : undefined);
  const internet = o.internet === true;
  const v4Lengths = internet ? V4_INTERNET_LENGTHS : V4_LENGTHS;
  while (made < o.prefixes) {
    const size = Math.min(o.prefixes - made, 1 + Math.floor(random() * (2 * mean - 1)));
    for (let k = 0; k < size; k++) {
      if (v4) {
        const len = pickLength(v4Lengths, random());
        const span = 2 ** (32 - len);
        cursor = internet ? clearV4(cursor as number, span) : Math.ceil((cursor as number) / span) * span;
        if (internet && (cursor as number) + span > V4_UNICAST_END)
          throw new RangeError(`${o.prefixes} prefixes do not fit in the IPv4 unicast space`);
        const i = list.grow();
        list.lens[i] = len;
        list.words[i] = cursor as number;
        cursor = (cursor as number) + (internet && len < COVERING_BELOW ? COVERING_STEP : span);
      } else {
        const len = pickLength(V6_LENGTHS, random());
        const span = 1n << BigInt(64 - len);
        cursor = internet
          ? clearV6(cursor as bigint, span)
          : (((cursor as bigint) + span - 1n) / span) * span;
        const i = list.grow();
        list.lens[i] = len;
        list.words[i * 4] = Number((cursor as bigint) >> 32n);
        list.words[i * 4 + 1] = Number((cursor as bigint) & 0xffffffffn);
        cursor = (cursor as bigint) + span;
      }
    }
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
