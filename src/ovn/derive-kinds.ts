import {
  formatIpPrefix,
  formatWords,
  type IpFamily,
  type IpPrefix,
  networkOf,
  prefixContains,
} from '../address/index.js';
import type { Row } from '../ovsdb/index.js';
import { hostPrefix, ovnIp, ovnPrefix, vipAddress } from './addr.js';
import { advertisedRoutesServe } from './derive-dynamic.js';
import { boundChassis, chassisHop, chassisNamed, type HopResult } from './derive-nexthop.js';
import { Out, type UnitResult } from './derive-out.js';
import {
  gatewayRouterChassisName,
  isDistributedGatewayPort,
  isProviderSwitch,
  peerSwitch,
  type RouterGateway,
  routerGateway,
  routerPorts,
  switchOfPort,
} from './derive-topology.js';
import { mapGet, opt, set, str } from './rows.js';
import type { Reader, TableRef } from './store.js';
import type { OvnDeriveConfig, OvnOrigin, OvnRouteKind } from './types.js';

/*
 * One unit of derivation per root row: a NAT row (floating IP), a router (tenant networks, LB
 * and service VIPs), a switch port (provider-network workload), a switch (ovn-kubernetes pod
 * subnet). Each reads only through its Reader, so its dependencies are known exactly.
 */

/** ovn-kubernetes names each node's gateway router `GR_<node>`. */
export const OVNK_GATEWAY_ROUTER_PREFIX = 'GR_';

const nb = (table: string, row: Row, name: string): OvnOrigin => ({ db: 'nb', table, uuid: row._uuid, name });

function gatewayHop(r: Reader, cfg: OvnDeriveConfig, gw: RouterGateway, family: IpFamily): HopResult {
  return chassisHop(r, cfg, gw.chassis, family, gw.context, gw.unbound);
}

// --- floating IPs ---------------------------------------------------------------------------

/** What a floating IP reads of its router: its name and options:chassis (gateway router). */
const ROUTER_COLUMNS_OF_FIP = ['name', 'options'] as const;
/** What finding a router's gateway reads of it (routerGateway). */
const ROUTER_COLUMNS_OF_GATEWAY = ['name', 'options', 'ports'] as const;

/**
 * The next hop of a centralized FIP: its router's gateway, the same for every FIP of the
 * router (and gateway port, and family), so derived once for all of them. null: no gateway.
 */
function routerGatewayHop(
  r: Reader,
  cfg: OvnDeriveConfig,
  router: string,
  viaPort: string | null,
  family: IpFamily,
): HopResult | null {
  return r.shared(`gw:${router}:${viaPort ?? ''}:${family}`, (s) => {
    const row = s.columns('nb.Logical_Router', router, ROUTER_COLUMNS_OF_GATEWAY);
    const gw = row ? routerGateway(s, row, viaPort) : undefined;
    return gw ? gatewayHop(s, cfg, gw, family) : null;
  });
}

function floatingIp(r: Reader, cfg: OvnDeriveConfig, uuid: string): UnitResult {
  const out = new Out(cfg);
  const nat = r.row('nb.NAT', uuid);
  if (!nat || !cfg.kinds.floatingIps.enabled || str(nat, 'type') !== 'dnat_and_snat') return out;
  // Not the router's `nat`: every other NAT of the router changes it.
  const router = r.firstColumns('routerNat', uuid, ROUTER_COLUMNS_OF_FIP);
  if (!router || advertisedRoutesServe(r, cfg, router._uuid)) return out;
  const external = str(nat, 'external_ip');
  const origin = nb('NAT', nat, `${str(router, 'name')}/${external}`);
  const ip = ovnIp(external);
  if (!ip) {
    out.problem('bad-address', origin, `external_ip ${JSON.stringify(external)} is not an address`);
    return out;
  }
  const prefix = hostPrefix(ip);
  const port = opt(nat, 'logical_port');
  if (gatewayRouterChassisName(router) === undefined && port && opt(nat, 'external_mac')) {
    // Distributed: the FIP is answered where the VM runs (ovn-northd puts is_chassis_resident(vm) on it).
    const chassis = boundChassis(r, port);
    out.route(
      'floatingIps',
      prefix,
      chassisHop(r, cfg, chassis, ip.family, `Port_Binding ${port}`, 'port-unbound'),
      origin,
    );
    return out;
  }
  const hop = routerGatewayHop(r, cfg, router._uuid, opt(nat, 'gateway_port'), ip.family);
  if (!hop) {
    out.problem('router-no-gateway', origin, `${prefix}: router ${str(router, 'name')} has no gateway port`);
    return out;
  }
  out.route('floatingIps', prefix, hop, origin);
  return out;
}

