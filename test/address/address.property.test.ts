/* Properties of the address module: round trips, the RFC 5952 rules, words and bytes, masking. */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import {
  bytesToWords,
  formatAddress,
  formatIp,
  formatIpPrefix,
  formatIpv4,
  formatIpv6,
  type IpPrefix,
  isV4Mapped,
  maskWord,
  networkOf,
  normalizeAddress,
  parseIp,
  parseIpPrefix,
  parseIpv4,
  parseIpv6,
  prefixContains,
  toV4Mapped,
  tryParseIpPrefix,
  unmapV4,
  wordsToBytes,
} from '../../src/address/index.js';

const hex = (bytes: Uint8Array) => Buffer.from(bytes).toString('hex');
const u32 = fc.integer({ min: 0, max: 0xffffffff });

/** Eight groups, often zero: runs of zero groups are where '::' bugs live. */
const groups8 = fc.array(fc.oneof(fc.constant(0), fc.constant(0), fc.integer({ min: 0, max: 0xffff })), {
  minLength: 8,
  maxLength: 8,
});
const groupBytes = (groups: readonly number[]) => {
  const out = new Uint8Array(16);
  groups.forEach((g, i) => {
    out[2 * i] = g >> 8;
    out[2 * i + 1] = g & 0xff;
  });
  return out;
};
const ipv4Bytes = fc.uint8Array({ minLength: 4, maxLength: 4 });
const ipv6Bytes = fc.oneof(fc.uint8Array({ minLength: 16, maxLength: 16 }), groups8.map(groupBytes));
const ipv6Words = fc.array(u32, { minLength: 4, maxLength: 4 });

/** The longest run of zero groups (first on ties), as [start, length]; length 0 when there is none. */
function longestZeroRun(groups: readonly number[]): [number, number] {
  let best: [number, number] = [-1, 0];
  for (let i = 0; i < 8; ) {
    let j = i;
    while (j < 8 && groups[j] === 0) j++;
    if (j - i > best[1]) best = [i, j - i];
    i = j === i ? i + 1 : j;
  }
  return best;
}

describe('parse(format(x)) is x', () => {
  it('IPv4, as bytes and as a word', () => {
    fc.assert(
      fc.property(ipv4Bytes, (bytes) => {
        const text = formatIp({ family: 4, bytes });
        expect(hex(parseIp(text).bytes)).toBe(hex(bytes));
        const word = bytesToWords(bytes)[0];
        expect(parseIpv4(formatIpv4(word))).toBe(word);
        expect(formatIpv4(word)).toBe(text);
      }),
    );
  });

  it('IPv6, as bytes and as words, and every other spelling parses to the same address', () => {
    fc.assert(
      fc.property(groups8, fc.boolean(), (groups, upper) => {
        const bytes = groupBytes(groups);
        const text = formatIp({ family: 6, bytes });
        expect(hex(parseIp(text).bytes)).toBe(hex(bytes));
        const words = bytesToWords(bytes);
        expect([...parseIpv6(text)]).toEqual([...words]);
        expect(formatIpv6(words[0], words[1], words[2], words[3])).toBe(text);
        // uncompressed, zero-padded, either case
        const full = groups.map((g) => g.toString(16).padStart(4, '0')).join(':');
        expect(hex(parseIp(upper ? full.toUpperCase() : full).bytes)).toBe(hex(bytes));
      }),
    );
  });

  it('IPv6 words of any value', () => {
    fc.assert(
      fc.property(ipv6Words, (w) => {
        expect([...parseIpv6(formatIpv6(w[0], w[1], w[2], w[3]))]).toEqual(w);
      }),
    );
  });
});

