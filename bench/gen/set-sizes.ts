/**
 * How many prefixes each attribute set of a generated table carries: the one thing, besides the
 * attributes themselves, that tells two table shapes apart for a receiver (one attribute set
 * decoded and interned per UPDATE, prefixes inserted per NLRI).
 */

/**
 * Zipf sizes (s = 1): `sets` sizes adding up to `prefixes`, every set at least one prefix, the
 * rest shared in proportion to 1 / rank. Rank 1 comes first; sizes never grow with the rank.
 * With 1M prefixes in 100k sets the largest set holds 7 % of the table and the ten largest a
 * fifth, while a quarter of the sets carry one prefix and the median set three: a few paths
 * carry tens of thousands of prefixes, most a handful.
 */
export function zipfSizes(prefixes: number, sets: number): number[] {
  if (!Number.isInteger(sets) || sets < 1 || sets > prefixes)
    throw new RangeError(`${sets} attribute sets cannot share ${prefixes} prefixes`);
  let weights = 0;
  for (let rank = 1; rank <= sets; rank++) weights += 1 / rank;
  const extra = prefixes - sets;
  const sizes = new Array<number>(sets);
  let given = 0;
  for (let rank = 1; rank <= sets; rank++) {
    const share = Math.floor((extra * (1 / rank)) / weights);
    sizes[rank - 1] = 1 + share;
    given += share;
  }
  // What the rounding down left over goes to the top ranks, one each: the order stays non-increasing.
  for (let i = 0; given < extra; i = (i + 1) % sets, given++) sizes[i]! += 1;
  return sizes;
}

/** Share of a transit table's attribute sets that carry 1, 2 and 3 prefixes. */
export const TRANSIT_SMALL_SETS: readonly [number, number][] = [
  [1, 0.5],
  [2, 0.18],
  [3, 0.1],
];
/** The rest: a Pareto tail from 4 prefixes on (shape 1.9, so the mean set is about 3 prefixes). */
const TAIL_FROM = 4;
const TAIL_SHAPE = 1.9;
/** No origin announces more than this many prefixes behind one path in a transit table. */
export const TRANSIT_LARGEST_SET = 5000;

/**
 * Sizes of a transit-like table's attribute sets, drawn until they add up to `prefixes` (the
 * last one cut to fit): about half the sets carry one prefix, over three quarters at most three,
 * and a long thin tail carries the big aggregators, so 1M prefixes come in ~340k sets.
 */
export function transitSizes(prefixes: number, random: () => number): number[] {
  const sizes: number[] = [];
  for (let left = prefixes; left > 0; ) {
    const size = Math.min(left, transitSize(random()));
    sizes.push(size);
    left -= size;
  }
  return sizes;
}

function transitSize(r: number): number {
  let acc = 0;
  for (const [size, p] of TRANSIT_SMALL_SETS) {
    acc += p;
    if (r < acc) return size;
  }
  // r in [acc, 1) maps to u in (0, 1]: the tail's inverse distribution function.
  const u = (1 - r) / (1 - acc);
  return Math.min(TRANSIT_LARGEST_SET, Math.floor(TAIL_FROM / u ** (1 / TAIL_SHAPE)));
}

/** Fisher-Yates with the given generator: the same order for the same seed. */
export function shuffle<T>(xs: T[], random: () => number): T[] {
  for (let i = xs.length - 1; i > 0; i--) {
    const j = Math.floor(random() * (i + 1));
    [xs[i], xs[j]] = [xs[j]!, xs[i]!];
  }
  return xs;
}
