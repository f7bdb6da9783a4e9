import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import {
  compileExtCommunityList,
  formatExtCommunity,
  parseExtCommunity,
  parseExtCommunityPattern,
} from '../../src/policy/index.js';
import { accepted, attrs, policy, run } from './helpers.js';

const u32 = fc.integer({ min: 0, max: 0xffffffff });
/** Any 8 octets, as the (hi, lo) words the policy engine reads. */
const community = fc.record({ hi: u32, lo: u32 });
const u16 = fc.integer({ min: 0, max: 0xffff });
const ipv4 = fc.tuple(fc.nat(255), fc.nat(255), fc.nat(255), fc.nat(255)).map((o) => o.join('.'));

/** Text an operator writes, with the words it must mean (RFC 4360 sections 3-4, RFC 5668). */
const written = fc.oneof(
  fc.record({ kw: fc.constantFrom('rt', 'soo'), as: u16, local: u32 }).map(({ kw, as, local }) => ({
    text: `${kw}:${as}:${local}`,
    sub: kw === 'rt' ? 2 : 3,
    type: 0,
    g: as,
    local,
  })),
  fc.record({ kw: fc.constantFrom('rt', 'soo'), ip: ipv4, local: u16 }).map(({ kw, ip, local }) => ({
    text: `${kw}:${ip}:${local}`,
    sub: kw === 'rt' ? 2 : 3,
    type: 1,
    g: ip,
    local,
  })),
  fc
    .record({
      kw: fc.constantFrom('rt', 'soo'),
      as: fc.integer({ min: 0x10000, max: 0xffffffff }),
      local: u16,
    })
    .map(({ kw, as, local }) => ({
      text: `${kw}:${as}:${local}`,
      sub: kw === 'rt' ? 2 : 3,
      type: 2,
      g: as,
      local,
    })),
);

function bytes(list: readonly { hi: number; lo: number }[]): Uint8Array {
  const out = new Uint8Array(list.length * 8);
  const v = new DataView(out.buffer);
  list.forEach((c, i) => {
    v.setUint32(i * 8, c.hi);
    v.setUint32(i * 8 + 4, c.lo);
  });
  return out;
}

function words(b: Uint8Array | undefined): { hi: number; lo: number }[] {
  if (!b) return [];
  const v = new DataView(b.buffer, b.byteOffset, b.byteLength);
  const out = [];
  for (let at = 0; at < b.length; at += 8) out.push({ hi: v.getUint32(at), lo: v.getUint32(at + 4) });
  return out;
}

describe('extended community text, properties', () => {
  it('format then parse gives back every 8 octets', () => {
    fc.assert(
      fc.property(community, ({ hi, lo }) => {
        const p = parseExtCommunity(formatExtCommunity(hi, lo), 'x');
        expect([p.hi, p.lo]).toEqual([hi, lo]);
      }),
      { numRuns: 2000 },
    );
  });

  it('parse then format gives the canonical text back, with type and sub-type as written', () => {
    fc.assert(
      fc.property(written, ({ text, type, sub }) => {
        const p = parseExtCommunity(text, 'x');
        expect(p.hi >>> 24).toBe(type);
        expect((p.hi >>> 16) & 0xff).toBe(sub);
        expect(formatExtCommunity(p.hi, p.lo)).toBe(text);
      }),
    );
  });
});

describe('extended community matching, properties', () => {
  it('a list entry matches exactly when the route carries all its communities', () => {
    fc.assert(
      fc.property(
        fc.array(community, { minLength: 1, maxLength: 3 }),
        fc.array(community, { maxLength: 6 }),
        fc.boolean(),
        (wanted, others, include) => {
          const list = compileExtCommunityList({
            name: 'E',
            entries: [{ action: 'permit', communities: wanted.map((c) => formatExtCommunity(c.hi, c.lo)) }],
          });
          const carried = include ? [...others, ...wanted].reverse() : others;
          const has = (c: { hi: number; lo: number }) => carried.some((o) => o.hi === c.hi && o.lo === c.lo);
          expect(list.matches(bytes(carried))).toBe(wanted.every(has));
        },
      ),
    );
  });

  it('a local-administrator wildcard matches what differs only in the local administrator', () => {
    fc.assert(
      fc.property(written, u16, ({ text }, other) => {
        const p = parseExtCommunity(text, 'x');
        const pattern = text.replace(/:[0-9]+$/, ':*');
        const list = compileExtCommunityList({
          name: 'W',
          entries: [{ action: 'permit', communities: [pattern] }],
        });
        const type = p.hi >>> 24;
        // The local administrator is the last 4 octets for a two-octet AS, else the last 2.
        const lo = type === 0 ? other : ((p.lo & 0xffff0000) | other) >>> 0;
        expect(list.matches(bytes([{ hi: p.hi, lo }]))).toBe(true);
        expect(list.matches(bytes([{ hi: (p.hi ^ 0x01000000) >>> 0, lo }]))).toBe(false);
        expect(parseExtCommunityPattern(pattern, 'x').hi).toBe(p.hi);
      }),
    );
  });

  it('remove then add leaves the added ones and nothing matching the removed one, each once', () => {
    fc.assert(
      fc.property(fc.array(community, { maxLength: 6 }), community, community, (input, removed, added) => {
        const fmt = (c: { hi: number; lo: number }) => formatExtCommunity(c.hi, c.lo);
        const p = policy([
          { set: { extendedCommunities: { remove: [fmt(removed)], add: [fmt(added)] } }, action: 'accept' },
        ]);
        const out = words(
          accepted(run(p, '198.18.0.0/24', attrs({ extCommunities: bytes(input) }))).extCommunities,
        );
        const same = (a: { hi: number; lo: number }, b: { hi: number; lo: number }) =>
          a.hi === b.hi && a.lo === b.lo;
        const addedIsRemoved = same(added, removed);
        expect(out.filter((c) => same(c, added)).length).toBeGreaterThanOrEqual(1);
        if (!addedIsRemoved) expect(out.some((c) => same(c, removed))).toBe(false);
        const kept = input.filter((c) => !same(c, removed) && !same(c, added));
        expect(out.filter((c) => !same(c, added))).toEqual(kept);
      }),
    );
  });
});