// --- routers: tenant networks, LB VIPs, service VIPs --------------------------------------

function hasMarker(row: Row | undefined, marker: string): boolean {
  const v = row ? mapGet(row, 'external_ids', marker) : undefined;
  return v !== undefined && v !== 'false';
}

function selected(cfg: OvnDeriveConfig, net: IpPrefix, router: Row, sw: Row | undefined): boolean {
  const select = cfg.kinds.tenantNetworks.select;
  if (select === 'all') return true;
  if ('prefixes' in select)
    return select.prefixes.some((p) => {
      const allow = ovnPrefix(p);
      return allow !== null && prefixContains(allow, net);
    });
  return hasMarker(router, select.marker) || hasMarker(sw, select.marker);
}

function tenantNetworks(r: Reader, cfg: OvnDeriveConfig, router: Row, gw: RouterGateway, out: Out): void {
  const name = str(router, 'name');
  // Networks SNATed on the gateway hide behind the SNAT address: not routable from outside.
  const snat: IpPrefix[] = [];
  for (const uuid of set(router, 'nat')) {
    const nat = r.row('nb.NAT', uuid);
    const c = nat && str(nat, 'type') === 'snat' ? ovnPrefix(str(nat, 'logical_ip')) : null;
    if (c) snat.push(networkOf(c));
  }
  for (const lrp of routerPorts(r, router)) {
    if (lrp === gw.lrp || isDistributedGatewayPort(lrp)) continue;
    const sw = peerSwitch(r, lrp);
    if (isProviderSwitch(r, sw?._uuid)) continue;
    for (const text of set(lrp, 'networks')) {
      const c = ovnPrefix(text);
      if (!c) continue;
      const net = networkOf(c);
      if (snat.some((s) => prefixContains(s, net)) || !selected(cfg, net, router, sw)) continue;
      const origin = nb('Logical_Router_Port', lrp, `${name}/${str(lrp, 'name')}`);
      out.route('tenantNetworks', formatIpPrefix(net), tenantHop(r, cfg, gw, c.family, name), origin);
    }
  }
}

/** Tenant networks go via the router's own gateway address on the provider network. */
export function tenantHop(
  r: Reader,
  cfg: OvnDeriveConfig,
  gw: RouterGateway,
  family: IpFamily,
  router: string,
): HopResult {
  if (cfg.mode === 'local') {
    // Ours only while our chassis holds the gateway; the next hop stays the gateway address.
    const hop = gatewayHop(r, cfg, gw, family);
    if (!hop.ok && hop.problem === null) return hop;
  }
  const lrpName = gw.lrp ? str(gw.lrp, 'name') : '';
  for (const text of gw.lrp ? set(gw.lrp, 'networks') : []) {
    const c = ovnPrefix(text);
    if (c && c.family === family)
      return {
        ok: true,
        nextHop: formatWords(c.family, c.words),
        why: `gateway port ${lrpName} of router ${router} (${text})`,
      };
  }
  return {
    ok: false,
    problem: 'gateway-no-address',
    message: `router ${router} has no ${family === 4 ? 'IPv4' : 'IPv6'} gateway address on a provider network`,
  };
}

