import {
  Afi,
  type AfiCode,
  makeAttributes,
  type PathAttributes,
  PrefixList,
  UpdatePacker,
  Writer,
} from '../bgp/wire/index.js';

/**
 * The synthetic table the warm-up feeds through the receive path: UPDATE messages as a peer
 * sends them (4-octet AS, IPv4 in the NLRI field, IPv6 in MP_REACH_NLRI), about ten prefixes
 * per attribute set as in a real table, then the same prefixes withdrawn. Built in memory only;
 * its prefixes are from the benchmarking and documentation blocks (198.18.0.0/15, 2001:db8::/32).
 */
export interface WarmUpTable {
  /** The announcements, whole messages back to back. */
  readonly announce: Uint8Array;
  /** Every announced prefix withdrawn again. */
  readonly withdraw: Uint8Array;
}

/** The AS the synthetic peer sends from: first in every AS_PATH (eBGP). */
export const WARM_UP_PEER_AS = 64512;
/** Next hops on the synthetic peer's link. */
export const WARM_UP_NEXT_HOP_V4 = 0xc6120001; // 198.18.0.1
const NEXT_HOP_V6 = Uint8Array.of(0x20, 0x01, 0x0d, 0xb8, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 1);

const V4_BASE = 0xc6120000; // 198.18.0.0/15
/** One IPv4 prefix per /28 of 198.18.0.0/15, /28 to /30: 8192 at most. */
const V4_SLOT_BITS = 4;
const V4_MAX = 2 ** (17 - V4_SLOT_BITS);
/** One IPv6 prefix per /48 of 2001:db8::/32, /48 to /64. */
const V6_MAX = 2 ** 16;
const V6_LENGTHS = [48, 56, 64] as const;
const PER_ATTRIBUTE_SET = 10;
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
    for (let from = 0; from < list.count; from += PER_ATTRIBUTE_SET) {
      const to = Math.min(from + PER_ATTRIBUTE_SET, list.count);
      packer.announce(
        announce,
        packer.prepare(attributesFor(list.afi, from / PER_ATTRIBUTE_SET)),
        list,
        from,
        to,
      );
    }
  }
  const withdraw = new Writer(size);
  for (const list of lists) if (list.count > 0) packer.withdraw(withdraw, list);
  return { announce: announce.finish(), withdraw: withdraw.finish() };
}

function ipv4Prefixes(n: number): PrefixList {
  const list = new PrefixList(Afi.IPV4, false, Math.max(n, 1));
  for (let i = 0; i < n; i++) {
    const k = list.grow();
    list.words[k] = (V4_BASE + (i << V4_SLOT_BITS)) >>> 0;
    list.lens[k] = 28 + (i % 3);
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

/** Attribute set `g`: AS paths of 2 to 5 hops, a MED on some, communities on others. */
function attributesFor(afi: AfiCode, g: number): PathAttributes {
  const asns = [WARM_UP_PEER_AS];
  for (let h = 0; h < 1 + (g % 4); h++) asns.push(64600 + ((g * 7 + h * 13) % 800));
  const common: PathAttributes = {
    origin: g % 10 === 9 ? 2 : 0,
    asPath: [{ type: 2, asns }],
    med: g % 3 === 0 ? g % 1000 : undefined,
    communities: g % 3 === 1 ? [((WARM_UP_PEER_AS << 16) | (g & 0xffff)) >>> 0] : undefined,
  };
  return afi === Afi.IPV4
    ? makeAttributes({ ...common, nextHop: WARM_UP_NEXT_HOP_V4 })
    : makeAttributes({ ...common, mpReach: { afi: Afi.IPV6, safi: 1, nextHop: NEXT_HOP_V6, reserved: 0 } });
}
