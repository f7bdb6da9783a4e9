import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import {
  formatIp,
  isV4Mapped,
  normalizeAddress,
  parseIp,
  toV4Mapped,
  tryParseIp,
  unmapV4,
} from '../../../src/bgp/transport/address.js';
import { TransportError } from '../../../src/bgp/transport/errors.js';

const hex = (bytes: Uint8Array) => Buffer.from(bytes).toString('hex');

describe('parseIp', () => {
  const valid: ReadonlyArray<{ text: string; family: 4 | 6; hex: string }> = [
    { text: '198.18.200.2', family: 4, hex: 'c612c802' },
    { text: '0.0.0.0', family: 4, hex: '00000000' },
    { text: '255.255.255.255', family: 4, hex: 'ffffffff' },
    { text: '::', family: 6, hex: '0'.repeat(32) },
    { text: '::1', family: 6, hex: `${'0'.repeat(30)}01` },
    { text: '2001:db8:200::2', family: 6, hex: '20010db8020000000000000000000002' },
    { text: '2001:DB8:200:0:0:0:0:2', family: 6, hex: '20010db8020000000000000000000002' },
    { text: '2001:db8::', family: 6, hex: '20010db8000000000000000000000000' },
    { text: '::ffff:198.18.200.2', family: 6, hex: '00000000000000000000ffffc612c802' },
    { text: '::FFFF:c612:c802', family: 6, hex: '00000000000000000000ffffc612c802' },
    { text: '1:2:3:4:5:6:1.2.3.4', family: 6, hex: '00010002000300040005000601020304' },
    { text: '1:2:3:4:5:6:7::', family: 6, hex: '00010002000300040005000600070000' },
  ];
  it.each(valid)('$text', ({ text, family, hex: expected }) => {
    const ip = parseIp(text);
    expect(ip.family).toBe(family);
    expect(hex(ip.bytes)).toBe(expected);
  });

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
      parseIp(text);
      expect.unreachable();
    } catch (error) {
      expect(error).toBeInstanceOf(TransportError);
      expect((error as TransportError).kind).toBe('invalid-address');
      expect((error as TransportError).address).toBe(text);
    }
  });

  it('explains that zone ids are not taken', () => {
    expect(() => parseIp('fe80::1%eth0')).toThrow(/zone ids/);
  });
});

describe('formatIp / normalizeAddress', () => {
  const cases: ReadonlyArray<[string, string]> = [
    ['::ffff:198.18.200.2', '198.18.200.2'],
    ['::FFFF:C612:C802', '198.18.200.2'],
    ['198.18.200.2', '198.18.200.2'],
    ['2001:DB8:200:0:0:0:0:2', '2001:db8:200::2'],
    ['2001:db8:0:0:1:0:0:1', '2001:db8::1:0:0:1'], // RFC 5952 4.2.3: first of equal runs
    ['2001:db8:0:1:1:1:1:1', '2001:db8:0:1:1:1:1:1'], // RFC 5952 4.2.2: one zero group stays
    ['0:0:0:0:0:0:0:0', '::'],
    ['::1', '::1'],
    ['1::', '1::'],
    ['::198.18.0.1', '::c612:1'], // IPv4-compatible (deprecated) is not v4-mapped
  ];
  it.each(cases)('%s -> %s', (input, expected) => {
    expect(normalizeAddress(input)).toBe(expected);
  });

  it('writes v4-mapped addresses with a dotted tail (RFC 5952 section 5)', () => {
    expect(formatIp(toV4Mapped(parseIp('198.18.200.2')))).toBe('::ffff:198.18.200.2');
  });
});

const ipv4Bytes = fc.uint8Array({ minLength: 4, maxLength: 4 });
const ipv6Bytes = fc.oneof(
  fc.uint8Array({ minLength: 16, maxLength: 16 }),
  // runs of zero groups are where '::' bugs live
  fc
    .array(fc.oneof(fc.constant(0), fc.integer({ min: 0, max: 0xffff })), { minLength: 8, maxLength: 8 })
    .map((groups) => {
      const out = new Uint8Array(16);
      groups.forEach((g, i) => {
        out[2 * i] = g >> 8;
        out[2 * i + 1] = g & 0xff;
      });
      return out;
    }),
);

describe('address properties', () => {
  it('IPv6 text round-trips and matches the WHATWG URL canonical form', () => {
    fc.assert(
      fc.property(ipv6Bytes, (bytes) => {
        const ip = { family: 6 as const, bytes };
        const text = formatIp(ip);
        expect(hex(parseIp(text).bytes)).toBe(hex(bytes));
        if (!isV4Mapped(ip)) expect(`[${text}]`).toBe(new URL(`http://[${text}]/`).hostname);
        // the uncompressed spelling parses to the same bytes
        const full = Array.from({ length: 8 }, (_, i) =>
          ((bytes[2 * i] << 8) | bytes[2 * i + 1]).toString(16),
        );
        expect(hex(parseIp(full.join(':')).bytes)).toBe(hex(bytes));
      }),
    );
  });

  it('an IPv4 address and its v4-mapped form normalize to the same text', () => {
    fc.assert(
      fc.property(ipv4Bytes, (bytes) => {
        const ip = { family: 4 as const, bytes };
        const mapped = toV4Mapped(ip);
        expect(isV4Mapped(mapped)).toBe(true);
        expect(normalizeAddress(formatIp(mapped))).toBe(formatIp(ip));
        expect(hex(unmapV4(mapped).bytes)).toBe(hex(bytes));
      }),
    );
  });
});
