/**
 * The table every sender sends: the shared generator's Internet-shaped table (bench/gen), packed
 * once into whole UPDATE messages before any clock starts. Only the next hop differs between
 * links (single-hop eBGP peers want one on the shared subnet), so each link gets its own copy.
 */
import { addressBytes, parseIpv4 } from '../../src/address/index.js';
import { Afi, HEADER_LENGTH } from '../../src/bgp/wire/constants.js';
import { checkHeader } from '../../src/bgp/wire/header.js';
import { UpdatePacker } from '../../src/bgp/wire/update-packer.js';
import { Writer } from '../../src/bgp/wire/writer.js';
import { generateTable } from '../gen/full-table.js';
import { PER_ATTRIBUTE_SET, TABLE_SEED } from './constants.js';

export interface TableSpec {
  readonly ipv4: number;
  readonly ipv6: number;
  /** AS of the sender: the first AS of every path (FRR enforces it on eBGP). */
  readonly localAs: number;
}

export interface LinkNextHops {
  readonly ipv4: string;
  readonly ipv6: string;
}

/** The prefixes a receiver must end up holding. */
export const tableSize = (t: TableSpec): number => t.ipv4 + t.ipv6;

/** Every UPDATE of the table (IPv4, then IPv6 in MP_REACH_NLRI), without End-of-RIB markers. */
export function encodeTable(t: TableSpec, nextHops: LinkNextHops): Uint8Array {
  // A 4-octet-AS eBGP session, as every participant negotiates here.
  const packer = new UpdatePacker({ as4: true });
  const w = new Writer(1 << 24);
  const parts = [
    { afi: Afi.IPV4, prefixes: t.ipv4, nextHop: parseIpv4(nextHops.ipv4) as number | Uint8Array },
    { afi: Afi.IPV6, prefixes: t.ipv6, nextHop: addressBytes(nextHops.ipv6) },
  ];
  for (const p of parts) {
    if (p.prefixes === 0) continue;
    const table = generateTable({
      afi: p.afi,
      prefixes: p.prefixes,
      perAttributeSet: PER_ATTRIBUTE_SET,
      nextHop: p.nextHop,
      localAs: t.localAs,
      seed: TABLE_SEED,
      internet: true,
    });
    for (const g of table.groups) packer.announce(w, packer.prepare(g.attrs), table.prefixes, g.from, g.to);
  }
  return w.finish();
}

/** Offsets that cut the stream into chunks of whole messages of about `target` bytes. */
export function messageAlignedCuts(stream: Uint8Array, target: number): number[] {
  const cuts = [0];
  let chunkStart = 0;
  for (let pos = 0; pos < stream.length; ) {
    const len = checkHeader(stream, pos);
    if (len < HEADER_LENGTH) throw new Error(`bad message length ${len} at ${pos}`);
    pos += len;
    if (pos - chunkStart >= target || pos === stream.length) {
      cuts.push(pos);
      chunkStart = pos;
    }
  }
  return cuts;
}
