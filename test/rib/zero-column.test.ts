import { describe, expect, it } from 'vitest';
import { ZeroColumn } from '../../src/rib/zero-column.js';

describe('ZeroColumn', () => {
  it('reads zeros and holds no memory until a non-zero value is stored, then keeps every value', () => {
    const c = new ZeroColumn();
    c.set(3, 0, 8);
    c.grow(16);
    expect([c.get(0), c.get(3), c.byteLength]).toEqual([0, 0, 0]);
    c.set(5, 7, 16);
    expect(c.byteLength).toBe(64);
    c.set(5, 0, 16); // a zero over a value is stored too
    c.set(6, 0xffffffff, 16);
    c.grow(32);
    expect([c.get(5), c.get(6), c.get(31), c.byteLength]).toEqual([0, 0xffffffff, 0, 128]);
  });
});
