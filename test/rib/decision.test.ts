import { describe, expect, it } from 'vitest';
import {
  BestPathReason,
  type Candidate,
  type Comparator,
  compareAge,
  compareAsPath,
  compareClusterLength,
  compareIgpMetric,
  compareLocalPref,
  compareLocalRoute,
  compareMed,
  compareNeighborAddress,
  compareOrigin,
  compareOriginPreference,
  comparePathId,
  comparePaths,
  comparePeerType,
  compareRouterId,
  compareStale,
  compareWeight,
  DECISION_STEPS,
  DEFAULT_DECISION,
  type DecisionOptions,
  selectBest,
} from '../../src/rib/index.js';
import { cand } from './candidates.js';

const opts = (o: Partial<DecisionOptions> = {}): DecisionOptions => ({ ...DEFAULT_DECISION, ...o });

/** For each step: values that make a path better and worse at that step only. */
const FAVOURS: readonly { reason: string; better: Partial<Candidate>; worse: Partial<Candidate> }[] = [
  { reason: BestPathReason.STALE, better: { stale: false }, worse: { stale: true } },
  { reason: BestPathReason.WEIGHT, better: { weight: 32768 }, worse: { weight: 0 } },
  { reason: BestPathReason.LOCAL_PREF, better: { localPref: 200 }, worse: { localPref: 100 } },
  { reason: BestPathReason.LOCAL_ROUTE, better: { local: true }, worse: { local: false } },
  {
    reason: BestPathReason.ORIGIN_PREFERENCE,
    better: { originPreference: 10 },
    worse: { originPreference: 30 },
  },
  { reason: BestPathReason.AS_PATH, better: { asPathLength: 1 }, worse: { asPathLength: 3 } },
  { reason: BestPathReason.ORIGIN, better: { origin: 0 }, worse: { origin: 2 } },
  { reason: BestPathReason.MED, better: { med: 10 }, worse: { med: 20 } },
  { reason: BestPathReason.PEER_TYPE, better: { ebgp: true }, worse: { ebgp: false } },
  { reason: BestPathReason.IGP_METRIC, better: { igpMetric: 1 }, worse: { igpMetric: 5 } },
  { reason: BestPathReason.OLDER, better: { arrival: 1 }, worse: { arrival: 7 } },
  { reason: BestPathReason.ROUTER_ID, better: { routerId: 0xc6120001 }, worse: { routerId: 0xc6120009 } },
  {
    reason: BestPathReason.CLUSTER_LENGTH,
    better: { clusterListLength: 0 },
    worse: { clusterListLength: 2 },
  },
  {
    reason: BestPathReason.NEIGHBOR_IP,
    better: { peerAddress: '4c6120001' },
    worse: { peerAddress: '4c6120009' },
  },
  { reason: BestPathReason.NOTHING_LEFT, better: { pathId: 1 }, worse: { pathId: 2 } },
];
const withOlder = opts({ preferOldestExternal: true });

/** Checks antisymmetry and the expected sign both ways. */
function expectOrder(cmp: Comparator, a: Candidate, b: Candidate, sign: -1 | 0 | 1, o = opts()) {
  expect(Math.sign(cmp(a, b, o))).toBe(sign);
  expect(Math.sign(cmp(b, a, o))).toBe(-sign || 0);
}

