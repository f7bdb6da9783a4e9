import { describe, expect, it } from 'vitest';
import { parseIpv4 } from '../../src/address/index.js';
import { Origin } from '../../src/bgp/wire/constants.js';
import { maxPrefixConfig, peerOnLink, sessionAddresses, staticAttributes } from '../../src/routing/index.js';
import { sampleConfig } from '../speaker/support.js';

// The small translations routing makes: configured routes to attributes, interfaces to our
// addresses on a session, max_prefixes to the guard's settings.

const config = sampleConfig();

describe('staticAttributes', () => {
  it('next hop self leaves the next hop out; a given one is NEXT_HOP or MP_REACH_NLRI', () => {
    const [v4self, v6given, v4given, network] = config.routes.map(staticAttributes);
    expect(v4self).toMatchObject({
      origin: Origin.IGP,
      asPath: [],
      nextHop: undefined,
      mpReach: undefined,
      med: 10,
      communities: [((65000 << 16) | 100) >>> 0, 0xffffff01],
      largeCommunities: [65000, 1, 2],
    });
    expect(v6given!.origin).toBe(Origin.INCOMPLETE);
    expect(v6given!.localPref).toBe(200);
    expect(Buffer.from(v6given!.mpReach!.nextHop).toString('hex')).toBe('20010db8000100000000000000000001');
    expect(v4given!.nextHop).toBe(parseIpv4('198.18.1.9'));
    expect(network).toMatchObject({ origin: Origin.IGP, mpReach: undefined, communities: undefined });
    expect(network!.extCommunities).toBeUndefined();
  });

  it('encodes extended communities as RFC 4360 lays them out: type, sub-type, value', () => {
    const [v4self] = config.routes.map(staticAttributes);
    // rt:65000:1 is 0x00 0x02 AS(2) local(4); soo 198.18.0.1:7 is 0x01 0x03 address(4) local(2).
    expect(Buffer.from(v4self!.extCommunities!).toString('hex')).toBe(
      '0002fde800000001' + '0103c61200010007',
    );
  });
});

describe('sessionAddresses', () => {
  const interfaces = {
    lo: [{ address: '127.0.0.1', family: 'IPv4', cidr: '127.0.0.1/8' }],
    'to-frr': [
      { address: '198.18.1.1', family: 'IPv4', cidr: '198.18.1.1/24' },
      { address: 'fe80::1', family: 'IPv6', cidr: 'fe80::1/64' },
      { address: '2001:db8:1::1', family: 'IPv6', cidr: '2001:db8:1::1/64' },
    ],
  } as unknown as Parameters<typeof sessionAddresses>[1];

  it('takes the other family’s global address and the subnets from the same interface', () => {
    const a = sessionAddresses('198.18.1.1', interfaces);
    expect(a.ipv4).toBe(parseIpv4('198.18.1.1'));
    expect(Buffer.from(a.ipv6!).toString('hex')).toBe('20010db8000100000000000000000001');
    expect(a.subnets.map(String)).toEqual(['198.18.1.0/24', '2001:db8:1::/64']);
    const b = sessionAddresses('2001:db8:1::1', interfaces);
    expect(b.ipv4).toBe(parseIpv4('198.18.1.1'));
    expect(a.found && b.found).toBe(true);
  });

  it('finds our link-local address, and tells a peer on the link from one elsewhere', () => {
    const a = sessionAddresses('2001:db8:1::1', interfaces);
    expect(Buffer.from(a.ipv6LinkLocal!).toString('hex')).toBe('fe800000000000000000000000000001');
    expect(peerOnLink('2001:db8:1::2', a)).toBe(true);
    expect(peerOnLink('fe80::2%to-frr', a)).toBe(true);
    expect(peerOnLink('2001:db8:2::2', a)).toBe(false);
    expect(peerOnLink('not an address', a)).toBe(false);
  });

  it('a session between link-local addresses (unnumbered) puts the global address first when there is one', () => {
    const a = sessionAddresses('fe80::1', interfaces);
    expect(Buffer.from(a.ipv6!).toString('hex')).toBe('20010db8000100000000000000000001');
    expect(Buffer.from(a.ipv6LinkLocal!).toString('hex')).toBe('fe800000000000000000000000000001');
    expect(a.ipv4).toBe(parseIpv4('198.18.1.1'));
    const bare = {
      eth1: [{ address: 'fe80::1', family: 'IPv6', cidr: 'fe80::1/64' }],
    } as unknown as Parameters<typeof sessionAddresses>[1];
    const b = sessionAddresses('fe80::1', bare);
    expect(Buffer.from(b.ipv6!).toString('hex')).toBe('fe800000000000000000000000000001');
    expect(b.ipv4).toBeUndefined();
  });

  it('an address on no listed interface is still ours for its own family, and not found', () => {
    const a = sessionAddresses('198.18.9.9', interfaces);
    expect(a).toEqual({
      ipv4: parseIpv4('198.18.9.9'),
      ipv6: undefined,
      ipv6LinkLocal: undefined,
      subnets: [],
      found: false,
    });
  });
});

describe('maxPrefixConfig', () => {
  it('max_prefixes becomes the guard’s settings; restart_after 0 means stay down', () => {
    expect(maxPrefixConfig(config.peers[0]!.maxPrefixes!)).toEqual({
      limit: 10,
      warningOnly: false,
      warningThresholdPercent: 50,
      restartAfterSeconds: 30,
    });
    expect(maxPrefixConfig({ limit: 5, warningOnly: true, warningThreshold: 75, restartAfter: 0 })).toEqual({
      limit: 5,
      warningOnly: true,
      warningThresholdPercent: 75,
    });
  });
});
