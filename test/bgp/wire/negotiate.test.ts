import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import type { AddPathModeCode, Capability } from '../../../src/bgp/wire/capabilities.js';
import { AS_TRANS } from '../../../src/bgp/wire/constants.js';
import { BgpError } from '../../../src/bgp/wire/errors.js';
import { type NegotiateOptions, negotiate } from '../../../src/bgp/wire/negotiate.js';
import { decodeNotification, notificationFromError } from '../../../src/bgp/wire/notification.js';
import { buildOpen, capabilitiesOf, decodeOpen, type OpenMessage } from '../../../src/bgp/wire/open.js';
import { Reader } from '../../../src/bgp/wire/reader.js';
import { hex } from '../../support/hex.js';

function thrown(f: () => unknown): unknown {
  try {
    f();
  } catch (e) {
    return e;
  }
  throw new Error('expected an error');
}

const mp = (afi: number, safi: number): Capability => ({ name: 'multiprotocol', afi, reserved: 0, safi });
const as4 = (as: number): Capability => ({ name: 'four-octet-as', as });
const addPath = (...families: [number, number, AddPathModeCode][]): Capability => ({
  name: 'add-path',
  families: families.map(([afi, safi, mode]) => ({ afi, safi, mode })),
});

const open = (over: Partial<OpenMessage>, ...capabilities: Capability[]): OpenMessage => ({
  type: 'open',
  version: 4,
  myAs: 65001,
  holdTime: 90,
  bgpId: 0xc6120001,
  extendedLength: false,
  params: capabilities.length > 0 ? [{ type: 'capabilities', capabilities }] : [],
  ...over,
});

// The OPENs the daemons installed here sent (bodies; see open.test.ts for the annotated form).
const frr = decodeOpen(
  new Reader(
    hex`04fde900b4c61200015702060104000100010206010400020001020280000202020002024600020641040000fde902020600
        020a4508000101010002010102094907056672722d610002044002c0780210470e0001018000000000020180000000`,
  ),
);
const gobgp = decodeOpen(
  new Reader(
    hex`04fdeb005ac61200032402220200490402766d0001040001000101040002000141040000fdeb0506000100010002`,
  ),
);
const bird = decodeOpen(
  new Reader(hex`04fdec00f0c61200041e021c01040001000101040002000102004002007841040000fdec46004700`),
);

// What this speaker would send as AS 65002.
const local = buildOpen({
  as: 65002,
  bgpId: 0xc6120002,
  holdTime: 90,
  capabilities: [
    mp(1, 1),
    mp(2, 1),
    { name: 'route-refresh' },
    { name: 'enhanced-route-refresh' },
    as4(65002),
    { name: 'extended-message' },
    addPath([1, 1, 3], [2, 1, 1]),
    { name: 'graceful-restart', flags: 0, restartTime: 120, families: [{ afi: 1, safi: 1, flags: 0x80 }] },
    { name: 'extended-next-hop', families: [{ afi: 1, safi: 1, nextHopAfi: 2 }] },
  ],
});

const v4 = { afi: 1, safi: 1 };
const v6 = { afi: 2, safi: 1 };
const ebgpTo = (expectedRemoteAs: number): NegotiateOptions => ({ expectedRemoteAs, localAs: 65002 });

