import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import {
  type Candidate,
  comparePaths,
  DECISION_STEPS,
  DEFAULT_DECISION,
  selectBest,
} from '../../src/rib/index.js';
import { candidates, identity } from './candidates.js';

const optionSets = fc.record({
  alwaysCompareMed: fc.boolean(),
  preferOldestExternal: fc.boolean(),
  maxPaths: fc.integer({ min: 1, max: 4 }),
  maxPathsIbgp: fc.integer({ min: 1, max: 4 }),
  multipathRelax: fc.boolean(),
});

/** A permutation of `list` chosen by fast-check. */
const withPermutation = (max: number) =>
  candidates(max).chain((list) =>
    fc
      .shuffledSubarray(list, { minLength: list.length, maxLength: list.length })
      .map((perm) => ({ list, perm })),
  );

describe('decision process properties', () => {
  it('the best path, its reason and the ECMP set do not depend on the candidates order', () => {
    fc.assert(
      fc.property(withPermutation(7), optionSets, ({ list, perm }, o) => {
        const a = selectBest(list, o)!;
        const b = selectBest(perm, o)!;
        expect(identity(perm[b.best])).toBe(identity(list[a.best]));
        expect(b.reason).toBe(a.reason);
        expect(b.multipath.map((i) => identity(perm[i]))).toEqual(a.multipath.map((i) => identity(list[i])));
      }),
      { numRuns: 500 },
    );
  });

  it('with always-compare-med (a total order) the best beats every other path pairwise', () => {
    const o = { ...DEFAULT_DECISION, alwaysCompareMed: true };
    fc.assert(
      fc.property(candidates(7), (list) => {
        const sel = selectBest(list, o)!;
        for (let i = 0; i < list.length; i++) {
          if (i !== sel.best) expect(comparePaths(list[sel.best], list[i], o).order).toBeLessThan(0);
        }
      }),
      { numRuns: 300 },
    );
  });

  it("no path of the best path's neighbor AS that ties it before MED has a lower MED", () => {
    fc.assert(
      fc.property(candidates(7), (list) => {
        const sel = selectBest(list)!;
        const w = list[sel.best];
        const beforeMed = DECISION_STEPS.slice(
          0,
          DECISION_STEPS.findIndex((s) => s.reason === 'MED'),
        );
        for (const x of list) {
          const ties = beforeMed.every((s) => s.compare(w, x, DEFAULT_DECISION) === 0);
          if (ties && x.neighborAs === w.neighborAs) expect(x.med).toBeGreaterThanOrEqual(w.med);
        }
      }),
      { numRuns: 300 },
    );
  });

  it('the ECMP set starts with the best, respects the limits and holds distinct paths', () => {
    fc.assert(
      fc.property(candidates(7), optionSets, (list, o) => {
        const sel = selectBest(list, o)!;
        expect(sel.multipath[0]).toBe(sel.best);
        expect(new Set(sel.multipath).size).toBe(sel.multipath.length);
        const limit = list[sel.best].ebgp || list[sel.best].local ? o.maxPaths : o.maxPathsIbgp;
        expect(sel.multipath.length).toBeLessThanOrEqual(Math.max(1, limit));
        for (const i of sel.multipath) {
          const x: Candidate = list[i];
          for (const s of DECISION_STEPS) if (s.multipath) expect(s.compare(list[sel.best], x, o)).toBe(0);
        }
      }),
      { numRuns: 300 },
    );
  });
});
