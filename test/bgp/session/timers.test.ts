import { describe, expect, it } from 'vitest';
import type { Timer } from '../../../src/bgp/fsm/index.js';
import { TimerBank } from '../../../src/bgp/session/timers.js';
import { FakeScheduler } from './support.js';

// The hold timer is re-armed at every message: the bank moves its deadline instead of
// replacing the timer, and it must still expire exactly one duration after the last re-arm.

function bank() {
  const clock = new FakeScheduler();
  const fired: [Timer, number][] = [];
  const timers = new TimerBank(
    clock,
    () => 0.5,
    (t) => fired.push([t, clock.now()]),
  );
  return { clock, fired, timers };
}

describe('TimerBank', () => {
  it('a timer re-armed for the same duration expires one duration after the last re-arm', () => {
    const { clock, fired, timers } = bank();
    timers.arm('hold', 9000);
    for (let i = 0; i < 10; i++) {
      clock.advance(1000);
      timers.arm('hold', 9000);
    }
    expect(clock.pending()).toHaveLength(1); // moved, not stacked
    clock.advance(8999);
    expect(fired).toEqual([]);
    clock.advance(1);
    expect(fired).toEqual([['hold', 19000]]);
    expect(timers.running()).toEqual([]);
    clock.advance(20000);
    expect(fired).toHaveLength(1);
  });

  it('a different duration or an earlier deadline re-arms from scratch', () => {
    const { clock, fired, timers } = bank();
    timers.arm('hold', 9000);
    clock.advance(1000);
    timers.arm('hold', 3000);
    clock.advance(3000);
    expect(fired).toEqual([['hold', 4000]]);
  });

  it('stop cancels a moved timer; each timer fires on its own', () => {
    const { clock, fired, timers } = bank();
    timers.arm('hold', 9000);
    timers.arm('keepalive', 3000);
    clock.advance(2000);
    timers.arm('hold', 9000);
    timers.stop('hold');
    clock.advance(20000);
    expect(fired).toEqual([['keepalive', 3000]]);
    expect(timers.running()).toEqual([]);
  });
});
