import { describe, expect, it } from 'vitest';
import { planReload } from '../../src/config/index.js';
import { parse, SPEAKER } from './support.js';

describe('the bmp section', () => {
  it('absent: no BMP', () => {
    expect(parse(SPEAKER).config.bmp).toBeUndefined();
  });

  it('defaults as documented; a collector inherits route_monitoring and statistics_interval unless it sets its own', () => {
    const { config } = parse(
      `${SPEAKER}bmp:\n  route_monitoring: both\n  statistics_interval: 15\n  collectors:\n    - address: 198.18.0.9\n    - { address: "2001:DB8::9", port: 5000, route_monitoring: post_policy, statistics_interval: 0 }\n`,
    );
    expect(config.bmp).toEqual({
      bufferLimit: 16 * 1024 * 1024,
      collectors: [
        {
          address: '198.18.0.9',
          port: 11019,
          routeMonitoring: 'both',
          statisticsInterval: 15,
          minRetryMs: 1000,
          maxRetryMs: 30_000,
        },
        {
          // Addresses in RFC 5952 text.
          address: '2001:db8::9',
          port: 5000,
          routeMonitoring: 'post_policy',
          statisticsInterval: 0,
          minRetryMs: 1000,
          maxRetryMs: 30_000,
        },
      ],
    });
  });

  it('a changed bmp section is a live change of its own in the reload plan', () => {
    const before = parse(`${SPEAKER}bmp:\n  collectors: [{ address: 198.18.0.9 }]\n`).config;
    const after = parse(`${SPEAKER}bmp:\n  collectors: [{ address: 198.18.0.10 }]\n`).config;
    const plan = planReload(before, after);
    expect(plan.empty).toBe(false);
    expect(plan.bmp).toEqual([{ field: 'bmp', before: before.bmp, after: after.bmp, effect: 'live' }]);
    expect(planReload(before, before).bmp).toEqual([]);
  });
});
