import {
  Afi,
  type AfiCode,
  AttrFlag,
  AttrType,
  encodeMessage,
  HEADER_LENGTH,
  MessageType,
  type PathAttributes,
  PrefixList,
  type UpdateMessage,
  UpdatePacker,
  Writer,
} from '../bgp/wire/index.js';
import { BmpPeerFlag, BmpPeerType, FSM_EVENT_CODE, PeerDownReason } from './constants.js';
import { encodeBmp } from './encode.js';
import type { PerPeerHeader, Stat } from './messages.js';
import type { MonitoredPeer, MonitoredSession, SessionEnding } from './session.js';

/** Which Adj-RIB-In a Route Monitoring message describes (section 4.2, the L flag). */
export type RibView = 'pre' | 'post';

const SAFI_UNICAST = 1;

function ipv4ToU32(address: string): number {
  const p = address.split('.').map(Number);
  return ((p[0]! << 24) | (p[1]! << 16) | (p[2]! << 8) | p[3]!) >>> 0;
}

/** Section 4.2 for one session: L for post-policy, A when the session uses 2-octet AS_PATHs. */
export function perPeerHeader(p: MonitoredPeer, view: RibView, ms: number): PerPeerHeader {
  const flags = (view === 'post' ? BmpPeerFlag.L : 0) | (p.context.update.as4 ? 0 : BmpPeerFlag.A);
  return {
    peerType: BmpPeerType.GLOBAL_INSTANCE,
    flags,
    distinguisher: 0n,
    address: p.address,
    asn: p.asn,
    bgpId: p.bgpId,
    seconds: Math.floor(ms / 1000),
    micros: Math.floor(ms % 1000) * 1000,
  };
}

/** The RFC 4271 BGP Identifier of dotted-quad text, for callers holding text. */
export const bgpIdOf = ipv4ToU32;

/**
 * Builds the BMP messages of sessions into byte arrays, reusing its writers: one Peer Up,
 * Route Monitoring for an UPDATE as received or as import policy left it, a table dump,
 * End-of-RIB, Peer Down. Pure: the caller says the time.
 */
export class RouteMessages {
  readonly #w = new Writer(4096);
  readonly #bgp = new Writer(4096);

