import fc from 'fast-check';
import { type Candidate, LEARNED_PREFERENCE } from '../../src/rib/index.js';

/** An eBGP path from AS 65001 with every value neutral; tests override what they compare. */
export function cand(over: Partial<Candidate> = {}): Candidate {
  return {
    weight: 0,
    localPref: 100,
    local: false,
    originPreference: LEARNED_PREFERENCE,
    asPathLength: 2,
    origin: 0,
    med: 0,
    neighborAs: 65001,
    ebgp: true,
    igpMetric: 0,
    arrival: 0,
    routerId: 0xc6120005,
    clusterListLength: 0,
    peerAddress: '4c6120005',
    peerAs: 65001,
    pathId: 0,
    attrs: {},
    ...over,
  };
}

/** Mostly `common`, sometimes something else: steps tie often, so later steps get to decide. */
function usually<T>(common: T, other: fc.Arbitrary<T>): fc.Arbitrary<T> {
  return fc.oneof({ weight: 3, arbitrary: fc.constant(common) }, { weight: 1, arbitrary: other });
}

/**
 * Candidates from small domains (so steps tie often) with distinct (peer address, path id),
 * so the decision is always unique.
 */
export const candidates = (max = 6) =>
  fc
    .array(
      fc.record({
        weight: usually(0, fc.constant(10)),
        localPref: usually(100, fc.constant(200)),
        local: usually(false, fc.constant(true)),
        originPreference: fc.constantFrom(10, 20, 30),
        asPathLength: usually(2, fc.integer({ min: 1, max: 3 })),
        origin: usually(0, fc.integer({ min: 1, max: 2 })),
        med: fc.integer({ min: 0, max: 3 }),
        neighborAs: fc.constantFrom(1, 2, 3),
        ebgp: usually(true, fc.constant(false)),
        igpMetric: usually(0, fc.constant(1)),
        arrival: fc.integer({ min: 0, max: 1000 }),
        routerId: fc.integer({ min: 1, max: 4 }),
        clusterListLength: fc.integer({ min: 0, max: 2 }),
        peer: fc.integer({ min: 1, max: 4 }),
        pathId: fc.integer({ min: 0, max: 3 }),
      }),
      { minLength: 1, maxLength: max },
    )
    .map((rows) => {
      const seen = new Set<string>();
      const out: Candidate[] = [];
      for (const r of rows) {
        const id = `${r.peer}#${r.pathId}`;
        if (seen.has(id)) continue;
        seen.add(id);
        out.push(
          cand({
            ...r,
            originPreference: r.local ? r.originPreference : LEARNED_PREFERENCE,
            peerAddress: `4c612000${r.peer}`,
            peerAs: r.neighborAs,
            arrival: r.arrival * 10 + out.length,
          }),
        );
      }
      return out;
    });

export const identity = (c: Candidate) => `${c.peerAddress}#${c.pathId}`;
