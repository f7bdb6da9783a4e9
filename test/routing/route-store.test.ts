import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { parseIpv6 } from '../../src/address/index.js';
import { makeAttributes, type PathAttributes } from '../../src/bgp/wire/attributes/types.js';
import { Afi, type AfiCode } from '../../src/bgp/wire/constants.js';
import { parsePrefix } from '../../src/rib/index.js';
import { RouteStore } from '../../src/routing/index.js';

// RouteStore against a Map: whatever the order of sets and deletes, it holds the same routes;
// and a route refresh's marks (RFC 7313): a sweep removes exactly what was not set again since
// the family's last mark.

const ATTRS: readonly PathAttributes[] = [0, 1, 2].map((med) => makeAttributes({ origin: 0, med }));

type Op =
  | {
      readonly op: 'set';
      readonly afi: AfiCode;
      readonly key: number;
      readonly short: boolean;
      readonly pathId: number;
      readonly a: number;
    }
  | {
      readonly op: 'delete';
      readonly afi: AfiCode;
      readonly key: number;
      readonly short: boolean;
      readonly pathId: number;
    }
  | { readonly op: 'mark'; readonly afi: AfiCode }
  | { readonly op: 'sweep'; readonly afi: AfiCode };

const route = {
  afi: fc.constantFrom<AfiCode>(Afi.IPV4, Afi.IPV6),
  key: fc.integer({ min: 0, max: 15 }),
  /** Short prefixes leave out the bits that tell keys apart. */
  short: fc.boolean(),
  pathId: fc.integer({ min: 0, max: 2 }),
};
const op: fc.Arbitrary<Op> = fc.oneof(
  fc.record({ op: fc.constant('set' as const), ...route, a: fc.integer({ min: 0, max: 2 }) }),
  fc.record({ op: fc.constant('delete' as const), ...route }),
  fc.record({ op: fc.constantFrom('mark' as const, 'sweep' as const), afi: route.afi }),
);

/** The key sits in the third octet (IPv4) or third group (IPv6): inside a /24 or /48, outside a /16 or /32. */
function words(afi: AfiCode, key: number): Uint32Array {
  return afi === Afi.IPV4 ? Uint32Array.of((0xc6120000 | (key << 8)) >>> 0) : parseIpv6(`2001:db8:${key}::`);
}

const KEYS = Array.from({ length: 16 }, (_, k) => k);

function lengthOf(afi: AfiCode, short: boolean): number {
  return afi === Afi.IPV4 ? (short ? 16 : 24) : short ? 32 : 48;
}

function modelKey(afi: AfiCode, key: number, short: boolean, pathId: number, withPathIds: boolean): string {
  return `${afi}|${short ? 'short' : key}|${withPathIds ? pathId : 0}`;
}

describe('RouteStore', () => {
  for (const withPathIds of [false, true]) {
    it(`behaves as a map of routes (${withPathIds ? 'with' : 'without'} path ids)`, () => {
      fc.assert(
        fc.property(fc.array(op, { maxLength: 80 }), (ops) => {
          const store = new RouteStore([withPathIds, withPathIds]);
          const model = new Map<string, PathAttributes>();
          const stale = new Set<string>();
          for (const o of ops) {
            const ofFamily = () => [...model.keys()].filter((k) => k.startsWith(`${o.afi}|`));
            if (o.op === 'mark') {
              store.markStale(o.afi);
              for (const k of ofFamily()) stale.add(k);
              continue;
            }
            if (o.op === 'sweep') {
              const gone = ofFamily().filter((k) => stale.has(k));
              const seen: string[] = [];
              const n = store.sweepStale(o.afi, (ws, off, len, pathId, attrs) => {
                const at = o.afi === Afi.IPV4 ? 0 : 1;
                const key = KEYS.findIndex((k) => words(o.afi, k)[at] === ws[off + at]);
                const short = len === lengthOf(o.afi, true);
                const k = modelKey(o.afi, key, short, pathId, withPathIds);
                expect(attrs).toBe(model.get(k));
                seen.push(k);
              });
              expect(n).toBe(gone.length);
              expect(seen.sort()).toEqual(gone.sort());
              for (const k of gone) {
                model.delete(k);
                stale.delete(k);
              }
              continue;
            }
            const w = words(o.afi, o.key);
            const len = lengthOf(o.afi, o.short);
            const k = modelKey(o.afi, o.key, o.short, o.pathId, withPathIds);
            if (o.op === 'set') {
              const prev = store.set(o.afi, w, 0, len, o.pathId, ATTRS[o.a]!);
              expect(prev).toBe(model.get(k));
              model.set(k, ATTRS[o.a]!);
              stale.delete(k);
            } else {
              expect(store.delete(o.afi, w, 0, len, o.pathId)).toBe(model.delete(k));
              stale.delete(k);
            }
            expect(store.get(o.afi, w, 0, len, o.pathId)).toBe(model.get(k));
          }
          for (const afi of [Afi.IPV4, Afi.IPV6] as const) {
            const inModel = [...model.keys()].filter((k) => k.startsWith(`${afi}|`)).length;
            expect(store.count(afi)).toBe(inModel);
            let visited = 0;
            // Visiting in slices of 3 reaches every route once.
            for (let c = 0; c !== -1; ) {
              c = store.visit(afi, c, 3, () => {
                visited++;
              });
            }
            expect(visited).toBe(inModel);
            expect(store.entries(afi)).toHaveLength(inModel);
          }
        }),
        { numRuns: 300 },
      );
    });
  }

  it('looks a prefix up with every path id it has', () => {
    const store = new RouteStore([true, true]);
    const p = parsePrefix('198.18.7.0/24');
    store.set(Afi.IPV4, p.words(), 0, 24, 1, ATTRS[0]!);
    store.set(Afi.IPV4, p.words(), 0, 24, 2, ATTRS[1]!);
    store.set(Afi.IPV4, parsePrefix('198.18.8.0/24').words(), 0, 24, 1, ATTRS[2]!);
    expect(store.lookup(p)).toEqual([
      { pathId: 1, attrs: ATTRS[0] },
      { pathId: 2, attrs: ATTRS[1] },
    ]);
    expect(store.lookup(parsePrefix('198.18.9.0/24'))).toEqual([]);
    store.clear();
    expect(store.count(Afi.IPV4)).toBe(0);
  });
});
