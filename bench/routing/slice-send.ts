import { Afi } from '../../src/bgp/wire/constants.js';
import { UpdatePacker } from '../../src/bgp/wire/update-packer.js';
import type { Writer } from '../../src/bgp/wire/writer.js';
import type { RouteFilter } from '../../src/policy/index.js';
import type { BestCursor, Rib, RibOut, UpdateGroups } from '../../src/rib/index.js';
import { Exporter, type ExportSession, RoutingDefaults } from '../../src/routing/index.js';

/** The exporter of an IPv4 eBGP session with 4-octet ASNs from `local` (reading the group's prepared bytes when given). */
export function ipv4EbgpExporter(
  filter: RouteFilter,
  local: number,
  prepared?: ExportSession['prepared'],
): Exporter {
  return new Exporter(filter, {
    packer: new UpdatePacker({ as4: true }),
    families: new Set([Afi.IPV4]),
    addPathSend: [false, false],
    localIpv4: local,
    localIpv6: undefined,
    ebgp: true,
    ...(prepared && { prepared }),
  });
}

/** Where a sliced send of a joining peer's initial table stands. */
export interface SlicedSend {
  readonly peerId: string;
  readonly out: RibOut;
  readonly exporter: Exporter;
  cursor: BestCursor | null;
}

/**
 * One turn of a session's pump without the socket (SessionExport's): the update group offers
 * a slice of the table, the Adj-RIB-Out's work for it is packed into `w` (reset first) and
 * handed back. Returns the prefixes and UPDATEs of the slice, or null once the table is out.
 */
export function sendSlice(
  s: SlicedSend,
  rib: Rib,
  groups: UpdateGroups,
  w: Writer,
): { prefixes: number; messages: number } | null {
  if (s.cursor !== null)
    s.cursor = groups.fill(s.peerId, rib, s.cursor, RoutingDefaults.EXPORT_SLICE_PREFIXES);
  const work = s.out.take(RoutingDefaults.EXPORT_SLICE_PREFIXES);
  if (work.count === 0 && s.cursor === null) return null;
  w.reset();
  const messages = s.exporter.encode(work, w);
  s.out.release(work);
  return { prefixes: work.count, messages };
}
