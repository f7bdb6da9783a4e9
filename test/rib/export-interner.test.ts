import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { addressBytes, parseIpv4 } from '../../src/address/index.js';
import { makeAttributes, type PathAttributes } from '../../src/bgp/wire/attributes/types.js';
import { Afi, AsPathSegmentType, Safi } from '../../src/bgp/wire/constants.js';
import { UpdatePacker } from '../../src/bgp/wire/update-packer.js';
import { EncodedContent, ExportInterner } from '../../src/rib/export-interner.js';

const packer = new UpdatePacker({ as4: true });

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
    }),
  );

describe('ExportInterner.prepared', () => {
  it('gives the bytes UpdatePacker.prepare makes for a 4-octet-AS session', () => {
    fc.assert(
      fc.property(exported, (a) => {
        const interner = new ExportInterner();
        interner.ref(interner.intern(a));
        expect(interner.prepared(a)).toEqual(packer.prepare(a));
      }),
      { numRuns: 300 },
    );
  });

  it('answers for a set equal by content with the canonical one, and not for a stranger', () => {
    const interner = new ExportInterner();
    const a = makeAttributes({ origin: 0, asPath: [], nextHop: parseIpv4('198.18.0.1') });
    const twin = makeAttributes({ ...a });
    interner.ref(interner.intern(a));
    expect(interner.intern(twin)).toBe(interner.intern(a));
    expect(interner.prepared(a)).toEqual(packer.prepare(a));
    expect(interner.prepared(twin)).toBeUndefined();
  });

  it('forgets a released set: its id serves the next set with that set own bytes', () => {
    fc.assert(
      fc.property(exported, exported, (a, b) => {
        const interner = new ExportInterner();
        const id = interner.intern(a);
        interner.ref(id);
        interner.prepared(a);
        interner.unref(id);
        expect(interner.prepared(a)).toBeUndefined();
        const again = interner.intern(b);
        interner.ref(again);
        expect(again).toBe(id);
        expect(interner.prepared(b)).toEqual(packer.prepare(b));
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