describe('negotiate with what FRR, GoBGP and BIRD send', () => {
  it('FRR 8.4', () => {
    expect(negotiate(local, frr, ebgpTo(65001))).toEqual({
      holdTime: 90,
      keepaliveTime: 30,
      as4: true,
      remoteAs: 65001,
      remoteBgpId: 0xc6120001,
      families: [v4, v6],
      // We said send/receive for IPv4, FRR said receive: we may send several paths, not receive.
      // For IPv6 both said receive only: nothing to use.
      addPath: [{ ...v4, send: true, receive: false }],
      // Only we advertised it: FRR may send us IPv6 next hops, we may not send them.
      extendedNextHop: [{ ...v4, nextHopAfi: 2, send: false, receive: true }],
      extendedMessage: true,
      routeRefresh: true,
      enhancedRouteRefresh: true,
      gracefulRestart: {
        restartState: true,
        notification: true,
        // Our capability above has no N bit.
        notificationExchanged: false,
        restartTime: 120,
        families: [],
      },
      // FRR offers long-lived graceful restart (stale time 0); we do not here.
      longLivedGracefulRestart: null,
      fqdn: { hostname: 'frr-a', domain: '' },
    });
  });

  it('GoBGP 3.10', () => {
    expect(negotiate(local, gobgp, ebgpTo(65003))).toEqual({
      holdTime: 90,
      keepaliveTime: 30,
      as4: true,
      remoteAs: 65003,
      remoteBgpId: 0xc6120003,
      families: [v4, v6],
      addPath: [],
      extendedNextHop: [{ ...v4, nextHopAfi: 2, send: true, receive: true }],
      extendedMessage: false,
      routeRefresh: true,
      enhancedRouteRefresh: false,
      gracefulRestart: null,
      longLivedGracefulRestart: null,
      fqdn: { hostname: 'vm', domain: '' },
    });
  });

  it('BIRD 2', () => {
    expect(negotiate(local, bird, ebgpTo(65004))).toMatchObject({
      holdTime: 90,
      remoteAs: 65004,
      families: [v4, v6],
      extendedMessage: false,
      routeRefresh: true,
      enhancedRouteRefresh: true,
      gracefulRestart: { restartState: false, notification: false, restartTime: 120, families: [] },
      fqdn: null,
      extendedNextHop: [{ ...v4, nextHopAfi: 2, send: false, receive: true }],
    });
  });
});

describe('hold time', () => {
  it.each([
    [90, 180, 90, 30],
    [180, 3, 3, 1],
    [10, 10, 10, 3],
    [0, 90, 0, 0],
    [90, 0, 0, 0],
    [0, 0, 0, 0],
    [65535, 65535, 65535, 21845],
  ])('local %i, remote %i: hold %i, keepalive %i', (l, r, hold, keepalive) => {
    const n = negotiate(open({ holdTime: l, bgpId: 2 }), open({ holdTime: r }), ebgpTo(65001));
    expect([n.holdTime, n.keepaliveTime]).toEqual([hold, keepalive]);
  });
});

describe('address families', () => {
  it('a peer without multiprotocol capabilities does IPv4 unicast only (RFC 4760)', () => {
    const remote = open({}, as4(65001));
    expect(negotiate(local, remote, ebgpTo(65001)).families).toEqual([v4]);
  });

  it('no family in common is an empty list, not an error', () => {
    const v6only = open({ bgpId: 2 }, mp(2, 1));
    expect(negotiate(v6only, open({}), ebgpTo(65001)).families).toEqual([]);
  });

  it('intersects in our order and ignores duplicates', () => {
    const ours = open({ bgpId: 2 }, mp(2, 1), mp(1, 1), mp(2, 1), mp(1, 2));
    const theirs = open({}, mp(1, 1), mp(2, 1), mp(1, 1), mp(25, 70));
    expect(negotiate(ours, theirs, ebgpTo(65001)).families).toEqual([v6, v4]);
  });
});

describe('add-path (RFC 7911 section 4)', () => {
  const modes: (AddPathModeCode | 0)[] = [0, 1, 2, 3];
  const cases = modes.flatMap((l) => modes.map((r) => [l, r] as const));
  it.each(cases)('we say %i, they say %i', (l, r) => {
    const ours = open({ bgpId: 2 }, ...(l ? [addPath([1, 1, l])] : []));
    const theirs = open({}, ...(r ? [addPath([1, 1, r])] : []));
    const send = (l & 2) !== 0 && (r & 1) !== 0;
    const receive = (l & 1) !== 0 && (r & 2) !== 0;
    const expected = send || receive ? [{ ...v4, send, receive }] : [];
    expect(negotiate(ours, theirs, ebgpTo(65001)).addPath).toEqual(expected);
  });

  it('only for negotiated families; a later entry for a family wins', () => {
    const ours = open({ bgpId: 2 }, mp(1, 1), mp(2, 1), addPath([1, 1, 3], [2, 1, 3], [1, 2, 3]));
    const theirs = open({}, mp(1, 1), mp(2, 1), addPath([1, 1, 3], [2, 1, 1]), addPath([1, 1, 2]));
    expect(negotiate(ours, theirs, ebgpTo(65001)).addPath).toEqual([
      { ...v4, send: false, receive: true },
      { ...v6, send: true, receive: false },
    ]);
  });
});

