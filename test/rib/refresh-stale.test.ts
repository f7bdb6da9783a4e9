import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import type { PathAttributes } from '../../src/bgp/wire/attributes/types.js';
import { Afi } from '../../src/bgp/wire/constants.js';
import { parsePrefix, Rib, type RouteAdd } from '../../src/rib/index.js';
import { attrs, attrs6, EBGP_A, EBGP_B, LOCAL_AS, ROUTER_ID, summary, v4, v6 } from './routes.js';

// RFC 7313 section 4 in the RIB: a peer's BoRR marks its paths of a family stale, what it sends
// again is fresh, its EoRR purges the rest. Unlike a restart's stale paths, these keep their
// preference: a refresh that sends everything again changes nothing.

const P1 = '198.18.10.0/24';
const P2 = '198.18.11.0/24';
const P3 = '198.18.12.0/24';
const P6 = '2001:db8:10::/48';
const newRib = () => new Rib({ localAs: LOCAL_AS, routerId: ROUTER_ID });

describe('route refresh stale paths', () => {
  it('marking keeps every best path where it was: nothing is decided again, nothing reported', () => {
    const rib = newRib();
    const a = rib.addPeer(EBGP_A);
    const b = rib.addPeer(EBGP_B);
    rib.announce(a, v4(P1, P2), attrs([65001]));
    // b's path to P1 is longer: a's wins, and keeps winning while a refreshes.
    rib.announce(b, v4(P1), attrs([65002, 65100], {}, '198.18.0.3'));
    expect(summary(rib.flush())).toEqual([`+${P1} a`, `+${P2} a`]);
    expect(rib.markRefreshStale(a, Afi.IPV4)).toBe(2);
    expect(rib.pending).toBe(0);
    expect(rib.flush()).toEqual([]);
    expect(rib.refreshStaleCount(a, Afi.IPV4)).toBe(2);
    expect(rib.staleCount(a, Afi.IPV4)).toBe(0);
    expect(rib.best(parsePrefix(P1))?.source.id).toBe('a');
    // Not a restart's stale path: `show` does not call it stale, the decision does not see it.
    expect(rib.lookup(parsePrefix(P1))!.paths.find((p) => p.source.id === 'a')?.stale).toBe(false);
  });

  it('the same route sent again is fresh and still a duplicate: no change reported', () => {
    const rib = newRib();
    const a = rib.addPeer(EBGP_A);
    const at = attrs([65001]);
    rib.announce(a, v4(P1, P2), at);
    rib.flush();
    rib.markRefreshStale(a, Afi.IPV4);
    rib.announce(a, v4(P1, P2), at);
    expect(rib.pending).toBe(0);
    expect(rib.refreshStaleCount(a, Afi.IPV4)).toBe(0);
    expect(rib.sweepRefreshStale(a, Afi.IPV4)).toBe(0);
    expect(rib.flush()).toEqual([]);
    expect(rib.counts(a, Afi.IPV4).received).toBe(2);
  });

  it('the sweep removes exactly what was not sent again, in that family only', () => {
    const rib = newRib();
    const a = rib.addPeer({ ...EBGP_A, address: '2001:db8::2' });
    const at = attrs([65001]);
    rib.announce(a, v4(P1, P2, P3), at);
    rib.announce(a, v6(P6), attrs6([65001]));
    rib.flush();
    rib.markRefreshStale(a, Afi.IPV4);
    rib.announce(a, v4(P2), at);
    // Sent again with other attributes: an ordinary change, reported at once.
    rib.announce(a, v4(P3), attrs([65001, 65001]));
    expect(summary(rib.flush())).toEqual([`+${P3} a`]);
    expect(rib.refreshStaleCount(a, Afi.IPV4)).toBe(1);
    expect(rib.refreshStaleCount(a, Afi.IPV6)).toBe(0);
    expect(rib.sweepRefreshStale(a, Afi.IPV4)).toBe(0);
    expect(summary(rib.flush())).toEqual([`-${P1} a`]);
    expect(rib.counts(a, Afi.IPV4).received).toBe(2);
    expect(rib.best(parsePrefix(P6))?.source.id).toBe('a');
  });

  it('a path withdrawn during the refresh leaves the count of stale paths', () => {
    const rib = newRib();
    const a = rib.addPeer(EBGP_A);
    rib.announce(a, v4(P1, P2), attrs([65001]));
    rib.flush();
    rib.markRefreshStale(a, Afi.IPV4);
    rib.withdraw(a, v4(P1));
    expect(rib.refreshStaleCount(a, Afi.IPV4)).toBe(1);
    expect(summary(rib.flush())).toEqual([`-${P1} a`]);
  });

  it('sweeps a large table in chunks, going on where it stopped', () => {
    const rib = newRib();
    const a = rib.addPeer(EBGP_A);
    const prefixes = Array.from({ length: 1000 }, (_, i) => `198.19.${i >> 8}.${i & 0xff}/32`);
    const at = attrs([65001]);
    rib.announce(a, v4(...prefixes), at);
    rib.flush();
    rib.markRefreshStale(a, Afi.IPV4);
    rib.announce(a, v4(...prefixes.filter((_, i) => i % 3 !== 0)), at);
    let left = rib.refreshStaleCount(a, Afi.IPV4);
    expect(left).toBe(334);
    let rounds = 0;
    while (left > 0 && rounds < 100) {
      left = rib.sweepRefreshStale(a, Afi.IPV4, 64);
      rounds++;
    }
    expect(rounds).toBe(Math.ceil(334 / 64));
    expect(rib.flush().filter((c) => c.kind === 'withdraw')).toHaveLength(334);
    expect(rib.counts(a, Afi.IPV4).received).toBe(666);
  });

  it('clearing an abandoned refresh keeps every path and its mark of a restart', () => {
    const rib = newRib();
    const a = rib.addPeer(EBGP_A);
    rib.announce(a, v4(P1, P2), attrs([65001]));
    rib.flush();
    rib.markRefreshStale(a, Afi.IPV4);
    rib.clearRefreshStale(a, Afi.IPV4);
    expect(rib.refreshStaleCount(a, Afi.IPV4)).toBe(0);
    expect(rib.sweepRefreshStale(a, Afi.IPV4)).toBe(0);
    expect(rib.flush()).toEqual([]);
    expect(rib.counts(a, Afi.IPV4).received).toBe(2);
  });
});

