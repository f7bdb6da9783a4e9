import { describe, expect, it } from 'vitest';
import {
  checkFamilies,
  localCapabilities,
  localOpen,
  resolvePeerConfig,
  SessionConfigError,
  type SessionPeerInit,
} from '../../../src/bgp/session/index.js';
import { encodeCapabilities } from '../../../src/bgp/wire/capabilities.js';
import { BgpError } from '../../../src/bgp/wire/errors.js';
import { type Negotiated, negotiate } from '../../../src/bgp/wire/negotiate.js';
import { Writer } from '../../../src/bgp/wire/writer.js';

const BASE: SessionPeerInit = {
  address: '198.18.1.2',
  remoteAs: 65001,
  localAs: 65000,
  routerId: '198.18.0.1',
};

describe('peer configuration', () => {
  it('defaults as an FRR or GoBGP operator expects: port 179, hold 90, keepalive 30, connect retry 120, active', () => {
    const c = resolvePeerConfig(BASE);
    expect(c).toMatchObject({
      address: '198.18.1.2',
      name: '198.18.1.2',
      port: 179,
      ebgp: true,
      bgpId: 0xc6120001,
      password: null,
      families: ['ipv4-unicast'],
      extendedMessage: false,
      addPath: {},
      connectTimeoutMs: 120_000,
    });
    expect(c.fsm).toMatchObject({ holdTime: 90, keepaliveTime: 30, connectRetryTime: 120, passive: false });
  });

  it('an IPv6 peer negotiates IPv6 unicast unless told otherwise; addresses are normalized', () => {
    const c = resolvePeerConfig({ ...BASE, address: '2001:DB8:1:0:0:0:0:2' });
    expect(c.address).toBe('2001:db8:1::2');
    expect(c.families).toEqual(['ipv6-unicast']);
    expect(resolvePeerConfig({ ...BASE, address: '::ffff:198.18.1.2' }).address).toBe('198.18.1.2');
  });

  it('remote AS external or internal: any other AS is eBGP, our own is iBGP (checked on OPEN)', () => {
    expect(resolvePeerConfig({ ...BASE, remoteAs: 'external' })).toMatchObject({
      remoteAs: 'external',
      ebgp: true,
    });
    expect(resolvePeerConfig({ ...BASE, remoteAs: 'internal' })).toMatchObject({
      remoteAs: 'internal',
      ebgp: false,
    });
  });

  it.each([
    ['address', { address: 'peer-one' }],
    ['remoteAs', { remoteAs: 0 }],
    ['remoteAs', { remoteAs: 'confederation' as never }],
    ['localAs', { localAs: 2 ** 32 }],
    ['routerId', { routerId: '0.0.0.0' }],
    ['routerId', { routerId: '2001:db8::1' }],
    ['families', { families: ['ipv4-multicast'] }],
    ['families', { families: [] }],
    ['addPath.ipv6-unicast', { addPath: { 'ipv6-unicast': 'send' } }],
    ['addPath.ipv4-unicast', { addPath: { 'ipv4-unicast': 'sometimes' } }],
    ['holdTime', { holdTime: 2 }],
    ['localAddress', { localAddress: '2001:db8::1' }],
    ['password', { password: '' }],
    ['port', { port: 70_000 }],
    ['extendedMessage', { extendedMessage: 'yes' }],
    ['extendedNextHop', { extendedNextHop: 'yes' }],
    ['extendedNextHop', { address: '2001:db8:1::2', extendedNextHop: true }],
  ])('refuses a bad %s with an error naming it', (field, patch) => {
    let caught: unknown;
    try {
      resolvePeerConfig({ ...BASE, ...patch } as SessionPeerInit);
    } catch (e) {
      caught = e;
    }
    expect(caught).toBeInstanceOf(SessionConfigError);
    expect((caught as SessionConfigError).field).toBe(field);
  });
});