describe('graceful restart', () => {
  const gr = (flags: number, restartTime: number, ...families: [number, number, number][]): Capability => ({
    name: 'graceful-restart',
    flags,
    restartTime,
    families: families.map(([afi, safi, f]) => ({ afi, safi, flags: f })),
  });

  it('is null unless both sides advertised it', () => {
    expect(negotiate(open({ bgpId: 2 }), open({}, gr(0, 120)), ebgpTo(65001)).gracefulRestart).toBeNull();
    expect(negotiate(open({ bgpId: 2 }, gr(0, 120)), open({}), ebgpTo(65001)).gracefulRestart).toBeNull();
  });

  it("reports the peer's last instance (RFC 4724 section 3) for negotiated families", () => {
    const ours = open({ bgpId: 2 }, mp(1, 1), gr(0, 90));
    const theirs = open(
      {},
      mp(1, 1),
      gr(8, 300, [1, 1, 0x80]),
      gr(4, 60, [1, 1, 0x80], [2, 1, 0x80], [1, 2, 0]),
    );
    expect(negotiate(ours, theirs, ebgpTo(65001)).gracefulRestart).toEqual({
      restartState: false,
      notification: true,
      notificationExchanged: false,
      restartTime: 60,
      families: [{ ...v4, forwardingState: true }],
    });
    const noForwarding = open({}, mp(1, 1), gr(8, 4095, [1, 1, 0x7f]));
    expect(negotiate(ours, noForwarding, ebgpTo(65001)).gracefulRestart).toEqual({
      restartState: true,
      notification: false,
      notificationExchanged: false,
      restartTime: 4095,
      families: [{ ...v4, forwardingState: false }],
    });
  });

  it('long-lived graceful restart (RFC 9494) needs both capabilities on both sides', () => {
    const llgr = (...families: [number, number, number, number][]): Capability => ({
      name: 'long-lived-graceful-restart',
      families: families.map(([afi, safi, flags, staleTime]) => ({ afi, safi, flags, staleTime })),
    });
    const ours = open({ bgpId: 2 }, mp(1, 1), gr(4, 120), llgr([1, 1, 0, 3600]));
    const theirs = open({}, mp(1, 1), gr(4, 60), llgr([1, 1, 0x80, 86400], [2, 1, 0x80, 10]));
    expect(negotiate(ours, theirs, ebgpTo(65001)).longLivedGracefulRestart).toEqual({
      families: [{ ...v4, forwardingState: true, staleTime: 86400 }],
    });
    const withoutGr = open({}, mp(1, 1), llgr([1, 1, 0x80, 86400]));
    expect(negotiate(ours, withoutGr, ebgpTo(65001)).longLivedGracefulRestart).toBeNull();
    const grOnly = open({ bgpId: 2 }, mp(1, 1), gr(4, 120));
    expect(negotiate(grOnly, theirs, ebgpTo(65001)).longLivedGracefulRestart).toBeNull();
  });

  it('RFC 8538 applies only when both sides set the N bit, whatever else either sets', () => {
    const exchanged = (ours: number, theirs: number) =>
      negotiate(open({ bgpId: 2 }, gr(ours, 120)), open({}, gr(theirs, 120)), ebgpTo(65001)).gracefulRestart
        ?.notificationExchanged;
    expect(exchanged(4, 4)).toBe(true);
    expect(exchanged(0xc, 0x4)).toBe(true);
    expect(exchanged(4, 8)).toBe(false);
    expect(exchanged(8, 4)).toBe(false);
    expect(exchanged(0, 0)).toBe(false);
  });
});

