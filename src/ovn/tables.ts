import type { MonitorSpec } from '../ovsdb/index.js';
import type { OvnSource } from './types.js';

/* Exactly the tables and columns derivation reads (monitor_cond column lists): nothing else crosses the wire. */

export const NB_MONITOR = {
  NAT: { columns: ['type', 'external_ip', 'logical_ip', 'logical_port', 'external_mac', 'gateway_port'] },
  Logical_Router: {
    columns: ['name', 'ports', 'nat', 'load_balancer', 'load_balancer_group', 'options', 'external_ids'],
  },
  Logical_Router_Port: { columns: ['name', 'networks', 'gateway_chassis', 'ha_chassis_group'] },
  Logical_Switch: {
    columns: ['name', 'ports', 'load_balancer', 'load_balancer_group', 'other_config', 'external_ids'],
  },
  Logical_Switch_Port: { columns: ['name', 'type', 'addresses', 'dynamic_addresses', 'options'] },
  Load_Balancer: { columns: ['name', 'vips'] },
  Load_Balancer_Group: { columns: ['name', 'load_balancer'] },
} as const satisfies MonitorSpec;

export const SB_MONITOR = {
  Port_Binding: { columns: ['logical_port', 'type', 'chassis'] },
  Chassis: { columns: ['name', 'hostname', 'encaps', 'other_config', 'external_ids'] },
  Encap: { columns: ['type', 'ip', 'chassis_name'] },
} as const satisfies MonitorSpec;

/** OVN's own routes (OVN 25.03+) and what they are read with: which router, where a port lives. */
export const SB_MONITOR_ADVERTISED = {
  ...SB_MONITOR,
  Port_Binding: { columns: ['logical_port', 'type', 'chassis', 'options'] },
  Datapath_Binding: { columns: ['external_ids'] },
  Advertised_Route: { columns: ['datapath', 'logical_port', 'ip_prefix', 'tracked_port'] },
} as const satisfies MonitorSpec;

/** The SB tables a source reads (an SB without Advertised_Route serves the others). */
export function sbMonitor(source: OvnSource): MonitorSpec {
  return source === 'derive' ? SB_MONITOR : SB_MONITOR_ADVERTISED;
}

/** The SB table of OVN's own routes. */
export const ADVERTISED_ROUTE_TABLE = 'Advertised_Route';

export const NB_DATABASE = 'OVN_Northbound';
export const SB_DATABASE = 'OVN_Southbound';
