import { describe, expect, it } from 'vitest';
import { tryParseIp } from '../../../src/address/index.js';
import { parseTransportAddress } from '../../../src/bgp/transport/address.js';
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

  it('explains that zone ids are not taken', () => {
    expect(() => parseTransportAddress('fe80::1%eth0')).toThrow(/zone ids/);
  });
});
