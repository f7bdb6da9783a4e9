import { describe, expect, it } from 'vitest';
import { AF } from '../../../src/bgp/transport/index.js';
import { Afi } from '../../../src/bgp/wire/index.js';
import {
  classify,
  Errno,
  isLinkLocal,
  type KernelRoute,
  linkLocalResolution,
  NextHopResolver,
  nextHopKey,
  RepairBudget,
  Rtn,
} from '../../../src/fib/kernel/index.js';
import { parsePrefix } from '../../../src/rib/index.js';

const OWN = { table: 254, protocol: 186 };

function hit(prefix: string, over: Partial<KernelRoute> = {}, gateway?: string): KernelRoute {
  return {
    prefix: parsePrefix(prefix),
    table: 254,
    protocol: 2,
    scope: gateway ? 0 : 253,
    type: Rtn.UNICAST,
    flags: 0,
    priority: 0,
    nexthops: [gateway ? { gateway, ifindex: 4, weight: 1, flags: 0 } : { ifindex: 3, weight: 1, flags: 0 }],
    ...over,
  };
}

describe('classify: what a fibmatch answer means for a next hop', () => {
  const CASES: {
    name: string;
    address: string;
    answer: Parameters<typeof classify>[1];
    kind: string;
    text: RegExp;
  }[] = [
    {
      name: 'connected subnet',
      address: '198.18.40.2',
      answer: hit('198.18.40.0/24'),
      kind: 'connected',
      text: /198.18.40.2@3/,
    },
    {
      name: 'behind an IGP route (iBGP)',
      address: '198.18.99.1',
      answer: hit('198.18.99.0/24', { protocol: 188 }, '198.18.40.3'),
      kind: 'recursive',
      text: /198.18.40.3@4/,
    },
    {
      name: 'no route',
      address: '198.18.77.1',
      answer: { index: 0, errno: Errno.ENETUNREACH },
      kind: 'unresolved',
      text: /ENETUNREACH/,
    },
    {
      name: 'our own route',
      address: '198.18.99.1',
      answer: hit('198.18.99.0/24', { protocol: 186 }, '198.18.40.3'),
      kind: 'unresolved',
      text: /our own route/,
    },
    {
      name: 'the default route',
      address: '198.18.99.1',
      answer: hit('0.0.0.0/0', {}, '198.18.40.1'),
      kind: 'unresolved',
      text: /default route/,
    },
    {
      name: 'a local address',
      address: '198.18.40.1',
      answer: hit('198.18.40.1/32', { type: Rtn.LOCAL }),
      kind: 'unresolved',
      text: /local address/,
    },
    {
      name: 'a blackhole',
      address: '198.18.66.1',
      answer: hit('198.18.66.0/24', { type: Rtn.BLACKHOLE, nexthops: [] }),
      kind: 'unresolved',
      text: /non-unicast/,
    },
    {
      name: 'our own route in another table is fine (a VRF leaking into main)',
      address: '198.18.99.1',
      answer: hit('198.18.99.0/24', { protocol: 186, table: 1000 }, '198.18.40.3'),
      kind: 'recursive',
      text: /198.18.40.3/,
    },
  ];
  for (const c of CASES)
    it(c.name, () => {
      const r = classify(c.address, c.answer, OWN);
      expect(r.kind).toBe(c.kind);
      expect(
        r.kind === 'unresolved'
          ? r.reason
          : JSON.stringify(r.nexthops.map((n) => `${n.gateway}@${n.ifindex}`)),
      ).toMatch(c.text);
    });

  it('link-local next hops are refused without a lookup (they need an interface)', async () => {
    expect(isLinkLocal('fe80::1')).toBe(true);
    expect(isLinkLocal('2001:db8::1')).toBe(false);
    let lookups = 0;
    const r = new NextHopResolver(async () => {
      lookups++;
      return hit('::/0');
    }, OWN);
    await r.resolve(['fe80::1']);
    expect(lookups).toBe(0);
    expect(r.get('fe80::1')).toMatchObject({ kind: 'unresolved', reason: /interface/ });
  });
});