describe('route refresh and graceful restart marks on the same paths', () => {
  /** a's P1 beats b's until it is a restart's stale path; a has P2 and P3 alone. */
  function restarted() {
    const rib = newRib();
    const a = rib.addPeer(EBGP_A);
    const b = rib.addPeer(EBGP_B);
    const at = attrs([65001]);
    rib.announce(a, v4(P1, P2, P3), at);
    rib.announce(b, v4(P1), attrs([65002, 65100], {}, '198.18.0.3'));
    rib.flush();
    rib.markStale(a, Afi.IPV4);
    expect(summary(rib.flush())).toEqual([`+${P1} b`]);
    return { rib, a, b, at };
  }

  it('a path stale of both kinds, sent again, is fresh of both and wins again', () => {
    const { rib, a, at } = restarted();
    rib.markRefreshStale(a, Afi.IPV4);
    rib.announce(a, v4(P1), at);
    expect(summary(rib.flush())).toEqual([`+${P1} a`]);
    expect(rib.staleCount(a, Afi.IPV4)).toBe(2);
    expect(rib.refreshStaleCount(a, Afi.IPV4)).toBe(2);
  });

  it("the refresh's sweep removes a restart's stale path it did not get again, and the counts agree", () => {
    const { rib, a, at } = restarted();
    // P2 was announced again after the restart, before the BoRR; P3 never was.
    rib.announce(a, v4(P2), at);
    rib.markRefreshStale(a, Afi.IPV4);
    rib.announce(a, v4(P1, P2), at);
    expect(summary(rib.flush())).toEqual([`+${P1} a`]);
    expect(rib.refreshStaleCount(a, Afi.IPV4)).toBe(1);
    expect(rib.staleCount(a, Afi.IPV4)).toBe(1);
    rib.sweepRefreshStale(a, Afi.IPV4);
    expect(summary(rib.flush())).toEqual([`-${P3} a`]);
    // The restart's sweep finds nothing left of its own.
    expect(rib.staleCount(a, Afi.IPV4)).toBe(0);
    expect(rib.sweepStale(a, Afi.IPV4)).toBe(0);
    expect(rib.flush()).toEqual([]);
  });

  it("the restart's sweep removes a path stale of both kinds; the refresh's count follows", () => {
    const { rib, a, at } = restarted();
    rib.markRefreshStale(a, Afi.IPV4);
    rib.announce(a, v4(P2), at);
    rib.sweepStale(a, Afi.IPV4);
    // a's P1 goes too, behind b's best.
    expect(summary(rib.flush())).toEqual([`-${P3} a`]);
    expect(rib.lookup(parsePrefix(P1))!.paths.map((p) => p.source.id)).toEqual(['b']);
    expect(rib.refreshStaleCount(a, Afi.IPV4)).toBe(0);
    expect(rib.counts(a, Afi.IPV4).received).toBe(1);
  });

  it("clearing the refresh's marks leaves a restart's marks alone", () => {
    const { rib, a } = restarted();
    rib.markRefreshStale(a, Afi.IPV4);
    rib.clearRefreshStale(a, Afi.IPV4);
    expect(rib.staleCount(a, Afi.IPV4)).toBe(3);
    expect(rib.best(parsePrefix(P1))?.source.id).toBe('b');
  });
});

