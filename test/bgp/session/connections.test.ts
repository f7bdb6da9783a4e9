import { afterEach, describe, expect, it } from 'vitest';
import { type ConnectInit, connectToPeer } from '../../../src/bgp/transport/index.js';
import { CeaseSubcode, ErrorCode } from '../../../src/bgp/wire/constants.js';
import { established, pair, RawPeer, TEST_TIMERS, until } from './support.js';

// Which connection carries a peer: active and passive opening, refusal of strangers, and
// RFC 4271 6.8 collision detection when both sides connect at once.

let cleanup: (() => Promise<void>) | undefined;
afterEach(async () => {
  await cleanup?.();
  cleanup = undefined;
});

describe('opening connections', () => {
  it('two passive peers never connect; one active side is enough', async () => {
    const dials: ConnectInit[] = [];
    const spy = (init: ConnectInit) => {
      dials.push(init);
      return connectToPeer(init);
    };
    const p = await pair({
      a: { passive: true },
      componentsA: { connect: spy },
      componentsB: { connect: spy },
    });
    cleanup = p.close;
    for (let i = 0; i < 3; i++) {
      p.a.scheduler.advance(TEST_TIMERS.connectRetryTime * 1000);
      p.b.scheduler.advance(TEST_TIMERS.connectRetryTime * 1000);
    }
    expect(dials).toEqual([]);
    expect([p.a.peer.state, p.b.peer.state]).toEqual(['Active', 'Active']);
    expect(p.a.peer.connections).toEqual([]);
  });

  it('resets a connection from an address that is no peer, and tells who it was', async () => {
    const refused: string[] = [];
    const p = await pair({ componentsB: { onRefused: (r) => refused.push(r.address) } });
    cleanup = p.close;
    await established(p.a, p.b);
    // The reset may beat the connect callback.
    const stranger = await RawPeer.connect(p.b.sessions.address!.port, '127.0.0.1', '127.0.0.3').catch(
      (e: NodeJS.ErrnoException) => e.code ?? String(e),
    );
    if (typeof stranger === 'string') expect(stranger).toBe('ECONNRESET');
    else {
      await until(() => stranger.closed, 'the stranger to be reset');
      expect(stranger.messages).toEqual([]); // not even an OPEN
    }
    await until(() => refused.length === 1, 'the refusal to be reported');
    expect(refused).toEqual(['127.0.0.3']);
    expect(p.b.peer.connections).toHaveLength(1);
  });

  it('a peer that is administratively down resets its peer connections', async () => {
    const p = await pair({ b: { enabled: false } });
    cleanup = p.close;
    await until(() => p.a.rec.states.some((c) => c.from === 'Connect'), 'A to give up its attempt');
    expect(['Idle', 'Active']).toContain(p.a.peer.state);
    expect(p.b.rec.connections).toEqual([]);
    expect(p.a.rec.established).toEqual([]);
  });
});

describe('connection collision (RFC 4271 6.8)', () => {
  it('both connect at once: one session survives, the one opened by the higher BGP Identifier', async () => {
    // Each side's own dial is handed over only once it has accepted the other's connection,
    // so both TCP connections exist, and both OPENs are on the way, before any OPEN is read.
    let p: Awaited<ReturnType<typeof pair>> | undefined;
    const acceptedIncoming = (who: 'a' | 'b') =>
      p?.[who].rec.connections.some((c) => c.direction === 'incoming') ?? false;
    const gated = (who: 'a' | 'b') => async (init: ConnectInit) => {
      const conn = await connectToPeer(init);
      await until(() => acceptedIncoming(who), `${who} to accept the other's connection`);
      return conn;
    };
    p = await pair({
      b: { passive: false },
      componentsA: { connect: gated('a') },
      componentsB: { connect: gated('b') },
    });
    cleanup = p.close;
    const { a, b } = p;
    await established(a, b);
    await until(
      () => a.peer.connections.length === 1 && b.peer.connections.length === 1,
      'one connection left',
    );

    // B (198.18.0.2) has the higher identifier: the connection B opened is kept.
    expect(a.peer.connections[0]!.direction).toBe('incoming');
    expect(b.peer.connections[0]!.direction).toBe('outgoing');
    expect(a.rec.connections.map((c) => c.direction).sort()).toEqual(['incoming', 'outgoing']);
    const collisions = [...a.rec.collisions, ...b.rec.collisions];
    expect(collisions.length).toBeGreaterThan(0);
    for (const c of a.rec.collisions) expect(c.keep).toBe('incoming');
    for (const c of b.rec.collisions) expect(c.keep).toBe('outgoing');
    // The losing connection is closed with Cease / Connection Collision Resolution (RFC 4486).
    const cease = [...a.rec.notifications, ...b.rec.notifications].filter(
      (n) => n.code === ErrorCode.CEASE && n.subcode === CeaseSubcode.CONNECTION_COLLISION_RESOLUTION,
    );
    expect(cease.length).toBeGreaterThan(0);
    expect(a.rec.established).toHaveLength(1);
    expect(b.rec.established).toHaveLength(1);
    expect(a.rec.down).toEqual([]);
    // The survivor behaves as the peer's main FSM: a later failure restarts it actively.
    expect(a.peer.state).toBe('Established');
  });

  it('a second connection while Established is closed, and the session stays', async () => {
    const p = await pair();
    cleanup = p.close;
    await established(p.a, p.b);
    // A stranger speaking from the peer's own address: RFC 4271 6.8 keeps the Established one.
    const raw = await RawPeer.connect(p.b.sessions.address!.port);
    await raw.next('open');
    const { encodeMessageBytes } = await import('../../../src/bgp/wire/message.js');
    const { localOpen } = await import('../../../src/bgp/session/index.js');
    raw.write(encodeMessageBytes(localOpen(p.a.peer.config)));
    const n = await raw.notification();
    expect([n.code, n.subcode]).toEqual([ErrorCode.CEASE, CeaseSubcode.CONNECTION_COLLISION_RESOLUTION]);
    expect(p.b.peer.state).toBe('Established');
    expect(p.b.rec.collisions).toEqual([
      { keep: 'incoming', close: 'incoming', localId: 0xc6120002, remoteId: 0xc6120001 },
    ]);
    expect(p.b.rec.down).toEqual([]);
  });
});
