import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { EntryList } from '../../src/rib/entry-list.js';

describe('EntryList', () => {
  it('behaves as an array under any sequence of pushes, drops and clears', () => {
    const op = fc.oneof(
      fc.record({ push: fc.integer({ min: 0, max: 1 << 30 }) }),
      fc.record({ drop: fc.nat(200) }),
      fc.constant({ clear: true }),
    );
    fc.assert(
      fc.property(fc.array(op, { maxLength: 400 }), (ops) => {
        const list = new EntryList();
        let model: number[] = [];
        for (const o of ops) {
          if ('push' in o) {
            list.push(o.push);
            model.push(o.push);
          } else if ('drop' in o) {
            const n = Math.min(o.drop, model.length);
            list.dropFirst(n);
            model = model.slice(n);
          } else {
            list.clear();
            model = [];
          }
          expect(list.count).toBe(model.length);
        }
        expect(Array.from(list.items.subarray(0, list.count))).toEqual(model);
      }),
    );
  });
});