describe('single capabilities', () => {
  it('route refresh follows the peer; enhanced route refresh and extended message need both', () => {
    const ours = open({ bgpId: 2 });
    const theirs = open(
      {},
      { name: 'route-refresh' },
      { name: 'enhanced-route-refresh' },
      { name: 'extended-message' },
    );
    expect(negotiate(ours, theirs, ebgpTo(65001))).toMatchObject({
      routeRefresh: true,
      enhancedRouteRefresh: false,
      extendedMessage: false,
    });
    expect(negotiate(theirs, { ...ours, bgpId: 5 }, ebgpTo(65001))).toMatchObject({
      routeRefresh: false,
      enhancedRouteRefresh: false,
      extendedMessage: false,
    });
  });

  it('extended next hop is per direction and per negotiated family', () => {
    const enh = (...t: [number, number, number][]): Capability => ({
      name: 'extended-next-hop',
      families: t.map(([afi, safi, nextHopAfi]) => ({ afi, safi, nextHopAfi })),
    });
    const ours = open({ bgpId: 2 }, mp(1, 1), mp(1, 128), enh([1, 1, 2], [1, 128, 2]));
    const theirs = open({}, mp(1, 1), enh([1, 1, 2], [1, 2, 2]));
    expect(negotiate(ours, theirs, ebgpTo(65001)).extendedNextHop).toEqual([
      { ...v4, nextHopAfi: 2, send: true, receive: true },
    ]);
  });

  it('fqdn is the last one the peer sent', () => {
    const theirs = open(
      {},
      { name: 'fqdn', hostname: 'a', domain: '' },
      { name: 'fqdn', hostname: 'b', domain: 'c' },
    );
    expect(negotiate(open({ bgpId: 2 }), theirs, ebgpTo(65001)).fqdn).toEqual({ hostname: 'b', domain: 'c' });
  });
});

describe('peer AS (RFC 4271 section 6.2, RFC 6793, RFC 7607)', () => {
  const ours4 = open({ myAs: 65002, bgpId: 2 }, as4(65002));
  const ours2 = open({ myAs: 65002, bgpId: 2 });

  it.each([
    ['a 2-octet AS that matches', ours2, open({ myAs: 65001 }), 65001, 65001],
    [
      'a 4-octet AS from the capability',
      ours4,
      open({ myAs: AS_TRANS }, as4(4200000000)),
      4200000000,
      4200000000,
    ],
    [
      'AS_TRANS with a 2-octet capability (accepted, as FRR does)',
      ours4,
      open({ myAs: AS_TRANS }, as4(65001)),
      65001,
      65001,
    ],
    [
      'My AS when we did not send the capability',
      ours2,
      open({ myAs: AS_TRANS }, as4(4200000000)),
      AS_TRANS,
      AS_TRANS,
    ],
  ])('%s', (_name, ours, theirs, expected, remoteAs) => {
    expect(negotiate(ours, theirs, { expectedRemoteAs: expected, localAs: 65002 }).remoteAs).toBe(remoteAs);
  });

  it.each([
    ['a different 2-octet AS', ours4, open({ myAs: 65009 }), 65001],
    ['a different 4-octet AS', ours4, open({ myAs: AS_TRANS }, as4(4200000001)), 4200000000],
    ['AS_TRANS without the capability', ours4, open({ myAs: AS_TRANS }), 4200000000],
    ['a 4-octet peer when we are 2-octet only', ours2, open({ myAs: AS_TRANS }, as4(4200000000)), 4200000000],
    ['My AS 0 (RFC 7607)', ours4, open({ myAs: 0 }), 0],
    ['capability AS 0 (RFC 7607)', ours4, open({ myAs: AS_TRANS }, as4(0)), 0],
    ['capability AS_TRANS', ours4, open({ myAs: AS_TRANS }, as4(AS_TRANS)), AS_TRANS],
    ['My AS and capability disagree', ours4, open({ myAs: 65001 }, as4(65003)), 65003],
  ])('%s is Bad Peer AS (2/2)', (_name, ours, theirs, expected) => {
    const e = thrown(() => negotiate(ours, theirs, { expectedRemoteAs: expected, localAs: 65002 }));
    expect(e).toBeInstanceOf(BgpError);
    expect(e).toMatchObject({ code: 2, subcode: 2, kind: 'open-bad-peer-as' });
  });
});

