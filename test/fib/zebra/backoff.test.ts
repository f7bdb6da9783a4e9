import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { backoffDelay } from '../../../src/fib/zebra/index.js';

const opts = { initialMs: 100, maxMs: 5000, jitter: 0.25 };

describe('backoffDelay', () => {
  it('doubles from the initial delay up to the cap (no jitter drawn)', () => {
    const got = Array.from({ length: 10 }, (_, i) => backoffDelay(i, opts, () => 0));
    expect(got).toEqual([100, 200, 400, 800, 1600, 3200, 5000, 5000, 5000, 5000]);
  });
  it('takes at most `jitter` off', () => {
    expect(backoffDelay(0, opts, () => 0.999999)).toBe(75);
    expect(backoffDelay(20, opts, () => 0.5)).toBe(4375);
  });
  it('stays finite for huge attempt counts', () => {
    expect(backoffDelay(5000, opts, () => 0)).toBe(5000);
  });
  it('always lies in [base * (1 - jitter), min(max, base)]', () => {
    fc.assert(
      fc.property(
        fc.integer({ min: 0, max: 2000 }),
        fc.double({ min: 0, max: 1, maxExcluded: true, noNaN: true }),
        fc.integer({ min: 1, max: 1000 }),
        fc.integer({ min: 1, max: 60_000 }),
        fc.double({ min: 0, max: 1, noNaN: true }),
        (attempt, r, initialMs, maxMs, jitter) => {
          const d = backoffDelay(attempt, { initialMs, maxMs, jitter }, () => r);
          const base = Math.min(maxMs, initialMs * 2 ** attempt);
          expect(d).toBeLessThanOrEqual(Math.ceil(base));
          expect(d).toBeGreaterThanOrEqual(Math.floor(base * (1 - jitter)));
        },
      ),
    );
  });
});
