import { describe, expect, it } from 'vitest';
import { PROTO_OVN, parseMonitorLine } from '../../../bench/ovn/table-watch.js';

/** Lines as `ip monitor route` (iproute2 6.1) prints them for ovn-controller's table 3. */
const cases: { name: string; line: string; want: ReturnType<typeof parseMonitorLine> }[] = [
  {
    name: 'a host route added (no length: a /32)',
    line: 'blackhole 198.18.172.5 table 3 proto 84 metric 100 ',
    want: { prefix: '198.18.172.5/32', deleted: false },
  },
  {
    name: 'a host route deleted',
    line: 'Deleted blackhole 198.18.172.5 table 3 proto 84 metric 100 ',
    want: { prefix: '198.18.172.5/32', deleted: true },
  },
  {
    name: 'a network',
    line: 'blackhole 198.18.190.0/24 table 3 proto 84 metric 1000 ',
    want: { prefix: '198.18.190.0/24', deleted: false },
  },
  {
    name: 'an IPv6 host route (a /128)',
    line: 'blackhole 2001:db8:171::10 dev lo table 3 proto 84 metric 100 pref medium',
    want: { prefix: '2001:db8:171::10/128', deleted: false },
  },
  {
    name: 'a unicast route, no type word',
    line: '198.18.180.0/24 via 198.18.171.254 dev eth0 table 3 proto 84 metric 20 ',
    want: { prefix: '198.18.180.0/24', deleted: false },
  },
  {
    name: 'another table',
    line: 'blackhole 198.18.172.5 table 30 proto 84 metric 100 ',
    want: null,
  },
  {
    name: 'another protocol in the table (a learned route written by bgp)',
    line: '198.18.180.0/24 via 198.18.171.254 dev eth0 table 3 proto bgp metric 20 ',
    want: null,
  },
  {
    name: 'the main table (no table word)',
    line: '198.18.171.0/24 dev eth0 proto kernel scope link',
    want: null,
  },
  {
    name: 'a table number in the metric does not count',
    line: 'blackhole 198.18.1.1 metric 3 proto 84',
    want: null,
  },
];

describe('parseMonitorLine', () => {
  for (const c of cases)
    it(c.name, () => {
      expect(parseMonitorLine(c.line, 3, PROTO_OVN)).toEqual(c.want);
    });
});
