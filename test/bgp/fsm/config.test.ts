import { describe, expect, it } from 'vitest';
import type { FsmConfig } from '../../../src/bgp/fsm/index.js';
import { createFsm, FsmConfigError, resolveFsmConfig } from '../../../src/bgp/fsm/index.js';

describe('FSM configuration', () => {
  it('defaults to the RFC 4271 section 10 suggestions', () => {
    expect(resolveFsmConfig()).toEqual({
      connectRetryTime: 120,
      holdTime: 90,
      keepaliveTime: 30,
      delayOpenTime: 120,
      idleHoldTime: 5,
      maxIdleHoldTime: 120,
      dampResetTime: 300,
      delayOpen: false,
      dampPeerOscillations: true,
      passive: false,
      allowAutomaticStart: true,
      sendNotificationWithoutOpen: true,
    });
  });

  it('derives the keepalive from a configured hold time and accepts a hold time of 0', () => {
    expect(resolveFsmConfig({ holdTime: 9 }).keepaliveTime).toBe(3);
    expect(resolveFsmConfig({ holdTime: 0 })).toMatchObject({ holdTime: 0, keepaliveTime: 0 });
    expect(resolveFsmConfig({ connectRetryTime: 5 }).connectRetryTime).toBe(5);
  });

  it('starts in Idle with nothing running', () => {
    const s = createFsm({ passive: true });
    expect(s).toMatchObject({
      state: 'Idle',
      connectRetryCounter: 0,
      dampingLevel: 0,
      negotiated: null,
      passive: true,
    });
    expect(Object.values(s.timers).every((r) => !r)).toBe(true);
  });

  const bad: [string, Partial<FsmConfig>][] = [
    ['holdTime', { holdTime: 1 }],
    ['holdTime', { holdTime: 2 }],
    ['holdTime', { holdTime: 65536 }],
    ['holdTime', { holdTime: 1.5 }],
    ['keepaliveTime', { keepaliveTime: 0 }],
    ['connectRetryTime', { connectRetryTime: 0 }],
    ['delayOpenTime', { delayOpenTime: -1 }],
    ['idleHoldTime', { idleHoldTime: -1 }],
    ['maxIdleHoldTime', { idleHoldTime: 30, maxIdleHoldTime: 10 }],
    ['dampResetTime', { dampResetTime: Number.NaN }],
    ['passive', { passive: 'yes' as unknown as boolean }],
  ];
  it('accepts idleHoldTime 0: restart at once after a reset (the operator turned the wait off)', () => {
    expect(resolveFsmConfig({ idleHoldTime: 0, dampPeerOscillations: false }).idleHoldTime).toBe(0);
  });

  it.each(bad)('names %s in the error for %o', (field, init) => {
    let caught: unknown;
    try {
      resolveFsmConfig(init);
    } catch (err) {
      caught = err;
    }
    expect(caught).toBeInstanceOf(FsmConfigError);
    expect((caught as FsmConfigError).field).toBe(field);
    expect((caught as FsmConfigError).message).toContain(field);
  });
});
