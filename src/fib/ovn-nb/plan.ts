import { Afi } from '../../bgp/wire/index.js';
import {
  type Mutation,
  type NamedUuid,
  namedUuid,
  type Operation,
  type RowInput,
} from '../../ovsdb/index.js';
import type { FibRoute } from '../route.js';
import { RouteColumn, RouterColumn, Table } from './constants.js';
import { type OwnedRow, ovnIpPrefix, type RouterView, type RouteSettings, routeKey } from './rows.js';

/*
 * Planning: which rows of ours to insert and which to drop so that each prefix holds exactly
 * one row per wanted next hop, and the one transaction that does it.
 *
 *   wait     Logical_Router _uuid==R  _version==V   (timeout 0: fails if R changed since we read it;
 *                                                   or static_routes=={...}, see Precondition)
 *   insert   Logical_Router_Static_Route ×n         (uuid-names r0..r(n-1), our mark in external_ids)
 *   mutate   Logical_Router _uuid==R  static_routes delete {stale} insert {r0..}
 *   comment  "ovn-bgp-speaker <name>: +n -m static routes"
 *
 * The rows are not roots (isRoot false), so a row the mutate drops from static_routes is
 * garbage collected in the same commit: no delete op.
 */

/** A prefix as it should be in NB: one row per next hop. */
export interface WantedRoute {
  readonly key: string;
  readonly ipPrefix: string;
  /** Canonical text, no duplicates. */
  readonly nexthops: readonly string[];
}

/** A row to insert. */
export interface NewRow {
  readonly key: string;
  readonly ipPrefix: string;
  readonly nexthop: string;
}

export interface RoutePlan {
  readonly inserts: readonly NewRow[];
  /** uuids of our rows to drop from the router. */
  readonly deletes: readonly string[];
}

export interface Wanted {
  /** Null when no next hop can be written: the prefix is then withdrawn. */
  readonly route: WantedRoute | null;
  /** Next hops left out, and why. */
  readonly skipped: readonly string[];
}

/**
 * A FibRoute as rows. northd ignores a static route whose next hop is of the other family
 * ("Address family doesn't match between 'ip_prefix' and 'nexthop'"), so an RFC 8950 IPv6
 * next hop of an IPv4 route is left out rather than written to be ignored.
 */
export function wantedRoute(route: FibRoute): Wanted {
  const nexthops: string[] = [];
  const skipped: string[] = [];
  for (const hop of route.nextHops) {
    if ((hop.afi === Afi.IPV6) !== (route.prefix.afi === Afi.IPV6)) {
      skipped.push(`${hop.address}: next hop family differs from the prefix's (OVN ignores such routes)`);
      continue;
    }
    if (!nexthops.includes(hop.address)) nexthops.push(hop.address);
  }
  const key = routeKey(route.prefix);
  return {
    route: nexthops.length > 0 ? { key, ipPrefix: ovnIpPrefix(route.prefix), nexthops } : null,
    skipped,
  };
}

/**
 * What makes our rows of each of `keys` exactly `desired` (a key not in it: no rows). A row is
 * kept when it is exact and its next hop is wanted and not yet kept; everything else of ours
 * goes (stale next hops, changed settings, duplicates); missing next hops are inserted.
 */
export function planRoutes(
  keys: Iterable<string>,
  desired: ReadonlyMap<string, WantedRoute>,
  owned: (key: string) => readonly OwnedRow[],
): RoutePlan {
  const inserts: NewRow[] = [];
  const deletes: string[] = [];
  // A batch may name a prefix twice (withdraw then add): plan it once, from its final state.
  for (const key of new Set(keys)) {
    const want = desired.get(key);
    const kept = new Set<string>();
    for (const row of owned(key)) {
      if (want && row.exact && want.nexthops.includes(row.nexthop) && !kept.has(row.nexthop))
        kept.add(row.nexthop);
      else deletes.push(row.uuid);
    }
    if (!want) continue;
    for (const nexthop of want.nexthops)
      if (!kept.has(nexthop)) inserts.push({ key, ipPrefix: want.ipPrefix, nexthop });
  }
  return { inserts, deletes };
}

export function isEmptyPlan(plan: RoutePlan): boolean {
  return plan.inserts.length === 0 && plan.deletes.length === 0;
}

/** The row we insert: only the columns we own; policy stays empty (dst-ip). */
export function rowOf(row: NewRow, settings: RouteSettings): RowInput {
  return {
    [RouteColumn.IP_PREFIX]: row.ipPrefix,
    [RouteColumn.NEXTHOP]: row.nexthop,
    ...(settings.outputPort !== null && { [RouteColumn.OUTPUT_PORT]: settings.outputPort }),
    ...(settings.routeTable !== '' && { [RouteColumn.ROUTE_TABLE]: settings.routeTable }),
    [RouteColumn.EXTERNAL_IDS]: { [settings.markKey]: settings.markValue },
  };
}

/**
 * How the transaction checks that the router is still as planned. `version` is one uuid, but
 * each member of a RAFT cluster keeps its own `_version` for the same row (measured on
 * ovsdb-server 3.1), so it holds only for versions read from the server in use: after a
 * resumed session (monitor_cond_since found=true) the replica keeps the old member's. Then
 * the check compares the whole `static_routes` set instead, which every member agrees on.
 */
export type Precondition = 'version' | 'static-routes';

/** The one transaction of a plan (see the diagram at the top). */
export function planOperations(
  plan: RoutePlan,
  router: RouterView,
  settings: RouteSettings,
  precondition: Precondition = 'version',
): Operation[] {
  const self = ['_uuid', '==', router.uuid] as const;
  const byVersion = precondition === 'version';
  const ops: Operation[] = [
    {
      op: 'wait',
      table: Table.ROUTER,
      where: [self],
      columns: [byVersion ? RouterColumn.VERSION : RouterColumn.STATIC_ROUTES],
      until: '==',
      rows: [
        byVersion
          ? { [RouterColumn.VERSION]: router.version }
          : { [RouterColumn.STATIC_ROUTES]: router.routes as readonly string[] },
      ],
      timeout: 0,
    },
  ];
  const names: NamedUuid[] = [];
  plan.inserts.forEach((row, i) => {
    const uuidName = `r${i}`;
    names.push(namedUuid(uuidName));
    ops.push({ op: 'insert', table: Table.STATIC_ROUTE, uuidName, row: rowOf(row, settings) });
  });
  const mutations: Mutation[] = [];
  if (plan.deletes.length > 0) mutations.push([RouterColumn.STATIC_ROUTES, 'delete', plan.deletes]);
  if (names.length > 0) mutations.push([RouterColumn.STATIC_ROUTES, 'insert', names]);
  ops.push({ op: 'mutate', table: Table.ROUTER, where: [self], mutations });
  ops.push({
    op: 'comment',
    comment: `${settings.markKey} ${settings.markValue}: +${plan.inserts.length} -${plan.deletes.length} static routes`,
  });
  return ops;
}
