import type { Row } from '../ovsdb/index.js';
import { mapGet } from './rows.js';
import type { Reader } from './store.js';
import type { OvnDeriveConfig } from './types.js';

/*
 * Which routers OVN's own Advertised_Route speaks for (OVN 25.03+: ovn-northd computes what a
 * router with options:dynamic-routing=true advertises). The derived units of such a router
 * give nothing and its Advertised_Route rows give its routes; both ask this one question, so
 * a prefix is never advertised from both, and a router switching over moves its routes in one
 * step (a replace at the peers, no withdrawal in between):
 *
 *   source derive              no router
 *   source advertised_routes   every router
 *   source auto                a router with dynamic routing on in NB once SB holds at least
 *                              one Advertised_Route row of its datapath; until ovn-northd has
 *                              written them the router stays derived, so switching on leaves
 *                              no gap, and an SB without the table (OVN < 25.03) holds none
 */

/** The NB Logical_Router option that hands a router's routes to OVN. */
export const DYNAMIC_ROUTING_OPTION = 'dynamic-routing';

export function dynamicRoutingOn(router: Row): boolean {
  return mapGet(router, 'options', DYNAMIC_ROUTING_OPTION) === 'true';
}

/** Whether Advertised_Route gives the routes of NB router `router` (a uuid). */
export function advertisedRoutesServe(r: Reader, cfg: OvnDeriveConfig, router: string): boolean {
  if (cfg.source === 'derive') return false;
  if (cfg.source === 'advertised_routes') return true;
  // One value for the router's every unit (10,000 floating IPs read it): its reads change
  // only when the option does or the router's rows in SB come or all go.
  return r.shared(`dr:${router}`, (s) => {
    const row = s.columns('nb.Logical_Router', router, ['options']);
    if (!row || !dynamicRoutingOn(row)) return false;
    return s.find('dpRouter', router).some((dp) => s.any('arDatapath', dp));
  });
}
