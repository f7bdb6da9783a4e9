import { afterEach, describe, expect, it } from 'vitest';
import { parseIpv4 } from '../../../src/address/index.js';
import { SessionError } from '../../../src/bgp/session/index.js';
import { Afi, CeaseSubcode, ErrorCode, OpenSubcode, Safi } from '../../../src/bgp/wire/constants.js';
import { PrefixList } from '../../../src/bgp/wire/prefix-list.js';
import type { UpdateInput } from '../../../src/bgp/wire/update.js';
import { AS_A, AS_B, established, ID_A, pair, TEST_TIMERS, until } from './support.js';

// Two of our own speakers over loopback (real sockets, fake clocks): everything a session does
// between its OPEN and its last NOTIFICATION.

let cleanup: (() => Promise<void>) | undefined;
afterEach(async () => {
  await cleanup?.();
  cleanup = undefined;
});

async function up(opts: Parameters<typeof pair>[0] = {}) {
  const p = await pair(opts);
  cleanup = p.close;
  await established(p.a, p.b);
  return p;
}

function ipv4Update(prefixes: string[], nextHop = '127.0.0.1', asns = [AS_A]): UpdateInput {
  const nlri = new PrefixList(Afi.IPV4);
  for (const p of prefixes) {
    const [addr, len] = p.split('/');
    nlri.add(addr!, Number(len));
  }
  return { attrs: { origin: 0, asPath: [{ type: 2, asns }], nextHop: parseIpv4(nextHop) }, nlri };
}

describe('establishing', () => {
  it('IPv4: active to passive, the smaller hold time, keepalive a third of it, IPv4 unicast, 4-octet AS', async () => {
    const { a, b } = await up({ a: { holdTime: 30, keepaliveTime: 10 } });
    const ia = a.rec.established[0]!;
    const ib = b.rec.established[0]!;
    // RFC 4271 4.2: the smaller of the two Hold Times; keepalives at most a third of it.
    expect([ia.holdTime, ia.keepaliveTime]).toEqual([TEST_TIMERS.holdTime, 3]);
    expect([ib.holdTime, ib.keepaliveTime]).toEqual([TEST_TIMERS.holdTime, 3]);
    expect(ia.connection.direction).toBe('outgoing');
    expect(ib.connection.direction).toBe('incoming');
    expect(ia.negotiated).toMatchObject({
      as4: true,
      remoteAs: AS_B,
      families: [{ afi: Afi.IPV4, safi: Safi.UNICAST }],
      routeRefresh: true,
      enhancedRouteRefresh: false,
      extendedMessage: false,
      addPath: [],
      gracefulRestart: null,
    });
    expect(ib.negotiated.remoteBgpId).toBe(parseIpv4(ID_A));
    expect(a.rec.states.map((s) => s.to)).toEqual(['Connect', 'OpenSent', 'OpenConfirm', 'Established']);
    expect(b.rec.states.map((s) => s.to)).toEqual(['Active', 'OpenSent', 'OpenConfirm', 'Established']);
    expect(a.peer.stats.sent).toMatchObject({ open: 1, keepalive: 1 });
    expect(b.peer.stats.received).toMatchObject({ open: 1, keepalive: 1 });
  });

  it('IPv6 with 4-octet ASNs on both sides (AS_TRANS in My AS, RFC 6793)', async () => {
    const { a, b } = await up({
      host: '::1',
      a: { localAs: 4_200_000_001, remoteAs: 4_200_000_002 },
      b: { localAs: 4_200_000_002, remoteAs: 4_200_000_001 },
    });
    expect(a.rec.established[0]!.negotiated).toMatchObject({
      as4: true,
      remoteAs: 4_200_000_002,
      families: [{ afi: Afi.IPV6, safi: Safi.UNICAST }],
    });
    expect(b.rec.established[0]!.remoteOpen.myAs).toBe(23456);
    expect(b.rec.established[0]!.connection.remote.address).toBe('::1');
  });

  it('iBGP: same AS on both ends', async () => {
    const { a } = await up({
      a: { localAs: 65010, remoteAs: 65010 },
      b: { localAs: 65010, remoteAs: 65010 },
    });
    expect(a.rec.established[0]!.context.update.ebgp).toBe(false);
  });
});

