/**
 * The rtnetlink codec against iproute2: every request we encode is byte for byte what `ip`
 * sends for the same route (captured with strace, fixtures/netlink/), and what the kernel
 * answers decodes to the route `ip route show` prints.
 */
import { describe, expect, it } from 'vitest';
import { AF } from '../../../src/bgp/transport/index.js';
import {
  decodeAck,
  decodeDone,
  decodeRoute,
  Errno,
  KernelError,
  type KernelNexthop,
  type KernelRoute,
  NlmFlag,
  NlmsgType,
  NlView,
  NlWriter,
  Rtn,
  RtScope,
  splitMessages,
  writeDelRoute,
  writeDumpRoutes,
  writeGetRoute,
  writeNewRoute,
} from '../../../src/fib/kernel/index.js';
import { parsePrefix } from '../../../src/rib/index.js';
import { hex, toHex } from '../../support/hex.js';
import * as F from './fixtures.js';

const IF = F.CAPTURE_IFINDEX;
const ADD = NlmFlag.ACK | NlmFlag.CREATE | NlmFlag.EXCL;
const REPLACE = NlmFlag.ACK | NlmFlag.CREATE | NlmFlag.REPLACE;

function seqOf(bytes: Uint8Array): number {
  return new DataView(bytes.buffer, bytes.byteOffset).getUint32(8, true);
}

function nh(gateway: string, ifindex = IF): KernelNexthop {
  return { gateway, ifindex, weight: 1, flags: 0 };
}

function route(prefix: string, nexthops: KernelNexthop[], table = 254): KernelRoute {
  return {
    prefix: parsePrefix(prefix),
    table,
    protocol: 186,
    scope: RtScope.UNIVERSE,
    type: Rtn.UNICAST,
    flags: 0,
    priority: 20,
    nexthops,
  };
}

function encoded(fn: (w: NlWriter) => void): string {
  const w = new NlWriter(64);
  fn(w);
  return toHex(w.finish());
}

function decodeOne(bytes: Uint8Array): KernelRoute {
  const v = new NlView(bytes);
  const out: KernelRoute[] = [];
  splitMessages(v, (m) => out.push(decodeRoute(v, m)));
  expect(out).toHaveLength(1);
  return out[0];
}

const NEW_ROUTES: readonly { name: string; route: KernelRoute; flags: number }[] = [
  { name: 'add-main', route: route('198.19.1.0/24', [nh('198.18.40.2')]), flags: ADD },
  { name: 'add-table-1000', route: route('198.19.2.0/24', [nh('198.18.40.2')], 1000), flags: ADD },
  { name: 'replace-main', route: route('198.19.1.0/24', [nh('198.18.40.3')]), flags: REPLACE },
  { name: 'add-ecmp', route: route('198.19.3.0/24', [nh('198.18.40.2'), nh('198.18.40.3')]), flags: ADD },
  { name: 'add-via-inet6', route: route('198.19.4.0/24', [nh('2001:db8:40::2')]), flags: ADD },
  {
    name: 'add-ecmp-mixed',
    route: route('198.19.5.0/24', [nh('2001:db8:40::2'), nh('198.18.40.2')]),
    flags: ADD,
  },
  { name: 'add6', route: route('2001:db8:100::/48', [nh('2001:db8:40::2')]), flags: ADD },
  {
    name: 'add6-ecmp',
    route: route('2001:db8:200::/48', [nh('2001:db8:40::2'), nh('2001:db8:40::3')]),
    flags: ADD,
  },
];

