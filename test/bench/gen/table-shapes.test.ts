import { describe, expect, it } from 'vitest';
import { V4_SPECIAL } from '../../../bench/gen/prefix-walk.js';
import {
  type ShapedTable,
  SKEWED_PER_SET,
  shapeAttributes,
  shapedTable,
  specKey,
  type TableShape,
} from '../../../bench/gen/table-shapes.js';
import { Afi } from '../../../src/bgp/wire/constants.js';

const LOCAL_AS = 64600;
const make = (shape: TableShape, prefixes: number, seed = 1, afi: 1 | 2 = Afi.IPV4) =>
  shapedTable(shape, { afi, prefixes, localAs: LOCAL_AS, seed });

const sizes = (t: ShapedTable) => t.groups.map((g) => g.to - g.from);
const share = (t: ShapedTable, has: (g: ShapedTable['groups'][number]) => boolean) =>
  t.groups.filter(has).length / t.groups.length;

/** Both shapes at 200k, made once for the distribution checks. */
const skewed = make('skewed', 200_000);
const transit = make('transit', 200_000);

describe.each([
  ['skewed', skewed],
  ['transit', transit],
] as const)('the %s table', (shape, t) => {
  it('holds every prefix once, in groups that tile the list', () => {
    expect(t.prefixes.count).toBe(200_000);
    let at = 0;
    const gaps = t.groups.filter((g) => {
      const bad = g.from !== at || g.to <= g.from;
      at = g.to;
      return bad;
    });
    expect(gaps).toEqual([]);
    expect(at).toBe(200_000);
    // The walk goes upward: starts strictly ascending, so no prefix twice.
    const w = t.prefixes.words;
    let descents = 0;
    for (let i = 1; i < t.prefixes.count; i++) if (w[i]! <= w[i - 1]!) descents++;
    expect(descents).toBe(0);
  });

  it('has distinct attribute sets, every path starting with the sender', () => {
    expect(new Set(t.groups.map((g) => specKey(g.spec))).size).toBe(t.groups.length);
    for (const g of t.groups) expect(g.spec.asPath[0]).toBe(LOCAL_AS);
  });

  it('carries no special-purpose space and no well-known community', () => {
    const special: number[] = [];
    for (let i = 0; i < t.prefixes.count; i++) {
      const start = t.prefixes.words[i]!;
      if (V4_SPECIAL.some(([from, to]) => start >= from && start < to)) special.push(start);
    }
    expect(special).toEqual([]);
    const wellKnown = t.groups.flatMap((g) =>
      (g.spec.communities ?? []).filter((c) => c >>> 16 === 0 || c >>> 16 === 0xffff),
    );
    expect(wellKnown).toEqual([]);
  });

  it('is the same for the same seed and differs for another', () => {
    const again = make(shape, 20_000, 5);
    const same = make(shape, 20_000, 5);
    const other = make(shape, 20_000, 6);
    expect(again.groups).toEqual(same.groups);
    expect(Buffer.from(again.prefixes.words.buffer).equals(Buffer.from(same.prefixes.words.buffer))).toBe(
      true,
    );
    expect(again.groups).not.toEqual(other.groups);
  });
});

describe('the skewed shape', () => {
  it('has one set per 10 prefixes with Zipf sizes scattered over the table', () => {
    expect(skewed.groups).toHaveLength(200_000 / SKEWED_PER_SET);
    const s = sizes(skewed);
    const sorted = [...s].sort((a, b) => b - a);
    // The largest set holds over 5 % of the table; over a tenth of the sets one prefix.
    expect(sorted[0]! / 200_000).toBeGreaterThan(0.05);
    expect(s.filter((n) => n === 1).length / s.length).toBeGreaterThan(0.1);
    // Not sorted by size in the table: the biggest set does not come first.
    expect(s[0]).not.toBe(sorted[0]);
  });

  it('has the harness attributes: 2-6 hops, MEDs on about 30 %, communities on about a third', () => {
    const lengths = new Set(skewed.groups.map((g) => g.spec.asPath.length));
    expect([...lengths].sort()).toEqual([2, 3, 4, 5, 6]);
    expect(skewed.groups.some((g) => g.spec.largeCommunities !== undefined)).toBe(false);
    expect(share(skewed, (g) => g.spec.med !== undefined)).toBeCloseTo(0.3, 1);
    expect(share(skewed, (g) => g.spec.communities !== undefined)).toBeCloseTo(0.33, 1);
  });
});

describe('the transit shape', () => {
  it('has many small sets: about 3 prefixes each, most of them 1-3', () => {
    expect(transit.groups.length).toBeGreaterThan(200_000 / 3.5);
    const s = sizes(transit);
    expect(s.filter((n) => n <= 3).length / s.length).toBeGreaterThan(0.75);
  });

  it('has real paths and plenty of communities, large communities and MEDs', () => {
    const hops = transit.groups.map((g) => new Set(g.spec.asPath).size - 1);
    const mean = hops.reduce((a, b) => a + b, 0) / hops.length;
    expect(mean).toBeGreaterThan(3);
    expect(mean).toBeLessThan(4.5);
    expect(share(transit, (g) => new Set(g.spec.asPath).size < g.spec.asPath.length)).toBeCloseTo(0.1, 1);
    expect(share(transit, (g) => g.spec.asPath.some((a) => a > 0xffff))).toBeGreaterThan(0.3);
    expect(share(transit, (g) => g.spec.communities !== undefined)).toBeCloseTo(0.66, 1);
    expect(share(transit, (g) => g.spec.largeCommunities !== undefined)).toBeCloseTo(0.15, 1);
    expect(share(transit, (g) => g.spec.med !== undefined)).toBeCloseTo(0.4, 1);
    expect(transit.groups.every((g) => (g.spec.largeCommunities?.length ?? 0) % 3 === 0)).toBe(true);
  });

  it('has the real length mix: most prefixes /24, a spread down to /16', () => {
    const lens = transit.prefixes.lens.subarray(0, transit.prefixes.count);
    const of = (len: number) => lens.filter((l) => l === len).length / lens.length;
    expect(of(24)).toBeCloseTo(0.61, 1);
    expect(of(22)).toBeCloseTo(0.12, 1);
    expect(lens.reduce((a, b) => Math.min(a, b), 32)).toBeLessThan(16);
  });
});

describe('shapeAttributes', () => {
  const spec = transit.groups.find((g) => g.spec.largeCommunities && g.spec.med !== undefined)!.spec;

  it('puts an IPv4 next hop in NEXT_HOP and keeps the set as drawn', () => {
    const a = shapeAttributes(spec, Afi.IPV4, 0xc6120201);
    expect(a.nextHop).toBe(0xc6120201);
    expect(a.asPath).toEqual([{ type: 2, asns: spec.asPath }]);
    expect(a.med).toBe(spec.med);
    expect(a.largeCommunities).toEqual(spec.largeCommunities);
    expect(a.mpReach).toBeUndefined();
  });

  it('puts an IPv6 next hop in MP_REACH_NLRI', () => {
    const nh = new Uint8Array(16).fill(1);
    const a = shapeAttributes(spec, Afi.IPV6, nh);
    expect(a.nextHop).toBeUndefined();
    expect(a.mpReach).toEqual({ afi: Afi.IPV6, safi: 1, nextHop: nh, reserved: 0 });
  });

  it('makes IPv6 tables of either shape', () => {
    for (const shape of ['skewed', 'transit'] as const) {
      const t = make(shape, 5_000, 1, Afi.IPV6);
      expect(t.prefixes.count).toBe(5_000);
      expect(t.afi).toBe(Afi.IPV6);
    }
  });
});
