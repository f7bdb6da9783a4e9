import type { BmpView } from '../api/index.js';
import type { CollectorStatus } from '../bmp/index.js';

const VIEW_NAMES = { pre: 'pre-policy', post: 'post-policy' } as const;

/** `show bmp`: each collector's connection, what it is sent and what was dropped. */
export function bmpView(collectors: readonly CollectorStatus[]): BmpView {
  return {
    collectors: collectors.map((c) => ({
      address: c.address,
      port: c.port,
      state: c.state,
      since: new Date(c.since).toISOString(),
      routeMonitoring: c.views.map((v) => VIEW_NAMES[v]),
      peers: c.peers,
      connects: c.connects,
      drops: c.drops,
      messages: c.messages,
      bytes: c.bytes,
      queued: c.queued,
      dumping: c.dumping,
      ...(c.lastError !== undefined && { lastError: c.lastError }),
      ...(c.state === 'waiting' && { retryMs: c.retryMs }),
    })),
  };
}
