import type { BmpView } from '../api/types.js';
import { renderTable } from './table.js';

/** `show bmp`: each collector, its connection and what it was sent and dropped. */
export function formatBmp(v: BmpView): string {
  if (v.collectors.length === 0) return 'No BMP collectors configured';
  const lines = renderTable(
    [
      { header: 'Collector', align: 'left' },
      { header: 'State', align: 'left' },
      { header: 'Since', align: 'left' },
      { header: 'Monitoring', align: 'left' },
      { header: 'Peers', align: 'right' },
      { header: 'Messages', align: 'right' },
      { header: 'Queued', align: 'right' },
      { header: 'Connects', align: 'right' },
      { header: 'Drops', align: 'right' },
    ],
    v.collectors.map((c) => [
      c.address.includes(':') ? `[${c.address}]:${c.port}` : `${c.address}:${c.port}`,
      c.dumping ? `${c.state} (sending the state)` : c.state,
      c.since,
      c.routeMonitoring.join(', '),
      String(c.peers),
      String(c.messages),
      String(c.queued),
      String(c.connects),
      String(c.drops),
    ]),
  );
  for (const c of v.collectors) {
    const why = [
      c.lastError && `last error: ${c.lastError}`,
      c.retryMs !== undefined && `next attempt in ${c.retryMs} ms`,
    ].filter(Boolean);
    if (why.length) lines.push('', `${c.address} port ${c.port}: ${why.join('; ')}`);
  }
  return lines.join('\n');
}