describe('requests are what ip sends', () => {
  for (const c of NEW_ROUTES)
    it(`${c.name}: ${F.capture(c.name).command}`, () => {
      const want = F.request(c.name);
      // iproute2 leaves the padding after an RTA_VIA inside RTA_MULTIPATH as it found it
      // (rta_addattr_l copies the value and skips the pad); the kernel ignores padding, we zero it.
      if (c.name === 'add-ecmp-mixed') want.fill(0, 78, 80);
      expect(encoded((w) => writeNewRoute(w, c.route, { flags: c.flags, seq: seqOf(want) }))).toBe(
        toHex(want),
      );
    });

  const DELETES = [
    { name: 'del-main', prefix: '198.19.1.0/24', table: 254 },
    { name: 'del-table-1000', prefix: '198.19.2.0/24', table: 1000 },
    { name: 'del6', prefix: '2001:db8:100::/48', table: 254 },
  ];
  for (const c of DELETES)
    it(`${c.name}: ${F.capture(c.name).command}`, () => {
      const want = F.request(c.name);
      const key = { prefix: parsePrefix(c.prefix), table: c.table, protocol: 186, priority: 20 };
      expect(encoded((w) => writeDelRoute(w, key, NlmFlag.ACK, seqOf(want)))).toBe(toHex(want));
    });

  for (const [name, address] of [
    ['get-fibmatch', '198.18.40.2'],
    ['get6-fibmatch', '2001:db8:40::2'],
  ] as const)
    it(`${name}: ${F.capture(name).command}`, () => {
      const want = F.request(name);
      expect(encoded((w) => writeGetRoute(w, address, { seq: seqOf(want), fibMatch: true }))).toBe(
        toHex(want),
      );
    });

  for (const [name, family, table] of [
    ['dump-table-1000', AF.INET, 1000],
    ['dump-main', AF.INET, 254],
    ['dump6-main', AF.INET6, 254],
  ] as const)
    it(`${name}: ${F.capture(name).command}`, () => {
      const want = F.request(name);
      expect(encoded((w) => writeDumpRoutes(w, family, { table, protocol: 186 }, seqOf(want)))).toBe(
        toHex(want),
      );
    });
});

describe('kernel answers decode', () => {
  it('a dump of table 1000: one route of proto 186, then NLMSG_DONE', () => {
    const [entry, done] = F.answers('dump-table-1000');
    expect(decodeOne(entry)).toMatchObject({
      table: 1000,
      protocol: 186,
      priority: 20,
      type: Rtn.UNICAST,
      nexthops: [{ gateway: '198.18.40.2', gatewayFamily: AF.INET, ifindex: IF, weight: 1 }],
    });
    expect(decodeOne(entry).prefix.toString()).toBe('198.19.2.0/24');
    const v = new NlView(done);
    splitMessages(v, (m) => {
      expect(m.type).toBe(NlmsgType.DONE);
      expect(m.flags & NlmFlag.MULTI).toBe(NlmFlag.MULTI);
      expect(decodeDone(v, m)).toBe(0);
    });
  });

  it('a dump of main: single, ECMP (RTA_MULTIPATH), RTA_VIA and mixed ECMP, as ip shows them', () => {
    const routes = F.answers('dump-main')
      .filter((a) => a[4] === NlmsgType.NEWROUTE)
      .map(decodeOne);
    const shown = routes.map((r) => [
      r.prefix.toString(),
      r.nexthops.map((n) => `${n.gatewayFamily === AF.INET6 ? 'inet6 ' : ''}${n.gateway} dev ${n.ifindex}`),
    ]);
    expect(shown).toEqual([
      ['198.19.1.0/24', ['198.18.40.3 dev 3']],
      ['198.19.3.0/24', ['198.18.40.2 dev 3', '198.18.40.3 dev 3']],
      ['198.19.4.0/24', ['inet6 2001:db8:40::2 dev 3']],
      ['198.19.5.0/24', ['inet6 2001:db8:40::2 dev 3', '198.18.40.2 dev 3']],
    ]);
    for (const r of routes)
      expect(r).toMatchObject({ table: 254, protocol: 186, priority: 20, scope: RtScope.UNIVERSE });
  });

  it('an IPv6 dump: RTA_GATEWAY and RTA_MULTIPATH with 16-byte gateways', () => {
    const routes = F.answers('dump6-main')
      .filter((a) => a[4] === NlmsgType.NEWROUTE)
      .map(decodeOne);
    expect(routes.map((r) => [r.prefix.toString(), r.nexthops.map((n) => n.gateway)])).toEqual([
      ['2001:db8:100::/48', ['2001:db8:40::2']],
      ['2001:db8:200::/48', ['2001:db8:40::2', '2001:db8:40::3']],
    ]);
  });

  it('a fibmatch answer names the connected route, its device and no gateway', () => {
    const r = decodeOne(F.answers('get-fibmatch')[0]);
    expect(r.prefix.toString()).toBe('198.18.40.0/24');
    expect(r).toMatchObject({ table: 254, protocol: 2, scope: RtScope.LINK, type: Rtn.UNICAST });
    expect(r.nexthops).toEqual([{ ifindex: IF, weight: 1, flags: 0 }]);
    const r6 = decodeOne(F.answers('get6-fibmatch')[0]);
    expect(r6.prefix.toString()).toBe('2001:db8:40::/64');
    expect(r6.nexthops).toEqual([{ ifindex: IF, weight: 1, flags: 0 }]);
  });
});

