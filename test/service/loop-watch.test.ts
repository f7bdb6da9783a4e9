import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { LagLog, LoopWatch } from '../../src/service/index.js';
import { FakeClock } from '../components/fake-clock.js';

// The event-loop monitor behind /healthz: the worst lag within the window, forgotten after it.

describe('LagLog', () => {
  it('reports the worst lag that ended within the window, and how long ago', () => {
    const log = new LagLog(250);
    log.record(1000, 100, 10_000); // below the floor: noise
    expect(log.report(1000, 10_000)).toEqual({ worstLagMs: 0, agoMs: 0 });
    log.record(2000, 6000, 10_000);
    log.record(3000, 400, 10_000);
    expect(log.report(4500, 10_000)).toEqual({ worstLagMs: 6000, agoMs: 2500 });
    // Past the window the big one is forgotten; the smaller, later one is still in it.
    expect(log.report(12_500, 10_000)).toEqual({ worstLagMs: 400, agoMs: 9500 });
    expect(log.report(13_001, 10_000)).toEqual({ worstLagMs: 0, agoMs: 0 });
  });

  it('equals the maximum over the lags in the window, for any sequence', () => {
    const step = fc.record({
      gap: fc.integer({ min: 0, max: 5000 }),
      lag: fc.integer({ min: 0, max: 20_000 }),
    });
    fc.assert(
      fc.property(
        fc.array(step, { maxLength: 60 }),
        fc.integer({ min: 1, max: 30_000 }),
        (steps, windowMs) => {
          const log = new LagLog(250);
          const seen: [number, number][] = [];
          let now = 0;
          for (const s of steps) {
            now += s.gap;
            log.record(now, s.lag, windowMs);
            seen.push([now, s.lag]);
            const inWindow = seen
              .filter(([at, lag]) => now - at <= windowMs && lag > 250)
              .map(([, lag]) => lag);
            expect(log.report(now, windowMs).worstLagMs).toBe(
              inWindow.length === 0 ? 0 : Math.max(...inWindow),
            );
          }
        },
      ),
    );
  });
});

describe('LoopWatch', () => {
  it('sees no stall while its timer fires on time, and stops ticking when stopped', async () => {
    const clock = new FakeClock();
    const watch = new LoopWatch(clock, { tickMs: 250, windowMs: () => 10_000 });
    watch.start();
    await clock.advance(5000);
    expect(watch.report()).toEqual({ worstLagMs: 0, agoMs: 0 });
    expect(clock.pending.timers).toBe(1);
    // Its timer never keeps the process alive.
    expect(clock.pending.keepAlive).toBe(0);
    watch.stop();
    expect(clock.pending.timers).toBe(0);
  });
});
