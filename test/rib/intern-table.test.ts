import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { WireAttributes } from '../../src/bgp/wire/attributes/wire-attributes.js';
import { type ContentIndex, InternTable } from '../../src/rib/intern-table.js';
import { WireInternTable } from '../../src/rib/wire-intern-table.js';

interface Box {
  readonly n: number;
}

/** Content by the number, kept in Maps as the export interner's index keeps encodings. */
function byNumber(): ContentIndex<Box> {
  const ids = new Map<number, number>();
  const numbers = new Map<number, number>();
  return {
    find: (b) => ids.get(b.n),
    add: (id, b) => {
      ids.set(b.n, id);
      numbers.set(id, b.n);
    },
    remove: (id) => {
      ids.delete(numbers.get(id)!);
      numbers.delete(id);
    },
  };
}

describe('InternTable', () => {
  it('by content: equal objects share an id until the last reference goes, then the content is forgotten', () => {
    const t = new InternTable<Box>(byNumber());
    const first = { n: 1 };
    const id = t.intern(first);
    t.ref(id);
    expect(t.intern({ n: 1 })).toBe(id);
    expect(t.intern({ n: 2 })).not.toBe(id);
    t.unref(id);
    expect(t.has(id)).toBe(false);
    const later = { n: 1 };
    const again = t.intern(later);
    t.ref(again);
    // The freed id is reused, and the object now behind it is the later one, not the first.
    expect(t.get(again)).toBe(later);
  });

  it('by identity: equal objects built apart get ids of their own, each freed on its own', () => {
    const t = new InternTable<Box>();
    const a = { n: 1 };
    const b = { n: 1 };
    const ia = t.intern(a);
    const ib = t.intern(b);
    t.ref(ia);
    t.ref(ib);
    expect(ia).not.toBe(ib);
    expect(t.intern(a)).toBe(ia);
    t.unref(ia);
    expect(t.has(ia)).toBe(false);
    expect(t.get(ib)).toBe(b);
    expect(t.size).toBe(1);
  });
});

describe('WireInternTable', () => {
  const set = () => new WireAttributes(new Uint8Array(0), 0, 0, { as4: true }, 0);

  it('tables sharing sets each keep their own numbers, whichever wrote the one on the set', () => {
    fc.assert(
      fc.property(fc.array(fc.tuple(fc.nat(2), fc.nat(3), fc.boolean()), { maxLength: 60 }), (ops) => {
        const sets = Array.from({ length: 4 }, set);
        const tables = [new WireInternTable(), new WireInternTable(), new WireInternTable()];
        // The model: per table, each held set's id and references.
        const held = tables.map(() => new Map<WireAttributes, { id: number; refs: number }>());
        for (const [t, s, take] of ops) {
          const table = tables[t];
          const v = sets[s];
          const h = held[t].get(v);
          if (take || h === undefined) {
            const id = table.intern(v);
            table.ref(id);
            if (h) expect(id).toBe(h.id);
            held[t].set(v, { id, refs: (h?.refs ?? 0) + 1 });
          } else {
            table.unref(h.id);
            if (--h.refs === 0) held[t].delete(v);
          }
          for (const [i, m] of held.entries()) {
            expect(tables[i].size).toBe(m.size);
            for (const [x, { id }] of m) {
              expect(tables[i].get(id)).toBe(x);
              expect(tables[i].intern(x)).toBe(id);
            }
          }
        }
      }),
      { numRuns: 300 },
    );
  });

  it('a table that let go of a set under the number another wrote there leaves that number be', () => {
    const v = set();
    const [a, b] = [new WireInternTable(), new WireInternTable()];
    a.ref(a.intern(v)); // a writes 0 on the set
    b.ref(b.intern(v)); // b holds it under 0 too, in its Map
    b.unref(0);
    expect(v.internId).toBe(0);
    expect(a.intern(v)).toBe(0);
    expect(a.size).toBe(1);
  });
});
