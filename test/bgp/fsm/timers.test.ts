import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import {
  jitter,
  minAsOriginationInterval,
  minRouteAdvertisementInterval,
  negotiateHoldTime,
  resolveFsmConfig,
  timerDurationMs,
} from '../../../src/bgp/fsm/index.js';
import { idleHoldSeconds, nextDampingLevel } from '../../../src/bgp/fsm/timers.js';

describe('jitter (RFC 4271 section 10)', () => {
  it('scales by 0.75 at random 0 and approaches 1.0 near random 1', () => {
    expect(jitter(120, 0)).toBe(90);
    expect(jitter(120, 0.5)).toBe(105);
    expect(jitter(120, 0.999999)).toBeLessThan(120);
    expect(jitter(120, 0.999999)).toBeGreaterThan(119.99);
  });

  it('stays within [0.75, 1.0] of the base for any random in [0, 1)', () => {
    fc.assert(
      fc.property(
        fc.integer({ min: 0, max: 65535 }),
        fc.double({ min: 0, max: 1, maxExcluded: true, noNaN: true }),
        (s, r) => {
          const j = jitter(s, r);
          return j >= s * 0.75 && j <= s;
        },
      ),
    );
  });

  it('clamps a misbehaving random source instead of leaving the range', () => {
    expect(jitter(100, -3)).toBe(75);
    expect(jitter(100, 7)).toBe(100);
    expect(jitter(100, Number.NaN)).toBe(75);
    expect(jitter(100, Number.POSITIVE_INFINITY)).toBe(75);
  });

  it('timerDurationMs jitters only the timers that ask for it, with the injected random', () => {
    const calls: number[] = [];
    const random = () => {
      calls.push(1);
      return 0;
    };
    expect(
      timerDurationMs({ type: 'start-timer', timer: 'keepalive', seconds: 30, jitter: true }, random),
    ).toBe(22_500);
    expect(timerDurationMs({ type: 'start-timer', timer: 'hold', seconds: 90, jitter: false }, random)).toBe(
      90_000,
    );
    expect(calls).toHaveLength(1);
  });

  it('applies jitter to the route advertisement timers with the RFC defaults', () => {
    expect(minAsOriginationInterval(() => 0)).toBe(11.25);
    expect(minRouteAdvertisementInterval(false, () => 0)).toBe(22.5);
    expect(minRouteAdvertisementInterval(true, () => 0)).toBe(3.75);
    expect(minRouteAdvertisementInterval(false, () => 0, 0)).toBe(0);
  });
});

describe('negotiateHoldTime (RFC 4271 4.2)', () => {
  const cases: { name: string; local: number; remote: number; keepalive?: number; want: unknown }[] = [
    { name: 'equal', local: 90, remote: 90, want: { ok: true, holdTime: 90, keepaliveTime: 30 } },
    { name: 'peer lower', local: 90, remote: 30, want: { ok: true, holdTime: 30, keepaliveTime: 10 } },
    { name: 'peer higher', local: 90, remote: 180, want: { ok: true, holdTime: 90, keepaliveTime: 30 } },
    { name: 'peer 0 disables', local: 90, remote: 0, want: { ok: true, holdTime: 0, keepaliveTime: 0 } },
    { name: 'local 0 disables', local: 0, remote: 90, want: { ok: true, holdTime: 0, keepaliveTime: 0 } },
    { name: 'smallest legal', local: 90, remote: 3, want: { ok: true, holdTime: 3, keepaliveTime: 1 } },
    {
      name: 'shorter keepalive kept',
      local: 90,
      remote: 90,
      keepalive: 10,
      want: { ok: true, holdTime: 90, keepaliveTime: 10 },
    },
    {
      name: 'keepalive lowered to a third',
      local: 180,
      remote: 30,
      keepalive: 60,
      want: { ok: true, holdTime: 30, keepaliveTime: 10 },
    },
  ];
  it.each(cases)('$name', ({ local, remote, keepalive, want }) => {
    expect(negotiateHoldTime(local, remote, keepalive)).toEqual(want);
  });

  it.each([1, 2, -1, 65536, 1.5, Number.NaN])('rejects peer Hold Time %s with 2/6', (remote) => {
    expect(negotiateHoldTime(90, remote)).toEqual({ ok: false, code: 2, subcode: 6 });
  });
});

describe('idle hold back-off', () => {
  const cfg = resolveFsmConfig({ idleHoldTime: 5, maxIdleHoldTime: 40 });
  it('doubles per level up to the cap, and the level stops growing there', () => {
    const seen: number[] = [];
    let level = 0;
    for (let i = 0; i < 8; i++) {
      seen.push(idleHoldSeconds(cfg, level));
      level = nextDampingLevel(cfg, level);
    }
    expect(seen).toEqual([5, 10, 20, 40, 40, 40, 40, 40]);
    expect(level).toBe(3);
  });

  it('is flat without damping', () => {
    const flat = resolveFsmConfig({ idleHoldTime: 5, dampPeerOscillations: false });
    expect(idleHoldSeconds(flat, 4)).toBe(5);
    expect(nextDampingLevel(flat, 0)).toBe(0);
  });
});