describe('our OPEN', () => {
  it('advertises multiprotocol per family, route refresh and the 4-octet AS', () => {
    const c = resolvePeerConfig({ ...BASE, families: ['ipv4-unicast', 'ipv6-unicast'] });
    expect(localCapabilities(c)).toEqual([
      { name: 'multiprotocol', afi: 1, reserved: 0, safi: 1 },
      { name: 'multiprotocol', afi: 2, reserved: 0, safi: 1 },
      { name: 'route-refresh' },
      { name: 'four-octet-as', as: 65000 },
    ]);
    expect(localOpen(c)).toMatchObject({ myAs: 65000, holdTime: 90, bgpId: 0xc6120001 });
  });

  it('adds enhanced route refresh, extended message and ADD-PATH when configured, and AS_TRANS for a 4-octet AS', () => {
    const c = resolvePeerConfig({
      ...BASE,
      localAs: 4_200_000_000,
      enhancedRouteRefresh: true,
      extendedMessage: true,
      addPath: { 'ipv4-unicast': 'both' },
    });
    expect(localCapabilities(c).slice(-4)).toEqual([
      { name: 'enhanced-route-refresh' },
      { name: 'four-octet-as', as: 4_200_000_000 },
      { name: 'extended-message' },
      { name: 'add-path', families: [{ afi: 1, safi: 1, mode: 3 }] },
    ]);
    expect(localOpen(c).myAs).toBe(23456);
  });

  it('adds graceful restart for every configured family: N always, R and F as our state says', () => {
    const c = resolvePeerConfig({ ...BASE, families: ['ipv4-unicast', 'ipv6-unicast'] });
    const restarted = { restartTime: 90, restarting: true, forwarding: new Set(['ipv6-unicast'] as const) };
    expect(localCapabilities(c, restarted).at(-1)).toEqual({
      name: 'graceful-restart',
      flags: 0xc,
      restartTime: 90,
      families: [
        { afi: 1, safi: 1, flags: 0 },
        { afi: 2, safi: 1, flags: 0x80 },
      ],
    });
    const cold = { restartTime: 120, restarting: false, forwarding: new Set<never>() };
    expect(localCapabilities(c, cold).at(-1)).toMatchObject({ flags: 0x4, restartTime: 120 });
    expect(localCapabilities(c, null).some((x) => x.name === 'graceful-restart')).toBe(false);
  });

  it('adds long-lived graceful restart (RFC 9494) beside graceful restart only, F bits alike', () => {
    const c = resolvePeerConfig({
      ...BASE,
      families: ['ipv4-unicast', 'ipv6-unicast'],
      longLivedStaleTime: 3600,
    });
    const restarted = { restartTime: 90, restarting: true, forwarding: new Set(['ipv4-unicast'] as const) };
    expect(localCapabilities(c, restarted).at(-1)).toEqual({
      name: 'long-lived-graceful-restart',
      families: [
        { afi: 1, safi: 1, flags: 0x80, staleTime: 3600 },
        { afi: 2, safi: 1, flags: 0, staleTime: 3600 },
      ],
    });
    expect(localCapabilities(c, null).some((x) => x.name === 'long-lived-graceful-restart')).toBe(false);
    expect(() => resolvePeerConfig({ ...BASE, longLivedStaleTime: 0x1000000 })).toThrow(/longLivedStaleTime/);
  });

  it('extended next hop (RFC 8950) is advertised only when configured: IPv4 unicast, next hop AFI 2', () => {
    const families = ['ipv4-unicast', 'ipv6-unicast'] as const;
    const v6 = { ...BASE, address: '2001:db8:1::2', families };
    expect(localCapabilities(resolvePeerConfig(v6)).some((c) => c.name === 'extended-next-hop')).toBe(false);
    const c = resolvePeerConfig({ ...v6, extendedNextHop: true });
    const cap = localCapabilities(c).filter((x) => x.name === 'extended-next-hop');
    expect(cap).toEqual([{ name: 'extended-next-hop', families: [{ afi: 1, safi: 1, nextHopAfi: 2 }] }]);
    const w = new Writer(16);
    encodeCapabilities(w, cap);
    // code 5, length 6: AFI 1, SAFI 1 (2 octets in RFC 8950), next hop AFI 2
    expect(Buffer.from(w.finish()).toString('hex')).toBe('0506000100010002');
  });

  it('extended next hop is negotiated per direction: each side sends what the other advertised', () => {
    const families = ['ipv4-unicast', 'ipv6-unicast'] as const;
    const ours = resolvePeerConfig({ ...BASE, address: '2001:db8:1::2', families, extendedNextHop: true });
    const with_ = localOpen(
      resolvePeerConfig({
        ...BASE,
        localAs: 65001,
        address: '2001:db8:1::1',
        families,
        extendedNextHop: true,
        routerId: '198.18.0.2',
      }),
    );
    const without = localOpen(
      resolvePeerConfig({
        ...BASE,
        localAs: 65001,
        address: '2001:db8:1::1',
        families,
        routerId: '198.18.0.2',
      }),
    );
    const opts = { expectedRemoteAs: 65001, localAs: 65000 };
    expect(negotiate(localOpen(ours), with_, opts).extendedNextHop).toEqual([
      { afi: 1, safi: 1, nextHopAfi: 2, send: true, receive: true },
    ]);
    // We advertised it, they did not: they may send us IPv6 next hops, we may not send them.
    expect(negotiate(localOpen(ours), without, opts).extendedNextHop).toEqual([
      { afi: 1, safi: 1, nextHopAfi: 2, send: false, receive: true },
    ]);
    const plain = resolvePeerConfig({ ...BASE, address: '2001:db8:1::2', families });
    expect(negotiate(localOpen(plain), with_, opts).extendedNextHop).toEqual([
      { afi: 1, safi: 1, nextHopAfi: 2, send: true, receive: false },
    ]);
  });

  it('a session without a common family is refused with 2/7 naming our families', () => {
    const c = resolvePeerConfig(BASE);
    const none = { families: [] } as unknown as Negotiated;
    let caught: unknown;
    try {
      checkFamilies(none, c);
    } catch (e) {
      caught = e;
    }
    expect(caught).toBeInstanceOf(BgpError);
    expect([(caught as BgpError).code, (caught as BgpError).subcode]).toEqual([2, 7]);
    expect([...(caught as BgpError).data]).toEqual([1, 4, 0, 1, 0, 1]);
    expect(() =>
      checkFamilies({ families: [{ afi: 1, safi: 1 }] } as unknown as Negotiated, c),
    ).not.toThrow();
  });
});
