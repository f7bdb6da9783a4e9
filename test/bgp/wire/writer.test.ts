import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { Writer } from '../../../src/bgp/wire/writer.js';

describe('Writer.range', () => {
  it('appends v[from, to) exactly as bytes() appends that view, short or long, growing as needed', () => {
    fc.assert(
      fc.property(
        fc.uint8Array({ maxLength: 300 }),
        fc.nat(),
        fc.nat(),
        fc.uint8Array({ maxLength: 20 }),
        (v, a, b, before) => {
          const from = v.length ? a % (v.length + 1) : 0;
          const to = from + (v.length - from ? b % (v.length - from + 1) : 0);
          const ranged = new Writer(4).bytes(before).range(v, from, to);
          const viewed = new Writer(4).bytes(before).bytes(v.subarray(from, to));
          expect(ranged.pos).toBe(viewed.pos);
          expect(ranged.buf.subarray(0, ranged.pos)).toEqual(viewed.buf.subarray(0, viewed.pos));
        },
      ),
      { numRuns: 500 },
    );
  });
});
