/**
 * The gauges of OVN publishing and of the sinks, read from the speaker at each scrape: OVN's
 * connection, routes and problems per kind, derivation and change times; each sink's state,
 * backlog, applied changes and failures.
 */
import { Counter, Gauge, type Registry } from 'prom-client';
import { MS_PER_SECOND } from '../components/index.js';
import type { OvnStatsView, SinkView } from './types.js';

export interface ForwardingMetricsSource {
  /** Null when no ovn section is configured. */
  readonly ovn: () => OvnStatsView | null;
  readonly sinks: () => readonly SinkView[];
}

export function registerForwardingMetrics(registry: Registry, source: ForwardingMetricsSource): void {
  const registers = [registry];
  // One read per scrape, however many gauges use it (collects run in one tick).
  let ovn: OvnStatsView | null | undefined;
  let sinks: readonly SinkView[] | undefined;
  const readOvn = () => {
    if (ovn === undefined) {
      ovn = source.ovn();
      queueMicrotask(() => (ovn = undefined));
    }
    return ovn;
  };
  const readSinks = () => {
    if (sinks === undefined) {
      sinks = source.sinks();
      queueMicrotask(() => (sinks = undefined));
    }
    return sinks;
  };

  new Gauge({
    name: 'ovn_connected',
    help: '1 when the OVN database is connected and its replica in sync, else 0',
    labelNames: ['db'],
    registers,
    collect() {
      this.reset();
      const o = readOvn();
      if (o) for (const db of ['nb', 'sb'] as const) this.set({ db }, Number(o.connected[db]));
    },
  });
  for (const [name, help, read] of [
    ['ovn_routes', 'OVN-derived routes advertised, per kind', (o: OvnStatsView) => o.routes],
    ['ovn_problems', 'OVN routes that could not be advertised, per reason', (o: OvnStatsView) => o.problems],
  ] as const) {
    new Gauge({
      name,
      help,
      labelNames: ['kind'],
      registers,
      collect() {
        this.reset();
        const o = readOvn();
        if (o) for (const [kind, n] of Object.entries(read(o))) this.set({ kind }, n);
      },
    });
  }
  new Gauge({
    name: 'ovn_derivation_seconds',
    help: 'Time the last derivation of OVN routes took',
    registers,
    collect() {
      this.reset();
      const o = readOvn();
      if (o) this.set(o.lastDerivationMs / MS_PER_SECOND);
    },
  });
  new Gauge({
    name: 'ovn_change_to_rib_seconds',
    help: 'Last OVN change: from its OVSDB update arriving to its routes in the RIB (coalescing included)',
    registers,
    collect() {
      this.reset();
      const ms = readOvn()?.lastChangeMs;
      if (ms !== undefined) this.set(ms / MS_PER_SECOND);
    },
  });

  new Gauge({
    name: 'sink_in_sync',
    help: '1 when the sink holds every best path it should, else 0 (starting, syncing, retrying)',
    labelNames: ['sink'],
    registers,
    collect() {
      this.reset();
      for (const s of readSinks()) this.set({ sink: s.name }, Number(s.state === 'in-sync'));
    },
  });
  new Gauge({
    name: 'sink_pending_changes',
    help: 'Route changes waiting for the sink, coalesced per prefix',
    labelNames: ['sink'],
    registers,
    collect() {
      this.reset();
      for (const s of readSinks()) this.set({ sink: s.name }, s.pending);
    },
  });
  for (const [name, help, read] of [
    ['sink_changes_applied_total', 'Route changes the sink took', (s: SinkView) => s.applied],
    [
      'sink_failures_total',
      'Failed applies and reconciles of the sink (each retried)',
      (s: SinkView) => s.failures,
    ],
  ] as const) {
    new Counter({
      name,
      help,
      labelNames: ['sink'],
      registers,
      collect() {
        this.reset();
        for (const s of readSinks()) this.inc({ sink: s.name }, read(s));
      },
    });
  }
}
