import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { maskIpv4, parseIpv4 } from '../../src/address/index.js';
import { Afi } from '../../src/bgp/wire/constants.js';
import {
  formatPrefix,
  ipv4Key,
  ipv4KeyAddress,
  ipv4KeyLength,
  ipv6Key,
  parsePrefix,
  prefixKey,
  prefixWords,
  RibPrefix,
  toRibPrefix,
} from '../../src/rib/index.js';

describe('prefix keys', () => {
  it('masks host bits away for every IPv4 length', () => {
    const addr = parseIpv4('198.18.255.255');
    expect(maskIpv4(addr, 0)).toBe(0);
    expect(maskIpv4(addr, 1)).toBe(0x80000000);
    expect(maskIpv4(addr, 15)).toBe(parseIpv4('198.18.0.0'));
    expect(maskIpv4(addr, 24)).toBe(parseIpv4('198.18.255.0'));
    expect(maskIpv4(addr, 31)).toBe(parseIpv4('198.18.255.254'));
    expect(maskIpv4(addr, 32)).toBe(addr);
  });

  it('packs IPv4 address and length into one exact number, host bits ignored', () => {
    fc.assert(
      fc.property(fc.integer({ min: 0, max: 0xffffffff }), fc.integer({ min: 0, max: 32 }), (addr, len) => {
        const key = ipv4Key(addr, len);
        expect(Number.isSafeInteger(key)).toBe(true);
        expect(ipv4KeyLength(key)).toBe(len);
        expect(ipv4KeyAddress(key)).toBe(maskIpv4(addr, len));
        expect(ipv4Key(maskIpv4(addr, len), len)).toBe(key);
      }),
    );
  });

  it('an IPv6 RibPrefix keys the same on every call (built once) as ipv6Key does, and objects stay equal', () => {
    const p = parsePrefix('2001:db8:7:1::/64');
    const fresh = parsePrefix('2001:db8:7:1::/64');
    const first = p.key();
    expect(first).toBe(ipv6Key(p.words(), 0, 64));
    expect(p.key()).toBe(first);
    expect(parsePrefix('2001:db8:7:1::/63').key()).not.toBe(first);
    // The cached key is not part of what a prefix is (a private field: equality never sees it).
    expect(p.equals(fresh)).toBe(true);
    expect(p).toEqual(fresh);
    expect(fresh.key()).toBe(first);
  });

  it('gives two IPv6 prefixes the same key exactly when they are equal', () => {
    const prefix = fc
      .tuple(fc.array(fc.integer({ min: 0, max: 0xffffffff }), { minLength: 4, maxLength: 4 }), fc.nat(128))
      .map(([w, len]) => RibPrefix.fromWords(Afi.IPV6, w, 0, len));
    // Pairs that differ in one bit of the address or in the length, the cases a lossy key misses.
    const near = prefix.chain((p) =>
      fc.tuple(fc.constant(p), fc.nat(127), fc.nat(128)).map(([a, bit, len]) => {
        const w = [p.w0, p.w1, p.w2, p.w3];
        w[bit >> 5] ^= 1 << (31 - (bit & 31));
        return [a, RibPrefix.fromWords(Afi.IPV6, w, 0, bit % 2 === 0 ? p.len : len)] as const;
      }),
    );
    fc.assert(
      fc.property(fc.oneof(fc.tuple(prefix, prefix), near), ([p, q]) => {
        expect(p.key() === q.key()).toBe(p.equals(q));
        expect(typeof p.key()).toBe('string');
      }),
      { numRuns: 5000 },
    );
  });

  it('gives different keys to the same address with different lengths', () => {
    expect(ipv4Key(0, 0)).not.toBe(ipv4Key(0, 1));
    expect(ipv4Key(parseIpv4('10.0.0.0'), 8)).not.toBe(ipv4Key(parseIpv4('10.0.0.0'), 16));
  });

  it('parses and formats prefixes of both families, clearing host bits', () => {
    const v4 = parsePrefix('198.18.7.9/16');
    expect(v4.afi).toBe(Afi.IPV4);
    expect(formatPrefix(v4)).toBe('198.18.0.0/16');
    const v6 = parsePrefix('2001:db8:1:2::1/48');
    expect(v6.afi).toBe(Afi.IPV6);
    expect(v6.toString()).toBe('2001:db8:1::/48');
    expect(parsePrefix('0.0.0.0/0').toString()).toBe('0.0.0.0/0');
    expect(parsePrefix('::/0').toString()).toBe('::/0');
    expect(parsePrefix('2001:db8::1/128').toString()).toBe('2001:db8::1/128');
  });

  it('rejects bad prefix text with a message naming it', () => {
    expect(() => parsePrefix('198.18.0.0')).toThrow(/no "\/len"/);
    expect(() => parsePrefix('198.18.0.0/33')).toThrow(/out of range/);
    expect(() => parsePrefix('2001:db8::/129')).toThrow(/out of range/);
    expect(() => parsePrefix('198.18.0.0/x')).toThrow(/length/);
    expect(() => parsePrefix('198.18.0/24')).toThrow(/IPv4/);
    expect(() => prefixWords({ afi: 3 as never, addr: '1.2.3.4', len: 8 })).toThrow(/family/);
  });

  it('gives API keys equal exactly when prefixes are equal', () => {
    expect(prefixKey({ afi: Afi.IPV4, addr: '198.18.1.1', len: 24 })).toBe(
      prefixKey({ afi: Afi.IPV4, addr: '198.18.1.0', len: 24 }),
    );
    expect(prefixKey({ afi: Afi.IPV6, addr: '2001:db8::', len: 32 })).toBe(
      ipv6Key(Uint32Array.of(0x20010db8, 0, 0, 0), 0, 32),
    );
    expect(prefixKey({ afi: Afi.IPV6, addr: '2001:db8::', len: 32 })).not.toBe(
      prefixKey({ afi: Afi.IPV6, addr: '2001:db8::', len: 33 }),
    );
  });

  it('RibPrefix keeps masked words, builds text lazily and round-trips', () => {
    fc.assert(
      fc.property(
        fc.array(fc.integer({ min: 0, max: 0xffffffff }), { minLength: 4, maxLength: 4 }),
        fc.integer({ min: 0, max: 128 }),
        (words, len) => {
          const p = RibPrefix.fromWords(Afi.IPV6, words, 0, len);
          const again = parsePrefix(p.toString());
          expect(again.equals(p)).toBe(true);
          expect(again.key()).toBe(p.key());
          expect(toRibPrefix({ afi: p.afi, addr: p.addr, len: p.len }).equals(p)).toBe(true);
        },
      ),
    );
    const p = RibPrefix.fromWords(Afi.IPV4, [parseIpv4('198.18.5.5')], 0, 24);
    expect(p.toJSON()).toEqual({ afi: Afi.IPV4, addr: '198.18.5.0', len: 24 });
  });
});
