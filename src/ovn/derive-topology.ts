import type { Row } from '../ovsdb/index.js';
import { boundChassis, chassisNamed } from './derive-nexthop.js';
import { mapGet, opt, set, str } from './rows.js';
import type { Reader } from './store.js';

/*
 * Where a router meets the provider network, and who hosts that meeting point:
 *
 *   gateway router (options:chassis=gw1)   lives wholly on gw1; its gateway port is the LRP
 *                                          whose switch-side peer sits on a localnet switch
 *   distributed gateway port (DGP)         LRP with gateway_chassis or ha_chassis_group; the
 *                                          active chassis is the one SB `cr-<lrp>` is bound to
 */

export interface RouterGateway {
  /** The gateway port (undefined: a gateway router with no port on a provider switch). */
  readonly lrp: Row | undefined;
  /** Chassis uuid hosting the gateway (null: unbound). */
  readonly chassis: string | null;
  /** What placed it there, for `why` and problem texts. */
  readonly context: string;
  /** Problem kind when `chassis` is null. */
  readonly unbound: string;
}

/** The switch a logical switch port belongs to, as a uuid. */
export function switchOfPort(r: Reader, lspUuid: string): string | undefined {
  return r.find('switchPort', lspUuid)[0];
}

/** A provider network: a switch holding a localnet port. */
export function isProviderSwitch(r: Reader, switchUuid: string | undefined): boolean {
  if (!switchUuid) return false;
  for (const ln of r.find('lspType', 'localnet')) if (switchOfPort(r, ln) === switchUuid) return true;
  return false;
}

/**
 * What is read of the switch behind a router port: not its `ports`, which every new port of
 * a provider network shared by thousands of routers changes.
 */
const PEER_SWITCH_COLUMNS = ['name', 'load_balancer', 'load_balancer_group', 'external_ids'] as const;

/** The switch on the other side of a router port (the LSP with options:router-port=<lrp>). */
export function peerSwitch(r: Reader, lrp: Row): Row | undefined {
  for (const lsp of r.find('lspRouterPort', str(lrp, 'name'))) {
    const sw = r.columns('nb.Logical_Switch', switchOfPort(r, lsp), PEER_SWITCH_COLUMNS);
    if (sw) return sw;
  }
  return undefined;
}

export function isDistributedGatewayPort(lrp: Row): boolean {
  return set(lrp, 'gateway_chassis').length > 0 || opt(lrp, 'ha_chassis_group') !== null;
}

/** The router's ports, read, in uuid order. */
export function routerPorts(r: Reader, router: Row): Row[] {
  const out: Row[] = [];
  for (const uuid of [...set(router, 'ports')].sort()) {
    const lrp = r.row('nb.Logical_Router_Port', uuid);
    if (lrp) out.push(lrp);
  }
  return out;
}

export function gatewayRouterChassisName(router: Row): string | undefined {
  const name = mapGet(router, 'options', 'chassis');
  return name === undefined || name === '' ? undefined : name;
}

/**
 * The gateway of a router, or undefined when it has none (not reachable from outside).
 * `viaPort` is a NAT row's gateway_port: the DGP to use when a router has several.
 */
export function routerGateway(r: Reader, router: Row, viaPort?: string | null): RouterGateway | undefined {
  const name = str(router, 'name');
  const ports = routerPorts(r, router);
  const grChassis = gatewayRouterChassisName(router);
  if (grChassis !== undefined) {
    const lrp = ports.find((p) => isProviderSwitch(r, peerSwitch(r, p)?._uuid));
    const chassis = chassisNamed(r, grChassis);
    return {
      lrp,
      chassis,
      context: `gateway router ${name} options:chassis=${grChassis}${chassis ? '' : ', no such chassis'}`,
      unbound: 'chassis-missing',
    };
  }
  const dgps = ports
    .filter(isDistributedGatewayPort)
    .sort((a, b) => str(a, 'name').localeCompare(str(b, 'name')));
  const lrp = (viaPort ? dgps.find((p) => p._uuid === viaPort) : undefined) ?? dgps[0];
  if (!lrp) return undefined;
  const cr = `cr-${str(lrp, 'name')}`;
  return { lrp, chassis: boundChassis(r, cr), context: `Port_Binding ${cr}`, unbound: 'gateway-unbound' };
}
