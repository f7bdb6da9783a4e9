import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { ConnectionSlots, type Slot } from '../../src/api/connection-slots.js';

describe('ConnectionSlots', () => {
  it('gives out max slots, refuses the next, and gives one out again once one is back', () => {
    const slots = new ConnectionSlots(2);
    const a = slots.take();
    const b = slots.take();
    expect(a).toBeDefined();
    expect(b).toBeDefined();
    expect(slots.take()).toBeUndefined();
    expect(slots.used).toBe(2);
    a?.release();
    expect(slots.used).toBe(1);
    expect(slots.take()).toBeDefined();
    expect(slots.take()).toBeUndefined();
  });

  it('counts a slot released twice (close after error, close after shutdown) once', () => {
    const slots = new ConnectionSlots(1);
    const a = slots.take();
    a?.release();
    a?.release();
    expect(slots.used).toBe(0);
    const b = slots.take();
    a?.release();
    expect(slots.used).toBe(1);
    expect(slots.take()).toBeUndefined();
    b?.release();
    expect(slots.used).toBe(0);
  });

  it('refuses a cap that is not a positive integer, naming the field and the value', () => {
    expect(() => new ConnectionSlots(0)).toThrow('maxConnections: expected an integer >= 1, got 0');
    expect(() => new ConnectionSlots(1.5)).toThrow('maxConnections: expected an integer >= 1, got 1.5');
  });

  // Any interleaving of accepts and (repeated) releases: the count is the slots still held,
  // never above the cap, and a take succeeds exactly when one is free.
  it('holds the count of live slots under any order of takes and releases', () => {
    const op = fc.oneof(
      fc.constant({ kind: 'take' as const }),
      fc.nat(200).map((i) => ({ kind: 'release' as const, i })),
    );
    fc.assert(
      fc.property(fc.integer({ min: 1, max: 8 }), fc.array(op, { maxLength: 200 }), (max, ops) => {
        const slots = new ConnectionSlots(max);
        const given: Slot[] = [];
        const live = new Set<Slot>();
        for (const o of ops) {
          if (o.kind === 'take') {
            const free = live.size < max;
            const slot = slots.take();
            expect(slot !== undefined).toBe(free);
            if (slot) {
              given.push(slot);
              live.add(slot);
            }
          } else if (given.length > 0) {
            const slot = given[o.i % given.length];
            slot.release();
            live.delete(slot);
          }
          expect(slots.used).toBe(live.size);
          expect(slots.used).toBeLessThanOrEqual(max);
        }
      }),
    );
  });
});
