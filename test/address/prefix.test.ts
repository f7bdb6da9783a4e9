/* "addr/len" text: which part is wrong, and what each caller's host-bit rule does. */
import { describe, expect, it } from 'vitest';
import {
  AddressError,
  formatIpPrefix,
  parseIpPrefix,
  tryParseIpPrefix,
  wordMask,
} from '../../src/address/index.js';

describe('parseIpPrefix', () => {
  it.each([
    ['198.18.0.0/15', 'refuse', '198.18.0.0/15'],
    ['198.18.7.9/16', 'clear', '198.18.0.0/16'],
    ['198.18.64.1/24', 'keep', '198.18.64.1/24'],
    ['2001:DB8:1:2::1/48', 'clear', '2001:db8:1::/48'],
    ['0.0.0.0/0', 'refuse', '0.0.0.0/0'],
    ['::/0', 'refuse', '::/0'],
    ['2001:db8::1/128', 'refuse', '2001:db8::1/128'],
  ] as const)('%s (%s) -> %s', (text, hostBits, expected) => {
    expect(formatIpPrefix(parseIpPrefix(text, { hostBits }))).toBe(expected);
  });

  it.each([
    ['198.18.0.0', 'missing-length', /no "\/len"/],
    ['198.18.0.0/33', 'length-out-of-range', /IPv4 prefixes are at most \/32/],
    ['2001:db8::/129', 'length-out-of-range', /IPv6 prefixes are at most \/128/],
    ['198.18.0.0/x', 'invalid-length', /length/],
    ['198.18.0.0/024', 'invalid-length', /length/],
    ['198.18.0.0/', 'invalid-length', /length/],
    ['198.18.0/24', 'invalid-address', /IPv4/],
    ['2001:db8::g/32', 'invalid-address', /IPv6.*"g"/],
    ['198.18.0.1/24', 'host-bits-set', /the network is 198\.18\.0\.0\/24/],
    ['2001:db8::1/64', 'host-bits-set', /the network is 2001:db8::\/64/],
  ] as const)('%s: %s', (text, kind, message) => {
    expect(tryParseIpPrefix(text, { hostBits: 'refuse' })).toBeUndefined();
    try {
      parseIpPrefix(text, { hostBits: 'refuse' });
      expect.unreachable();
    } catch (error) {
      expect(error).toBeInstanceOf(AddressError);
      expect((error as AddressError).kind).toBe(kind);
      expect((error as AddressError).message).toMatch(message);
    }
  });

  it('an address alone is its host prefix when the caller says so', () => {
    expect(formatIpPrefix(parseIpPrefix('198.18.64.100', { hostBits: 'keep', bareAddress: true }))).toBe(
      '198.18.64.100/32',
    );
    expect(formatIpPrefix(parseIpPrefix('2001:db8::5', { hostBits: 'keep', bareAddress: true }))).toBe(
      '2001:db8::5/128',
    );
  });

  it('leading zeros in octets and length only when the caller says so', () => {
    const lenient = { hostBits: 'keep', leadingZeros: true } as const;
    expect(tryParseIpPrefix('010.0.0.0/08', { hostBits: 'keep' })).toBeUndefined();
    expect(formatIpPrefix(parseIpPrefix('010.0.0.0/08', lenient))).toBe('10.0.0.0/8');
  });

  it('wordMask sets the top bits of a word, clamped to 0..32', () => {
    expect(wordMask(-3)).toBe(0);
    expect(wordMask(0)).toBe(0);
    expect(wordMask(1)).toBe(0x80000000);
    expect(wordMask(24)).toBe(0xffffff00);
    expect(wordMask(32)).toBe(0xffffffff);
    expect(wordMask(40)).toBe(0xffffffff);
  });
});
