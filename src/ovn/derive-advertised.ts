import { formatWords, type IpFamily } from '../address/index.js';
import { advertisedPrefix, ovnPrefix } from './addr.js';
import { advertisedRoutesServe } from './derive-dynamic.js';
import { tenantHop } from './derive-kinds.js';
import { boundChassis, chassisHop, chassisNamed, type HopResult } from './derive-nexthop.js';
import { Out, type UnitResult } from './derive-out.js';
import { isDistributedGatewayPort, routerGateway, routerPorts } from './derive-topology.js';
import { mapGet, opt, set, str } from './rows.js';
import { arPrefixKey, type Reader } from './store.js';
import type { AdvertisedRouteKind, OvnDeriveConfig, OvnOrigin } from './types.js';

/*
 * OVN's own routes (OVN 25.03+): one unit per SB Advertised_Route row, which ovn-northd writes
 * for each router with options:dynamic-routing=true and the kinds its
 * dynamic-routing-redistribute names.
 *
 *   Advertised_Route ─ datapath ─► Datapath_Binding ─ external_ids:logical-router ─► NB router
 *        │ ip_prefix      "198.18.171.10" (a host route has no length) ─► 198.18.171.10/32
 *        │ tracked_port   ─► Port_Binding ─ chassis, or its chassis-redirect-port's, or
 *        │                   l3gateway-chassis ─► next hop by the chassis-address rules
 *        │ none, or bound nowhere: the router's gateway port address on the provider network
 *        └ kind           told by NB: a NAT external_ip (nat), a VIP (lb), a network or
 *                         address of the router's ports (connected), anything else (static)
 *
 * OVN writes a NAT or a VIP once per router port (the same prefix, the same tracked port): the
 * row with the lowest uuid speaks for the prefix of its datapath, the others give nothing.
 */

const HOST_LEN = { 4: 32, 6: 128 } as const;

const familyOf = (prefix: string): IpFamily => (prefix.includes(':') ? 6 : 4);

const isHostRoute = (prefix: string): boolean => prefix.endsWith(`/${HOST_LEN[familyOf(prefix)]}`);

/** The networks of a router's ports, and each port's own address as a host route. */
function routerNetworks(r: Reader, router: string): ReadonlySet<string> {
  return r.shared(`nets:${router}`, (s) => {
    const out = new Set<string>();
    const row = s.columns('nb.Logical_Router', router, ['ports']);
    for (const lrp of row ? routerPorts(s, row) : []) {
      for (const text of set(lrp, 'networks')) {
        const p = ovnPrefix(text);
        const net = advertisedPrefix(text);
        if (!p || !net) continue;
        out.add(net);
        out.add(`${formatWords(p.family, p.words)}/${HOST_LEN[p.family]}`);
      }
    }
    return out;
  });
}

/** Which kind an advertised prefix of NB router `router` is, by what NB holds for it. */
export function advertisedKind(r: Reader, router: string | undefined, prefix: string): AdvertisedRouteKind {
  if (isHostRoute(prefix)) {
    // NAT and VIP addresses are looked up in all of NB: OVN also advertises those of the
    // routers connected to this one, and nothing else uses the address.
    if (r.any('natExternal', prefix)) return 'nat';
    if (r.any('lbVip', prefix)) return 'lb';
  }
  if (router && routerNetworks(r, router).has(prefix)) return 'connected';
  return 'static';
}

/**
 * The chassis where a tracked port lives: its own binding, else (a distributed gateway port)
 * its chassis-redirect port's, else (a gateway router's port) its l3gateway-chassis.
 */
