/**
 * The tables every sender sends: a table shape of bench/gen (skewed or transit), generated once
 * per shape and size, then packed into whole UPDATE messages per link before any clock starts.
 * Only the next hop differs between links (single-hop eBGP peers want one on the shared subnet),
 * so each link gets its own copy of the stream.
 */
import { addressBytes, parseIpv4 } from '../../src/address/index.js';
import { Afi, HEADER_LENGTH } from '../../src/bgp/wire/constants.js';
import { checkHeader } from '../../src/bgp/wire/header.js';
import { UpdatePacker } from '../../src/bgp/wire/update-packer.js';
import { Writer } from '../../src/bgp/wire/writer.js';
import { type ShapedTable, shapeAttributes, shapedTable, type TableShape } from '../gen/table-shapes.js';
import { TABLE_SEED } from './constants.js';
import { countUpdate, type PrefixCounts } from './update-count.js';

export interface TableSpec {
  readonly shape: TableShape;
  readonly ipv4: number;
  readonly ipv6: number;
  /** AS of the sender: the first AS of every path (FRR enforces it on eBGP). */
  readonly localAs: number;
  /** The generator's seed; the benchmark's own (every implementation gets the same table) if absent. */
  readonly seed?: number;
}

export interface LinkNextHops {
  readonly ipv4: string;
  readonly ipv6: string;
}

/** The prefixes a receiver must end up holding. */
export const tableSize = (t: TableSpec): number => t.ipv4 + t.ipv6;

/** The table's generated parts (IPv4, then IPv6), the same for every link. */
export function buildTable(t: TableSpec): ShapedTable[] {
  const parts = [
    { afi: Afi.IPV4, prefixes: t.ipv4 },
    { afi: Afi.IPV6, prefixes: t.ipv6 },
  ];
  return parts
    .filter((p) => p.prefixes > 0)
    .map((p) => shapedTable(t.shape, { ...p, localAs: t.localAs, seed: t.seed ?? TABLE_SEED }));
}

/** Every UPDATE of the table (IPv4, then IPv6 in MP_REACH_NLRI), without End-of-RIB markers. */
export function encodeTable(parts: readonly ShapedTable[], nextHops: LinkNextHops): Uint8Array {
  // A 4-octet-AS eBGP session, as every participant negotiates here.
  const packer = new UpdatePacker({ as4: true });
  const w = new Writer(1 << 24);
  for (const part of parts) {
    const nextHop = part.afi === Afi.IPV4 ? parseIpv4(nextHops.ipv4) : addressBytes(nextHops.ipv6);
    for (const g of part.groups) {
      const attrs = packer.prepare(shapeAttributes(g.spec, part.afi, nextHop));
      packer.announce(w, attrs, part.prefixes, g.from, g.to);
    }
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

/** UPDATEs in a stream and the prefixes they announce and withdraw, counted as the counter counts. */
export function countStream(stream: Uint8Array): { messages: number } & PrefixCounts {
  const c: PrefixCounts = { announced: 0, withdrawn: 0 };
  let messages = 0;
  for (let pos = 0; pos < stream.length; messages++) {
    const len = checkHeader(stream, pos);
    countUpdate(stream.subarray(pos, pos + len), c);
    pos += len;
  }
  return { messages, ...c };
}