  peerUp(p: MonitoredPeer): Uint8Array {
    // Section 4.10: the header's timestamp is when the session came up.
    this.#w.reset();
    encodeBmp(this.#w, {
      type: 'peer-up',
      peer: perPeerHeader(p, 'pre', p.upAt),
      localAddress: p.localAddress,
      localPort: p.localPort,
      remotePort: p.port,
      sentOpen: p.sentOpen,
      receivedOpen: p.receivedOpen,
      info: [],
    });
    return this.#w.finish();
  }

  peerDown(p: MonitoredPeer, ending: SessionEnding, ms: number): Uint8Array {
    const { reason, data } = peerDownReason(ending);
    this.#w.reset();
    encodeBmp(this.#w, { type: 'peer-down', peer: perPeerHeader(p, 'pre', ms), reason, data });
    return this.#w.finish();
  }

  /** Section 4.8: the session's counters and gauges. */
  stats(p: MonitoredPeer, stats: readonly Stat[], ms: number): Uint8Array {
    this.#w.reset();
    encodeBmp(this.#w, { type: 'statistics-report', peer: perPeerHeader(p, 'pre', ms), stats });
    return this.#w.finish();
  }

  /** The UPDATE as the peer sent it (pre-policy), re-encoded as the session encodes. */
  preUpdate(p: MonitoredPeer, u: UpdateMessage, ms: number, out: Uint8Array[]): void {
    const bgp = this.#bgp.reset();
    encodeMessage(bgp, u, p.context);
    this.#wrap(p, 'pre', ms, out);
  }

  /**
   * What import policy made of the prefixes of an UPDATE (post-policy): each one's path as
   * the Adj-RIB-In holds it now, or its withdrawal when policy rejected it or it was withdrawn.
   */
  postUpdate(s: MonitoredSession, u: UpdateMessage, ms: number, out: Uint8Array[]): void {
    const changes = new PostChanges(s);
    changes.add(u.withdrawn);
    changes.add(u.nlri);
    if (u.mpNlri) changes.add(u.mpNlri);
    if (u.mpUnreach) changes.add(u.mpUnreach.withdrawn);
    this.routes(s.peer, 'post', changes.announced, ms, out);
    for (const list of changes.withdrawn) if (list.count > 0) this.withdrawals(s.peer, 'post', list, ms, out);
  }

  /**
   * The post-policy view of every prefix the peer sent (each is either held, with the
   * attributes policy set, or withdrawn): after import policy changed, the view is whole again.
   */
  postResync(s: MonitoredSession, ms: number, out: Uint8Array[]): void {
    const addPath = [s.peer.context.update.addPathIpv4, s.peer.context.update.addPathIpv6];
    const sent = [new PrefixList(Afi.IPV4, addPath[0]), new PrefixList(Afi.IPV6, addPath[1])];
    s.preRoutes((afi, words, off, len, pathId) =>
      appendPrefix(sent[afi === Afi.IPV4 ? 0 : 1]!, words, off, len, pathId),
    );
    const changes = new PostChanges(s);
    for (const list of sent) changes.add(list);
    this.routes(s.peer, 'post', changes.announced, ms, out);
    for (const list of changes.withdrawn) if (list.count > 0) this.withdrawals(s.peer, 'post', list, ms, out);
  }

  /** Announcements grouped by attribute set, packed into as few UPDATEs as fit. */
  routes(
    p: MonitoredPeer,
    view: RibView,
    groups: ReadonlyMap<PathAttributes, PrefixList>,
    ms: number,
    out: Uint8Array[],
    from = 0,
    to = Number.POSITIVE_INFINITY,
  ): void {
    const packer = new UpdatePacker(p.context.update, p.context.maxLength);
    for (const [attrs, list] of groups) {
      if (list.count === 0) continue;
      this.#bgp.reset();
      packer.announce(this.#bgp, packer.prepare(attrs), list, from, Math.min(to, list.count));
      this.#wrap(p, view, ms, out);
    }
  }

  withdrawals(p: MonitoredPeer, view: RibView, list: PrefixList, ms: number, out: Uint8Array[]): void {
    const packer = new UpdatePacker(p.context.update, p.context.maxLength);
    this.#bgp.reset();
    packer.withdraw(this.#bgp, list, SAFI_UNICAST);
    this.#wrap(p, view, ms, out);
  }

  /** RFC 4724 End-of-RIB for a family: after a dump, the collector knows the table is whole. */
  endOfRib(p: MonitoredPeer, view: RibView, afi: AfiCode, ms: number, out: Uint8Array[]): void {
    writeEndOfRib(this.#bgp.reset(), afi);
    this.#wrap(p, view, ms, out);
  }

  /** Wraps each BGP message in the BGP writer into its own Route Monitoring message. */
  #wrap(p: MonitoredPeer, view: RibView, ms: number, out: Uint8Array[]): void {
    const bgp = this.#bgp.view();
    const peer = perPeerHeader(p, view, ms);
    for (let at = 0; at + HEADER_LENGTH <= bgp.length; ) {
      const length = (bgp[at + 16]! << 8) | bgp[at + 17]!;
      this.#w.reset();
      encodeBmp(this.#w, { type: 'route-monitoring', peer, update: bgp.subarray(at, at + length) });
      out.push(this.#w.finish());
      at += length;
    }
  }
}

/**
 * RFC 4724 section 2: for IPv4 unicast an UPDATE with nothing in it; for another family an
 * UPDATE whose only attribute is an MP_UNREACH_NLRI with the family and no prefix.
 */
function writeEndOfRib(w: Writer, afi: AfiCode): void {
  const at = w.pos;
  w.fill(0xff, 16).u16(0).u8(MessageType.UPDATE);
  if (afi === Afi.IPV4) w.u16(0).u16(0);
  else w.u16(0).u16(6).u8(AttrFlag.OPTIONAL).u8(AttrType.MP_UNREACH_NLRI).u8(3).u16(afi).u8(SAFI_UNICAST);
  w.patch16(at + 16, w.pos - at);
}

/** Prefixes of an UPDATE, sorted into what the Adj-RIB-In holds for each now. */
class PostChanges {
  readonly announced = new Map<PathAttributes, PrefixList>();
  readonly withdrawn: PrefixList[] = [];
  readonly #s: MonitoredSession;

  constructor(s: MonitoredSession) {
    this.#s = s;
  }

  add(list: PrefixList): void {
    const wpp = list.wordsPerPrefix;
    for (let i = 0; i < list.count; i++) {
      const off = i * wpp;
      const pathId = list.addPath ? list.pathIds[i]! : 0;
      const held = this.#s
        .accepted(list.afi, list.words, off, list.lens[i]!)
        .find((a) => a.pathId === pathId);
      let target: PrefixList | undefined;
      if (held) {
        target = this.announced.get(held.attrs);
        if (!target) {
          target = new PrefixList(list.afi, list.addPath);
          this.announced.set(held.attrs, target);
        }
      } else {
        target = this.withdrawn.find((w) => w.afi === list.afi);
        if (!target) {
          target = new PrefixList(list.afi, list.addPath);
          this.withdrawn.push(target);
        }
      }
      appendPrefix(target, list.words, off, list.lens[i]!, pathId);
    }
  }
}

/** Copies one prefix into a list. */
export function appendPrefix(
  list: PrefixList,
  words: ArrayLike<number>,
  off: number,
  len: number,
  pathId: number,
): void {
  const i = list.grow();
  const wpp = list.wordsPerPrefix;
  for (let k = 0; k < wpp; k++) list.words[i * wpp + k] = words[off + k]!;
  list.lens[i] = len;
  if (list.addPath) list.pathIds[i] = pathId;
}

/** Section 4.9: who closed the session, and with what. */
export function peerDownReason(e: SessionEnding): { reason: number; data: Uint8Array } {
  if (e.deconfigured) return { reason: PeerDownReason.PEER_DECONFIGURED, data: new Uint8Array(0) };
  if (e.notification) {
    const reason =
      e.notification.direction === 'sent'
        ? PeerDownReason.LOCAL_NOTIFICATION
        : PeerDownReason.REMOTE_NOTIFICATION;
    return { reason, data: e.notification.bytes };
  }
  if (e.localEvent !== undefined) {
    const code = FSM_EVENT_CODE[e.localEvent] ?? 0;
    return { reason: PeerDownReason.LOCAL_NO_NOTIFICATION, data: new Uint8Array([code >> 8, code & 0xff]) };
  }
  return { reason: PeerDownReason.REMOTE_NO_NOTIFICATION, data: new Uint8Array(0) };
}
