import { describe, expect, it } from 'vitest';
import type { BmpView } from '../../src/api/index.js';
import { formatBmp } from '../../src/cli/format-bmp.js';

const VIEW: BmpView = {
  collectors: [
    {
      address: '198.18.0.9',
      port: 11019,
      state: 'up',
      since: '2026-12-06T23:00:00.000Z',
      routeMonitoring: ['pre-policy', 'post-policy'],
      peers: 3,
      connects: 2,
      drops: 1,
      messages: 420,
      bytes: 51_000,
      queued: 0,
      dumping: false,
    },
    {
      address: '2001:db8::9',
      port: 5000,
      state: 'waiting',
      since: '2026-12-06T23:01:00.000Z',
      routeMonitoring: ['post-policy'],
      peers: 0,
      connects: 0,
      drops: 0,
      messages: 0,
      bytes: 0,
      queued: 0,
      dumping: false,
      lastError: 'connect ECONNREFUSED 2001:db8::9:5000',
      retryMs: 4000,
    },
  ],
};

describe('show bmp', () => {
  it('one row per collector: state, views, peers told, messages, drops; why a collector is down below', () => {
    const out = formatBmp(VIEW).split('\n');
    expect(out[0]).toMatch(/^Collector +State +Since +Monitoring +Peers +Messages +Queued +Connects +Drops$/);
    expect(out[1]).toMatch(
      /^198\.18\.0\.9:11019 +up +2026-12-06T23:00:00\.000Z +pre-policy, post-policy +3 +420 +0 +2 +1$/,
    );
    expect(out[2]).toMatch(/^\[2001:db8::9\]:5000 +waiting /);
    expect(out.slice(3)).toEqual([
      '',
      '2001:db8::9 port 5000: last error: connect ECONNREFUSED 2001:db8::9:5000; next attempt in 4000 ms',
    ]);
  });

  it('says so when no collector is configured', () => {
    expect(formatBmp({ collectors: [] })).toBe('No BMP collectors configured');
  });
});
