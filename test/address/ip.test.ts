/* Addresses as text and bytes: what parses, what it says when it does not, and the one spelling out. */
import { describe, expect, it } from 'vitest';
import {
  AddressError,
  formatIp,
  ipProblem,
  normalizeAddress,
  parseIp,
  parseIpv4,
  parseIpv6,
  toV4Mapped,
  tryParseIp,
  tryParseIpv4,
} from '../../src/address/index.js';

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
    { text: '::2:3:4:5:6:7:8', family: 6, hex: '00000002000300040005000600070008' },
    { text: '0001:02:003::', family: 6, hex: '00010002000300000000000000000000' },
  ];
  it.each(valid)('$text', ({ text, family, hex: expected }) => {
    const ip = parseIp(text);
    expect(ip.family).toBe(family);
    expect(hex(ip.bytes)).toBe(expected);
  });

  const invalid: ReadonlyArray<[text: string, why: RegExp]> = [
    ['', /empty/],
    ['198.18.200', /four decimal octets/],
    ['198.18.200.256', /above 255/],
    ['198.18.200.02', /leading zero/], // octal to inet_aton
    ['198.18.200.2.1', /four decimal octets/],
    ['198.18..2', /octet is empty/],
    ['198.18.200.', /octet is empty/],
    ['a.b.c.d', /"a" belongs in no address/],
    ['1:2:3:4:5:6:7:8:9', /8 groups/],
    ['1:2:3:4:5:6:7', /8 groups/],
    ['1::2::3', /more than once/],
    ['1:2:3:4:5:6:7:8::', /at least one/], // RFC 4291 2.2: '::' stands for at least one group
    ['12345::', /more than 4 hex digits/],
    ['::1.2.3.4:5', /dotted quad/],
    [':1:2:3:4:5:6:7', /group is empty/],
    ['1:2:3:4:5:6:7:', /group is empty/],
    ['1:::2', /group is empty/],
    ['fe80::1%eth0', /zone ids/],
    ['198.18.200.2/30', /"\/" belongs in no address/],
    ['peer.example', /belongs in no address/],
  ];
  it.each(invalid)('refuses %j and says why (%s)', (text, why) => {
    expect(tryParseIp(text)).toBeUndefined();
    expect(ipProblem(text)).toMatch(why);
    try {
      parseIp(text);
      expect.unreachable();
    } catch (error) {
      expect(error).toBeInstanceOf(AddressError);
      expect((error as AddressError).kind).toBe('invalid-address');
      expect((error as AddressError).text).toBe(text);
      expect((error as AddressError).message).toMatch(why);
    }
  });

  it('takes leading zeros in octets only when asked (OVN writes them)', () => {
    expect(tryParseIp('198.018.064.001')).toBeUndefined();
    expect(formatIp(tryParseIp('198.018.064.001', true)!)).toBe('198.18.64.1');
    expect(tryParseIpv4('010.0.0.1', true)).toBe(0x0a000001);
    expect(formatIp(tryParseIp('::ffff:010.1.2.3', true)!)).toBe('::ffff:10.1.2.3');
    expect(tryParseIp('198.18.64.1000', true)).toBeUndefined();
  });

  it('the word parsers name the family they expected', () => {
    expect(() => parseIpv4('2001:db8::1')).toThrow(/not an IPv4 address: "2001:db8::1"/);
    expect(() => parseIpv6('2001:db8::g')).toThrow(/not an IPv6 address: "2001:db8::g" \("g" belongs/);
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
    expect(formatIp(parseIp('::ffff:0:0'))).toBe('::ffff:0.0.0.0');
  });
});
