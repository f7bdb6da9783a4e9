import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { addressBytes, parseIpv4 } from '../../src/address/index.js';
import { makeAttributes, type PathAttributes } from '../../src/bgp/wire/attributes/types.js';
import { WireAttributes } from '../../src/bgp/wire/attributes/wire-attributes.js';
import { Afi, AsPathSegmentType, AttrFlag, Safi } from '../../src/bgp/wire/constants.js';
import { encodeUpdate } from '../../src/bgp/wire/update.js';
import { type PreparedAttributes, restBytes, UpdatePacker } from '../../src/bgp/wire/update-packer.js';
import { Writer } from '../../src/bgp/wire/writer.js';
import { EncodedContent, ExportInterner } from '../../src/rib/export-interner.js';

const packer = new UpdatePacker({ as4: true });

/** What prepared UPDATE bytes say, wherever they are kept. */
function preparedBytes(p: PreparedAttributes | undefined) {
  return p && { afi: p.afi, rest: restBytes(p), mpHeader: p.mpHeader };
}

/** A set's encoding with 4-octet ASNs, as the interner compares sets. */
function encoded(a: PathAttributes): Uint8Array {
  const w = new Writer(256);
  encodeUpdate(w, { attrs: a }, { as4: true });
  return w.buf.slice(0, w.pos);
}

/** Exported-looking attribute sets: IPv4 next hop or MP_REACH_NLRI, optional fields, big ASNs. */
const exported: fc.Arbitrary<PathAttributes> = fc
  .record({
    origin: fc.integer({ min: 0, max: 2 }),
    asns: fc.array(fc.constantFrom(65000, 65001, 64512, 4_200_000_000), { minLength: 1, maxLength: 6 }),
    v6: fc.boolean(),
    med: fc.option(fc.nat(), { nil: undefined }),
    localPref: fc.option(fc.nat(), { nil: undefined }),
    communities: fc.option(fc.array(fc.nat(), { minLength: 1, maxLength: 4 }), { nil: undefined }),
    largeCommunities: fc.option(fc.array(fc.nat(), { minLength: 3, maxLength: 3 }), { nil: undefined }),
    // What a reflected, aggregated or policy-marked route carries on top.
    atomicAggregate: fc.option(fc.constant(true), { nil: undefined }),
    aggregator: fc.option(fc.record({ as: fc.constantFrom(65000, 4_200_000_000), address: fc.nat() }), {
      nil: undefined,
    }),
    extCommunities: fc.option(
      fc.integer({ min: 1, max: 3 }).chain((n) => fc.uint8Array({ minLength: 8 * n, maxLength: 8 * n })),
      { nil: undefined },
    ),
    originatorId: fc.option(fc.integer({ min: 1, max: 0xffffffff }), { nil: undefined }),
    clusterList: fc.option(
      fc.array(fc.integer({ min: 1, max: 0xffffffff }), { minLength: 1, maxLength: 3 }),
      {
        nil: undefined,
      },
    ),
    unknown: fc.option(
      fc.uniqueArray(
        fc.record({
          type: fc.integer({ min: 200, max: 254 }),
          flags: fc.constantFrom(
            AttrFlag.OPTIONAL | AttrFlag.TRANSITIVE,
            AttrFlag.OPTIONAL | AttrFlag.TRANSITIVE | AttrFlag.PARTIAL,
          ),
          value: fc.uint8Array({ maxLength: 12 }),
        }),
        { minLength: 1, maxLength: 2, selector: (u) => u.type },
      ),
      { nil: undefined },
    ),
  })
  .map((r) =>
    makeAttributes({
      origin: r.origin,
      asPath: [{ type: AsPathSegmentType.AS_SEQUENCE, asns: r.asns }],
      nextHop: r.v6 ? undefined : parseIpv4('198.18.0.1'),
      mpReach: r.v6
        ? { afi: Afi.IPV6, safi: Safi.UNICAST, nextHop: addressBytes('2001:db8::1'), reserved: 0 }
        : undefined,
      med: r.med,
      localPref: r.localPref,
      communities: r.communities,
      largeCommunities: r.largeCommunities,
      atomicAggregate: r.atomicAggregate,
      aggregator: r.aggregator,
      extCommunities: r.extCommunities,
      originatorId: r.originatorId,
      clusterList: r.clusterList,
      unknown: r.unknown?.sort((a, b) => a.type - b.type),
    }),
  );

