/* Route Monitoring built from a session: the dump, live UPDATEs pre and post policy, End-of-RIB, Peer Down. */
import { describe, expect, it } from 'vitest';
import { encodeMessageBytes } from '../../src/bgp/wire/index.js';
import {
  BmpPeerFlag,
  decodeBmp,
  dumpSession,
  PeerDownReason,
  peerDownReason,
  RouteMessages,
} from '../../src/bmp/index.js';
import { attrs, FakeSession, routesOf, update } from './support.js';

const NOW = 1_800_000_123_456;
const decodeAll = (out: readonly Uint8Array[]) => out.map((b) => decodeBmp(b));

describe('the dump of a session', () => {
  it('Peer Up, then each view’s routes with L clear (pre) or set (post), each closed by End-of-RIB', () => {
    const s = new FakeSession();
    const a = attrs();
    const b = attrs(50);
    for (const p of ['198.19.1.0/24', '198.19.2.0/24']) s.pre.set(p, a);
    s.pre.set('198.19.3.0/24', b);
    s.post.set('198.19.1.0/24', attrs(7));
    const msgs = decodeAll([...dumpSession(new RouteMessages(), s, ['pre', 'post'], () => NOW)].flat());
    expect(msgs[0]).toMatchObject({
      type: 'peer-up',
      localAddress: '198.18.0.1',
      localPort: 40000,
      remotePort: 179,
    });
    // Peer Up's timestamp is when the session came up.
    expect(msgs[0]?.type === 'peer-up' && msgs[0].peer.seconds).toBe(1_800_000_000);
    const rm = msgs.slice(1).map((m) => ({
      post: m.type === 'route-monitoring' && (m.peer.flags & BmpPeerFlag.L) !== 0,
      ...routesOf(m),
    }));
    expect(rm).toEqual([
      { post: false, announced: ['198.19.1.0/24', '198.19.2.0/24'], withdrawn: [] },
      { post: false, announced: ['198.19.3.0/24'], withdrawn: [], med: 50 },
      { post: false, announced: [], withdrawn: [] }, // End-of-RIB
      { post: true, announced: ['198.19.1.0/24'], withdrawn: [], med: 7 },
      { post: true, announced: [], withdrawn: [] },
    ]);
    const first = msgs[1]!;
    expect(first.type === 'route-monitoring' && first.peer).toMatchObject({
      address: '198.18.0.2',
      asn: 65001,
      seconds: Math.floor(NOW / 1000),
      micros: 456_000,
    });
  });

  it('a table larger than a slice comes in several slices, every route once', () => {
    const s = new FakeSession();
    const a = attrs();
    for (let i = 0; i < 1000; i++) s.pre.set(`198.19.${i >> 8}.${i & 255}/32`, a);
    const slices = [...dumpSession(new RouteMessages(), s, ['pre'], () => NOW, 300)];
    expect(slices.length).toBe(1 + 4 + 1);
    const seen = decodeAll(slices.flat())
      .slice(1)
      .flatMap((m) => routesOf(m).announced);
    expect(new Set(seen).size).toBe(1000);
    expect(seen.length).toBe(1000);
  });
});

