import { describe, expect, it } from 'vitest';
import { Afi, type AfiCode } from '../../src/bgp/wire/constants.js';
import { FamilyDeadlines } from '../../src/routing/family-deadlines.js';
import { FakeScheduler } from '../bgp/session/support.js';

// One timer for the earliest of a deadline per family: each family is told once, when its own
// deadline passes, and never after stop.

function setup() {
  const clock = new FakeScheduler();
  const told: [number, AfiCode[]][] = [];
  const deadlines = new FamilyDeadlines(clock, (due) => {
    told.push([clock.now(), [...due]]);
    for (const afi of due) deadlines.delete(afi);
  });
  return { clock, told, deadlines };
}

describe('FamilyDeadlines', () => {
  it('tells each family when its own deadline passes, the earliest first', () => {
    const { clock, told, deadlines } = setup();
    deadlines.set(Afi.IPV6, 300);
    deadlines.set(Afi.IPV4, 100);
    deadlines.rearm();
    expect(deadlines.earliest()).toBe(100);
    clock.advance(99);
    expect(told).toEqual([]);
    clock.advance(1);
    expect(told).toEqual([[100, [Afi.IPV4]]]);
    expect(deadlines.families()).toEqual([Afi.IPV6]);
    clock.advance(500);
    expect(told).toEqual([
      [100, [Afi.IPV4]],
      [300, [Afi.IPV6]],
    ]);
    expect(deadlines.size).toBe(0);
  });

  it('follows a deadline moved before it passed, and says now when none is set', () => {
    const { clock, told, deadlines } = setup();
    deadlines.set(Afi.IPV4, 100);
    deadlines.rearm();
    clock.advance(50);
    deadlines.set(Afi.IPV4, 400);
    deadlines.rearm();
    clock.advance(100);
    expect(told).toEqual([]);
    clock.advance(250);
    expect(told).toEqual([[400, [Afi.IPV4]]]);
    expect(deadlines.earliest()).toBe(clock.now());
  });

  it('a family whose deadline is moved on when due is told again at its new deadline', () => {
    const clock = new FakeScheduler();
    const told: number[] = [];
    const deadlines = new FamilyDeadlines(clock, (due) => {
      told.push(clock.now());
      // A phase that ends starts the next one (graceful restart into long-lived).
      if (told.length === 1) for (const afi of due) deadlines.set(afi, clock.now() + 1000);
      else for (const afi of due) deadlines.delete(afi);
    });
    deadlines.set(Afi.IPV4, 10);
    deadlines.rearm();
    clock.advance(5000);
    expect(told).toEqual([10, 1010]);
  });

  it('tells nothing after stop', () => {
    const { clock, told, deadlines } = setup();
    deadlines.set(Afi.IPV4, 100);
    deadlines.rearm();
    deadlines.stop();
    deadlines.set(Afi.IPV6, 200);
    deadlines.rearm();
    clock.advance(1000);
    expect(told).toEqual([]);
  });
});
