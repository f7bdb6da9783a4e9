import { addressBytes } from '../address/index.js';
import {
  Afi,
  AttrFlag,
  AttrType,
  type PathAttributes,
  restBytes,
  UpdatePacker,
  Writer,
} from '../bgp/wire/index.js';
import { nextTurn } from '../components/index.js';
import { ChangeBatch, FIRST_BEST, type Rib, type RouteSource } from '../rib/index.js';
import { MrtDefaults } from './constants.js';
import { encodePeerIndexTable, finishRib, type IndexedPeer, ribEntry, startRib } from './records.js';

/** Where a dump's bytes go; each chunk is written before the next is made (the buffer is reused). */
export type ChunkSink = (bytes: Uint8Array) => Promise<void>;

export interface TableDumpInit {
  /** Seconds since the epoch, the time of every record and entry. */
  readonly timestamp: number;
  /** Prefixes per turn (MrtDefaults.DUMP_SLICE). */
  readonly slice?: number;
  /** Bytes gathered before a write (MrtDefaults.WRITE_CHUNK). */
  readonly chunk?: number;
  /** Between slices; default the next turn of the event loop, so keepalives stay on time. */
  readonly pause?: () => Promise<void>;
}

export interface TableDumpResult {
  readonly peers: number;
  /** RIB records written, one per prefix. */
  readonly prefixes: number;
  readonly bytes: number;
  /** Best paths from a source that registered after the dump began (not in its peer index). */
  readonly skipped: number;
}

/** How TABLE_DUMP_V2 holds a route source: local origins as 0.0.0.0 with our AS. */
function indexedPeer(s: RouteSource): IndexedPeer {
  const address = s.address === '' ? new Uint8Array(4) : addressBytes(s.address);
  return { bgpId: s.routerId, address, asn: s.asn };
}

/**
 * The attributes of one path as TABLE_DUMP_V2 holds them (RFC 6396 section 4.3.4): AS_PATH
 * with 4-octet ASes, and MP_REACH_NLRI cut to the next hop's length and address (the family
 * and the prefix are the record's). An IPv4 path of our own with no next hop yet (ours, set on
 * export) is written with NEXT_HOP 0.0.0.0, as FRR dumps its local routes.
 */
export function tableDumpAttributes(
  packer: UpdatePacker,
  attrs: PathAttributes,
  afi: number = Afi.IPV4,
): Uint8Array {
  const rest = restBytes(packer.prepare(attrs));
  const reach = attrs.mpReach;
  if (!reach) {
    if (afi !== Afi.IPV4 || attrs.nextHop !== undefined) return rest;
    const out = new Uint8Array(rest.length + 7);
    out.set(rest);
    out.set([AttrFlag.TRANSITIVE, AttrType.NEXT_HOP, 4, 0, 0, 0, 0], rest.length);
    return out;
  }
  const nh = reach.nextHop;
  const out = new Uint8Array(rest.length + 4 + nh.length);
  out.set(rest);
  let p = rest.length;
  out[p++] = AttrFlag.OPTIONAL;
  out[p++] = AttrType.MP_REACH_NLRI;
  out[p++] = 1 + nh.length;
  out[p++] = nh.length;
  out.set(nh, p);
  return out;
}

/**
 * Writes the Loc-RIB's best paths as an RFC 6396 TABLE_DUMP_V2 stream: a PEER_INDEX_TABLE of
 * every route source, then one RIB_IPV4_UNICAST or RIB_IPV6_UNICAST record per prefix with its
 * best path. The table is walked a slice per turn and written a chunk at a time, so a full
 * table is never one buffer and the sessions' timers run in between; a change made meanwhile
 * is seen or not, as with any walk of a live table (FRR and BIRD dump the same way).
 */
export async function dumpTable(rib: Rib, sink: ChunkSink, init: TableDumpInit): Promise<TableDumpResult> {
  const slice = init.slice ?? MrtDefaults.DUMP_SLICE;
  const chunk = init.chunk ?? MrtDefaults.WRITE_CHUNK;
  const pause = init.pause ?? nextTurn;
  const time = init.timestamp;
  const sources = rib.sources();
  const index = new Map<string, number>();
  for (const [i, s] of sources.entries()) index.set(s.id, i);
  const w = new Writer(chunk + 4096);
  encodePeerIndexTable(w, time, {
    collectorId: rib.routerId,
    viewName: MrtDefaults.VIEW_NAME,
    peers: sources.map(indexedPeer),
  });
  const packer = new UpdatePacker({ as4: true });
  const encoded = new Map<PathAttributes, Uint8Array>();
  const batch = new ChangeBatch();
  let bytes = 0;
  let prefixes = 0;
  let skipped = 0;
  const flush = async () => {
    if (w.pos === 0) return;
    bytes += w.pos;
    await sink(w.view());
    w.reset();
  };
  for (let cursor: typeof FIRST_BEST | null = FIRST_BEST; cursor; ) {
    batch.reset();
    cursor = rib.collectBest(cursor, slice, batch);
    for (let i = 0; i < batch.count; i++) {
      const source = batch.sources[i]!;
      const peer = index.get(source.id);
      if (peer === undefined) {
        skipped++;
        continue;
      }
      const attrs = batch.attrs[i]!;
      const afi = batch.afis[i] === Afi.IPV4 ? Afi.IPV4 : Afi.IPV6;
      let body = encoded.get(attrs);
      if (!body) {
        body = tableDumpAttributes(packer, attrs, afi);
        encoded.set(attrs, body);
      }
      const len = batch.lens[i];
      const at = startRib(w, time, afi, false, prefixes, batch.words, i * 4, len);
      ribEntry(w, false, peer, time, 0, body);
      finishRib(w, at, 1, len);
      prefixes++;
      if (w.pos >= chunk) await flush();
    }
    if (cursor) await pause();
  }
  batch.reset();
  await flush();
  return { peers: sources.length, prefixes, bytes, skipped };
}
