/*
 * What the OVN demo prints: each route FRR learned from the speaker beside the OVN row it
 * came from (the speaker's `show ovn --json`), joined by prefix. Pure: the CLI fetches.
 */
import type { NeighborSummary, OvnRouteView, OvnView } from '../../src/api/index.js';
import type { NeighborStatus, ReceivedRoute } from '../lab/index.js';

/** The order kinds are printed in: the host routes first, then networks. */
export const KIND_ORDER = [
  'floating-ip',
  'lb-vip',
  'provider-port',
  'service-vip',
  'tenant-network',
  'pod-subnet',
] as const;

export interface DemoRoute {
  readonly prefix: string;
  /** The next hop FRR holds (global address; a link-local one is left out). */
  readonly frrNextHop: string;
  /** The next hop the speaker derived from OVN. */
  readonly ovnNextHop: string;
  readonly asPath: readonly number[];
  readonly best: boolean;
  readonly kind: string;
  readonly table: string;
  readonly name: string;
  readonly why: string;
}

export interface Joined {
  /** OVN routes FRR holds, in print order. */
  readonly routes: readonly DemoRoute[];
  /** OVN routes FRR does not hold (yet), or holds with another next hop. */
  readonly missing: readonly OvnRouteView[];
  /** Routes FRR learned from the speaker that have no OVN row behind them. */
  readonly other: readonly ReceivedRoute[];
}

const LINK_LOCAL = /^fe[89ab][0-9a-f]:/i;

function globalNextHop(r: ReceivedRoute): string {
  return r.nextHops.find((h) => !LINK_LOCAL.test(h)) ?? r.nextHops[0] ?? '';
}

const kindRank = (kind: string): number => {
  const i = (KIND_ORDER as readonly string[]).indexOf(kind);
  return i < 0 ? KIND_ORDER.length : i;
};
const isV6 = (prefix: string): number => (prefix.includes(':') ? 1 : 0);

/** Print order: kind, then IPv4 before IPv6, then prefix. */
export function compareRoutes(
  a: { kind: string; prefix: string },
  b: { kind: string; prefix: string },
): number {
  return (
    kindRank(a.kind) - kindRank(b.kind) ||
    isV6(a.prefix) - isV6(b.prefix) ||
    a.prefix.localeCompare(b.prefix, 'en', { numeric: true })
  );
}

/**
 * Joins FRR's routes from the speaker (`speakerAddresses`: the speaker's ends of the sessions)
 * with the OVN routes of `show ovn`. A route counts as at FRR when FRR's best path for the
 * prefix came from the speaker with the next hop the speaker chose.
 */
export function joinRoutes(
  frr: readonly ReceivedRoute[],
  ovn: OvnView,
  speakerAddresses: readonly string[],
): Joined {
  const fromSpeaker = frr.filter((r) => speakerAddresses.includes(r.from) && r.best);
  const byPrefix = new Map(fromSpeaker.map((r) => [r.prefix, r]));
  const routes: DemoRoute[] = [];
  const missing: OvnRouteView[] = [];
  const seen = new Set<string>();
  for (const o of ovn.routes) {
    seen.add(o.prefix);
    const r = byPrefix.get(o.prefix);
    if (r === undefined || globalNextHop(r) !== o.nextHop) {
      missing.push(o);
      continue;
    }
    routes.push({
      prefix: o.prefix,
      frrNextHop: globalNextHop(r),
      ovnNextHop: o.nextHop,
      asPath: r.asPath,
      best: r.best,
      kind: o.kind,
      table: o.origin.table,
      name: o.origin.name,
      why: o.why,
    });
  }
  routes.sort(compareRoutes);
  missing.sort(compareRoutes);
  const other = fromSpeaker.filter((r) => !seen.has(r.prefix));
  return { routes, missing, other };
}

/** Columns as wide as their widest cell, no trailing spaces. */
export function table(headers: readonly string[], rows: readonly (readonly string[])[]): string[] {
  const widths = headers.map((h, i) => Math.max(h.length, ...rows.map((r) => (r[i] ?? '').length)));
  const line = (cells: readonly string[]) =>
    cells
      .map((c, i) => c.padEnd(widths[i]!))
      .join('  ')
      .trimEnd();
  return [line(headers), ...rows.map(line)];
}

const UUID = /\b([0-9a-f]{8})-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}\b/g;

/** UUIDs (an ovn-kubernetes chassis name) cut to their first 8 digits, so a table line stays readable. */
export const shortUuids = (text: string): string => text.replace(UUID, '$1…');

