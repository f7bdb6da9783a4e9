import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { Afi } from '../../src/bgp/wire/constants.js';
import { Rib } from '../../src/rib/index.js';
import { attrs, EBGP_A, EBGP_B, LOCAL_AS, ROUTER_ID, withPathIds } from './routes.js';

// A peer's paths are found by walking the prefixes and their chains (a path does not know its
// prefix): a walk cut short by its budget must go on where it stopped, also in the middle of a
// prefix that holds several of the peer's paths (add-path), and touch no other peer's path.

const PREFIXES = ['198.18.1.0/24', '198.18.2.0/24', '198.18.3.0/24', '198.18.4.0/24', '198.18.5.0/24'];

const held = fc.uniqueArray(
  fc.record({
    prefix: fc.integer({ min: 0, max: PREFIXES.length - 1 }),
    pathId: fc.integer({ min: 1, max: 4 }),
  }),
  { selector: (r) => `${r.prefix}/${r.pathId}`, minLength: 1, maxLength: 20 },
);

function loaded(
  a: readonly { prefix: number; pathId: number }[],
  b: readonly { prefix: number; pathId: number }[],
) {
  const rib = new Rib({ localAs: LOCAL_AS, routerId: ROUTER_ID });
  const pa = rib.addPeer(EBGP_A);
  const pb = rib.addPeer(EBGP_B);
  const list = (rs: readonly { prefix: number; pathId: number }[]) =>
    withPathIds(
      Afi.IPV4,
      rs.map((r) => [PREFIXES[r.prefix], r.pathId]),
    );
  rib.announce(pa, list(a), attrs([65001]));
  rib.announce(pb, list(b), attrs([65002], {}, '198.18.0.3'));
  return { rib, pa, pb };
}

describe('walks of a peer’s paths in slices', () => {
  it('a session’s end unwinds exactly `chunk` paths per call, every one of the peer’s and no other', () => {
    fc.assert(
      fc.property(held, held, fc.integer({ min: 1, max: 3 }), fc.boolean(), (a, b, chunk, flushBetween) => {
        const { rib, pa, pb } = loaded(a, b);
        let left = a.length;
        while (left > 0) {
          const next = rib.clearPeer(pa, chunk);
          expect(next).toBe(Math.max(0, left - chunk));
          left = next;
          // A flush may free the prefix entries emptied so far; the walk must not mind.
          if (flushBetween) rib.flush();
        }
        rib.flush();
        expect(rib.counts(pa, Afi.IPV4).received).toBe(0);
        expect(rib.counts(pb, Afi.IPV4).received).toBe(b.length);
        expect(rib.adjRibIn(pb).entries()).toHaveLength(b.length);
      }),
      { numRuns: 300 },
    );
  });

  it('a sweep of stale paths in slices removes those not announced again, and only those', () => {
    fc.assert(
      fc.property(
        held,
        held,
        fc.integer({ min: 1, max: 3 }),
        fc.array(fc.boolean(), { minLength: 20, maxLength: 20 }),
        (a, b, chunk, again) => {
          const { rib, pa, pb } = loaded(a, b);
          rib.flush();
          expect(rib.markStale(pa, Afi.IPV4)).toBe(a.length);
          const renewed = a.filter((_, i) => again[i]);
          if (renewed.length > 0)
            rib.announce(
              pa,
              withPathIds(
                Afi.IPV4,
                renewed.map((r) => [PREFIXES[r.prefix], r.pathId]),
              ),
              attrs([65001]),
            );
          let stale = a.length - renewed.length;
          expect(rib.staleCount(pa, Afi.IPV4)).toBe(stale);
          while (stale > 0) {
            const remaining = rib.sweepStale(pa, Afi.IPV4, chunk);
            expect(remaining).toBe(Math.max(0, stale - chunk));
            stale = remaining;
            rib.flush();
          }
          expect(rib.staleCount(pa, Afi.IPV4)).toBe(0);
          const kept = rib
            .adjRibIn(pa)
            .entries()
            .map((r) => `${r.prefix.toString()}#${r.pathId}`)
            .sort();
          expect(kept).toEqual(renewed.map((r) => `${PREFIXES[r.prefix]}#${r.pathId}`).sort());
          expect(rib.counts(pb, Afi.IPV4).received).toBe(b.length);
        },
      ),
      { numRuns: 300 },
    );
  });
});
