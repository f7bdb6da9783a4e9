import { describe, expect, it } from 'vitest';
import { Afi, Writer } from '../../../src/bgp/wire/index.js';
import type { FibRoute } from '../../../src/fib/index.js';
import {
  convertible,
  FRR_8_4,
  NexthopType,
  routeKey,
  toZapiRoute,
  writeRouteAdd,
  ZEBRA_DEFAULTS,
  ZebraFlag,
} from '../../../src/fib/zebra/index.js';
import { parsePrefix } from '../../../src/rib/index.js';
import { toHex } from '../../support/hex.js';
import { BGPD_ROUTE_ADD } from './fixtures.js';

const owner = { routeType: 9, instance: 0, distance: 20, metric: 0, allowRecursion: false };

function route(prefix: string, ...hops: string[]): FibRoute {
  return {
    prefix: parsePrefix(prefix),
    nextHops: hops.map((address) => ({ address, afi: address.includes(':') ? Afi.IPV6 : Afi.IPV4 })),
  };
}

describe('toZapiRoute', () => {
  it('builds what bgpd sends for a single-hop eBGP path (byte for byte)', () => {
    const w = new Writer(64);
    writeRouteAdd(w, FRR_8_4, toZapiRoute(route('192.0.2.0/24', '198.18.3.3'), owner, 256));
    expect(toHex(w.finish())).toBe(toHex(BGPD_ROUTE_ADD));
  });
  it('keeps at most multipath next hops, best first', () => {
    const r = toZapiRoute(route('198.19.0.0/16', '198.18.0.1', '198.18.0.2', '198.18.0.3'), owner, 2);
    expect(r.nexthops.map((n) => n.gate)).toEqual(['198.18.0.1', '198.18.0.2']);
  });
  it('IPv6 and RFC 8950 next hops are type IPV6, ifindex 0', () => {
    const r = toZapiRoute(route('198.19.0.0/16', '2001:db8::1'), owner, 8);
    expect(r.prefix).toEqual({ family: 2, len: 16, addr: '198.19.0.0' });
    expect(r.nexthops).toEqual([{ type: 4, vrfId: 0, flags: 0, gate: '2001:db8::1', ifindex: 0 }]);
    expect(toZapiRoute(route('2001:db8:5::/48', '2001:db8::1'), owner, 8).prefix.family).toBe(10);
  });
  it('owner fields: instance, distance, metric, ALLOW_RECURSION', () => {
    const r = toZapiRoute(
      route('198.19.0.0/16', '198.18.0.1'),
      { ...owner, instance: 7, distance: 200, metric: 9, allowRecursion: true },
      8,
    );
    expect(r).toMatchObject({
      type: 9,
      instance: 7,
      distance: 200,
      metric: 9,
      flags: ZebraFlag.ALLOW_RECURSION,
    });
  });
  it('route keys match the text of NOTIFY_OWNER prefixes', () => {
    expect(routeKey(parsePrefix('2001:0db8:0:0::/32'))).toBe('2001:db8::/32');
    expect(routeKey(parsePrefix('198.19.1.7/24'))).toBe('198.19.1.0/24');
  });
  it('defaults: instance 1, distance 20 (the route type comes with the dialect)', () => {
    expect(ZEBRA_DEFAULTS).toMatchObject({ instance: 1, distance: 20, metric: 0 });
  });
});

describe('link-local next hops (BGP unnumbered)', () => {
  /** A route learned over an unnumbered session on `iface`: its next hop the peer's link-local address. */
  const onLink = (prefix: string, address: string, iface: string): FibRoute => ({
    prefix: parsePrefix(prefix),
    nextHops: [{ address, afi: Afi.IPV6, interface: iface }],
  });
  const ifindexOf = (name: string) => (name === 'eth1' ? 7 : undefined);

  it('go as bgpd sends them: IPV6_IFINDEX with the interface index, for IPv6 and IPv4 (RFC 8950) routes', () => {
    for (const prefix of ['2001:db8:5::/48', '198.19.5.0/24']) {
      const r = onLink(prefix, 'fe80::a8c1:abff:fe00:1', 'eth1');
      expect(convertible(r, ifindexOf)).toBeUndefined();
      expect(toZapiRoute(r, owner, 8, ifindexOf).nexthops).toEqual([
        { type: NexthopType.IPV6_IFINDEX, vrfId: 0, flags: 0, gate: 'fe80::a8c1:abff:fe00:1', ifindex: 7 },
      ]);
    }
  });
  it('encode as FRR reads them: the gate, then the interface index', () => {
    const w = new Writer(96);
    writeRouteAdd(w, FRR_8_4, toZapiRoute(onLink('2001:db8:5::/48', 'fe80::1', 'eth1'), owner, 8, ifindexOf));
    const bytes = toHex(w.finish());
    expect(bytes).toContain(`${toHex(Uint8Array.of(0xfe, 0x80, ...new Uint8Array(13), 1))}00000007`);
  });
  it('are refused without an interface, or on one this host does not have, naming both', () => {
    expect(convertible(route('2001:db8:5::/48', 'fe80::1'), ifindexOf)).toBe(
      'link-local next hop fe80::1 needs an interface',
    );
    expect(convertible(onLink('2001:db8:5::/48', 'fe80::1', 'eth9'), ifindexOf)).toBe(
      'link-local next hop fe80::1: no interface eth9 on this host',
    );
    // Any one of an ECMP set is enough: the route would otherwise go with a next hop missing.
    const mixed: FibRoute = {
      prefix: parsePrefix('2001:db8:5::/48'),
      nextHops: [
        { address: '2001:db8::1', afi: Afi.IPV6 },
        { address: 'fe80::1', afi: Afi.IPV6, interface: 'eth9' },
      ],
    };
    expect(convertible(mixed, ifindexOf)).toMatch(/no interface eth9/);
  });
});

describe('convertible', () => {
  it('refuses an IPv6 link-local next hop (it needs an interface) and an empty set', () => {
    expect(convertible(route('2001:db8:5::/48', 'fe80::1'))).toMatch(/link-local/);
    expect(convertible(route('2001:db8:5::/48'))).toMatch(/no next hop/);
    expect(convertible(route('2001:db8:5::/48', '2001:db8::1'))).toBeUndefined();
  });
});
