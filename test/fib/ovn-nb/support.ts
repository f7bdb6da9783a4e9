/* Routes and rows in lab addresses (198.18.0.0/15, 2001:db8::/32) for the OVN NB sink tests. */
import { Afi } from '../../../src/bgp/wire/index.js';
import type { FibChange, FibRoute } from '../../../src/fib/index.js';
import type { RouteSettings } from '../../../src/fib/ovn-nb/index.js';
import type { Row } from '../../../src/ovsdb/index.js';
import { parsePrefix } from '../../../src/rib/index.js';
import type { RouteFields } from './fake-nb.js';

export const MARK_KEY = 'ovn-bgp-speaker';
export const ME = 'fo-speaker-a';
export const OTHER = 'fo-speaker-b';

export const SETTINGS: RouteSettings = { markKey: MARK_KEY, markValue: ME, outputPort: null, routeTable: '' };

export const ours = { [MARK_KEY]: ME };
export const theirs = { [MARK_KEY]: OTHER };

export function route(prefix: string, ...hops: string[]): FibRoute {
  return {
    prefix: parsePrefix(prefix),
    nextHops: hops.map((address) => ({ address, afi: address.includes(':') ? Afi.IPV6 : Afi.IPV4 })),
  };
}

export const add = (prefix: string, ...hops: string[]): FibChange => ({
  kind: 'add',
  route: route(prefix, ...hops),
});
export const withdraw = (prefix: string): FibChange => ({ kind: 'withdraw', prefix: parsePrefix(prefix) });

/** A replica row of Logical_Router_Static_Route with the schema's defaults filled in. */
export function lrsr(uuid: string, f: RouteFields): Row {
  return Object.freeze({
    _uuid: uuid,
    ip_prefix: f.ip_prefix,
    nexthop: f.nexthop,
    output_port: f.output_port ?? null,
    route_table: f.route_table ?? '',
    policy: f.policy ?? null,
    external_ids: new Map(Object.entries(f.external_ids ?? {})),
  });
}

/** "ip_prefix via nexthop" of rows, sorted: what lr-route-list would show, compared as a set. */
export function shown(rows: readonly Row[]): string[] {
  return rows.map((r) => `${r.ip_prefix} via ${r.nexthop}`).sort();
}
