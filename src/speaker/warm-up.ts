import { parseIpv4 } from '../address/index.js';
import { localOpen, nextHopFacts, resolvePeerConfig } from '../bgp/session/index.js';
import {
  Afi,
  AttrInterner,
  endOfRib,
  Framer,
  type MessageContext,
  MessageDecoder,
  messageContextOf,
  negotiate,
} from '../bgp/wire/index.js';
import { AcceptAll } from '../policy/index.js';
import { Rib, RibDefaults, UpdateGroups } from '../rib/index.js';
import { Importer, RouteFlow, SessionExports } from '../routing/index.js';
import { WarmUpDefaults } from './constants.js';
import { WARM_UP_PEER_AS, warmUpTable } from './warm-up-table.js';

export interface WarmUpInit {
  /** Prefixes of the synthetic table. */
  readonly prefixes?: number;
  /** Times the table goes in and out (each on fresh instances). */
  readonly rounds?: number;
  /** Share of the prefixes that are IPv6. */
  readonly ipv6Share?: number;
}

export interface WarmUpReport {
  /** Prefixes announced and withdrawn, all rounds together. */
  readonly prefixes: number;
  readonly rounds: number;
  readonly ms: number;
}

/** Our side of the synthetic session: an AS and router id no configuration sees. */
const LOCAL_AS = 64513;
/** The addresses (and router ids) of the warm-up's two sides: ours, then the peer's. */
const OUR_ADDRESS = '198.18.0.2';
const PEER_ADDRESS = '198.18.0.1';
const ROUTER_ID = parseIpv4(OUR_ADDRESS);
const PEER_ROUTER_ID = parseIpv4(PEER_ADDRESS);

/**
 * A fresh process receives its first full table with cold code: V8 interprets the decoder,
 * the RIB and the decision process until enough calls have run to compile them, and that
 * first table took twice as long as a later one. The warm-up runs a synthetic table through
 * the same functions a session's UPDATEs go through (framer, UPDATE decoder with interning
 * and reused lists, import, Adj-RIB-In and Loc-RIB, route flow into update groups), then
 * withdraws it, on instances of its own that are dropped afterwards, with what a session hands
 * the decoder made alike (its decoding context, Buffers, every prefix size). Called once the
 * speaker's own objects exist, in one turn (no connection is served while it runs), it leaves
 * nothing in the speaker: no RIB entry, no route sent, no sink write, no metric (those belong
 * to objects it never sees).
 */
export function warmUp(init: WarmUpInit = {}): WarmUpReport {
  const started = performance.now();
  const rounds = init.rounds ?? WarmUpDefaults.ROUNDS;
  const table = warmUpTable(
    init.prefixes ?? WarmUpDefaults.PREFIXES,
    init.ipv6Share ?? WarmUpDefaults.IPV6_SHARE,
  );
  let prefixes = 0;
  for (let r = 0; r < rounds; r++) prefixes += round(table.announce, table.withdraw);
  return { prefixes, rounds, ms: performance.now() - started };
}

/** One table in and out through throwaway instances; returns the prefixes the RIB held. */
function round(announce: Uint8Array, withdraw: Uint8Array): number {
  const rib = new Rib({ localAs: LOCAL_AS, routerId: ROUTER_ID });
  const groups = new UpdateGroups({
    localAs: LOCAL_AS,
    clusterId: rib.clusterId,
    defaultLocalPref: RibDefaults.LOCAL_PREF,
  });
  // Flushes run when feed() has handed over a socket read's worth, as setImmediate would.
  let due: (() => void) | null = null;
  const flow = new RouteFlow(
    rib,
    (fn) => {
      due = fn;
    },
    (error) => {
      throw error;
    },
  );
  flow.addConsumer(new SessionExports(rib, groups));
  const peer = rib.addPeer({
    id: 'warm-up',
    kind: 'ebgp',
    asn: WARM_UP_PEER_AS,
    routerId: PEER_ROUTER_ID,
    address: PEER_ADDRESS,
  });
  const importer = new Importer(rib, peer, new AcceptAll('warm-up'), [false, false]);
  const decoder = new MessageDecoder(sessionContext(), {
    interner: new AttrInterner(),
    reuseLists: true,
  });
  const framer = new Framer();
  const feed = (bytes: Uint8Array) => {
    // As a socket hands them over: Buffers, whose map the decoder's compiled code then knows.
    const stream = Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength);
    for (let at = 0; at < stream.length; at += WarmUpDefaults.READ_BYTES) {
      framer.push(stream.subarray(at, at + WarmUpDefaults.READ_BYTES));
      for (let m = framer.next(); m !== null; m = framer.next()) {
        // Every message decoded, and End-of-RIB looked for, as a session does.
        const message = decoder.decode(m);
        if (message.type !== 'update' || endOfRib(message) !== null) continue;
        importer.apply(message);
        flow.schedule();
      }
      while (due !== null) {
        const run: () => void = due;
        due = null;
        run();
      }
    }
  };
  feed(announce);
  const held = rib.counts(peer, Afi.IPV4).accepted + rib.counts(peer, Afi.IPV6).accepted;
  feed(withdraw);
  rib.removePeer(peer);
  flow.flush();
  flow.close();
  return held;
}

/**
 * The decoding context made as an eBGP session makes its own (negotiate, then
 * messageContextOf with the connection's next-hop facts): warmed with a context of another
 * shape, the decoder's compiled code met a new map at a session's first UPDATE and was thrown
 * away again.
 */
function sessionContext(): MessageContext {
  return ebgpSessionContext(
    { as: LOCAL_AS, address: OUR_ADDRESS },
    { as: WARM_UP_PEER_AS, address: PEER_ADDRESS },
  );
}

/** One side of an eBGP session: its AS, and its IPv4 address (also its router id). */
export interface SessionSide {
  readonly as: number;
  readonly address: string;
}

/** The decoding context of an incoming eBGP session from `peer` to `local`, both families. */
export function ebgpSessionContext(local: SessionSide, peer: SessionSide): MessageContext {
  // Each side's OPEN as its session would send it.
  const open = (self: SessionSide, other: SessionSide) =>
    localOpen(
      resolvePeerConfig({
        address: other.address,
        localAs: self.as,
        remoteAs: other.as,
        routerId: self.address,
        families: ['ipv4-unicast', 'ipv6-unicast'],
      }),
    );
  const negotiated = negotiate(open(local, peer), open(peer, local), {
    expectedRemoteAs: peer.as,
    localAs: local.as,
  });
  const connection = {
    direction: 'incoming' as const,
    local: { address: local.address, port: 179 },
    remote: { address: peer.address, port: 49152 },
  };
  return messageContextOf(negotiated, true, nextHopFacts(connection));
}
