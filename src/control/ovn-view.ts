import type { OvnPathView, OvnStatsView, OvnTableView, OvnView } from '../api/index.js';
import type { OvsdbRemote } from '../config/index.js';
import type { TableReaderStatus } from '../fib/kernel/index.js';
import type { Advertisement } from '../ovn/index.js';
import { MS_PER_SECOND, type OvnPublishing, type TableRouteView } from '../routing/index.js';

/* What `show ovn`, `show rib` and the metrics say of the OVN origin. */

/** The route kinds as `show ovn` names them. */
const KIND_NAMES: Readonly<Record<Advertisement['kind'], string>> = {
  floatingIps: 'floating-ip',
  tenantNetworks: 'tenant-network',
  loadBalancerVips: 'lb-vip',
  providerPorts: 'provider-port',
  podSubnets: 'pod-subnet',
  serviceVips: 'service-vip',
  nat: 'nat',
  lb: 'lb',
  connected: 'connected',
  static: 'static',
};

const remoteList = (list: readonly OvsdbRemote[]) => list.map((r) => r.text).join(',');

/** Before the watcher runs: local mode still asking OVS for our chassis name. */
function waiting(o: OvnPublishing): Pick<OvnView, 'mode' | 'nb' | 'sb'> {
  const c = o.config;
  const error = o.chassisLookupError;
  const why = error ? `: ${error}` : '';
  return {
    mode: `${c.mode} (reading our chassis name from ${c.ovs}${why})`,
    nb: `not started (${remoteList(c.nb)})`,
    sb: `not started (${remoteList(c.sb)})`,
  };
}

/** `ovn.source` and whether the SB serves it (undefined: the SB has not answered yet). */
function sourceText(source: OvnPublishing['config']['source'], inSb: boolean | undefined): string {
  if (source === 'derive' || inSb === undefined) return source;
  if (inSb) return `${source} (Advertised_Route in SB)`;
  return source === 'auto'
    ? 'auto (no Advertised_Route in SB: OVN before 25.03, every router derived)'
    : 'advertised_routes (no Advertised_Route in SB: OVN before 25.03, nothing to advertise)';
}

/** `show ovn`: the watcher's connections, the routes it derived and the problems it met. */
export function ovnView(o: OvnPublishing): OvnView {
  const s = o.status;
  if (!s) return { ...waiting(o), routes: [], problems: [], counts: {} };
  const c = o.config;
  const counts: Record<string, number> = {};
  for (const [k, n] of Object.entries(s.counts)) counts[KIND_NAMES[k as Advertisement['kind']]] = n;
  return {
    mode: `${c.mode} (${s.state})`,
    source: sourceText(c.source, s.advertisedRoutes),
    nb: `${s.nb.state} (${'remote' in s.nb ? s.nb.remote : remoteList(c.nb)})`,
    sb: `${s.sb.state} (${'remote' in s.sb ? s.sb.remote : remoteList(c.sb)})`,
    routes: s.advertisements.map((a) => ({
      prefix: a.prefix,
      nextHop: a.nextHop,
      kind: KIND_NAMES[a.kind],
      origin: a.origin,
      why: a.why,
    })),
    problems: s.problems.map((p) => ({ kind: p.kind, origin: p.origin, message: p.message })),
    counts,
    lastDerivationMs: s.lastDerivationMs,
  };
}

/** Each advertised prefix with the OVN row it came from, for `show rib`. */
export function ovnPaths(o: OvnPublishing | undefined): Map<string, OvnPathView> {
  const out = new Map<string, OvnPathView>();
  for (const a of o?.status?.advertisements ?? [])
    out.set(a.prefix, { kind: KIND_NAMES[a.kind], origin: a.origin, why: a.why });
  return out;
}

/** The OVN gauges of the metrics endpoint. */
export function ovnStats(o: OvnPublishing): OvnStatsView {
  const s = o.status;
  if (!s) return { connected: { nb: false, sb: false }, routes: {}, problems: {}, lastDerivationMs: 0 };
  const routes: Record<string, number> = {};
  for (const [k, n] of Object.entries(s.counts)) routes[KIND_NAMES[k as Advertisement['kind']]] = n;
  const problems: Record<string, number> = {};
  for (const p of s.problems) problems[p.kind] = (problems[p.kind] ?? 0) + 1;
  return {
    connected: { nb: s.nb.state === 'synced', sb: s.sb.state === 'synced' },
    routes,
    problems,
    lastDerivationMs: s.lastDerivationMs,
    ...(s.lastChangeMs !== undefined && { lastChangeMs: s.lastChangeMs }),
  };
}

/** One followed OVN route table, as the part that follows it reports it. */
export interface RouteTableState {
  readonly name: string;
  readonly table: number | undefined;
  readonly reader: TableReaderStatus | undefined;
  readonly routes: readonly TableRouteView[];
  readonly sink: string | undefined;
}

/** `show ovn` of the route tables alone (no `ovn` section: nothing is derived). */
export function routeTablesView(
  tables: readonly RouteTableState[],
  southbound: string | undefined,
  now: number,
): OvnView {
  const counts: Record<string, number> = {};
  for (const t of tables) for (const r of t.routes) counts[r.state] = (counts[r.state] ?? 0) + 1;
  return {
    mode: 'route tables (OVN 25.03+, per chassis)',
    nb: 'not used',
    sb: southbound ?? 'not used (tables given by number)',
    routes: [],
    problems: [],
    counts,
    tables: tables.map((t) => tableView(t, now)),
  };
}

function tableView(t: RouteTableState, now: number): OvnTableView {
  const r = t.reader;
  const last = r?.lastSync;
  const state =
    t.table === undefined
      ? 'router not in the Southbound'
      : !r?.open
        ? `not readable${r?.lastError ? `: ${r.lastError}` : ''}`
        : `following, last read ${Math.round((last?.ageMs ?? 0) / MS_PER_SECOND)} s ago (${last?.reason ?? 'start'})`;
  return {
    name: t.name,
    ...(t.table !== undefined && { table: t.table }),
    state,
    routes: t.routes.map((x) => ({
      prefix: x.prefix,
      metrics: x.metrics,
      state: x.state,
      ...(x.med !== undefined && { med: x.med }),
      ...(x.prepend !== undefined && { prepend: x.prepend }),
      ...(x.until !== undefined && { heldFor: Math.max(0, Math.ceil((x.until - now) / MS_PER_SECOND)) }),
    })),
    ...(t.sink !== undefined && { learnSink: t.sink }),
  };
}