/** Load balancers of a router: its own, its groups', and those of the switches behind it. */
function routerLoadBalancers(r: Reader, router: Row, gw: RouterGateway): Row[] {
  const uuids = new Set<string>();
  const take = (row: Row) => {
    for (const lb of set(row, 'load_balancer')) uuids.add(lb);
    for (const g of set(row, 'load_balancer_group')) {
      const group = r.row('nb.Load_Balancer_Group', g);
      if (group) for (const lb of set(group, 'load_balancer')) uuids.add(lb);
    }
  };
  take(router);
  for (const lrp of routerPorts(r, router)) {
    if (lrp === gw.lrp || isDistributedGatewayPort(lrp)) continue;
    const sw = peerSwitch(r, lrp);
    if (sw && !isProviderSwitch(r, sw._uuid)) take(sw);
  }
  const out: Row[] = [];
  for (const uuid of [...uuids].sort()) {
    const lb = r.row('nb.Load_Balancer', uuid);
    if (lb) out.push(lb);
  }
  return out;
}

function vips(r: Reader, cfg: OvnDeriveConfig, router: Row, gw: RouterGateway, out: Out): void {
  const name = str(router, 'name');
  const ovnk = name.startsWith(OVNK_GATEWAY_ROUTER_PREFIX);
  const kind: OvnRouteKind = ovnk ? 'serviceVips' : 'loadBalancerVips';
  if (!cfg.kinds[kind].enabled) return;
  for (const lb of routerLoadBalancers(r, router, gw)) {
    const origin = nb('Load_Balancer', lb, str(lb, 'name'));
    const map = lb.vips;
    const keys = map instanceof Map ? [...map.keys()].map(String).sort() : [];
    for (const key of keys) {
      const ip = ovnIp(vipAddress(key));
      if (!ip) {
        out.problem('bad-address', origin, `VIP ${JSON.stringify(key)} is not an address`);
        continue;
      }
      const context = ovnk
        ? `node ${name.slice(OVNK_GATEWAY_ROUTER_PREFIX.length)}, ${gw.context}`
        : gw.context;
      out.route(kind, hostPrefix(ip), gatewayHop(r, cfg, { ...gw, context }, ip.family), origin);
    }
  }
}

function router(r: Reader, cfg: OvnDeriveConfig, uuid: string): UnitResult {
  const out = new Out(cfg);
  const row = r.row('nb.Logical_Router', uuid);
  if (!row || advertisedRoutesServe(r, cfg, uuid)) return out;
  const k = cfg.kinds;
  if (!k.tenantNetworks.enabled && !k.loadBalancerVips.enabled && !k.serviceVips.enabled) return out;
  const gw = routerGateway(r, row);
  if (!gw) return out;
  // ovn-kubernetes gateway routers carry the join network; pod subnets are their own kind.
  if (k.tenantNetworks.enabled && !str(row, 'name').startsWith(OVNK_GATEWAY_ROUTER_PREFIX))
    tenantNetworks(r, cfg, row, gw, out);
  vips(r, cfg, row, gw, out);
  return out;
}

// --- provider-network ports -------------------------------------------------------------

/** IPs of an LSP's addresses (`"MAC IP [IP...]"`), or its dynamic_addresses for `dynamic`. */
export function portIps(lsp: Row): string[] {
  const ips: string[] = [];
  const entries = [...set(lsp, 'addresses')];
  if (entries.includes('dynamic')) {
    const dyn = opt(lsp, 'dynamic_addresses');
    if (dyn) entries.push(dyn);
  }
  for (const entry of entries) {
    const words = entry.trim().split(/\s+/);
    for (const w of words.slice(1)) {
      const ip = ovnIp(w.includes('/') ? w.slice(0, w.indexOf('/')) : w);
      if (ip) ips.push(hostPrefix(ip));
    }
  }
  return ips;
}

