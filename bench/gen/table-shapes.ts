/**
 * The two table shapes the throughput benchmark sends, both over the same Internet-like prefix
 * walk (PrefixWalk: a real length mix, no special-purpose space), deterministic for a seed:
 *
 *   skewed   1 attribute set per 10 prefixes (100k sets at 1M) whose sizes follow Zipf's law:
 *            a few sets carry tens of thousands of prefixes, a quarter one prefix. It models a
 *            raw sender blasting a table with ~100k skewed attribute sets, the harness of the
 *            issue's first figures. Paths of 2-6 hops, a MED on 30 %, communities on a third.
 *   transit  a full table as a transit provider sends it: ~340k sets at 1M, half of them one
 *            prefix and over three quarters at most three, a thin tail of big aggregators;
 *            AS paths of a real table's lengths (mostly 3-5 hops, prepending on one in ten,
 *            4-octet ASNs on a fifth), communities on two thirds, large communities (RFC 8092)
 *            on one in seven, a MED on 40 %. Many small distinct sets are what makes a receiver
 *            decode and intern an attribute set every few prefixes.
 *
 * Every set is distinct (a drawn set equal to an earlier one is drawn again), so "N sets" means
 * N distinct sets for the receiver too. The attributes are kept as plain specs: the next hop,
 * which differs per link, is added when a set is encoded (`shapeAttributes`).
 */
import { makeAttributes, type PathAttributes } from '../../src/bgp/wire/attributes/types.js';
import { Afi, type AfiCode } from '../../src/bgp/wire/constants.js';
import { PrefixList } from '../../src/bgp/wire/prefix-list.js';
import { rng } from './full-table.js';
import { PrefixWalk } from './prefix-walk.js';
import { shuffle, transitSizes, zipfSizes } from './set-sizes.js';

export type TableShape = 'skewed' | 'transit';
export const TABLE_SHAPES: readonly TableShape[] = ['skewed', 'transit'];

/** One attribute set as data; the next hop is the link's. */
export interface AttributeSpec {
  /** 0 IGP, 2 INCOMPLETE. */
  readonly origin: number;
  /** One AS_SEQUENCE, the sender's AS first. */
  readonly asPath: readonly number[];
  readonly med?: number;
  readonly communities?: readonly number[];
  /** RFC 8092 triples, flattened. */
  readonly largeCommunities?: readonly number[];
}

export interface ShapedGroup {
  readonly spec: AttributeSpec;
  /** Prefixes [from, to) of the table's list. */
  readonly from: number;
  readonly to: number;
}

export interface ShapedTable {
  readonly shape: TableShape;
  readonly afi: AfiCode;
  readonly prefixes: PrefixList;
  readonly groups: readonly ShapedGroup[];
}

export interface ShapeOptions {
  readonly afi: AfiCode;
  readonly prefixes: number;
  /** The sender's AS: the first of every path (an eBGP receiver checks it). */
  readonly localAs: number;
  readonly seed: number;
}

/** Mean prefixes per set of the skewed shape (the harness: ~100k sets in 1M). */
export const SKEWED_PER_SET = 10;
/** Redraws of a set equal to an earlier one before giving up (never reached in practice). */
const MAX_REDRAWS = 1000;
/** Two-octet ASNs drawn: public ones below AS_TRANS (23456). */
const AS2_MAX = 23455;
/** Four-octet ASNs drawn: the public range handed out so far (131072 and up). */
const AS4_FROM = 131072;
const AS4_SPAN = 270000;

export function shapedTable(shape: TableShape, o: ShapeOptions): ShapedTable {
  const random = rng(o.seed);
  const sizes =
    shape === 'skewed'
      ? // The ranks lie scattered over the address space, not the biggest sets first.
        shuffle(zipfSizes(o.prefixes, Math.max(1, Math.round(o.prefixes / SKEWED_PER_SET))), random)
      : transitSizes(o.prefixes, random);
  const draw = shape === 'skewed' ? skewedSpec : transitSpec;
  const list = new PrefixList(o.afi, false, o.prefixes);
  const walk = new PrefixWalk(o.afi, true);
  const seen = new Set<string>();
  const groups: ShapedGroup[] = [];
  let made = 0;
  for (const size of sizes) {
    for (let k = 0; k < size; k++) walk.push(list, random());
    groups.push({ spec: distinct(() => draw(random, o.localAs), seen), from: made, to: made + size });
    made += size;
  }
  return { shape, afi: o.afi, prefixes: list, groups };
}

/** The key two equal sets share. */
export function specKey(s: AttributeSpec): string {
  return `${s.origin}|${s.asPath.join(' ')}|${s.med ?? ''}|${s.communities?.join(' ') ?? ''}|${s.largeCommunities?.join(' ') ?? ''}`;
}