describe('decision comparators, one per step', () => {
  it('the steps run in FRR order', () => {
    expect(DECISION_STEPS.map((s) => s.reason)).toEqual(FAVOURS.map((f) => f.reason));
    expect(DECISION_STEPS.filter((s) => s.multipath).map((s) => s.reason)).toEqual([
      'Not stale',
      'Weight',
      'Local Pref',
      'Local Route',
      'Origin preference',
      'AS Path',
      'Origin',
      'MED',
      'Peer Type',
      'IGP Metric',
    ]);
  });

  it('origin preference: the lower wins; any local origin before a learned path', () => {
    const local = (originPreference: number) => cand({ local: true, originPreference });
    expectOrder(compareOriginPreference, local(10), local(30), -1);
    expectOrder(compareOriginPreference, local(20), local(20), 0);
    expectOrder(compareOriginPreference, local(10), cand(), -1);
  });

  it('stale: a path kept from a graceful restart loses to any fresh one, whatever its weight', () => {
    expectOrder(compareStale, cand({ stale: false }), cand({ stale: true }), -1);
    expectOrder(compareStale, cand(), cand({ stale: true }), -1);
    expectOrder(compareStale, cand({ stale: true }), cand({ stale: true }), 0);
    const fresh = cand({ weight: 0, localPref: 50, peerAddress: '4c6120009' });
    const stale = cand({ weight: 100, localPref: 500, stale: true });
    expect(selectBest([stale, fresh])).toMatchObject({
      best: 1,
      reason: BestPathReason.STALE,
      multipath: [1],
    });
  });

  it('weight: higher wins', () => {
    expectOrder(compareWeight, cand({ weight: 100 }), cand({ weight: 0 }), -1);
    expectOrder(compareWeight, cand({ weight: 5 }), cand({ weight: 5 }), 0);
    expectOrder(compareWeight, cand({ weight: 0 }), cand({ weight: 32768 }), 1);
  });

  it('LOCAL_PREF: higher wins, across the whole u32 range', () => {
    expectOrder(compareLocalPref, cand({ localPref: 200 }), cand({ localPref: 100 }), -1);
    expectOrder(compareLocalPref, cand({ localPref: 0xffffffff }), cand({ localPref: 0 }), -1);
    expectOrder(compareLocalPref, cand({ localPref: 100 }), cand({ localPref: 100 }), 0);
  });

  it('local route: originated here wins over learned; two local routes tie', () => {
    expectOrder(compareLocalRoute, cand({ local: true }), cand({ local: false }), -1);
    expectOrder(compareLocalRoute, cand({ local: true }), cand({ local: true }), 0);
    expectOrder(compareLocalRoute, cand({ local: false }), cand({ local: false }), 0);
  });

  it('AS_PATH: shorter wins', () => {
    expectOrder(compareAsPath, cand({ asPathLength: 0 }), cand({ asPathLength: 1 }), -1);
    expectOrder(compareAsPath, cand({ asPathLength: 4 }), cand({ asPathLength: 4 }), 0);
  });

  it('ORIGIN: IGP < EGP < INCOMPLETE', () => {
    expectOrder(compareOrigin, cand({ origin: 0 }), cand({ origin: 1 }), -1);
    expectOrder(compareOrigin, cand({ origin: 1 }), cand({ origin: 2 }), -1);
    expectOrder(compareOrigin, cand({ origin: 2 }), cand({ origin: 2 }), 0);
  });

  it('MED: lower wins within one neighbor AS only, unless always-compare-med', () => {
    const a = cand({ med: 5, neighborAs: 1 });
    expectOrder(compareMed, a, cand({ med: 9, neighborAs: 1 }), -1);
    expectOrder(compareMed, a, cand({ med: 9, neighborAs: 2 }), 0);
    expectOrder(compareMed, a, cand({ med: 9, neighborAs: 2 }), -1, opts({ alwaysCompareMed: true }));
    expectOrder(compareMed, a, cand({ med: 5, neighborAs: 1 }), 0);
    expectOrder(compareMed, cand({ med: 0 }), cand({ med: 0xffffffff }), -1);
  });

  it('peer type: eBGP over iBGP', () => {
    expectOrder(comparePeerType, cand({ ebgp: true }), cand({ ebgp: false }), -1);
    expectOrder(comparePeerType, cand({ ebgp: false }), cand({ ebgp: false }), 0);
  });

  it('IGP metric: lower wins', () => {
    expectOrder(compareIgpMetric, cand({ igpMetric: 1 }), cand({ igpMetric: 2 }), -1);
    expectOrder(compareIgpMetric, cand({ igpMetric: 0 }), cand({ igpMetric: 0 }), 0);
  });

  it('older path: only when enabled and both eBGP', () => {
    const old = cand({ arrival: 1 });
    const young = cand({ arrival: 2 });
    expectOrder(compareAge, old, young, 0);
    expectOrder(compareAge, old, young, -1, withOlder);
    expectOrder(compareAge, cand({ arrival: 1, ebgp: false }), young, 0, withOlder);
    expectOrder(
      compareAge,
      cand({ arrival: 1, ebgp: false }),
      cand({ arrival: 2, ebgp: false }),
      0,
      withOlder,
    );
  });

  it('router id: lower wins, compared unsigned', () => {
    expectOrder(compareRouterId, cand({ routerId: 1 }), cand({ routerId: 2 }), -1);
    expectOrder(compareRouterId, cand({ routerId: 0x7fffffff }), cand({ routerId: 0x80000000 }), -1);
    expectOrder(compareRouterId, cand({ routerId: 3 }), cand({ routerId: 3 }), 0);
  });

  it('cluster list: shorter wins', () => {
    expectOrder(compareClusterLength, cand({ clusterListLength: 0 }), cand({ clusterListLength: 1 }), -1);
    expectOrder(compareClusterLength, cand({ clusterListLength: 2 }), cand({ clusterListLength: 2 }), 0);
  });

  it('neighbor address: lower wins, IPv4 before IPv6, numerically', () => {
    expectOrder(
      compareNeighborAddress,
      cand({ peerAddress: '40a000001' }),
      cand({ peerAddress: '40a000002' }),
      -1,
    );
    expectOrder(
      compareNeighborAddress,
      cand({ peerAddress: '4ffffffff' }),
      cand({ peerAddress: `6${'0'.repeat(32)}` }),
      -1,
    );
    expectOrder(
      compareNeighborAddress,
      cand({ peerAddress: '4c6120001' }),
      cand({ peerAddress: '4c6120001' }),
      0,
    );
  });

  it('path id: the last tie-break', () => {
    expectOrder(comparePathId, cand({ pathId: 1 }), cand({ pathId: 2 }), -1);
    expectOrder(comparePathId, cand({ pathId: 7 }), cand({ pathId: 7 }), 0);
  });
});