/** The routes table: one line per route FRR holds, with the OVN row and the reason for its next hop. */
export function formatRoutes(routes: readonly DemoRoute[]): string[] {
  return table(
    ['Prefix', 'Next hop at FRR', 'AS path', 'Kind', 'From OVN (table, name)', 'Next hop because'],
    routes.map((r) => [
      r.prefix,
      r.frrNextHop,
      r.asPath.join(' '),
      r.kind,
      `${r.table} ${r.name}`,
      shortUuids(r.why),
    ]),
  );
}

/** Counts per family and kind, e.g. "14 routes (7 IPv4, 7 IPv6): floating-ip 4, lb-vip 2, ...". */
export function formatCounts(routes: readonly DemoRoute[]): string {
  const v6 = routes.filter((r) => isV6(r.prefix)).length;
  const kinds = KIND_ORDER.map((k) => [k, routes.filter((r) => r.kind === k).length] as const)
    .filter(([, n]) => n > 0)
    .map(([k, n]) => `${k} ${n}`);
  return `${routes.length} routes (${routes.length - v6} IPv4, ${v6} IPv6): ${kinds.join(', ')}`;
}

/** One line per session, as each side sees it. */
export function formatSessions(
  speaker: readonly NeighborSummary[],
  frr: readonly NeighborStatus[],
): string[] {
  return [
    ...speaker.map((n) => `speaker: ${n.name} ${n.address} AS ${n.remoteAs} ${n.state}`),
    ...frr.map((n) => `FRR:     neighbor ${n.address} AS ${n.remoteAs ?? '?'} ${n.state}`),
  ];
}

type Json = Record<string, unknown>;
const isObject = (v: unknown): v is Json => typeof v === 'object' && v !== null && !Array.isArray(v);

/** The best path in `show bgp <afi> unicast PREFIX json`: the peer it came from and its next hops. */
export function parseFrrBestPath(text: string): { from: string; nextHops: string[] } | undefined {
  const doc: unknown = JSON.parse(text);
  const paths = isObject(doc) && Array.isArray(doc.paths) ? doc.paths : [];
  for (const p of paths) {
    if (!isObject(p) || !isObject(p.bestpath) || p.bestpath.overall !== true) continue;
    const from = isObject(p.peer) && typeof p.peer.peerId === 'string' ? p.peer.peerId : '';
    const nextHops = Array.isArray(p.nexthops)
      ? p.nexthops.flatMap((h) => (isObject(h) && typeof h.ip === 'string' ? [h.ip] : []))
      : [];
    return { from, nextHops };
  }
  return undefined;
}

/** `2026/12/03 17:08:18.445` at the start of a bgpd log line (`log timestamp precision 3`), local time. */
const LOG_TIME = /^(\d{4})\/(\d{2})\/(\d{2}) (\d{2}):(\d{2}):(\d{2})(?:\.(\d{1,6}))?/;

/**
 * When bgpd logged receiving `prefix` (with `debug bgp updates in`: "... rcvd 198.18.64.30/32
 * IPv4 unicast"): epoch milliseconds and the log's own time stamp; the first such line of `log`.
 */
export function frrReceivedAt(log: string, prefix: string): { at: number; stamp: string } | undefined {
  for (const line of log.split('\n')) {
    if (!line.includes(` rcvd ${prefix} `)) continue;
    const m = LOG_TIME.exec(line);
    if (!m) continue;
    const n = (i: number) => Number(m[i]);
    const ms = Number((m[7] ?? '').padEnd(3, '0').slice(0, 3));
    return { at: new Date(n(1), n(2) - 1, n(3), n(4), n(5), n(6), ms).getTime(), stamp: m[0] };
  }
  return undefined;
}

/** `2026-12-03T17:51:27.252Z` at the start of an OVS daemon's log line (always UTC). */
const OVS_LOG_TIME = /^(\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d(?:\.\d+)?Z)\|/;

/**
 * When ovsdb-server sent the first update notification carrying the NAT row of `externalIp`
 * (its log with `vlog/set jsonrpc:file:dbg`): the commit as every monitor, the speaker's
 * included, receives it.
 */
export function ovsdbNotifiedAt(log: string, externalIp: string): { at: number; stamp: string } | undefined {
  const needle = `"external_ip":${JSON.stringify(externalIp)}`;
  for (const line of log.split('\n')) {
    if (!line.includes('send notification') || !line.includes(needle)) continue;
    const m = OVS_LOG_TIME.exec(line);
    if (m) return { at: Date.parse(m[1]!), stamp: m[1]! };
  }
  return undefined;
}
