import type { MonitorSpec } from '../ovsdb/index.js';

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

export const NB_DATABASE = 'OVN_Northbound';
export const SB_DATABASE = 'OVN_Southbound';
