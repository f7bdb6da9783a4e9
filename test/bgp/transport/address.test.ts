import { describe, expect, it } from 'vitest';
import { tryParseIp } from '../../../src/address/index.js';
import { parseScopedAddress, parseTransportAddress } from '../../../src/bgp/transport/address.js';
import { endpointOf, scopedText } from '../../../src/bgp/transport/endpoint.js';
import { TransportError } from '../../../src/bgp/transport/errors.js';

describe('parseTransportAddress', () => {
  const invalid = [
    '',
    '198.18.200',
    '198.18.200.256',
    '198.18.200.02', // leading zeros are ambiguous (octal in inet_aton)
    '198.18.200.2.1',
    'a.b.c.d',
    '1:2:3:4:5:6:7:8:9',
    '1:2:3:4:5:6:7',
    '1::2::3',
    '1:2:3:4:5:6:7:8::', // '::' must stand for at least one group
    '12345::',
    '::1.2.3.4:5',
    'fe80::1%eth0',
    '198.18.200.2/30',
    'peer.example',
  ];
  it.each(invalid)('rejects %j with a TransportError naming it', (text) => {
    expect(tryParseIp(text)).toBeUndefined();
    try {
      parseTransportAddress(text);
      expect.unreachable();
    } catch (error) {
      expect(error).toBeInstanceOf(TransportError);
      expect((error as TransportError).kind).toBe('invalid-address');
      expect((error as TransportError).address).toBe(text);
    }
  });

  it('explains where a zone id goes', () => {
    expect(() => parseTransportAddress('fe80::1%eth0')).toThrow(/zone id goes with an IPv6 link-local/);
  });
});

describe('parseScopedAddress', () => {
  it('keeps the interface of a link-local address', () => {
    const s = parseScopedAddress('FE80::0001%eth1');
    expect(s.zone).toBe('eth1');
    expect(s.ip.family).toBe(6);
    expect(parseScopedAddress('fe80::1').zone).toBeUndefined();
    expect(parseScopedAddress('febf::1%x').zone).toBe('x');
  });

  it.each(['2001:db8::1%eth1', '198.18.0.1%eth1', 'fe80::1%', 'fec0::1%eth1', 'nope%eth1'])(
    'refuses %j as an invalid-address naming it',
    (text) => {
      try {
        parseScopedAddress(text);
        expect.unreachable();
      } catch (error) {
        expect((error as TransportError).kind).toBe('invalid-address');
        expect((error as Error).message).toContain(text.split('%')[0]);
      }
    },
  );
});

describe('endpointOf', () => {
  it('splits the zone node reports for a link-local peer', () => {
    const e = endpointOf('fe80::ac8c:fff:fe1e:d8df%unx0', 179);
    expect(e).toEqual({ address: 'fe80::ac8c:fff:fe1e:d8df', port: 179, zone: 'unx0' });
    expect(scopedText(e!)).toBe('fe80::ac8c:fff:fe1e:d8df%unx0');
  });

  it('reports IPv4 peers unmapped and without a zone', () => {
    expect(endpointOf('::ffff:198.18.0.1', 5)).toEqual({ address: '198.18.0.1', port: 5 });
    expect(scopedText({ address: '198.18.0.1' })).toBe('198.18.0.1');
    expect(endpointOf(undefined, 5)).toBeUndefined();
    expect(endpointOf('bad%x', 5)).toBeUndefined();
  });
});