describe('RFC 5952 text', () => {
  it('lower case, no leading zeros, the longest zero run as "::", the first on ties, never one group', () => {
    fc.assert(
      fc.property(groups8, (groups) => {
        const bytes = groupBytes(groups);
        fc.pre(!isV4Mapped({ family: 6, bytes }));
        const text = formatIp({ family: 6, bytes });
        expect(text).toBe(text.toLowerCase()); // 4.3
        const [start, length] = longestZeroRun(groups);
        if (length < 2) {
          // 4.2.2: a single zero group is written "0"
          expect(text).not.toContain('::');
          expect(text.split(':')).toEqual(groups.map((g) => g.toString(16))); // 4.1: no leading zeros
          return;
        }
        expect(text.split('::')).toHaveLength(2); // 4.2.1: shortened as far as possible, once
        const [head, tail] = text.split('::');
        const headGroups = head === '' ? [] : head.split(':');
        const tailGroups = tail === '' ? [] : tail.split(':');
        expect(headGroups.length).toBe(start); // 4.2.3: the first of the longest runs
        expect(8 - headGroups.length - tailGroups.length).toBe(length);
        expect([...headGroups, ...tailGroups]).toEqual(
          [...groups.slice(0, start), ...groups.slice(start + length)].map((g) => g.toString(16)),
        );
      }),
    );
  });

  it('agrees with the WHATWG URL host serializer (RFC 5952 but for the dotted tail)', () => {
    fc.assert(
      fc.property(ipv6Bytes, (bytes) => {
        const ip = { family: 6 as const, bytes };
        fc.pre(!isV4Mapped(ip));
        const text = formatIp(ip);
        expect(`[${text}]`).toBe(new URL(`http://[${text}]/`).hostname);
      }),
    );
  });

  it('writes an IPv4-mapped address as ::ffff:a.b.c.d (section 5), and normalizes it to the IPv4 address', () => {
    fc.assert(
      fc.property(ipv4Bytes, (bytes) => {
        const ip = { family: 4 as const, bytes };
        const mapped = toV4Mapped(ip);
        expect(isV4Mapped(mapped)).toBe(true);
        expect(formatIp(mapped)).toBe(`::ffff:${formatIp(ip)}`);
        expect(normalizeAddress(formatIp(mapped))).toBe(formatIp(ip));
        expect(hex(unmapV4(mapped).bytes)).toBe(hex(bytes));
      }),
    );
  });
});

describe('words and bytes', () => {
  it('round-trip for both families', () => {
    fc.assert(
      fc.property(fc.oneof(ipv4Bytes, ipv6Bytes), (bytes) => {
        const words = bytesToWords(bytes);
        expect(words).toHaveLength(bytes.length / 4);
        expect(hex(wordsToBytes(words, 0, words.length as 1 | 4))).toBe(hex(bytes));
        expect(formatAddress(bytes)).toBe(formatIp(parseIp(formatAddress(bytes))));
      }),
    );
  });

  it('read words at an offset, most significant first', () => {
    fc.assert(
      fc.property(fc.array(u32, { minLength: 5, maxLength: 9 }), (list) => {
        const bytes = wordsToBytes(list, 1, 4);
        expect([...bytesToWords(bytes)]).toEqual(list.slice(1, 5));
        expect(bytes[0]).toBe(list[1] >>> 24);
      }),
    );
  });
});

const prefixArb = fc.oneof(
  fc
    .tuple(u32, fc.integer({ min: 0, max: 32 }))
    .map(([w, len]): IpPrefix => ({ family: 4, words: Uint32Array.of(w), len })),
  fc
    .tuple(ipv6Words, fc.integer({ min: 0, max: 128 }))
    .map(([w, len]): IpPrefix => ({ family: 6, words: Uint32Array.from(w), len })),
);

describe('prefix masking', () => {
  it('the network has no bits past the length, masks once, and contains the prefix it came from', () => {
    fc.assert(
      fc.property(prefixArb, (p) => {
        const net = networkOf(p);
        net.words.forEach((w, i) => {
          expect(maskWord(w, i, p.len)).toBe(w);
          expect(w).toBe(maskWord(p.words[i], i, p.len));
        });
        expect(networkOf(net)).toBe(net);
        expect(prefixContains(net, p)).toBe(true);
        expect(prefixContains(p, net)).toBe(true);
      }),
    );
  });

  it('parses its own text: cleared, kept or refused as asked', () => {
    fc.assert(
      fc.property(prefixArb, (p) => {
        const text = formatIpPrefix(p);
        const net = networkOf(p);
        const hasHostBits = net !== p;
        expect([...parseIpPrefix(text, { hostBits: 'keep' }).words]).toEqual([...p.words]);
        const cleared = parseIpPrefix(text, { hostBits: 'clear' });
        expect([...cleared.words]).toEqual([...net.words]);
        expect(cleared.len).toBe(p.len);
        expect(formatIpPrefix(cleared)).toBe(formatIpPrefix(net));
        expect(tryParseIpPrefix(text, { hostBits: 'refuse' }) === undefined).toBe(hasHostBits);
      }),
    );
  });

  it('a longer prefix is inside a shorter one exactly when their first bits agree', () => {
    fc.assert(
      fc.property(prefixArb, fc.nat(128), (p, cut) => {
        const outer: IpPrefix = { family: p.family, words: p.words, len: Math.min(cut, p.len) };
        expect(prefixContains(outer, p)).toBe(true);
        if (outer.len < p.len) expect(prefixContains(p, outer)).toBe(false);
        const other: IpPrefix = { family: p.family === 4 ? 6 : 4, words: new Uint32Array(4), len: 0 };
        expect(prefixContains(other, p)).toBe(false);
      }),
    );
  });
});
