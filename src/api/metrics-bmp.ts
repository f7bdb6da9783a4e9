import { Counter, Gauge, type Registry } from 'prom-client';
import type { BmpView } from './types.js';

type Labels = Record<'collector', string>;

/**
 * BMP collectors' metrics, read from `show bmp` at each scrape. The totals are the station's
 * own counts: they start again from zero when a reload connects the collectors anew, which
 * Prometheus reads as a counter reset.
 */
export function registerBmpMetrics(registry: Registry, read: () => BmpView): void {
  const registers = [registry];
  let view: BmpView | undefined;
  const current = () => {
    if (view === undefined) {
      view = read();
      queueMicrotask(() => (view = undefined));
    }
    return view;
  };
  const label = (c: BmpView['collectors'][number]): Labels => ({
    collector: c.address.includes(':') ? `[${c.address}]:${c.port}` : `${c.address}:${c.port}`,
  });
  new Gauge({
    name: 'bmp_collector_up',
    help: 'BMP (RFC 7854): 1 while the connection to the collector is up, else 0',
    labelNames: ['collector'],
    registers,
    collect() {
      this.reset();
      for (const c of current().collectors) this.set(label(c), c.state === 'up' ? 1 : 0);
    },
  });
  new Gauge({
    name: 'bmp_queued_bytes',
    help: 'BMP bytes waiting for the collector',
    labelNames: ['collector'],
    registers,
    collect() {
      this.reset();
      for (const c of current().collectors) this.set(label(c), c.queued);
    },
  });
  for (const [name, help, value] of [
    [
      'bmp_queue_drops_total',
      'Times the queue for a slow collector passed its limit and was dropped',
      'drops',
    ],
    ['bmp_messages_sent_total', 'BMP messages written to the collector', 'messages'],
    ['bmp_connects_total', 'Connections made to the collector', 'connects'],
  ] as const) {
    new Counter({
      name,
      help,
      labelNames: ['collector'],
      registers,
      collect() {
        this.reset();
        for (const c of current().collectors) this.inc(label(c), c[value]);
      },
    });
  }
}