describe('ExportInterner.prepared', () => {
  it('gives the bytes UpdatePacker.prepare makes for a 4-octet-AS session', () => {
    fc.assert(
      fc.property(exported, (a) => {
        const interner = new ExportInterner();
        const id = interner.intern(a);
        interner.ref(id);
        expect(preparedBytes(interner.prepared(interner.get(id)))).toEqual(preparedBytes(packer.prepare(a)));
      }),
      { numRuns: 300 },
    );
  });

  it('holds a new set as its compact twin: wire-backed, equal by content, the same bytes', () => {
    fc.assert(
      fc.property(exported, (a) => {
        const interner = new ExportInterner();
        const id = interner.intern(a);
        interner.ref(id);
        const canonical = interner.get(id);
        expect(canonical).toBeInstanceOf(WireAttributes);
        expect(canonical).not.toBe(a);
        expect(encoded(canonical)).toEqual(encoded(a));
        expect(canonical.asPath).toEqual(a.asPath);
        expect(canonical.communities).toEqual(a.communities);
        expect(canonical.aggregator).toEqual(a.aggregator);
        expect(canonical.extCommunities).toEqual(a.extCommunities);
        expect(canonical.clusterList).toEqual(a.clusterList);
        expect(canonical.originatorId).toBe(a.originatorId);
        expect(canonical.unknown?.map((u) => [u.type, u.flags, [...u.value]])).toEqual(
          a.unknown?.map((u) => [u.type, u.flags, [...u.value]]),
        );
        expect(canonical.nextHop).toBe(a.nextHop);
        expect(canonical.mpReach).toEqual(a.mpReach);
        expect(interner.intern(canonical)).toBe(id);
      }),
      { numRuns: 300 },
    );
  });

  it('keeps a set whose bytes do not decode back cleanly as it was built', () => {
    // An unrecognised attribute without the optional bit: a session would be reset for it.
    const odd = makeAttributes({
      origin: 0,
      asPath: [],
      nextHop: parseIpv4('198.18.0.1'),
      unknown: [{ type: 240, flags: AttrFlag.TRANSITIVE, value: new Uint8Array([1]) }],
    });
    const interner = new ExportInterner();
    const id = interner.intern(odd);
    interner.ref(id);
    expect(interner.get(id)).toBe(odd);
    expect(interner.intern(makeAttributes({ ...odd }))).toBe(id);
    expect(preparedBytes(interner.prepared(odd))).toEqual(preparedBytes(packer.prepare(odd)));
  });

  it('answers for a set equal by content with the canonical one, and not for a stranger', () => {
    const interner = new ExportInterner();
    const a = makeAttributes({ origin: 0, asPath: [], nextHop: parseIpv4('198.18.0.1') });
    const twin = makeAttributes({ ...a });
    const id = interner.intern(a);
    interner.ref(id);
    expect(interner.intern(twin)).toBe(id);
    expect(interner.intern(a)).toBe(id);
    expect(preparedBytes(interner.prepared(interner.get(id)))).toEqual(preparedBytes(packer.prepare(a)));
    expect(interner.prepared(twin)).toBeUndefined();
  });

  it('forgets a released set: its id serves the next set with that set own bytes', () => {
    fc.assert(
      fc.property(exported, exported, (a, b) => {
        const interner = new ExportInterner();
        const id = interner.intern(a);
        interner.ref(id);
        const canonical = interner.get(id);
        interner.prepared(canonical);
        interner.unref(id);
        expect(interner.prepared(canonical)).toBeUndefined();
        const again = interner.intern(b);
        interner.ref(again);
        expect(again).toBe(id);
        expect(preparedBytes(interner.prepared(interner.get(again)))).toEqual(
          preparedBytes(packer.prepare(b)),
        );
      }),
      { numRuns: 200 },
    );
  });
});

describe('ExportInterner by content', () => {
  /** Sets that differ in their MED only: equal MED, equal content. */
  const withMed = (med: number) =>
    makeAttributes({ origin: 0, asPath: [], nextHop: parseIpv4('198.18.0.1'), med });
  const step = fc.record({ med: fc.integer({ min: 0, max: 5 }), release: fc.boolean() });

  for (const [name, hash] of [
    ['its hash', undefined],
    ['a hash under which every set collides', () => 7],
    // Homes in the table's last four slots: runs wrap around its end.
    [
      'hashes whose runs wrap around the table',
      (b: Uint8Array, _from: number, to: number) => 1023 - (b[to - 1] % 4),
    ],
  ] as const) {
    it(`gives equal sets one id while one is held, and forgets released ones (${name})`, () => {
      fc.assert(
        fc.property(fc.array(step, { maxLength: 60 }), (steps) => {
          const interner = new ExportInterner(new EncodedContent(hash));
          /** The model: MED -> [id, references]. */
          const held = new Map<number, [number, number]>();
          for (const { med, release } of steps) {
            const h = held.get(med);
            if (release && h) {
              interner.unref(h[0]);
              if (--h[1] === 0) held.delete(med);
              continue;
            }
            const id = interner.intern(withMed(med));
            interner.ref(id);
            if (h) {
              expect(id).toBe(h[0]);
              h[1]++;
            } else {
              expect([...held.values()].map(([i]) => i)).not.toContain(id);
              held.set(med, [id, 1]);
            }
            expect(interner.get(id).med).toBe(med);
          }
          expect(interner.size).toBe(held.size);
        }),
        { numRuns: 300 },
      );
    });
  }
});

describe('ExportInterner table', () => {
  it('finds every held set again while thousands come and go, the table growing past its first size', () => {
    const withMed = (med: number) =>
      makeAttributes({ origin: 0, asPath: [], nextHop: parseIpv4('198.18.0.1'), med });
    // A weak hash (few distinct values) makes long runs, so removals shift entries often.
    const interner = new ExportInterner(new EncodedContent((b, _from, to) => b[to - 1] & 0x3f));
    const ids = new Map<number, number>();
    for (let med = 0; med < 3000; med++) {
      const id = interner.intern(withMed(med));
      interner.ref(id);
      ids.set(med, id);
    }
    for (let med = 0; med < 3000; med += 3) {
      interner.unref(ids.get(med)!);
      ids.delete(med);
    }
    expect(interner.size).toBe(ids.size);
    for (const [med, id] of ids) expect(interner.intern(withMed(med))).toBe(id);
    for (let med = 0; med < 3000; med += 3) {
      const id = interner.intern(withMed(med));
      expect([...ids.values()]).not.toContain(id);
      expect(interner.get(id).med).toBe(med);
    }
  });
});
