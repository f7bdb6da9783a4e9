import { describe, expect, it } from 'vitest';
import { PROTO_OVN, parseMonitorLine, splitStamp } from '../../../bench/ovn/table-watch.js';

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

describe('ip -ts timestamps', () => {
  it("reads ip's wall-clock stamp to the microsecond and hands on the rest of the line", () => {
    const s = splitStamp('[2026-12-06T23:06:21.819654] Deleted 198.18.172.1 dev lo table 10 proto 84');
    expect(s.wallMs).toBeCloseTo(Date.UTC(2026, 11, 6, 23, 6, 21, 819) + 0.654, 2);
    expect(s.line).toBe('Deleted 198.18.172.1 dev lo table 10 proto 84');
    expect(parseMonitorLine(s.line, 10, 84)).toEqual({ prefix: '198.18.172.1/32', deleted: true });
  });

  it('leaves a line without a stamp as it is', () => {
    const s = splitStamp('198.18.172.1 dev lo table 10 proto 84');
    expect(s.wallMs).toBeNaN();
    expect(s.line).toBe('198.18.172.1 dev lo table 10 proto 84');
  });
});