describe('NLMSG_ERROR', () => {
  const CASES = [
    { name: 'capped ACK', bytes: F.ACK_CAPPED, ack: { errno: 0, seq: 7, requestType: NlmsgType.NEWROUTE } },
    { name: 'capped EEXIST', bytes: F.EEXIST_CAPPED, ack: { errno: Errno.EEXIST, seq: 8 } },
    {
      name: 'ENETUNREACH with the extended-ACK message',
      bytes: F.ENETUNREACH_EXTACK,
      ack: { errno: Errno.ENETUNREACH, seq: 9, detail: 'Nexthop has invalid gateway' },
    },
    {
      name: 'uncapped ESRCH echoing the DELROUTE',
      bytes: F.ESRCH_UNCAPPED,
      ack: { errno: Errno.ESRCH, seq: 10, requestType: NlmsgType.DELROUTE },
    },
  ];
  for (const c of CASES)
    it(c.name, () => {
      const v = new NlView(c.bytes);
      const got: unknown[] = [];
      splitMessages(v, (m) => got.push(decodeAck(v, m)));
      expect(got).toHaveLength(1);
      expect(got[0]).toMatchObject(c.ack);
    });

  it('a truncated nlmsgerr is malformed, not read past its end', () => {
    const v = new NlView(F.ACK_CAPPED.subarray(0, 24));
    const bad = hex`18000000 0200 0000 07000000 00000000 00000000 3c000000`;
    expect(() => splitMessages(v, () => {})).toThrow(KernelError);
    const v2 = new NlView(bad);
    expect(() => splitMessages(v2, (m) => decodeAck(v2, m))).toThrow(/nlmsgerr/);
  });
});

describe('framing', () => {
  it('splits a datagram of several messages (a dump part) and rejects a length past the end', () => {
    const parts = F.answers('dump-main');
    const joined = Buffer.concat(parts);
    const seen: number[] = [];
    splitMessages(new NlView(joined), (m) => seen.push(m.type));
    expect(seen).toEqual(parts.map((p) => p[4]));
    const cut = joined.subarray(0, joined.length - 3);
    expect(() => splitMessages(new NlView(cut), () => {})).toThrow(/nlmsg_len|trailing/);
  });

  it('an attribute longer than its message is malformed', () => {
    const bytes = Uint8Array.from(F.request('add-main'));
    bytes[28] = 0xff; // RTA_DST's rta_len
    expect(() => splitMessages(new NlView(bytes), (m) => decodeRoute(new NlView(bytes), m))).toThrow(
      /attribute length 255/,
    );
  });

  it('an IPv6 route cannot take an IPv4 gateway', () => {
    expect(() =>
      encoded((w) => writeNewRoute(w, route('2001:db8:1::/48', [nh('198.18.40.2')]), { flags: ADD, seq: 1 })),
    ).toThrow(/IPv6 route cannot have the IPv4 gateway/);
  });
});
