import { BmpDefaults } from '../bmp/index.js';
import type { Context } from './decoders.js';
import { problem } from './problem.js';
import type { BmpCollectorConfig, BmpConfig } from './schema.js';
import type { RawBmp } from './sections.js';

/** The bmp section with its defaults; each collector inherits route_monitoring and statistics_interval. */
export function resolveBmp(raw: RawBmp | undefined, ctx: Context): BmpConfig | undefined {
  if (raw === undefined) return undefined;
  const routeMonitoring = raw.routeMonitoring ?? BmpDefaults.ROUTE_MONITORING;
  const statisticsInterval = raw.statisticsInterval ?? BmpDefaults.STATISTICS_INTERVAL;
  const seen = new Map<string, number>();
  const collectors: BmpCollectorConfig[] = [];
  (raw.collectors ?? []).forEach((c, i) => {
    if (c.address === undefined) return;
    const port = c.port ?? BmpDefaults.PORT;
    const minRetryMs = c.minRetryMs ?? BmpDefaults.MIN_RETRY_MS;
    const maxRetryMs = c.maxRetryMs ?? BmpDefaults.MAX_RETRY_MS;
    const path = ['bmp', 'collectors', i];
    if (minRetryMs > maxRetryMs) {
      ctx.problems.push(
        problem([...path, 'min_retry_ms'], `${minRetryMs} is above max_retry_ms (${maxRetryMs})`, minRetryMs),
      );
    }
    const key = `${c.address} ${port}`;
    const first = seen.get(key);
    if (first !== undefined) {
      ctx.problems.push(
        problem([...path, 'address'], `${c.address} port ${port} is collectors[${first}] already`, c.address),
      );
    }
    seen.set(key, i);
    collectors.push({
      address: c.address,
      port,
      routeMonitoring: c.routeMonitoring ?? routeMonitoring,
      statisticsInterval: c.statisticsInterval ?? statisticsInterval,
      minRetryMs,
      maxRetryMs,
    });
  });
  return { collectors, bufferLimit: raw.bufferLimit ?? BmpDefaults.BUFFER_LIMIT };
}
