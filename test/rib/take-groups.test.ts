import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { Afi } from '../../src/bgp/wire/constants.js';
import type { AnnounceWork } from '../../src/rib/adj-rib-out.js';
import { PrefixTable } from '../../src/rib/prefix-table.js';
import { TakeGroups } from '../../src/rib/take-groups.js';
import { attrs } from './routes.js';

/** Attribute sets standing for ids 0..: their AS path names the id. */
const SETS = Array.from({ length: 40 }, (_, id) => attrs([65001, id + 1]));

describe('TakeGroups', () => {
  for (const afi of [Afi.IPV4, Afi.IPV6] as const) {
    it(`lays every pick into its id's range, ids in order of first coming, picks in order (${afi === Afi.IPV4 ? 'IPv4' : 'IPv6'})`, () => {
      const groups = new TakeGroups();
      fc.assert(
        fc.property(
          // A few takes in a row on one scratch: nothing of one may leak into the next.
          fc.array(fc.array(fc.integer({ min: 0, max: SETS.length - 1 }), { maxLength: 300 }), {
            maxLength: 3,
          }),
          (takes) => {
            for (const ids of takes) {
              const t = new PrefixTable(afi);
              const entries = ids.map((_, i) =>
                t.insert(afi === Afi.IPV4 ? [i << 8] : [0x20010db8, i, 0, 0], 0, afi === Afi.IPV4 ? 24 : 64),
              );
              groups.begin();
              for (let i = 0; i < ids.length; i++) groups.pick(entries[i]!, ids[i]!);
              const out: AnnounceWork[] = [];
              groups.lay(t, (id) => SETS[id]!, out);
              const order = [...new Set(ids)];
              expect(out.map((w) => SETS.indexOf(w.attrs as (typeof SETS)[number]))).toEqual(order);
              let at = 0;
              for (const w of out) {
                expect(w.from).toBe(at);
                at = w.to;
                const id = SETS.indexOf(w.attrs as (typeof SETS)[number]);
                const want = ids.flatMap((x, i) => (x === id ? [t.prefix(entries[i]!).toString()] : []));
                const got = w.prefixes.toArray(w.from, w.to).map((p) => `${p.addr}/${p.len}`);
                expect(got).toEqual(want);
              }
              expect(at).toBe(ids.length);
            }
          },
        ),
        { numRuns: 200 },
      );
    });
  }
});