describe('two paths, FRR selection order', () => {
  // Each step alone decides, and every earlier step overrides every later one.
  for (let i = 0; i < FAVOURS.length; i++) {
    const fi = FAVOURS[i];
    it(`${fi.reason} alone decides`, () => {
      const a = cand(fi.better);
      const b = cand(fi.worse);
      expect(comparePaths(a, b, withOlder)).toEqual({ order: -1, reason: fi.reason });
      expect(comparePaths(b, a, withOlder)).toEqual({ order: 1, reason: fi.reason });
      expect(selectBest([b, a], withOlder)).toMatchObject({ best: 1, reason: fi.reason });
    });
    for (let j = i + 1; j < FAVOURS.length; j++) {
      const fj = FAVOURS[j];
      it(`${fi.reason} before ${fj.reason}`, () => {
        const a = cand({ ...fi.better, ...fj.worse });
        const b = cand({ ...fi.worse, ...fj.better });
        expect(comparePaths(a, b, withOlder).reason).toBe(fi.reason);
        expect(comparePaths(a, b, withOlder).order).toBeLessThan(0);
        expect(selectBest([a, b], withOlder)).toMatchObject({ best: 0, reason: fi.reason });
        expect(selectBest([b, a], withOlder)).toMatchObject({ best: 1, reason: fi.reason });
      });
    }
  }

  it('without the older-path option two eBGP paths go on to router id', () => {
    const a = cand({ arrival: 9, routerId: 1 });
    const b = cand({ arrival: 1, routerId: 2 });
    expect(comparePaths(a, b)).toEqual({ order: -1, reason: BestPathReason.ROUTER_ID });
    expect(comparePaths(a, b, withOlder)).toEqual({ order: 1, reason: BestPathReason.OLDER });
  });

  it('MEDs from different ASes do not decide; the next step does', () => {
    const a = cand({ med: 50, neighborAs: 1, routerId: 1 });
    const b = cand({ med: 0, neighborAs: 2, routerId: 2 });
    expect(comparePaths(a, b)).toEqual({ order: -1, reason: BestPathReason.ROUTER_ID });
    expect(comparePaths(a, b, opts({ alwaysCompareMed: true }))).toEqual({
      order: 1,
      reason: BestPathReason.MED,
    });
  });

  it('one path is the best for the reason FRR gives', () => {
    expect(selectBest([cand()])).toEqual({ best: 0, reason: 'First path received', multipath: [0] });
    expect(selectBest([])).toBeNull();
  });
});