// A model of the rule: whatever the peer had, sent again, changed or withdrew during a refresh,
// and whether a restart's marks were there too, after the sweep the RIB holds exactly what the
// peer sent since its BoRR (and the other family as it was), and along the way only prefixes
// whose routes changed were ever reported.
describe('route refresh: the RIB against a model', () => {
  const PREFIXES = Array.from({ length: 12 }, (_, i) => `198.18.${20 + i}.0/24`);
  const POOL: readonly PathAttributes[] = [attrs([65001]), attrs([65001, 65100]), attrs([65001], { med: 7 })];
  const B_ATTRS = attrs([65002, 65100], {}, '198.18.0.3');
  /** What the peer does to a prefix during its refresh. */
  const ACTIONS = ['again', 'changed', 'withdrawn', 'silent'] as const;

  const shape = (r: RouteAdd | undefined) => (r ? `${r.source.id}@${POOL.indexOf(r.attrs)}` : null);

  it('holds for every mix', () => {
    fc.assert(
      fc.property(
        fc.array(fc.tuple(fc.integer({ min: 0, max: 2 }), fc.constantFrom(...ACTIONS), fc.boolean()), {
          minLength: PREFIXES.length,
          maxLength: PREFIXES.length,
        }),
        fc.boolean(),
        fc.boolean(),
        fc.integer({ min: 1, max: 5 }),
        (plan, restartMarks, sentBeforeBorr, budget) => {
          const rib = newRib();
          const a = rib.addPeer({ ...EBGP_A, address: '2001:db8::2' });
          const b = rib.addPeer(EBGP_B);
          plan.forEach(([i, , withB], k) => {
            rib.announce(a, v4(PREFIXES[k]), POOL[i]);
            if (withB) rib.announce(b, v4(PREFIXES[k]), B_ATTRS);
          });
          rib.announce(a, v6(P6), attrs6([65001]));
          rib.flush();
          if (restartMarks) {
            rib.markStale(a, Afi.IPV4);
            // Back: everything announced again, or not, before the BoRR.
            if (sentBeforeBorr)
              for (const [k, [i]] of plan.entries()) rib.announce(a, v4(PREFIXES[k]), POOL[i]);
            rib.flush();
          }
          const before = new Map(PREFIXES.map((p) => [p, shape(rib.best(parsePrefix(p)))]));
          rib.markRefreshStale(a, Afi.IPV4);
          const model = new Map<string, number>();
          const changing = new Set<string>();
          plan.forEach(([i, action], k) => {
            const p = PREFIXES[k];
            if (action === 'again') {
              rib.announce(a, v4(p), POOL[i]);
              model.set(p, i);
              if (restartMarks && !sentBeforeBorr) changing.add(p);
            } else if (action === 'changed') {
              const j = (i + 1) % POOL.length;
              rib.announce(a, v4(p), POOL[j]);
              model.set(p, j);
              changing.add(p);
            } else if (action === 'withdrawn') {
              rib.withdraw(a, v4(p));
              changing.add(p);
            } else {
              changing.add(p);
            }
          });
          const during = rib.flush();
          // Only a changed or withdrawn route (or one that stops being a restart's stale path)
          // is reported before the EoRR; nothing silent is.
          for (const c of during) expect(changing.has(c.prefix.toString())).toBe(true);
          for (let n = 0; rib.refreshStaleCount(a, Afi.IPV4) > 0 && n < 100; n++)
            rib.sweepRefreshStale(a, Afi.IPV4, budget);
          rib.flush();
          for (const [k, p] of PREFIXES.entries()) {
            const mine = rib.lookup(parsePrefix(p))?.paths.find((x) => x.source.id === 'a');
            const want = model.get(p);
            expect(mine ? POOL.indexOf(mine.attrs) : undefined).toBe(want);
            const withB = plan[k][2];
            if (want === undefined) expect(shape(rib.best(parsePrefix(p)))).toBe(withB ? 'b@-1' : null);
            if (!changing.has(p)) expect(shape(rib.best(parsePrefix(p)))).toBe(before.get(p));
          }
          expect(rib.counts(a, Afi.IPV4).received).toBe(model.size);
          expect(rib.refreshStaleCount(a, Afi.IPV4)).toBe(0);
          // A restart's marks stay only on paths not announced again since the restart.
          expect(rib.staleCount(a, Afi.IPV4)).toBe(0);
          expect(rib.best(parsePrefix(P6))?.source.id).toBe('a');
        },
      ),
      { numRuns: 300 },
    );
  });
});
