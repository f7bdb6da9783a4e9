import { ovsdbRemotes } from './addresses.js';
import {
  OvnRouteTablesDefaults as D,
  KERNEL_ON_STOP,
  MAX_TABLE_PREPEND,
  TABLE_PREFERENCES,
  U32_MAX,
} from './constants.js';
import { type Decoded, integer, list, object, oneOf, optional, required, text } from './decoders.js';
import { community, largeCommunity, name } from './values.js';

const policyNames = list(name, { key: String, expected: 'a list of policy names' });

const table = object('a mapping with router or table', {
  router: optional(
    text({ expected: 'a logical router name', pattern: /^[^\s]{1,256}$/ }),
    "Logical router whose table ovn-controller fills: the Southbound datapath's tunnel key.",
  ),
  table: optional(integer(1, U32_MAX), 'The table number itself, instead of router.'),
  learn: optional(
    policyNames,
    'Policies choosing the routes learned from peers that are written into the table (protocol bgp) for ovn-controller to learn; absent: none.',
    '[]',
  ),
});

export const ovnRouteTablesFields = {
  sb: optional(ovsdbRemotes, "OVN Southbound, where a router's table is found by its name."),
  tables: required(list(table, { expected: 'a list of tables' }), 'The routers (or tables) to follow.'),
  preference: optional(
    oneOf(TABLE_PREFERENCES),
    'What the metric becomes: med (the metric is the MED), prepend (our AS more times on routes above local_metric), local-only (only routes at or below local_metric).',
    D.preference,
  ),
  local_metric: optional(
    integer(0, U32_MAX),
    'A metric at or below this: the port the route tracks is bound on this chassis.',
    String(D.localMetric),
  ),
  prepend: optional(
    integer(1, MAX_TABLE_PREPEND),
    'Extra copies of our AS (preference: prepend).',
    String(D.prepend),
  ),
  hold_time: optional(
    integer(0, 86_400),
    'Seconds a route stays advertised, with the worst MED, after its table emptied (ovn-controller restarting, the gateway moved away); a route that leaves a table keeping others is withdrawn within a second (0: at once).',
    String(D.holdTime),
  ),
  protocol: optional(
    integer(1, 255),
    "rtm_protocol of the routes read (ovn-controller's: 84).",
    String(D.protocol),
  ),
  learn_protocol: optional(integer(1, 255), 'rtm_protocol of the routes written.', String(D.learnProtocol)),
  learn_metric: optional(integer(0, U32_MAX), 'Metric of the routes written.', String(D.learnMetric)),
  on_stop: optional(oneOf(KERNEL_ON_STOP), 'On shutdown: keep the routes written or flush them.', D.onStop),
  communities: optional(
    list(community, { key: String, expected: 'a list of communities' }),
    'Communities (RFC 1997) on every route read from the tables.',
    '[]',
  ),
  large_communities: optional(
    list(largeCommunity, { key: (c) => c.join(':'), expected: 'a list of large communities' }),
    'Large communities (RFC 8092) on every route read from the tables.',
    '[]',
  ),
} as const;
export type RawOvnRouteTables = Decoded<typeof ovnRouteTablesFields>;
