import { describe, expect, it } from 'vitest';
import { systemClock, systemScheduler } from '../../src/components/index.js';

describe('system clock timers', () => {
  for (const [name, clock] of [
    ['systemClock', systemClock],
    ['systemScheduler', systemScheduler],
  ] as const) {
    it(`${name}: a timer does not hold the process unless it asks to keep it alive`, () => {
      const background = clock.setTimeout(() => {}, 60_000) as NodeJS.Timeout;
      const held = clock.setTimeout(() => {}, 60_000, { keepAlive: true }) as NodeJS.Timeout;
      try {
        expect(background.hasRef()).toBe(false);
        expect(held.hasRef()).toBe(true);
      } finally {
        clock.clearTimeout(background);
        clock.clearTimeout(held);
      }
    });
  }

  it('fires after its delay', async () => {
    const fired = await new Promise<boolean>((resolve) => systemScheduler.setTimeout(() => resolve(true), 1));
    expect(fired).toBe(true);
  });
});