describe('remote AS external / internal (FRR remote-as external, internal)', () => {
  const ours = open({ myAs: 65002, bgpId: 2 }, as4(65002));

  it.each([
    ['external takes a 2-octet AS other than ours', 'external', open({ myAs: 65001 }), 65001, true],
    [
      'external takes a 4-octet AS other than ours',
      'external',
      open({ myAs: AS_TRANS }, as4(4200000000)),
      4200000000,
      true,
    ],
    ['internal takes our own AS', 'internal', open({ myAs: 65002, bgpId: 9 }, as4(65002)), 65002, false],
  ] as const)('%s', (_name, expected, theirs, remoteAs, _ebgp) => {
    const n = negotiate(ours, theirs, { expectedRemoteAs: expected, localAs: 65002 });
    expect(n.remoteAs).toBe(remoteAs);
  });

  it.each([
    ['external refuses our own AS', 'external', open({ myAs: 65002, bgpId: 9 }, as4(65002))],
    ['internal refuses another AS', 'internal', open({ myAs: 65001 })],
    ['internal refuses another 4-octet AS', 'internal', open({ myAs: AS_TRANS }, as4(4200000000))],
    ['external still refuses AS 0 (RFC 7607)', 'external', open({ myAs: 0 })],
  ] as const)('%s with Bad Peer AS (2/2)', (_name, expected, theirs) => {
    const e = thrown(() => negotiate(ours, theirs, { expectedRemoteAs: expected, localAs: 65002 }));
    expect(e).toMatchObject({ code: 2, subcode: 2, kind: 'open-bad-peer-as' });
  });

  it('internal is iBGP for the identifier check: our own identifier is refused', () => {
    const e = thrown(() =>
      negotiate(ours, open({ myAs: 65002, bgpId: 2 }, as4(65002)), {
        expectedRemoteAs: 'internal',
        localAs: 65002,
      }),
    );
    expect(e).toMatchObject({ code: 2, subcode: 3 });
  });
});

describe('BGP Identifier (RFC 6286 section 2.2)', () => {
  it('an internal peer with our identifier is Bad BGP Identifier (2/3)', () => {
    const ours = open({ myAs: 65001, bgpId: 7 });
    const e = thrown(() => negotiate(ours, open({ bgpId: 7 }), { expectedRemoteAs: 65001, localAs: 65001 }));
    expect(e).toMatchObject({ code: 2, subcode: 3, kind: 'open-bad-bgp-identifier' });
  });

  it('is fine for an external peer, or an internal one with another identifier', () => {
    expect(negotiate(open({ bgpId: 7 }), open({ bgpId: 7 }), ebgpTo(65001)).remoteBgpId).toBe(7);
    const internal = { expectedRemoteAs: 65001, localAs: 65001 };
    expect(negotiate(open({ bgpId: 7 }), open({ bgpId: 8 }), internal).remoteBgpId).toBe(8);
    expect(negotiate(open({ bgpId: 7 }), open({ bgpId: 7 }), { ...internal, ebgp: true }).remoteBgpId).toBe(
      7,
    );
  });
});

