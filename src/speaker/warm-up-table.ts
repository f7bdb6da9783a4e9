import {
  Afi,
  type AfiCode,
  encodeMessageBytes,
  KEEPALIVE,
  makeAttributes,
  type PathAttributes,
  PrefixList,
  UpdatePacker,
  Writer,
} from '../bgp/wire/index.js';

/**
 * The synthetic table the warm-up feeds through the receive path: UPDATE messages as a peer
 * sends them (4-octet AS, IPv4 in the NLRI field, IPv6 in MP_REACH_NLRI), a few prefixes per
 * attribute set as in a real table, then the same prefixes withdrawn. Built in memory only;
 * its prefixes are from the benchmarking and documentation blocks (198.18.0.0/15, 2001:db8::/32).
 */
export interface WarmUpTable {
  /** The announcements, whole messages back to back, a KEEPALIVE now and then among them. */
  readonly announce: Uint8Array;
  /** Every announced prefix withdrawn again. */
  readonly withdraw: Uint8Array;
}

/** The AS the synthetic peer sends from: first in every AS_PATH (eBGP). */
export const WARM_UP_PEER_AS = 64512;
/** The first 4-octet private AS (RFC 6996). */
const FOUR_OCTET_PRIVATE = 4_200_000_000;
/** Next hops on the synthetic peer's link. */
export const WARM_UP_NEXT_HOP_V4 = 0xc6120001; // 198.18.0.1
const NEXT_HOP_V6 = Uint8Array.of(0x20, 0x01, 0x0d, 0xb8, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 1);

const V4_BASE = 0xc6120000; // 198.18.0.0/15
const V4_BLOCK_LENGTH = 15;
/** The /24s of the block, each the start of nine prefixes (/24 to /32): 4608 and the shorter ones at most. */
const V4_SLOT_SIZE = 256;
const V4_SLOTS = 2 ** (24 - V4_BLOCK_LENGTH);
const V4_MAX = V4_SLOTS * 9;
/** One IPv6 prefix per /48 of 2001:db8::/32, /48 to /64. */
const V6_MAX = 2 ** 16;
const V6_LENGTHS = [48, 56, 64] as const;
/**
 * Prefixes per attribute set, in turn: one to three as most sets of a transit table carry,
 * ten as an aggregator's. About three and a half on average, so the interning tables grow past
 * their first size here and not at a session's first UPDATEs.
 */
const SET_SIZES = [1, 1, 2, 3, 10] as const;
/** A KEEPALIVE after every this many attribute sets' UPDATEs. */
const KEEPALIVE_EVERY = 64;
const KEEPALIVE_BYTES = encodeMessageBytes(KEEPALIVE);
/** A message buffer that holds any table the warm-up builds (at least 9 bytes a prefix, twice). */
const BYTES_PER_PREFIX = 32;

/** `prefixes` split between IPv4 and IPv6 (`ipv6Share` of them IPv6). */
export function warmUpTable(prefixes: number, ipv6Share: number): WarmUpTable {
  const v6 = Math.min(Math.round(prefixes * ipv6Share), V6_MAX);
  const v4 = Math.min(prefixes - v6, V4_MAX);
  const lists = [ipv4Prefixes(v4), ipv6Prefixes(v6)];
  const packer = new UpdatePacker({ as4: true });
  const size = (v4 + v6) * BYTES_PER_PREFIX + 4096;
  const announce = new Writer(size);
  for (const list of lists) {
    for (let from = 0, g = 0; from < list.count; g++) {
      const to = Math.min(from + SET_SIZES[g % SET_SIZES.length], list.count);
      packer.announce(announce, packer.prepare(attributesFor(list.afi, g)), list, from, to);
      // A peer's KEEPALIVEs come between its UPDATEs: the decoder meets them too.
      if (g % KEEPALIVE_EVERY === 0) announce.bytes(KEEPALIVE_BYTES);
      from = to;
    }
  }
  const withdraw = new Writer(size);
  for (const list of lists) if (list.count > 0) packer.withdraw(withdraw, list);
  return { announce: announce.finish(), withdraw: withdraw.finish() };
}

/**
 * IPv4 prefixes of 198.18.0.0/15 with the lengths a full table has, so the decoder has seen
 * every prefix size it reads in its own way before a session's first UPDATE (2, 3 and 4
 * address octets; a /24 first in each /24 of the block, then /25 to /32 at its start, and the
 * shorter ones where the /24 starts them).
 */
function ipv4Prefixes(n: number): PrefixList {
  const list = new PrefixList(Afi.IPV4, false, Math.max(n, 1));
  const add = (address: number, len: number) => {
    const k = list.grow();
    list.words[k] = address >>> 0;
    list.lens[k] = len;
  };
  for (let slot = 0; slot < V4_SLOTS && list.count < n; slot++) {
    const address = V4_BASE + slot * V4_SLOT_SIZE;
    for (let len = 24; len <= 32 && list.count < n; len++) add(address, len);
    // A /23 where the slot starts one, a /22 where it starts one, and so on up to the /15.
    for (let len = 23; len >= V4_BLOCK_LENGTH && list.count < n && slot % 2 ** (24 - len) === 0; len--)
      add(address, len);
  }
  return list;
}

function ipv6Prefixes(n: number): PrefixList {
  const list = new PrefixList(Afi.IPV6, false, Math.max(n, 1));
  for (let i = 0; i < n; i++) {
    const k = list.grow();
    list.words[k * 4] = 0x20010db8;
    list.words[k * 4 + 1] = (i << 16) >>> 0;
    list.lens[k] = V6_LENGTHS[i % V6_LENGTHS.length];
  }
  return list;
}

/**
 * Attribute set `g`, with what a transit provider's full table carries, so the decoder and the
 * RIB have met every attribute they read there: AS paths of 2 to 7 hops, 4-octet ASNs in some,
 * a prepended AS in one in ten; one to four communities on two sets in three; a large community
 * (RFC 8092) on one in seven; a MED on two in five; INCOMPLETE origin on one in ten. Warmed on
 * plainer sets, the first table of many small distinct sets ran no faster than with no warm-up.
 */
function attributesFor(afi: AfiCode, g: number): PathAttributes {
  const asns = [WARM_UP_PEER_AS];
  for (let h = 0; h < 1 + (g % 6); h++) {
    const asn = 64600 + ((g * 7 + h * 13) % 800);
    // A fifth of the hops are 4-octet ASNs (RFC 6793), from the private range.
    asns.push((g + h) % 5 === 0 ? FOUR_OCTET_PRIVATE + asn : asn);
  }
  if (g % 10 === 3) asns.push(asns[asns.length - 1], asns[asns.length - 1]);
  const communities =
    g % 3 === 0
      ? undefined
      : Array.from(
          { length: 1 + (g % 4) },
          (_, i) => ((WARM_UP_PEER_AS << 16) | ((g + i * 97) & 0xffff)) >>> 0,
        );
  const common: PathAttributes = {
    origin: g % 10 === 9 ? 2 : 0,
    asPath: [{ type: 2, asns }],
    med: g % 5 < 2 ? g % 1000 : undefined,
    communities,
    largeCommunities: g % 7 === 0 ? [WARM_UP_PEER_AS, g & 0xffff, 1] : undefined,
  };
  return afi === Afi.IPV4
    ? makeAttributes({ ...common, nextHop: WARM_UP_NEXT_HOP_V4 })
    : makeAttributes({ ...common, mpReach: { afi: Afi.IPV6, safi: 1, nextHop: NEXT_HOP_V6, reserved: 0 } });
}