function providerPort(r: Reader, cfg: OvnDeriveConfig, uuid: string): UnitResult {
  const out = new Out(cfg);
  const lsp = r.row('nb.Logical_Switch_Port', uuid);
  if (!lsp || !cfg.kinds.providerPorts.enabled || str(lsp, 'type') !== '') return out;
  if (!isProviderSwitch(r, switchOfPort(r, uuid))) return out;
  const name = str(lsp, 'name');
  const origin = nb('Logical_Switch_Port', lsp, name);
  const ips = portIps(lsp);
  if (ips.length === 0) return out;
  const chassis = boundChassis(r, name);
  for (const prefix of ips) {
    const family: IpFamily = prefix.includes(':') ? 6 : 4;
    out.route(
      'providerPorts',
      prefix,
      chassisHop(r, cfg, chassis, family, `Port_Binding ${name}`, 'port-unbound'),
      origin,
    );
  }
  return out;
}

// --- ovn-kubernetes node switches -------------------------------------------------------

/** The chassis of a Kubernetes node: its GR's options:chassis, else the chassis named or hosted so. */
function nodeChassis(r: Reader, node: string, gr: Row): { uuid: string | null; context: string } {
  const grChassis = gatewayRouterChassisName(gr);
  if (grChassis !== undefined)
    return { uuid: chassisNamed(r, grChassis), context: `node ${node}, ${str(gr, 'name')} options:chassis` };
  const byHost = r.find('chassisHost', node)[0];
  if (byHost) return { uuid: byHost, context: `node ${node}, Chassis hostname` };
  return { uuid: chassisNamed(r, node), context: `node ${node}, Chassis name` };
}

function podSubnets(r: Reader, cfg: OvnDeriveConfig, uuid: string): UnitResult {
  const out = new Out(cfg);
  const sw = r.row('nb.Logical_Switch', uuid);
  if (!sw || !cfg.kinds.podSubnets.enabled) return out;
  const node = str(sw, 'name');
  const subnet = mapGet(sw, 'other_config', 'subnet');
  const v6 = mapGet(sw, 'other_config', 'ipv6_prefix');
  if (subnet === undefined && v6 === undefined) return out;
  // A node switch is one with a gateway router `GR_<node>`; other subnets are tenant switches.
  const gr = r.first('routerName', `${OVNK_GATEWAY_ROUTER_PREFIX}${node}`);
  if (!gr) return out;
  const origin = nb('Logical_Switch', sw, node);
  const texts = (subnet ?? '').split(/[\s,]+/).filter(Boolean);
  if (v6) texts.push(v6.includes('/') ? v6 : `${v6}/64`);
  const where = nodeChassis(r, node, gr);
  for (const text of texts) {
    const c = ovnPrefix(text);
    if (!c) {
      out.problem('bad-address', origin, `subnet ${JSON.stringify(text)} is not a prefix`);
      continue;
    }
    const hop = chassisHop(r, cfg, where.uuid, c.family, where.context, 'chassis-missing');
    out.route('podSubnets', formatIpPrefix(networkOf(c)), hop, origin);
  }
  return out;
}

export type UnitFn = (r: Reader, cfg: OvnDeriveConfig, uuid: string) => UnitResult;

const NOTHING: UnitResult = { ads: [], problems: [] };

/** With source advertised_routes only OVN's Advertised_Route gives routes: no unit derives. */
const derived =
  (unit: UnitFn): UnitFn =>
  (r, cfg, uuid) =>
    cfg.source === 'advertised_routes' ? NOTHING : unit(r, cfg, uuid);

/** Root tables of derivation: each of their rows is one unit. */
export const DERIVED_UNITS: Readonly<Record<string, UnitFn>> = {
  'nb.NAT': derived(floatingIp),
  'nb.Logical_Router': derived(router),
  'nb.Logical_Switch_Port': derived(providerPort),
  'nb.Logical_Switch': derived(podSubnets),
} satisfies Partial<Record<TableRef, unknown>>;