function distinct(draw: () => AttributeSpec, seen: Set<string>): AttributeSpec {
  for (let i = 0; i < MAX_REDRAWS; i++) {
    const s = draw();
    const key = specKey(s);
    if (!seen.has(key)) {
      seen.add(key);
      return s;
    }
  }
  throw new Error(`no new attribute set after ${MAX_REDRAWS} draws`);
}

const pick = (random: () => number, n: number): number => Math.floor(random() * n);
const as2 = (random: () => number): number => 1 + pick(random, AS2_MAX);
const as4 = (random: () => number): number => AS4_FROM + pick(random, AS4_SPAN);
/** A community <as>:<value>; `as` is never 0 or 65535, so no RFC 1997 well-known community (NO_EXPORT...) comes out. */
const community = (as: number, value: number): number => ((as << 16) | value) >>> 0;

/** As the harness: paths of 2-6 hops, a MED on 30 %, 1-4 communities on a third. */
function skewedSpec(random: () => number, localAs: number): AttributeSpec {
  const hops = 2 + pick(random, 5);
  const asPath = [localAs];
  for (let h = 1; h < hops; h++) asPath.push(random() < 0.2 ? as4(random) : as2(random));
  return {
    origin: random() < 0.9 ? 0 : 2,
    asPath,
    ...(random() < 0.3 && { med: pick(random, 1000) }),
    ...(random() < 0.33 && {
      communities: Array.from({ length: 1 + pick(random, 4) }, () => community(localAs, pick(random, 65536))),
    }),
  };
}

/** Hops after the sender's own AS in a real table's paths: mostly 2-4, a few up to 8. */
const TRANSIT_HOPS: readonly [number, number][] = [
  [1, 0.04],
  [2, 0.2],
  [3, 0.32],
  [4, 0.24],
  [5, 0.12],
  [6, 0.05],
  [7, 0.02],
  [8, 0.01],
];

function weighted(table: readonly [number, number][], r: number): number {
  let acc = 0;
  for (const [v, p] of table) {
    acc += p;
    if (r < acc) return v;
  }
  return table[table.length - 1]![0];
}

/**
 * A transit provider's route: its own AS, then the path to the origin, the origin prepended 1-4
 * more times on one path in ten; the provider's communities (where it learned the route:
 * region, peer type) on two thirds, with a neighbor's own on some; large communities on one in
 * seven; the MED the neighbor sent on 40 %.
 */
function transitSpec(random: () => number, localAs: number): AttributeSpec {
  const hops = weighted(TRANSIT_HOPS, random());
  const asPath = [localAs];
  for (let h = 0; h < hops; h++) asPath.push(random() < 0.2 ? as4(random) : as2(random));
  if (random() < 0.1) {
    const origin = asPath[asPath.length - 1]!;
    for (let p = 1 + pick(random, 4); p > 0; p--) asPath.push(origin);
  }
  const communities: number[] = [];
  if (random() < 0.66) {
    for (let n = 1 + pick(random, 6); n > 0; n--) communities.push(community(localAs, pick(random, 4000)));
    const neighbor = asPath[1]!;
    if (neighbor <= AS2_MAX && random() < 0.3)
      for (let n = 1 + pick(random, 3); n > 0; n--) communities.push(community(neighbor, pick(random, 1000)));
  }
  const large: number[] = [];
  if (random() < 0.15)
    for (let n = 1 + pick(random, 3); n > 0; n--)
      large.push(localAs, 1 + pick(random, 100), pick(random, 100000));
  return {
    origin: random() < 0.88 ? 0 : 2,
    asPath,
    ...(random() < 0.4 && { med: pick(random, 10000) }),
    ...(communities.length > 0 && { communities }),
    ...(large.length > 0 && { largeCommunities: large }),
  };
}

/** The set as the encoder takes it, with the link's next hop (IPv4: a u32; IPv6: its bytes). */
export function shapeAttributes(
  s: AttributeSpec,
  afi: AfiCode,
  nextHop: number | Uint8Array,
): PathAttributes {
  const common: PathAttributes = {
    origin: s.origin,
    asPath: [{ type: 2, asns: s.asPath }],
    med: s.med,
    communities: s.communities,
    largeCommunities: s.largeCommunities,
  };
  if (afi === Afi.IPV4) return makeAttributes({ ...common, nextHop: nextHop as number });
  return makeAttributes({
    ...common,
    mpReach: { afi: Afi.IPV6, safi: 1, nextHop: nextHop as Uint8Array, reserved: 0 },
  });
}
