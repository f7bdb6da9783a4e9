/**
 * The prefixes of a generated table: unique, non-overlapping prefixes walked upward through the
 * unicast space, each length drawn from a real table's mix. Every table generator of bench/gen
 * lays its prefixes out with this walk, so the table shapes differ in their attribute sets only.
 */
import { Afi, type AfiCode } from '../../src/bgp/wire/constants.js';
import type { PrefixList } from '../../src/bgp/wire/prefix-list.js';

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
export const V4_SPECIAL: readonly [number, number][] = [
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

/** IPv6: mostly /48, then /32-/47 and a few /29. */
const V6_LENGTHS: readonly [number, number][] = [
  [48, 0.6],
  [44, 0.08],
  [40, 0.07],
  [36, 0.05],
  [32, 0.15],
  [29, 0.05],
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

function pickLength(table: readonly [number, number][], r: number): number {
  let acc = 0;
  for (const [len, p] of table) {
    acc += p;
    if (r < acc) return len;
  }
  return table[0][0];
}

/**
 * The walk's cursor. `internet`: shaped like the Internet's table rather than the compact
 * default: IPv4 lengths spread over /8-/24 (the /8-/19 are aggregates covering the
 * more-specifics that follow them, which also keeps a million prefixes inside the unicast
 * space), and no special-purpose space (RFC 6890: private, loopback, documentation,
 * benchmarking), which real peers filter and BIRD refuses as bogus.
 */
export class PrefixWalk {
  readonly #v4: boolean;
  readonly #internet: boolean;
  readonly #v4Lengths: readonly [number, number][];
  // IPv4 over 1.0.0.0 - 223.255.255.255; IPv6 over 2000::/3 (as a 64-bit top half).
  #v4Cursor = 0x01000000;
  #v6Cursor = 0x2000000000000000n;

  constructor(afi: AfiCode, internet: boolean) {
    this.#v4 = afi === Afi.IPV4;
    this.#internet = internet;
    this.#v4Lengths = internet ? V4_INTERNET_LENGTHS : V4_LENGTHS;
  }

  /** Appends the next prefix to `list`, its length chosen by `r` in [0, 1). */
  push(list: PrefixList, r: number): void {
    const internet = this.#internet;
    if (this.#v4) {
      const len = pickLength(this.#v4Lengths, r);
      const span = 2 ** (32 - len);
      const at = internet ? clearV4(this.#v4Cursor, span) : Math.ceil(this.#v4Cursor / span) * span;
      if (internet && at + span > V4_UNICAST_END)
        throw new RangeError(`${list.count + 1} prefixes do not fit in the IPv4 unicast space`);
      const i = list.grow();
      list.lens[i] = len;
      list.words[i] = at;
      this.#v4Cursor = at + (internet && len < COVERING_BELOW ? COVERING_STEP : span);
    } else {
      const len = pickLength(V6_LENGTHS, r);
      const span = 1n << BigInt(64 - len);
      const at = internet ? clearV6(this.#v6Cursor, span) : ((this.#v6Cursor + span - 1n) / span) * span;
      const i = list.grow();
      list.lens[i] = len;
      list.words[i * 4] = Number(at >> 32n);
      list.words[i * 4 + 1] = Number(at & 0xffffffffn);
      this.#v6Cursor = at + span;
    }
  }
}
