import { absolutePath } from './addresses.js';
import { KERNEL_ON_STOP, KernelSinkDefaults, U32_MAX, ZebraSinkDefaults } from './constants.js';
import { type Decoded, integer, list, object, oneOf, optional, required, text } from './decoders.js';
import { name } from './values.js';

const policyNames = list(name, { key: String, expected: 'a list of policy names' });
const install = optional(
  policyNames,
  'Policies deciding which best paths are installed (all when empty).',
  '[]',
);

const kernel = object('a mapping of kernel route settings', {
  table: optional(integer(1, U32_MAX), 'Routing table (a VRF table too).', String(KernelSinkDefaults.table)),
  metric: optional(integer(0, U32_MAX), 'Route metric (priority).', String(KernelSinkDefaults.metric)),
  protocol: optional(
    integer(1, 255),
    'rtm_protocol our routes carry; only routes with it are ever touched.',
    String(KernelSinkDefaults.protocol),
  ),
  on_stop: optional(
    oneOf(KERNEL_ON_STOP),
    'On shutdown: keep the routes or flush them.',
    KernelSinkDefaults.onStop,
  ),
  install,
});

const zebra = object('a mapping of zebra settings', {
  socket: optional(absolutePath, "zebra's ZAPI socket (zebra -z).", ZebraSinkDefaults.socket),
  instance: optional(
    integer(1, 65535),
    'Route instance of type bgp; not 0, which a running bgpd uses.',
    String(ZebraSinkDefaults.instance),
  ),
  distance: optional(integer(1, 255), 'Administrative distance.', String(ZebraSinkDefaults.distance)),
  metric: optional(integer(0, U32_MAX), 'Metric.', String(ZebraSinkDefaults.metric)),
  install,
});

const ovnNb = object('a mapping with router', {
  router: required(
    text({ expected: 'a logical router name', pattern: /^[^\s]{1,256}$/ }),
    'Logical_Router the static routes go on.',
  ),
  output_port: optional(
    text({ expected: 'a logical router port name', pattern: /^[^\s]{1,256}$/ }),
    'output_port of every row.',
  ),
  route_table: optional(
    text({ expected: 'a route table name', pattern: /^[^\s]{0,256}$/ }),
    'route_table of every row.',
  ),
  install,
});

export const sinksFields = {
  kernel: optional(kernel, 'Install best paths into the Linux kernel (rtnetlink).'),
  zebra: optional(zebra, "Hand best paths to FRR's zebra over ZAPI, as bgpd does."),
  ovn_nb: optional(ovnNb, 'Write best paths as OVN Logical_Router_Static_Route rows (needs ovn.nb).'),
} as const;
export type RawSinks = Decoded<typeof sinksFields>;
