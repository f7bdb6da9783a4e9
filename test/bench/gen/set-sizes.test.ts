import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { rng } from '../../../bench/gen/full-table.js';
import {
  shuffle,
  TRANSIT_LARGEST_SET,
  TRANSIT_SMALL_SETS,
  transitSizes,
  zipfSizes,
} from '../../../bench/gen/set-sizes.js';

const sum = (xs: readonly number[]) => xs.reduce((a, b) => a + b, 0);
const min = (xs: readonly number[]) => xs.reduce((a, b) => Math.min(a, b), Infinity);
const max = (xs: readonly number[]) => xs.reduce((a, b) => Math.max(a, b), -Infinity);

describe('zipfSizes', () => {
  it('gives every set at least one prefix, adds up to the table and never grows with the rank', () => {
    fc.assert(
      fc.property(
        fc
          .integer({ min: 1, max: 5_000 })
          .chain((prefixes) => fc.tuple(fc.constant(prefixes), fc.integer({ min: 1, max: prefixes }))),
        ([prefixes, sets]) => {
          const sizes = zipfSizes(prefixes, sets);
          expect(sizes).toHaveLength(sets);
          expect(sum(sizes)).toBe(prefixes);
          expect(min(sizes)).toBeGreaterThanOrEqual(1);
          expect(sizes.every((n, i) => i === 0 || n <= sizes[i - 1]!)).toBe(true);
        },
      ),
    );
  });

  it('shares out by 1/rank: the k-th largest holds about 1/k of the largest, beyond the one each', () => {
    const sizes = zipfSizes(1_000_000, 100_000);
    const top = sizes[0]! - 1;
    for (const k of [2, 5, 10, 100, 1000]) expect((sizes[k - 1]! - 1) / top).toBeCloseTo(1 / k, 2);
    // As the harness: a few sets carry much of the table, many carry one prefix.
    expect(sizes[0]! / 1_000_000).toBeGreaterThan(0.05);
    expect(sizes.filter((s) => s === 1).length / sizes.length).toBeGreaterThan(0.2);
  });

  it('refuses more sets than prefixes', () => {
    expect(() => zipfSizes(10, 11)).toThrow(RangeError);
    expect(() => zipfSizes(10, 0)).toThrow(RangeError);
  });
});

describe('transitSizes', () => {
  it('adds up to the table, each set between 1 and the largest', () => {
    fc.assert(
      fc.property(fc.integer({ min: 1, max: 30_000 }), fc.integer(), (prefixes, seed) => {
        const sizes = transitSizes(prefixes, rng(seed));
        expect(sum(sizes)).toBe(prefixes);
        expect(min(sizes)).toBeGreaterThanOrEqual(1);
        expect(max(sizes)).toBeLessThanOrEqual(TRANSIT_LARGEST_SET);
      }),
      { numRuns: 30 },
    );
  });

  it('is mostly sets of 1-3 prefixes, about 3 prefixes a set on average', () => {
    const sizes = transitSizes(1_000_000, rng(1));
    const share = (n: number) => sizes.filter((s) => s === n).length / sizes.length;
    for (const [n, p] of TRANSIT_SMALL_SETS) expect(share(n)).toBeCloseTo(p, 2);
    expect(sizes.filter((s) => s <= 3).length / sizes.length).toBeGreaterThan(0.75);
    expect(sizes.length).toBeGreaterThan(300_000);
    expect(sizes.length).toBeLessThan(400_000);
    // The tail: some big aggregators, none dominating.
    expect(max(sizes)).toBeGreaterThan(500);
  });

  it('is the same for the same seed', () => {
    expect(transitSizes(50_000, rng(7))).toEqual(transitSizes(50_000, rng(7)));
    expect(transitSizes(50_000, rng(7))).not.toEqual(transitSizes(50_000, rng(8)));
  });
});

describe('shuffle', () => {
  it('keeps the elements and is the same for the same seed', () => {
    const xs = Array.from({ length: 1000 }, (_, i) => i);
    const a = shuffle([...xs], rng(3));
    expect([...a].sort((p, q) => p - q)).toEqual(xs);
    expect(a).not.toEqual(xs);
    expect(shuffle([...xs], rng(3))).toEqual(a);
  });
});
