import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { maskIpv4, parseIpv4, parseIpv6 } from '../../src/address/index.js';
import { Afi } from '../../src/bgp/wire/constants.js';
import { RESERVE_FROM, RESERVED_ENTRIES } from '../../src/rib/grow.js';
import { ipv6Key, PrefixTable } from '../../src/rib/index.js';
import { hash1 } from '../../src/rib/prefix-table.js';

describe('PrefixTable', () => {
  it('finds what it inserted, ignoring host bits, and tells new from existing', () => {
    const t = new PrefixTable(Afi.IPV4);
    const e = t.insert([parseIpv4('198.18.1.0')], 0, 24);
    expect(t.added).toBe(true);
    expect(t.insert([parseIpv4('198.18.1.77')], 0, 24)).toBe(e);
    expect(t.added).toBe(false);
    expect(t.find([parseIpv4('198.18.1.200')], 0, 24)).toBe(e);
    expect(t.find([parseIpv4('198.18.1.0')], 0, 23)).toBe(-1);
    expect(t.prefix(e).toString()).toBe('198.18.1.0/24');
    expect(t.size).toBe(1);
  });

  it("prefetches the home slots of a change batch's prefixes of its own family only", () => {
    // touched is what the loads read: non-zero exactly when an occupied home slot was read.
    const v4 = new PrefixTable(Afi.IPV4);
    const v6 = new PrefixTable(Afi.IPV6);
    v4.insert([parseIpv4('198.18.1.0')], 0, 24);
    const six = parseIpv6('2001:db8:1::');
    v6.insert(six, 0, 48);
    // Change columns: 4 words a prefix; change 0 is the IPv6 prefix, change 1 the IPv4 one.
    const words = Uint32Array.of(...six, parseIpv4('198.18.1.0'), 0, 0, 0);
    const lens = Uint8Array.of(48, 24);
    const afis = Uint8Array.of(Afi.IPV6, Afi.IPV4);
    v4.prefetchChanges(words, lens, afis, 0, 1);
    expect(v4.touched).toBe(0);
    v4.prefetchChanges(words, lens, afis, 0, 2);
    expect(v4.touched).not.toBe(0);
    v6.prefetchChanges(words, lens, afis, 1, 2);
    expect(v6.touched).toBe(0);
    v6.prefetchChanges(words, lens, afis, 0, 2);
    expect(v6.touched).not.toBe(0);
  });

  it('tells apart two prefixes whose hashes are equal', () => {
    // 0.0.0.0/0 and the /32 whose word cancels the length's seed hash alike.
    const other = (Math.imul(33, 0x9e3779b1) ^ Math.imul(1, 0x9e3779b1)) >>> 0;
    expect(hash1(other, 32, 0)).toBe(hash1(0, 0, 0));
    const t = new PrefixTable(Afi.IPV4);
    const a = t.insert([0], 0, 0);
    const b = t.insert([other], 0, 32);
    expect(t.added).toBe(true);
    expect(b).not.toBe(a);
    expect(t.find([other], 0, 32)).toBe(b);
    expect(t.find([0], 0, 0)).toBe(a);
    t.remove(a);
    expect(t.find([0], 0, 0)).toBe(-1);
    expect(t.find([other], 0, 32)).toBe(b);
  });

  it('grows past 8 MiB of slots (filled region by region) and still finds every prefix', () => {
    const t = new PrefixTable(Afi.IPV6);
    const n = 1_600_000; // beyond 3/4 of 2^21 slots
    const key = (i: number) => [0x20010db8, 0, 0, i]; // 2001:db8::i/128
    for (let i = 0; i < n; i++) t.insert(key(i), 0, 128);
    for (let i = 0; i < n; i += 2) t.remove(t.find(key(i), 0, 128));
    let found = 0;
    for (let i = 0; i < n; i++) if (t.find(key(i), 0, 128) >= 0) found++;
    expect(found).toBe(n / 2);
    expect(t.find(key(1), 0, 128)).toBeGreaterThanOrEqual(0);
    expect(t.find(key(n), 0, 128)).toBe(-1);
  });

  it('places a big run of appended prefixes among inserted ones when a lookup needs them', () => {
    const n = 1_600_000; // past 2^21 slots and the sorted placement's threshold
    const t = new PrefixTable(Afi.IPV4, false, undefined, n);
    const key = (i: number) => [i << 8]; // distinct /29s (host bits beyond 29 are zero)
    for (let i = 0; i < 1000; i++) t.insert(key(i), 0, 29);
    let misplaced = 0;
    for (let i = 1000; i < n; i++) if (t.append(key(i), 0, 29) !== i) misplaced++;
    expect(t.size).toBe(n);
    // The first lookup places them; every prefix is found at its entry.
    for (let i = 0; i < n; i++) if (t.find(key(i), 0, 29) !== i) misplaced++;
    expect(misplaced).toBe(0);
    expect(t.insert(key(n - 1), 0, 29)).toBe(n - 1);
    expect(t.added).toBe(false);
    expect(t.find(key(n), 0, 29)).toBe(-1);
    t.remove(t.find(key(5), 0, 29));
    expect(t.find(key(5), 0, 29)).toBe(-1);
    expect(t.size).toBe(n - 1);
  });

  it('grows the slots when the appended prefixes outnumber what they hold', () => {
    const t = new PrefixTable(Afi.IPV6);
    const key = (i: number) => [0x20010db8, 0, i, 0];
    for (let i = 0; i < 5000; i++) t.append(key(i), 0, 96);
    let found = 0;
    for (let i = 0; i < 5000; i++) if (t.find(key(i), 0, 96) === i) found++;
    expect(found).toBe(5000);
  });

  it('keys IPv6 prefixes on all four words and path ids when asked', () => {
    const t = new PrefixTable(Afi.IPV6, true);
    const a = t.insert(parseIpv6('2001:db8::'), 0, 64, 1);
    const b = t.insert(parseIpv6('2001:db8::'), 0, 64, 2);
    const c = t.insert(parseIpv6('2001:db8:0:0:1::'), 0, 80, 1);
    expect(new Set([a, b, c]).size).toBe(3);
    expect(t.find(parseIpv6('2001:db8::ffff'), 0, 64, 2)).toBe(b);
    expect(t.find(parseIpv6('2001:db8::'), 0, 64, 3)).toBe(-1);
    expect(t.pathId(b)).toBe(2);
    expect(t.prefix(c).toString()).toBe('2001:db8:0:0:1::/80');
  });

  it('grows, telling the owner the new capacity, and reuses freed entries', () => {
    const seen: number[] = [];
    const t = new PrefixTable(Afi.IPV4, false, (cap) => seen.push(cap));
    for (let i = 0; i < 100; i++) t.insert([i << 8], 0, 24);
    expect(seen.length).toBeGreaterThan(0);
    expect(t.capacity).toBe(seen[seen.length - 1]);
    const e = t.find([5 << 8], 0, 24);
    t.remove(e);
    expect(t.isLive(e)).toBe(false);
    expect(t.insert([1000 << 8], 0, 24)).toBe(e);
    expect(() => t.remove(100_000)).toThrow(/not live/);
  });

  for (const afi of [Afi.IPV4, Afi.IPV6] as const) {
    it(`behaves like a Map under any mix of inserts, appends and removals (${afi === Afi.IPV4 ? 'IPv4' : 'IPv6'})`, () => {
      // Few distinct keys, so removals hit long probe runs and backward shifting is exercised.
      // append stands for insert where the key is new (the caller's promise), so appended
      // entries meet later finds, inserts and removals in any order.
      const op = fc.record({
        remove: fc.boolean(),
        append: fc.boolean(),
        word: fc.integer({ min: 0, max: 40 }),
        len: fc.constantFrom(8, 24, afi === Afi.IPV4 ? 32 : 128),
        pathId: fc.integer({ min: 0, max: 2 }),
      });
      fc.assert(
        fc.property(fc.array(op, { maxLength: 300 }), (ops) => {
          const t = new PrefixTable(afi, true);
          const model = new Map<string, number>();
          const words = (w: number) => (afi === Afi.IPV4 ? [w << 24] : [w << 24, w, 0, w]);
          const key = (w: number, len: number, id: number) =>
            afi === Afi.IPV4
              ? `${maskIpv4(w << 24, len)}/${len}#${id}`
              : `${ipv6Key(words(w), 0, len)}#${id}`;
          for (const o of ops) {
            const k = key(o.word, o.len, o.pathId);
            if (o.remove) {
              const e = t.find(words(o.word), 0, o.len, o.pathId);
              expect(e >= 0).toBe(model.has(k));
              if (e >= 0) {
                expect(e).toBe(model.get(k));
                t.remove(e);
                model.delete(k);
              }
            } else {
              const e =
                o.append && !model.has(k)
                  ? t.append(words(o.word), 0, o.len, o.pathId)
                  : t.insert(words(o.word), 0, o.len, o.pathId);
              expect(t.added).toBe(!model.has(k));
              if (model.has(k)) expect(e).toBe(model.get(k));
              model.set(k, e);
            }
            expect(t.size).toBe(model.size);
          }
          // Every key still reachable from its home slot (removal must not break probe runs).
          for (const o of ops) {
            const k = key(o.word, o.len, o.pathId);
            expect(t.find(words(o.word), 0, o.len, o.pathId)).toBe(model.get(k) ?? -1);
          }
          for (const [k, e] of model) {
            expect(t.isLive(e)).toBe(true);
            const p = t.prefix(e);
            const id = t.pathId(e);
            expect(
              `${afi === Afi.IPV4 ? `${p.w0}/${p.len}` : ipv6Key([p.w0, p.w1, p.w2, p.w3], 0, p.len)}#${id}`,
            ).toBe(k);
          }
        }),
      );
    });
  }

  it('grows its entries straight to the reserve past RESERVE_FROM, and still finds every prefix', () => {
    const seen: number[] = [];
    const t = new PrefixTable(Afi.IPV4, false, (cap) => seen.push(cap));
    const n = RESERVE_FROM + 1000;
    for (let i = 0; i < n; i++) t.insert([i << 8], 0, 24);
    expect(seen.slice(-2)).toEqual([RESERVE_FROM, RESERVED_ENTRIES]);
    let found = 0;
    for (let i = 0; i < n; i++) if (t.find([i << 8], 0, 24) === i) found++;
    expect(found).toBe(n);
    // Emptied, the table keeps its reserve and takes new prefixes in it.
    t.clear();
    expect(t.find([7 << 8], 0, 24)).toBe(-1);
    expect(t.insert([7 << 8], 0, 24)).toBe(0);
    expect(t.added).toBe(true);
    expect(t.capacity).toBe(RESERVED_ENTRIES);
  });

  it('clear empties the table', () => {
    const t = new PrefixTable(Afi.IPV4);
    for (let i = 0; i < 50; i++) t.insert([i << 8], 0, 24);
    t.clear();
    expect(t.size).toBe(0);
    expect(t.find([3 << 8], 0, 24)).toBe(-1);
    t.insert([3 << 8], 0, 24);
    expect(t.size).toBe(1);
  });
});