describe('DelayOpen (RFC 4271 8.1.1)', () => {
  it("holds our OPEN back and answers the peer's OPEN with OPEN and KEEPALIVE at once", async () => {
    const { a, b } = await up({ a: { delayOpen: true, delayOpenTime: 5 } });
    // A never needed its DelayOpenTimer: B's OPEN came first (event 20).
    expect(a.rec.states.map((s) => s.to)).toEqual(['Connect', 'OpenConfirm', 'Established']);
    expect(b.rec.states.map((s) => s.to)).toEqual(['Active', 'OpenSent', 'OpenConfirm', 'Established']);
  });

  it('when both wait, the DelayOpenTimer sends the OPEN', async () => {
    const p = await pair({
      a: { delayOpen: true, delayOpenTime: 5 },
      b: { delayOpen: true, delayOpenTime: 5 },
    });
    cleanup = p.close;
    await until(
      () => p.a.peer.connections.length === 1 && p.b.peer.connections.length === 1,
      'the connection',
    );
    expect(p.a.peer.stats.sent.open + p.b.peer.stats.sent.open).toBe(0);
    p.a.scheduler.advance(5_000);
    await established(p.a, p.b);
    expect(p.a.rec.states.map((s) => s.to)).toEqual(['Connect', 'OpenSent', 'OpenConfirm', 'Established']);
  });
});

describe('messages on an Established session', () => {
  it('UPDATEs and End-of-RIB reach the peer in order; ROUTE-REFRESH asks for routes again', async () => {
    const { a, b } = await up({
      a: { families: ['ipv4-unicast', 'ipv6-unicast'] },
      b: { families: ['ipv4-unicast', 'ipv6-unicast'] },
    });
    expect(a.peer.send(ipv4Update(['198.18.10.0/24', '198.18.11.0/24']))).toBe(true);
    a.peer.sendEndOfRib(Afi.IPV4);
    a.peer.sendEndOfRib(Afi.IPV6);
    await until(() => b.rec.endOfRib.length === 2, 'two End-of-RIB markers');
    expect(b.rec.updates).toHaveLength(1);
    expect(b.rec.updates[0]!.nlri.toArray().map((p) => `${p.addr}/${p.len}`)).toEqual([
      '198.18.10.0/24',
      '198.18.11.0/24',
    ]);
    expect(b.rec.endOfRib).toEqual([
      { afi: Afi.IPV4, safi: Safi.UNICAST },
      { afi: Afi.IPV6, safi: Safi.UNICAST },
    ]);
    b.peer.refresh(Afi.IPV6);
    await until(() => a.rec.refreshes.length === 1, 'a ROUTE-REFRESH');
    expect(a.rec.refreshes[0]).toEqual({
      type: 'route-refresh',
      afi: Afi.IPV6,
      subtype: 0,
      safi: Safi.UNICAST,
    });
    expect(b.peer.stats.sent.routeRefresh).toBe(1);
  });

  it('refuses to send before Established and for families not negotiated', async () => {
    const p = await pair({ a: { enabled: false } });
    cleanup = p.close;
    expect(() => p.a.peer.send(ipv4Update(['198.18.10.0/24']))).toThrow(SessionError);
    await p.a.peer.drain().then(
      () => expect.unreachable(),
      (e: SessionError) => expect(e.kind).toBe('not-established'),
    );
    p.a.peer.start();
    await established(p.a, p.b);
    try {
      p.a.peer.refresh(Afi.IPV6);
      expect.unreachable();
    } catch (e) {
      expect((e as SessionError).kind).toBe('family-not-negotiated');
    }
  });
});

describe('timers', () => {
  it('sends keepalives on its keepalive timer and expires the hold timer of a silent peer (RFC 4271 6.5)', async () => {
    const { a, b } = await up();
    const before = b.peer.stats.received.keepalive;
    a.scheduler.advance(3_000);
    await until(() => b.peer.stats.received.keepalive === before + 1, 'a keepalive from A');
    // B's clock stands still, so B sends nothing: A's hold timer runs out.
    a.scheduler.advance(TEST_TIMERS.holdTime * 1000);
    await until(() => b.rec.notifications.length === 1, 'the NOTIFICATION at B');
    expect(a.rec.notifications[0]).toMatchObject({
      direction: 'sent',
      code: ErrorCode.HOLD_TIMER_EXPIRED,
      subcode: 0,
    });
    expect(b.rec.notifications[0]).toMatchObject({
      direction: 'received',
      code: ErrorCode.HOLD_TIMER_EXPIRED,
    });
    expect(a.rec.down).toEqual(['hold timer expired']);
    await until(() => b.peer.state !== 'Established', 'B down');
  });
});