describe('MED is applied group by group (RFC 4271 9.1.2.2 c)', () => {
  // The textbook non-transitive triple: pairwise scanning picks R3 or R2 by arrival order.
  const r1 = cand({ neighborAs: 1, med: 0, routerId: 3, peerAddress: '4c6120003' });
  const r2 = cand({ neighborAs: 2, med: 1, routerId: 2, peerAddress: '4c6120002' });
  const r3 = cand({ neighborAs: 1, med: 2, routerId: 1, peerAddress: '4c6120001' });
  const orders = [
    [r1, r2, r3],
    [r1, r3, r2],
    [r2, r1, r3],
    [r2, r3, r1],
    [r3, r1, r2],
    [r3, r2, r1],
  ];

  it('a pairwise scan would depend on arrival order', () => {
    const scan = (list: Candidate[]) =>
      list.reduce((best, x) => (comparePaths(x, best).order < 0 ? x : best));
    expect(new Set(orders.map((o) => scan(o))).size).toBeGreaterThan(1);
  });

  it('elimination picks R2 whatever the order: R3 loses to R1 inside AS 1 first', () => {
    for (const o of orders) {
      const sel = selectBest(o)!;
      expect(o[sel.best]).toBe(r2);
      expect(sel.reason).toBe(BestPathReason.ROUTER_ID);
    }
  });

  it('with always-compare-med the lowest MED wins outright', () => {
    for (const o of orders) {
      const sel = selectBest(o, opts({ alwaysCompareMed: true }))!;
      expect(o[sel.best]).toBe(r1);
      expect(sel.reason).toBe(BestPathReason.MED);
    }
  });
});

describe('multipath (ECMP set)', () => {
  const mp = opts({ maxPaths: 4, maxPathsIbgp: 4 });
  const asPath = (asns: number[]) => ({ asPath: [{ type: 2, asns }] });

  it('is just the best path without maximum-paths', () => {
    const sel = selectBest([cand({ routerId: 2 }), cand({ routerId: 1, peerAddress: '4c6120001' })])!;
    expect(sel.multipath).toEqual([1]);
  });

  it('holds eBGP paths equal through IGP metric from the same peer AS, best first', () => {
    const a = cand({ routerId: 3, peerAddress: '4c6120003' });
    const b = cand({ routerId: 1, peerAddress: '4c6120001' });
    const c = cand({ routerId: 2, peerAddress: '4c6120002' });
    const worse = cand({ routerId: 0, origin: 2, peerAddress: '4c6120000' });
    const sel = selectBest([a, b, c, worse], mp)!;
    expect(sel.best).toBe(1);
    expect(sel.reason).toBe(BestPathReason.ROUTER_ID);
    expect(sel.multipath).toEqual([1, 2, 0]);
  });

  it('stops at maximum-paths', () => {
    const list = [1, 2, 3, 4, 5].map((r) => cand({ routerId: r, peerAddress: `4c612000${r}` }));
    expect(selectBest(list, opts({ maxPaths: 2 }))!.multipath).toEqual([0, 1]);
  });

  it('needs the same peer AS for eBGP unless multipath-relax', () => {
    const a = cand({ routerId: 1, peerAddress: '4c6120001', peerAs: 65001 });
    const b = cand({ routerId: 2, peerAddress: '4c6120002', peerAs: 65002, neighborAs: 65002 });
    expect(selectBest([a, b], mp)!.multipath).toEqual([0]);
    expect(selectBest([a, b], opts({ maxPaths: 4, multipathRelax: true }))!.multipath).toEqual([0, 1]);
  });

  it('needs an identical AS_PATH for iBGP and uses maximum-paths ibgp', () => {
    const a = cand({ ebgp: false, routerId: 1, peerAddress: '4c6120001', attrs: asPath([65010, 65020]) });
    const same = cand({ ebgp: false, routerId: 2, peerAddress: '4c6120002', attrs: asPath([65010, 65020]) });
    const other = cand({ ebgp: false, routerId: 3, peerAddress: '4c6120003', attrs: asPath([65011, 65020]) });
    expect(selectBest([a, same, other], mp)!.multipath).toEqual([0, 1]);
    expect(selectBest([a, same, other], opts({ maxPaths: 4 }))!.multipath).toEqual([0]);
  });

  it('never mixes paths that differ before the IGP metric', () => {
    const a = cand({ routerId: 1, peerAddress: '4c6120001' });
    for (const f of FAVOURS.slice(0, 8)) {
      const b = cand({ ...f.worse, routerId: 2, peerAddress: '4c6120002' });
      const first = cand({ ...f.better, routerId: 1, peerAddress: '4c6120001' });
      expect(selectBest([first, b], mp)!.multipath).toEqual([0]);
    }
    expect(selectBest([a, cand({ routerId: 2, peerAddress: '4c6120002' })], mp)!.multipath).toEqual([0, 1]);
  });
});