describe('link-local next hops of unnumbered peers', () => {
  it('are connected on their interface without a lookup, keyed with the interface', async () => {
    expect(nextHopKey({ address: 'fe80::2', afi: Afi.IPV6, interface: 'eth1' })).toBe('fe80::2%eth1');
    expect(nextHopKey({ address: 'fe80::2', afi: Afi.IPV6 })).toBe('fe80::2');
    let lookups = 0;
    const r = new NextHopResolver(
      async () => {
        lookups++;
        return hit('::/0');
      },
      OWN,
      (name) => (name === 'eth1' ? 7 : undefined),
    );
    await r.resolve(['fe80::2%eth1', 'fe80::2%eth9']);
    expect(lookups).toBe(0);
    expect(r.get('fe80::2%eth1')).toMatchObject({
      kind: 'connected',
      nexthops: [{ gateway: 'fe80::2', gatewayFamily: AF.INET6, ifindex: 7 }],
    });
    expect(r.get('fe80::2%eth9')).toMatchObject({ kind: 'unresolved', reason: /no interface eth9/ });
    // An IPv4 route through it (RFC 8950): via inet6 on the link.
    const v4 = r.nexthopsFor(AF.INET, [{ address: 'fe80::2', afi: Afi.IPV6, interface: 'eth1' }]);
    expect(v4).toEqual({
      nexthops: [{ gateway: 'fe80::2', gatewayFamily: AF.INET6, ifindex: 7, weight: 1, flags: 0 }],
    });
    expect(linkLocalResolution('fe80::3', 'eth2', 3)).toMatchObject({
      kind: 'connected',
      through: 'eth2 (link-local)',
    });
  });
});

describe('NextHopResolver', () => {
  it('looks each address up once until clear(), and unions an ECMP set without duplicates', async () => {
    const asked: string[] = [];
    const r = new NextHopResolver(async (a) => {
      asked.push(a);
      if (a === '198.18.99.1') return hit('198.18.99.0/24', {}, '198.18.40.3');
      return hit('198.18.40.0/24');
    }, OWN);
    await r.resolve(['198.18.40.3', '198.18.99.1', '198.18.40.3']);
    await r.resolve(['198.18.40.3']);
    expect(asked).toEqual(['198.18.40.3', '198.18.99.1']);
    const hops = [
      { address: '198.18.40.3', afi: Afi.IPV4 },
      { address: '198.18.99.1', afi: Afi.IPV4 },
    ] as const;
    const out = r.nexthopsFor(AF.INET, hops);
    // 198.18.40.3 on device 3 (connected) and via 198.18.40.3 on device 4 (recursive) differ by device.
    expect('nexthops' in out && out.nexthops.map((n) => `${n.gateway}@${n.ifindex}`)).toEqual([
      '198.18.40.3@3',
      '198.18.40.3@4',
    ]);
    r.clear();
    await r.resolve(['198.18.40.3']);
    expect(asked).toHaveLength(3);
  });

  it('an IPv6 route never takes an IPv4 next hop', async () => {
    const r = new NextHopResolver(async () => hit('198.18.40.0/24'), OWN);
    await r.resolve(['198.18.40.2']);
    expect(r.nexthopsFor(AF.INET6, [{ address: '198.18.40.2', afi: Afi.IPV4 }])).toEqual({
      reason: 'an IPv6 route cannot have the IPv4 next hop 198.18.40.2',
    });
  });
});

describe('RepairBudget', () => {
  it('grants `limit` repairs per window, gives up once, and forgets on reset', () => {
    const b = new RepairBudget(2, 1000);
    expect([b.take('p', 0), b.take('p', 10), b.take('p', 20), b.take('p', 30)]).toEqual([
      'repair',
      'repair',
      'give-up',
      'given-up',
    ]);
    b.reset('p');
    expect(b.take('p', 40)).toBe('repair');
    expect([b.granted, b.gaveUp]).toEqual([3, 1]);
  });

  it('repairs spread wider than the window never run out', () => {
    const b = new RepairBudget(2, 1000);
    const verdicts = [0, 600, 1200, 1800, 2400].map((t) => b.take('p', t));
    expect(verdicts).toEqual(['repair', 'repair', 'repair', 'repair', 'repair']);
  });
});
