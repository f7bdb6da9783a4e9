/**
 * A shaped table fed to a RIB as an eBGP session feeds it, without sockets: socket-sized reads
 * framed with the session's Framer, decoded with the context the session makes, flushed after
 * every message, a turn of the event loop every PER_TURN messages as the session's inbound
 * path yields. Shared by the in-process benches of receiving and sending.
 */
import { parseIpv4 } from '../../src/address/index.js';
import { AttrInterner } from '../../src/bgp/wire/attributes/interner.js';
import { Afi } from '../../src/bgp/wire/constants.js';
import { Framer, type MessageContext, MessageDecoder } from '../../src/bgp/wire/index.js';
import { ChangeBatch, Rib } from '../../src/rib/index.js';
import { WarmUpDefaults } from '../../src/speaker/constants.js';
import { ebgpSessionContext } from '../../src/speaker/warm-up.js';
import { shapedTable, type TableShape } from '../gen/table-shapes.js';
import { buildTable, encodeTable } from '../throughput/table-stream.js';

const PER_TURN = 512;
export const LOCAL_AS = 65000;
export const PEER_AS = 65001;
export const LOCAL = '198.18.0.9';
export const PEER = '198.18.0.2';
const LINK = { ipv4: PEER, ipv6: '2001:db8::2' };

const nextTurn = () => new Promise<void>((resolve) => setImmediate(resolve));

/** The decoding context of our eBGP session with the table's sender. */
export function feedContext(): MessageContext {
  return ebgpSessionContext({ as: LOCAL_AS, address: LOCAL }, { as: PEER_AS, address: PEER });
}

/** The throughput benchmark's table (its seed), or with `seed` another one of the same shape, as UPDATE bytes. */
export function encodedTable(shape: TableShape, prefixes: number, seed?: number): Buffer {
  const parts =
    seed === undefined
      ? buildTable({ shape, ipv4: prefixes, ipv6: 0, localAs: PEER_AS })
      : [shapedTable(shape, { afi: Afi.IPV4, prefixes, localAs: PEER_AS, seed })];
  const bytes = encodeTable(parts, LINK);
  // As a socket hands them over.
  return Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength);
}

/** A fresh RIB with the sender as its one peer. */
export function senderRib(): { rib: Rib; peer: ReturnType<Rib['addPeer']> } {
  const rib = new Rib({ localAs: LOCAL_AS, routerId: parseIpv4(LOCAL) });
  const peer = rib.addPeer({
    id: 'source',
    kind: 'ebgp',
    asn: PEER_AS,
    routerId: parseIpv4(PEER),
    address: PEER,
  });
  return { rib, peer };
}

/** Feeds `stream` into a fresh RIB; returns it with the prefixes it holds. */
export async function feedTable(
  stream: Buffer,
  context: MessageContext,
): Promise<{ rib: Rib; held: number }> {
  const { rib, peer } = senderRib();
  const batch = new ChangeBatch();
  const decoder = new MessageDecoder(context, { interner: new AttrInterner(), reuseLists: true });
  // Framed from socket-sized reads as a session frames them: the messages the decoder gets
  // (views of the read, or of the framer's own copy where one spans two reads) are then of the
  // kinds the warm-up prepared the code for.
  const framer = new Framer();
  let n = 0;
  for (let at = 0; at < stream.length; at += WarmUpDefaults.READ_BYTES) {
    framer.push(stream.subarray(at, at + WarmUpDefaults.READ_BYTES));
    for (let m = framer.next(); m !== null; m = framer.next()) {
      const message = decoder.decode(m);
      if (message.type === 'update') rib.applyUpdate(peer, message);
      batch.reset();
      rib.flushInto(batch);
      if (++n % PER_TURN === 0) await nextTurn();
    }
  }
  return { rib, held: rib.counts(peer, Afi.IPV4).accepted };
}
