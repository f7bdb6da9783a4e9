/* The address parsing derivation relies on: what is an address, and its canonical text. */
import { describe, expect, it } from 'vitest';
import { formatIp } from '../../src/address/index.js';
import { hostPrefix, ovnIp, ovnPrefix } from '../../src/ovn/addr.js';

const V4: readonly (readonly [text: string, canonical: string | null])[] = [
  ['198.18.64.100', '198.18.64.100'],
  ['0.0.0.0', '0.0.0.0'],
  ['255.255.255.255', '255.255.255.255'],
  ['198.018.064.001', '198.18.64.1'],
  ['198.18.64', null],
  ['198.18.64.1.5', null],
  ['198.18.64.256', null],
  ['198.18.64.1000', null],
  ['198.18..1', null],
  ['198.18.64.', null],
  ['.18.64.1', null],
  ['198.18.64.1a', null],
  ['198.18.64.-1', null],
  ['198.18.64.+1', null],
  [' 198.18.64.1', null],
  ['', null],
];

describe('IPv4 addresses', () => {
  it.each(V4)('%j → %j', (text, canonical) => {
    const ip = ovnIp(text);
    expect(ip === null ? null : formatIp(ip)).toBe(canonical);
    if (ip) expect(ip.family).toBe(4);
  });

  it('gives host routes and CIDRs of the right length', () => {
    expect(hostPrefix(ovnIp('198.18.64.100')!)).toBe('198.18.64.100/32');
    expect(ovnPrefix('198.18.64.1/24')).toMatchObject({ family: 4, len: 24 });
    expect(ovnPrefix('198.18.64.1/33')).toBeNull();
  });
});

describe('IPv6 addresses', () => {
  it.each([
    ['2001:db8:64::100', '2001:db8:64::100'],
    ['2001:DB8:0:0:0:0:0:1', '2001:db8::1'],
    ['[2001:db8::1]', '2001:db8::1'],
    ['::ffff:198.18.0.1', '::ffff:198.18.0.1'], // RFC 5952 section 5: an IPv4-mapped address keeps its dotted tail
    ['2001:db8::1::2', null],
    ['2001:db8::g', null],
  ])('%j → %j', (text, canonical) => {
    const ip = ovnIp(text);
    expect(ip === null ? null : formatIp(ip)).toBe(canonical);
  });
});