describe('administrative actions', () => {
  it('shutdown sends Cease/Administrative Shutdown with the RFC 9003 message, and stays down', async () => {
    const { a, b } = await up();
    a.peer.shutdown('maintenance: replacing a line card');
    await until(() => b.rec.notifications.length === 1, 'the NOTIFICATION at B');
    expect(b.rec.notifications[0]).toMatchObject({
      direction: 'received',
      code: ErrorCode.CEASE,
      subcode: CeaseSubcode.ADMINISTRATIVE_SHUTDOWN,
      message: 'maintenance: replacing a line card',
    });
    expect(a.peer.state).toBe('Idle');
    expect(a.peer.enabled).toBe(false);
    a.scheduler.advance(60_000); // no idle hold timer: nothing restarts it
    expect(a.peer.state).toBe('Idle');
    expect(a.scheduler.pending()).toEqual([]);
  });

  it('reset sends Cease/Administrative Reset and comes back up', async () => {
    const { a, b } = await up();
    a.peer.reset('new policy');
    await until(() => b.rec.notifications.length === 1, 'the NOTIFICATION at B');
    expect(b.rec.notifications[0]).toMatchObject({
      code: ErrorCode.CEASE,
      subcode: CeaseSubcode.ADMINISTRATIVE_RESET,
      message: 'new policy',
    });
    // A starts again at once, but B went Idle on the NOTIFICATION and refuses it (RFC 4271
    // 8.2.2) until its idle hold time is over; A then waits out its connect retry time.
    await until(() => a.peer.state === 'Active', 'A waiting to retry');
    b.scheduler.advance(TEST_TIMERS.idleHoldTime * 1000);
    a.scheduler.advance(TEST_TIMERS.connectRetryTime * 1000);
    await established(a, b);
    expect(a.rec.established).toHaveLength(2);
  });
});

describe('OPEN negotiation errors', () => {
  it('a peer AS other than configured gets OPEN Message Error / Bad Peer AS (2/2)', async () => {
    const p = await pair({ b: { remoteAs: 65099 } });
    cleanup = p.close;
    await until(() => p.a.rec.notifications.length === 1, 'the NOTIFICATION at A');
    expect(p.b.rec.notifications[0]).toMatchObject({
      direction: 'sent',
      code: ErrorCode.OPEN_MESSAGE,
      subcode: OpenSubcode.BAD_PEER_AS,
    });
    expect(p.a.rec.notifications[0]).toMatchObject({ direction: 'received', code: 2, subcode: 2 });
    expect(p.a.rec.established).toEqual([]);
  });

  it('no family in common: Unsupported Capability (2/7) carrying the multiprotocol capability we wanted', async () => {
    const p = await pair({
      host: '::1',
      a: { families: ['ipv4-unicast'] },
      b: { families: ['ipv6-unicast'] },
    });
    cleanup = p.close;
    await until(() => p.b.rec.notifications.length === 1, 'a NOTIFICATION');
    const n = [...p.a.rec.notifications, ...p.b.rec.notifications].find((x) => x.direction === 'sent')!;
    expect(n).toMatchObject({ code: ErrorCode.OPEN_MESSAGE, subcode: OpenSubcode.UNSUPPORTED_CAPABILITY });
    // code 1 (multiprotocol), length 4, AFI, reserved, SAFI
    expect([...n.data]).toEqual(n === p.b.rec.notifications[0] ? [1, 4, 0, 2, 0, 1] : [1, 4, 0, 1, 0, 1]);
  });
});

describe('capabilities', () => {
  it('extended message (RFC 8654) only when both advertise it', async () => {
    const one = await up({ a: { extendedMessage: true } });
    expect(one.a.rec.established[0]!.context.maxLength).toBe(4096);
    await one.close();
    cleanup = undefined;
    const both = await up({ a: { extendedMessage: true }, b: { extendedMessage: true } });
    expect(both.a.rec.established[0]!.context.maxLength).toBe(65535);
    expect(both.b.rec.established[0]!.negotiated.extendedMessage).toBe(true);
  });

  it('enhanced route refresh (RFC 7313) only when both advertise it', async () => {
    const { a } = await up({ a: { enhancedRouteRefresh: true }, b: { enhancedRouteRefresh: true } });
    expect(a.rec.established[0]!.negotiated.enhancedRouteRefresh).toBe(true);
    expect(a.rec.established[0]!.context.enhancedRouteRefresh).toBe(true);
  });

  it('ADD-PATH (RFC 7911) per direction: A sends, B receives', async () => {
    const { a, b } = await up({
      a: { addPath: { 'ipv4-unicast': 'send' } },
      b: { addPath: { 'ipv4-unicast': 'both' } },
    });
    expect(a.rec.established[0]!.negotiated.addPath).toEqual([
      { afi: 1, safi: 1, send: true, receive: false },
    ]);
    expect(b.rec.established[0]!.negotiated.addPath).toEqual([
      { afi: 1, safi: 1, send: false, receive: true },
    ]);
    expect(b.rec.established[0]!.context.update.addPathIpv4).toBe(true);
  });
});
