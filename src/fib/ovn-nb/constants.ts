import type { MonitorSpec } from '../../ovsdb/index.js';

/*
 * OVN_Northbound names this sink reads and writes (ovn-nb(5), schema 7.0.0 of OVN 23.03), and
 * the target's defaults (docs/fib-ovn-nb.md explains each).
 */

export const NB_DATABASE = 'OVN_Northbound';

export const Table = {
  ROUTER: 'Logical_Router',
  STATIC_ROUTE: 'Logical_Router_Static_Route',
} as const;

/** Logical_Router columns: `_version` changes on every write of the row (RFC 7047 3.2). */
export const RouterColumn = { NAME: 'name', STATIC_ROUTES: 'static_routes', VERSION: '_version' } as const;

export const RouteColumn = {
  IP_PREFIX: 'ip_prefix',
  NEXTHOP: 'nexthop',
  OUTPUT_PORT: 'output_port',
  ROUTE_TABLE: 'route_table',
  POLICY: 'policy',
  EXTERNAL_IDS: 'external_ids',
} as const;

/** `policy` of a static route: empty means dst-ip (ovn-nb(5)); we only ever write dst-ip routes. */
export const POLICY_DST_IP = 'dst-ip';
/** `route_table` of the main table: the empty string. */
export const MAIN_ROUTE_TABLE = '';

/** Index of the precondition (`wait`) in our transactions: planOperations puts it first. */
export const PRECONDITION_OP = 0;

/** ovsdb-server's error for a `wait` op whose condition does not hold at timeout 0 (RFC 7047 5.2.6). */
export const WAIT_FAILED = 'timed out';

export const OVN_NB_DEFAULTS = {
  /** external_ids key of our rows; the value says which speaker owns the row. */
  markKey: 'ovn-bgp-speaker',
  /** apply/reconcile wait this long for a synced NB session before they fail with not-connected. */
  readyTimeoutMs: 5000,
  /** After a commit, wait this long at most for the replica to show it before the next plan. */
  settleTimeoutMs: 10_000,
  /** A transaction whose precondition failed (the router changed under us) is re-planned this often. */
  conflictRetries: 5,
  /** Self-repair after a reconnect or a lost transaction: first delay, doubling up to the cap. */
  repairFirstMs: 0,
  repairNextMs: 200,
  repairMaxMs: 30_000,
} as const;

/**
 * What the sink needs replicated: our router's row (name, its static route set, `_version` for
 * the precondition) and the static routes carrying our mark. A client shared with other users
 * must monitor at least this (merge it into its MonitorSpec).
 */
export function ovnNbSinkMonitor(markKey: string, markValue: string): MonitorSpec {
  return {
    [Table.ROUTER]: { columns: [RouterColumn.NAME, RouterColumn.STATIC_ROUTES, RouterColumn.VERSION] },
    [Table.STATIC_ROUTE]: {
      columns: Object.values(RouteColumn),
      // Only our rows cross the wire: a large NB's other routes never reach this replica.
      where: [[RouteColumn.EXTERNAL_IDS, 'includes', { [markKey]: markValue }]],
    },
  };
}