// Sessions recorded between the real daemons (fixtures/bgp/*.json, made by the interop capture
// script): each file holds the OPENs of endpoints "a" and "b" and their configured AS numbers.
const CAPTURE_DIR = process.env.BGP_CAPTURE_DIR ?? join(import.meta.dirname, '../../../fixtures/bgp');
interface Capture {
  name: string;
  endpoints: Record<'a' | 'b', { impl: string; as: number }>;
  messages: { from: 'a' | 'b'; hex: string }[];
}
const captures: Capture[] = existsSync(CAPTURE_DIR)
  ? readdirSync(CAPTURE_DIR)
      .filter((f) => f.endsWith('.json'))
      .map((f) => JSON.parse(readFileSync(join(CAPTURE_DIR, f), 'utf8')) as Capture)
  : [];
const bodyOf = (m: { hex: string }) => Uint8Array.from(Buffer.from(m.hex, 'hex')).subarray(19);
const MESSAGE_TYPE_OFFSET = 18;
const typeOf = (m: { hex: string }) => Buffer.from(m.hex, 'hex')[MESSAGE_TYPE_OFFSET];
function opensOf(c: Capture): Record<'a' | 'b', OpenMessage> {
  const open = (from: 'a' | 'b') => {
    const m = c.messages.find((x) => x.from === from && typeOf(x) === 1);
    if (!m) throw new Error(`${c.name}: no OPEN from ${from}`);
    return decodeOpen(new Reader(bodyOf(m)));
  };
  return { a: open('a'), b: open('b') };
}

describe('negotiate with recorded sessions', () => {
  const sessions = captures.filter((c) => !c.name.includes('bad-peer-as'));
  it.skipIf(sessions.length === 0).each(sessions.map((c) => [c.name, c] as const))(
    '%s: both ends agree on the peer AS and the same families',
    (_name, c) => {
      const { a, b } = opensOf(c);
      const ab = negotiate(a, b, { expectedRemoteAs: c.endpoints.b.as, localAs: c.endpoints.a.as });
      const ba = negotiate(b, a, { expectedRemoteAs: c.endpoints.a.as, localAs: c.endpoints.b.as });
      expect(ab.remoteAs).toBe(c.endpoints.b.as);
      expect(ba.remoteAs).toBe(c.endpoints.a.as);
      const as4 = [a, b].every((o) => capabilitiesOf(o).some((x) => x.name === 'four-octet-as'));
      expect([ab.as4, ba.as4]).toEqual([as4, as4]);
      expect(ab.holdTime).toBe(ba.holdTime);
      const key = (f: { afi: number; safi: number }) => `${f.afi}/${f.safi}`;
      expect(ab.families.map(key).sort()).toEqual(ba.families.map(key).sort());
      expect(ab.families.length).toBeGreaterThan(0);
      // What one side may send, the other may receive.
      for (const p of ab.addPath) {
        expect(ba.addPath.find((q) => key(q) === key(p))).toMatchObject({ send: p.receive, receive: p.send });
      }
    },
  );

  const badPeerAs = captures.find((c) => c.name === 'frr-gobgp-ipv4-bad-peer-as');
  it.skipIf(!badPeerAs)('answers a wrong peer AS with the code and subcode FRR sent', () => {
    const c = badPeerAs as Capture;
    const { a, b } = opensOf(c);
    // The capture's description: FRR was configured with remote-as 65099 for GoBGP.
    const e = thrown(() => negotiate(a, b, { expectedRemoteAs: 65099, localAs: c.endpoints.a.as }));
    expect(e).toBeInstanceOf(BgpError);
    const sent = c.messages.find((m) => m.from === 'a' && typeOf(m) === 3);
    expect(sent).toBeDefined();
    const frr = decodeNotification(new Reader(bodyOf(sent as { hex: string })));
    const ours = notificationFromError(e as BgpError);
    expect([ours.code, ours.subcode]).toEqual([frr.code, frr.subcode]);
    // FRR puts the received My AS (AS_TRANS here) in the Data field; RFC 4271 section 6 says the
    // Data field is empty unless the error's description says otherwise, and 6.2 says nothing.
    expect(Buffer.from(frr.data).toString('hex')).toBe('5ba0');
    expect(ours.data).toEqual(new Uint8Array());
  });
});
