import { afterEach, describe, expect, it } from 'vitest';
import type { GracefulRestartState, SessionEnd } from '../../../src/bgp/session/index.js';
import { established, pair, until } from './support.js';

// Two speakers of ours on loopback, both doing graceful restart: what each OPEN carries and
// how each way of ending the session is reported (kept stale or withdrawn).

const cold: GracefulRestartState = { restartTime: 120, restarting: false, forwarding: new Set() };
const restarted: GracefulRestartState = {
  restartTime: 60,
  restarting: true,
  forwarding: new Set(['ipv4-unicast']),
};

let closeAll: (() => Promise<void>) | undefined;
afterEach(async () => {
  await closeAll?.();
  closeAll = undefined;
});

async function grPair(a: GracefulRestartState | null, b: GracefulRestartState | null) {
  const p = await pair({
    componentsA: { gracefulRestart: () => a },
    componentsB: { gracefulRestart: () => b },
  });
  closeAll = p.close;
  const ends: { a: SessionEnd[]; b: SessionEnd[] } = { a: [], b: [] };
  p.a.peer.on('down', (_why, end) => ends.a.push(end));
  p.b.peer.on('down', (_why, end) => ends.b.push(end));
  await established(p.a, p.b);
  return { ...p, ends };
}

describe('graceful restart between two of our speakers', () => {
  it("each side sees the other's R, N, F bits and restart time; N is exchanged", async () => {
    const { a, b } = await grPair(restarted, cold);
    expect(b.rec.established[0]!.negotiated.gracefulRestart).toEqual({
      restartState: true,
      notification: true,
      notificationExchanged: true,
      restartTime: 60,
      families: [{ afi: 1, safi: 1, forwardingState: true }],
    });
    expect(a.rec.established[0]!.negotiated.gracefulRestart).toMatchObject({
      restartState: false,
      restartTime: 120,
      families: [{ afi: 1, safi: 1, forwardingState: false }],
    });
  });

  it('a stop for restart sends no NOTIFICATION: the other side keeps the routes', async () => {
    const { a, b, ends } = await grPair(cold, cold);
    a.peer.stopForRestart();
    await until(() => ends.b.length === 1, 'B to see the session end');
    expect(ends.b[0]).toMatchObject({ event: 'TcpConnectionFails', notification: null, graceful: true });
    expect(b.rec.notifications).toEqual([]);
    expect(ends.a[0]).toMatchObject({ event: 'ManualStop', notification: null });
  });

  it('a shutdown goes as Hard Reset once N is exchanged: routes go on both sides', async () => {
    const { a, b, ends } = await grPair(cold, cold);
    a.peer.shutdown('for good');
    await until(() => ends.b.length === 1, 'B to see the session end');
    expect(ends.b[0]!.graceful).toBe(false);
    expect(ends.b[0]!.notification).toMatchObject({ direction: 'received', code: 6, subcode: 9 });
    expect(ends.b[0]!.notification!.text).toBe(
      'CEASE/HARD_RESET (6/9) for CEASE/ADMINISTRATIVE_SHUTDOWN (6/2): "for good"',
    );
    expect(ends.a[0]).toMatchObject({ graceful: false, notification: { direction: 'sent', subcode: 9 } });
    expect(b.rec.notifications.map((n) => [n.code, n.subcode])).toEqual([[6, 9]]);
  });

  it('an Administrative Reset stays a graceful Cease (RFC 8538 section 5: user control)', async () => {
    const { a, ends } = await grPair(cold, cold);
    a.peer.reset('soft');
    await until(() => ends.b.length === 1, 'B to see the session end');
    expect(ends.b[0]).toMatchObject({ graceful: true, notification: { code: 6, subcode: 4 } });
  });

  it('a hold timer expiry keeps the routes when N is exchanged (RFC 8538 section 4)', async () => {
    const { b, ends } = await grPair(cold, cold);
    b.scheduler.advance(10_000);
    await until(() => ends.b.length === 1, 'B to give up on A');
    expect(ends.b[0]).toMatchObject({
      event: 'HoldTimer_Expires',
      graceful: true,
      notification: { direction: 'sent', code: 4 },
    });
  });

  it('without graceful restart on one side nothing is kept, even a stop for restart', async () => {
    const { a, ends } = await grPair(cold, null);
    a.peer.stopForRestart();
    await until(() => ends.b.length === 1, 'B to see the session end');
    expect(ends.b[0]).toMatchObject({ notification: null, graceful: false });
  });
});
