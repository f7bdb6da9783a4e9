import { type PrefixRules, tryParseIpPrefix } from '../../address/index.js';
import { Afi } from '../../bgp/wire/index.js';
import type { Atom, Row } from '../../ovsdb/index.js';
import { maxLength, RibPrefix } from '../../rib/index.js';
import { POLICY_DST_IP, RouteColumn, RouterColumn } from './constants.js';
import { OvnNbError } from './errors.js';

/*
 * Logical_Router_Static_Route rows as the sink sees them: whose they are (the mark), which
 * prefix they belong to, and whether they are exactly what we would write today.
 */

/** How every row of ours is written: the mark, and the columns fixed by configuration. */
export interface RouteSettings {
  readonly markKey: string;
  readonly markValue: string;
  /** `output_port`; null leaves it empty (northd picks the port from the next hop). */
  readonly outputPort: string | null;
  /** `route_table`; "" is the main table. */
  readonly routeTable: string;
}

/** A row carrying our mark. */
export interface OwnedRow {
  readonly uuid: string;
  /** The prefix it routes (routeKey); `!<ip_prefix>` when that text is not a prefix at all. */
  readonly key: string;
  readonly nexthop: string;
  /** Every column we write holds what we would write now (else the row is replaced). */
  readonly exact: boolean;
}

/** The router the routes go on, as the replica has it. */
export interface RouterView {
  readonly uuid: string;
  /** `_version`: the transaction's precondition. */
  readonly version: string;
  /** `static_routes` (the array object changes whenever the set does). */
  readonly routes: readonly Atom[];
}

/** "198.18.0.0/24", "2001:db8::/64": the key routes and rows are matched by. */
export function routeKey(p: RibPrefix): string {
  return `${p.addr}/${p.len}`;
}

/** `ip_prefix` as ovn-nbctl writes it (normalize_ipv4_prefix): a host route without its length. */
export function ovnIpPrefix(p: RibPrefix): string {
  return p.len === maxLength(p.afi) ? p.addr : `${p.addr}/${p.len}`;
}

/** `ip_prefix` as northd reads it: an address alone is a host route, host bits do not count. */
const IP_PREFIX_COLUMN: PrefixRules = { hostBits: 'clear', bareAddress: true, leadingZeros: true };

/** The prefix an `ip_prefix` names ("198.18.0.1" is a /32), or null. */
export function parseIpPrefixColumn(text: string): RibPrefix | null {
  const p = tryParseIpPrefix(text, IP_PREFIX_COLUMN);
  return p ? RibPrefix.fromWords(p.family === 4 ? Afi.IPV4 : Afi.IPV6, p.words, 0, p.len) : null;
}

export function hasMark(row: Row, settings: RouteSettings): boolean {
  const ids = row[RouteColumn.EXTERNAL_IDS];
  return ids instanceof Map && ids.get(settings.markKey) === settings.markValue;
}

/** The row as ours, or null when it does not carry our mark (hand-made, or another speaker's). */
export function ownedRow(row: Row, settings: RouteSettings): OwnedRow | null {
  if (!hasMark(row, settings)) return null;
  const ipPrefix = String(row[RouteColumn.IP_PREFIX] ?? '');
  const prefix = parseIpPrefixColumn(ipPrefix);
  const policy = row[RouteColumn.POLICY] ?? null;
  const exact =
    prefix !== null &&
    ipPrefix === ovnIpPrefix(prefix) &&
    (row[RouteColumn.OUTPUT_PORT] ?? null) === settings.outputPort &&
    (row[RouteColumn.ROUTE_TABLE] ?? '') === settings.routeTable &&
    (policy === null || policy === POLICY_DST_IP);
  return {
    uuid: row._uuid,
    key: prefix ? routeKey(prefix) : `!${ipPrefix}`,
    nexthop: String(row[RouteColumn.NEXTHOP] ?? ''),
    exact,
  };
}

/**
 * The one Logical_Router named `name`. NB does not index router names, so two routers can share
 * one: that is refused rather than guessed at.
 */
export function findRouter(routers: ReadonlyMap<string, Row>, name: string): RouterView {
  let found: Row | undefined;
  for (const row of routers.values()) {
    if (row[RouterColumn.NAME] !== name) continue;
    if (found)
      throw new OvnNbError(
        'ambiguous-router',
        `more than one Logical_Router is named "${name}" (${found._uuid}, ${row._uuid})`,
      );
    found = row;
  }
  if (!found) throw new OvnNbError('no-router', `no Logical_Router named "${name}" in OVN_Northbound`);
  const version = found[RouterColumn.VERSION];
  const routes = found[RouterColumn.STATIC_ROUTES];
  if (typeof version !== 'string' || !Array.isArray(routes))
    throw new OvnNbError(
      'not-monitored',
      `Logical_Router "${name}": the NB client does not replicate its static_routes and _version (see ovnNbSinkMonitor)`,
    );
  return { uuid: found._uuid, version, routes };
}
