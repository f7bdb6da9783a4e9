/**
 * The tables the BGP-to-kernel bench sends, all from the lab ranges (198.18.0.0/15 and
 * 2001:db8::/32), and their UPDATE streams (announcements, then withdrawals), encoded once
 * before any clock starts.
 *
 * IPv4: 198.18.0.0/15 holds only 131,072 /32s, so the largest IPv4 table it allows is every
 * prefix of it at every length /15../32 (2^18 - 1 = 262,143), less the 511 inside the link's
 * /24 (a route there would cover the next hop itself). They go out in address order, each
 * address's shorter prefixes first, as a RIB dump lists them.
 * IPv6: n /64s counted up from 2001:db8::/64; 1,000,000 of them stand in for the 1M IPv4
 * routes that the lab range cannot hold in one BGP table.
 */
import { parseIpv4, parseIpv6 } from '../../src/address/index.js';
import { Afi, type AfiCode } from '../../src/bgp/wire/constants.js';
import { PrefixList } from '../../src/bgp/wire/prefix-list.js';
import { UpdatePacker } from '../../src/bgp/wire/update-packer.js';
import { Writer } from '../../src/bgp/wire/writer.js';

/** The feeder-receiver link: the last /24 of the IPv4 range, a /64 far above the IPv6 routes. */
export const LINK = {
  feedIf: 'fb2-to-rx',
  rxIf: 'fb2-to-feed',
  feed: '198.19.255.1',
  rx: '198.19.255.2',
  len: 24,
  feed6: '2001:db8:ffff::1',
  rx6: '2001:db8:ffff::2',
  len6: 64,
} as const;

const V4_BASE = parseIpv4('198.18.0.0');
const V4_LEN = 15;
const V4_SPAN = 1 << (32 - V4_LEN);
/** The link's /24, as an offset into the range: no route may fall inside it. */
const LINK_OFFSET = (parseIpv4(LINK.feed) - V4_BASE) & ~0xff;
const LINK_LEN = 24;
/** 2001:db8::/32 as its first word. */
const V6_WORD0 = 0x20010db8;
/** /64s numbered up from 2001:db8::/64 stay below the link's 2001:db8:ffff::/64 up to this count. */
const V6_MAX = 0xffff * 0x10000;

export interface TableSpec {
  readonly name: string;
  readonly afi: AfiCode;
  /** What the table is, for the bench's output. */
  readonly describe: string;
  readonly prefixes: PrefixList;
}

/** Trailing zero bits of a 17-bit offset (17 for 0). */
function trailingZeros(x: number): number {
  if (x === 0) return 32 - V4_LEN;
  return 31 - Math.clz32(x & -x);
}

/** Every prefix of 198.18.0.0/15 at lengths /15../32 outside the link's /24, in address order. */
export function allIpv4Prefixes(limit = Number.POSITIVE_INFINITY): PrefixList {
  const list = new PrefixList(Afi.IPV4, false, 1 << 18);
  for (let off = 0; off < V4_SPAN && list.count < limit; off++) {
    // Offset `off` starts one prefix per length whose host bits it leaves zero: /15 at 0 only, /32 at every one.
    const shortest = 32 - trailingZeros(off);
    for (let len = Math.max(shortest, V4_LEN); len <= 32 && list.count < limit; len++) {
      if (len >= LINK_LEN && (off & ~0xff) === LINK_OFFSET) continue;
      const at = list.grow();
      list.lens[at] = len;
      list.words[at] = (V4_BASE + off) >>> 0;
    }
  }
  return list;
}

/** `count` /64s from 2001:db8::/64 up (2001:db8:X:Y::/64 for the X*65536+Y-th). */
export function ipv6Slash64s(count: number): PrefixList {
  if (count > V6_MAX) throw new Error(`IPv6 table: at most ${V6_MAX} /64s below the link, asked ${count}`);
  const list = new PrefixList(Afi.IPV6, false, count);
  for (let i = 0; i < count; i++) {
    const at = list.grow();
    list.lens[at] = 64;
    list.words[at * 4] = V6_WORD0;
    list.words[at * 4 + 1] = i;
  }
  return list;
}

export interface Streams {
  readonly announce: Uint8Array;
  readonly withdraw: Uint8Array;
}

/**
 * Next hop the feeder. With `prefixesPerSet` 0 one attribute set for the whole table (as a
 * feeder of host routes sends); with N, a new set every N prefixes, as a transit peer's table
 * looks: AS paths of 2-5 hops and a MED, so no two neighbouring runs share a set.
 */
export function encodeStreams(table: TableSpec, feederAs: number, prefixesPerSet = 0): Streams {
  const packer = new UpdatePacker({ as4: true });
  const nextHop =
    table.afi === Afi.IPV4
      ? { nextHop: parseIpv4(LINK.feed) }
      : { mpReach: { afi: Afi.IPV6, safi: 1, nextHop: ipv6Bytes(LINK.feed6), reserved: 0 } };
  const setOf = (n: number) =>
    packer.prepare({
      origin: 0,
      asPath: [{ type: 2 as const, asns: [feederAs, ...transitPath(n)] }],
      ...(n > 0 && { med: n }),
      ...nextHop,
    });
  const a = new Writer(1 << 22);
  const count = table.prefixes.count;
  const step = prefixesPerSet > 0 ? prefixesPerSet : count;
  for (let from = 0, n = 0; from < count; from += step, n++)
    packer.announce(
      a,
      setOf(prefixesPerSet > 0 ? n + 1 : 0),
      table.prefixes,
      from,
      Math.min(count, from + step),
    );
  const w = new Writer(1 << 22);
  packer.withdraw(w, table.prefixes);
  return { announce: a.finish().slice(), withdraw: w.finish().slice() };
}

/**
 * Private 4-octet ASes after the feeder's, 1 to 4 of them, different for each set number (none
 * for 0): from 4200000000 up, far from the receivers' 2-octet ASes, so no path is a loop to them.
 */
function transitPath(n: number): number[] {
  if (n === 0) return [];
  const hops = 1 + (n % 4);
  return Array.from({ length: hops }, (_, i) => 4_200_000_000 + ((n * 7 + i * 13) % 100_000));
}

function ipv6Bytes(text: string): Uint8Array {
  const words = parseIpv6(text);
  const out = new Uint8Array(16);
  const view = new DataView(out.buffer);
  for (let i = 0; i < 4; i++) view.setUint32(i * 4, words[i] ?? 0);
  return out;
}
