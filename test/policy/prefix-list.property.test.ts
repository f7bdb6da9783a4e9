import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { formatIpv4, formatIpv6 } from '../../src/address/index.js';
import { Afi } from '../../src/bgp/wire/constants.js';
import { compilePrefixList, NO_ENTRY, type PrefixListEntryModel } from '../../src/policy/index.js';

/**
 * A reference written from FRR's prefix_list_entry_match and prefix_list_apply, over BigInt
 * addresses and entries as given: the first entry by seq whose prefix contains the route and
 * whose ge/le rule holds (0 meaning "not given").
 */
interface RefEntry {
  seq: number;
  permit: boolean;
  addr: bigint;
  len: number;
  ge: number;
  le: number;
}

function refLookup(entries: readonly RefEntry[], bits: number, addr: bigint, len: number): number {
  const sorted = [...entries].sort((a, b) => a.seq - b.seq);
  const top = (a: bigint, n: number) => (n === 0 ? 0n : a >> BigInt(bits - n));
  for (let i = 0; i < sorted.length; i++) {
    const e = sorted[i];
    if (e.len > len || top(e.addr, e.len) !== top(addr, e.len)) continue;
    if (!e.le && !e.ge) {
      if (e.len !== len) continue;
    } else {
      if (e.le && len > e.le) continue;
      if (e.ge && len < e.ge) continue;
    }
    return i;
  }
  return -1;
}

function mask(addr: bigint, len: number, bits: number): bigint {
  if (len === 0) return 0n;
  const keep = ((1n << BigInt(len)) - 1n) << BigInt(bits - len);
  return addr & keep;
}

function text(addr: bigint, bits: number): string {
  if (bits === 32) return formatIpv4(Number(addr));
  const w = (i: number) => Number((addr >> BigInt(96 - 32 * i)) & 0xffffffffn);
  return formatIpv6(w(0), w(1), w(2), w(3));
}

function words(addr: bigint, bits: number): Uint32Array {
  const n = bits / 32;
  const out = new Uint32Array(n);
  for (let i = 0; i < n; i++) out[i] = Number((addr >> BigInt(bits - 32 * (i + 1))) & 0xffffffffn);
  return out;
}

/**
 * Entries with few distinct top bits so that random routes hit them: addresses come from a
 * small pool of "networks" with a random tail, lengths and ge/le chosen to be valid for FRR.
 */
function entryArb(bits: number, pool: readonly bigint[]) {
  return fc
    .record({
      base: fc.constantFrom(...pool),
      tail: fc.bigInt({ min: 0n, max: (1n << BigInt(bits)) - 1n }),
      len: fc.integer({ min: 0, max: bits }),
      permit: fc.boolean(),
      geOff: fc.option(fc.integer({ min: 0, max: bits }), { nil: undefined }),
      leOff: fc.option(fc.integer({ min: 0, max: bits }), { nil: undefined }),
    })
    .map(({ base, tail, len, permit, geOff, leOff }) => {
      // Share the pool's top 12 bits, then random bits down to the length.
      const addr = mask(base | (tail >> 12n), len, bits);
      const ge = geOff === undefined ? undefined : len + (geOff % (bits - len + 1));
      let le = leOff === undefined ? undefined : len + (leOff % (bits - len + 1));
      if (ge !== undefined && le !== undefined && le < ge) le = ge;
      return { addr, len, permit, ge, le };
    });
}

function routeArb(bits: number, pool: readonly bigint[]) {
  return fc
    .record({
      base: fc.constantFrom(...pool),
      tail: fc.bigInt({ min: 0n, max: (1n << BigInt(bits)) - 1n }),
      shift: fc.integer({ min: 0, max: 16 }),
      len: fc.integer({ min: 0, max: bits }),
    })
    .map(({ base, tail, shift, len }) => ({
      // Bits past the length stay: the lookup must ignore them.
      addr: base | (tail >> BigInt(12 + shift)),
      len,
    }));
}

function listArb(bits: number, pool: readonly bigint[], maxEntries: number) {
  return fc.tuple(
    fc.array(entryArb(bits, pool), { minLength: 0, maxLength: maxEntries }),
    fc.array(routeArb(bits, pool), { minLength: 1, maxLength: 40 }),
    fc.boolean(),
  );
}

function check(bits: 32 | 128, maxEntries: number, runs: number) {
  const top = (n: bigint) => n << BigInt(bits - 12);
  const pool = [top(0n), top(0xa00n), top(0xa01n), top(0xc60n), top(0xfffn), top(0x200n)];
  fc.assert(
    fc.property(listArb(bits, pool, maxEntries), ([raw, routes, shuffleSeqs]) => {
      const ref: RefEntry[] = raw.map((e, i) => ({
        seq: shuffleSeqs ? ((i * 7919) % 1000) + 1 + i * 1000 : (i + 1) * 5,
        permit: e.permit,
        addr: e.addr,
        len: e.len,
        ge: e.ge ?? 0,
        le: e.le ?? 0,
      }));
      const entries: PrefixListEntryModel[] = raw.map((e, i) => ({
        seq: ref[i].seq,
        action: e.permit ? 'permit' : 'deny',
        prefix: `${text(e.addr, bits)}/${e.len}`,
        ...(e.ge === undefined ? {} : { ge: e.ge }),
        ...(e.le === undefined ? {} : { le: e.le }),
      }));
      const model = { name: 'L', family: bits === 32 ? ('ipv4' as const) : ('ipv6' as const), entries };
      const lists = [
        compilePrefixList(model),
        compilePrefixList(model, 'L', 'linear'),
        compilePrefixList(model, 'L', 'trie'),
      ];
      const sortedSeqs = [...ref].map((e) => e.seq).sort((a, b) => a - b);
      for (const r of routes) {
        const want = refLookup(ref, bits, r.addr, r.len);
        const w = words(r.addr, bits);
        for (const list of lists) {
          const got = bits === 32 ? list.lookupIpv4(w[0], r.len) : list.lookupIpv6(w, 0, r.len);
          expect(got === NO_ENTRY ? -1 : list.seqs[got]).toBe(want === -1 ? -1 : sortedSeqs[want]);
          const permitted = want !== -1 && [...ref].sort((a, b) => a.seq - b.seq)[want].permit;
          expect(list.permits(bits === 32 ? Afi.IPV4 : Afi.IPV6, w, 0, r.len)).toBe(permitted);
        }
      }
    }),
    { numRuns: runs },
  );
}

describe('compiled prefix lists agree with a reference taken from FRR', () => {
  it('IPv4, small lists', () => check(32, 8, 400));
  it('IPv4, large lists', () => check(32, 120, 150));
  it('IPv6, small lists', () => check(128, 8, 300));
  it('IPv6, large lists', () => check(128, 120, 100));
});