describe('live UPDATEs', () => {
  it('pre-policy: the UPDATE as received; post-policy: what the Adj-RIB-In holds for its prefixes now', () => {
    const s = new FakeSession();
    const sent = attrs();
    // Policy accepted one prefix with MED 9, rejected the other; a withdrawn prefix is gone.
    s.post.set('198.19.1.0/24', attrs(9));
    const u = update(['198.19.1.0/24', '198.19.9.0/24'], sent, ['198.19.5.0/24']);
    const m = new RouteMessages();
    const pre: Uint8Array[] = [];
    m.preUpdate(s.peer, u, NOW, pre);
    expect(decodeAll(pre).map(routesOf)).toEqual([
      { announced: ['198.19.1.0/24', '198.19.9.0/24'], withdrawn: ['198.19.5.0/24'] },
    ]);
    const post: Uint8Array[] = [];
    m.postUpdate(s, u, NOW, post);
    const got = decodeAll(post);
    expect(got.every((g) => g.type === 'route-monitoring' && (g.peer.flags & BmpPeerFlag.L) !== 0)).toBe(
      true,
    );
    expect(got.map(routesOf)).toEqual([
      { announced: ['198.19.1.0/24'], withdrawn: [], med: 9 },
      // The UPDATE's withdrawals come first, as RFC 4271 section 9 applies them.
      { announced: [], withdrawn: ['198.19.5.0/24', '198.19.9.0/24'] },
    ]);
  });

  it('after import policy changed: every prefix the peer sent, held with its new attributes or withdrawn', () => {
    const s = new FakeSession();
    for (const p of ['198.19.1.0/24', '198.19.2.0/24', '198.19.3.0/24']) s.pre.set(p, attrs());
    // The new policy keeps one prefix with MED 3 and rejects the other two.
    s.post.set('198.19.2.0/24', attrs(3));
    const out: Uint8Array[] = [];
    new RouteMessages().postResync(s, NOW, out);
    const got = decodeAll(out);
    expect(got.every((g) => g.type === 'route-monitoring' && (g.peer.flags & BmpPeerFlag.L) !== 0)).toBe(
      true,
    );
    expect(got.map(routesOf)).toEqual([
      { announced: ['198.19.2.0/24'], withdrawn: [], med: 3 },
      { announced: [], withdrawn: ['198.19.1.0/24', '198.19.3.0/24'] },
    ]);
  });

  it('a 2-octet AS session sets the A flag', () => {
    const s = new FakeSession();
    const peer = {
      ...s.peer,
      context: { ...s.peer.context, update: { ...s.peer.context.update, as4: false } },
    };
    const out: Uint8Array[] = [];
    new RouteMessages().endOfRib(peer, 'pre', 1, NOW, out);
    const m = decodeBmp(out[0]!);
    expect(m.type === 'route-monitoring' && m.peer.flags & BmpPeerFlag.A).toBe(BmpPeerFlag.A);
  });

  it('End-of-RIB for IPv6 is an MP_UNREACH_NLRI with the family and no prefix (RFC 4724 section 2)', () => {
    const out: Uint8Array[] = [];
    new RouteMessages().endOfRib(new FakeSession().peer, 'post', 2, NOW, out);
    const m = decodeBmp(out[0]!);
    expect(m.type === 'route-monitoring' && Buffer.from(m.update.subarray(16)).toString('hex')).toBe(
      '001d02' + '0000' + '0006' + '800f03' + '000201',
    );
  });
});

describe('Peer Down reasons (section 4.9)', () => {
  const notification = encodeMessageBytes({
    type: 'notification',
    code: 6,
    subcode: 2,
    data: new Uint8Array(0),
  });

  it('tells who closed the session and with what', () => {
    expect(peerDownReason({ notification: { direction: 'sent', bytes: notification } })).toEqual({
      reason: PeerDownReason.LOCAL_NOTIFICATION,
      data: notification,
    });
    expect(peerDownReason({ notification: { direction: 'received', bytes: notification } }).reason).toBe(
      PeerDownReason.REMOTE_NOTIFICATION,
    );
    // Event 10, HoldTimer_Expires, as two octets.
    expect(peerDownReason({ notification: null, localEvent: 'HoldTimer_Expires' })).toEqual({
      reason: PeerDownReason.LOCAL_NO_NOTIFICATION,
      data: new Uint8Array([0, 10]),
    });
    expect(peerDownReason({ notification: null }).reason).toBe(PeerDownReason.REMOTE_NO_NOTIFICATION);
    expect(peerDownReason({ notification: null, deconfigured: true }).reason).toBe(
      PeerDownReason.PEER_DECONFIGURED,
    );
  });

  it('each encodes to a Peer Down the decoder reads back', () => {
    const p = new FakeSession().peer;
    const m = decodeBmp(
      new RouteMessages().peerDown(p, { notification: { direction: 'sent', bytes: notification } }, NOW),
    );
    expect(m).toMatchObject({ type: 'peer-down', reason: 1, data: notification });
  });
});
