import { describe, expect, it } from 'vitest';
import { type ContentIndex, InternTable } from '../../src/rib/intern-table.js';

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