function trackedHop(r: Reader, cfg: OvnDeriveConfig, tracked: string, family: IpFamily): HopResult {
  return r.shared(`track:${tracked}:${family}`, (s) => {
    const pb = s.row('sb.Port_Binding', tracked);
    if (!pb) return { ok: false, problem: 'port-missing', message: `tracked port ${tracked} not in SB` };
    const name = str(pb, 'logical_port');
    const own = opt(pb, 'chassis');
    if (own) return chassisHop(s, cfg, own, family, `tracked port ${name}`, 'port-unbound');
    const cr = mapGet(pb, 'options', 'chassis-redirect-port');
    if (cr)
      return chassisHop(
        s,
        cfg,
        boundChassis(s, cr),
        family,
        `tracked port ${name} via ${cr}`,
        'port-unbound',
      );
    const l3 = mapGet(pb, 'options', 'l3gateway-chassis');
    if (l3)
      return chassisHop(
        s,
        cfg,
        chassisNamed(s, l3),
        family,
        `tracked port ${name}, l3gateway-chassis ${l3}`,
        'port-unbound',
      );
    return chassisHop(s, cfg, null, family, `tracked port ${name}`, 'port-unbound');
  });
}

/**
 * The router's own address on the provider network: its gateway port's (`port`, when the row's
 * logical port is a distributed gateway port of a router with several), as for tenant networks.
 */
function addressHop(
  r: Reader,
  cfg: OvnDeriveConfig,
  router: string | undefined,
  port: string,
  family: IpFamily,
): HopResult {
  if (!router) return { ok: false, problem: 'router-missing', message: 'no NB router for the datapath' };
  return r.shared(`arnh:${router}:${port}:${family}`, (s) => {
    const row = s.columns('nb.Logical_Router', router, ['name', 'options', 'ports']);
    if (!row) return { ok: false, problem: 'router-missing', message: `router ${router} is not in NB` };
    const lrp = port ? s.first('lrpName', port) : undefined;
    const gw = routerGateway(s, row, lrp && isDistributedGatewayPort(lrp) ? lrp._uuid : null);
    const name = str(row, 'name');
    if (!gw)
      return {
        ok: false,
        problem: 'router-no-gateway',
        message: `router ${name} has no gateway port on a provider network`,
      };
    return tenantHop(s, cfg, gw, family, name);
  });
}

function advertisedRoute(r: Reader, cfg: OvnDeriveConfig, uuid: string): UnitResult {
  const out = new Out(cfg);
  const row = cfg.source === 'derive' ? undefined : r.row('sb.Advertised_Route', uuid);
  if (!row) return out;
  const datapath = opt(row, 'datapath') ?? '';
  const dp = r.row('sb.Datapath_Binding', datapath);
  const router = dp ? mapGet(dp, 'external_ids', 'logical-router') : undefined;
  // Only the router's name: its other columns change with every NAT and port.
  const nbRouter = router ? r.columns('nb.Logical_Router', router, ['name']) : undefined;
  const routerName = nbRouter
    ? str(nbRouter, 'name')
    : ((dp && mapGet(dp, 'external_ids', 'name')) ?? datapath);
  const portRow = r.row('sb.Port_Binding', opt(row, 'logical_port'));
  const port = portRow ? str(portRow, 'logical_port') : '';
  const origin: OvnOrigin = { db: 'sb', table: 'Advertised_Route', uuid, name: `${routerName}/${port}` };
  const text = str(row, 'ip_prefix');
  const prefix = advertisedPrefix(text);
  if (!prefix) {
    out.problem('bad-address', origin, `ip_prefix ${JSON.stringify(text)} is not a prefix`);
    return out;
  }
  if (r.find('arPrefix', arPrefixKey(datapath, prefix))[0] !== uuid) return out;
  if (cfg.source === 'auto' && (!router || !advertisedRoutesServe(r, cfg, router))) return out;
  const kind = advertisedKind(r, router, prefix);
  if (!cfg.kinds[kind].enabled) return out;
  const family = familyOf(prefix);
  const tracked = opt(row, 'tracked_port');
  let hop = tracked ? trackedHop(r, cfg, tracked, family) : addressHop(r, cfg, router, port, family);
  if (tracked && !hop.ok && hop.problem === 'port-unbound') {
    // Bound nowhere for now (a gateway between chassis): the router's address still leads there.
    const fallback = addressHop(r, cfg, router, port, family);
    hop = fallback.ok ? { ...fallback, why: `${hop.message}; ${fallback.why}` } : hop;
  }
  out.route(kind, prefix, hop, origin);
  return out;
}

/** The root table of OVN's own routes. */
export const ADVERTISED_UNITS = { 'sb.Advertised_Route': advertisedRoute } as const;
