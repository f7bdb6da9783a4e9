/**
 * The session core against RFC 5880 written out again: every cell of the 6.8.6 reception
 * table (our state x the packet's state x Poll bit), the timer rules of 6.8.2-6.8.4 and 6.8.7,
 * the Poll Sequence of 6.5 and 6.8.3, and Administrative Control (6.8.16).
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { BfdDiag, BfdState, type BfdStateName, SLOW_TX_US, STATE_NAMES } from '../../src/bfd/constants.js';
import type { ControlPacket } from '../../src/bfd/packet.js';
import {
  adminDown,
  adminUp,
  type BfdSession,
  controlPacket,
  createSession,
  detectionTimeUs,
  expire,
  jitteredIntervalUs,
  receive,
  setTimers,
  transmitting,
  txIntervalUs,
} from '../../src/bfd/session.js';
import { RECEIVE } from '../../src/bfd/table.js';

const timers = { minTxUs: 300_000, minRxUs: 300_000, multiplier: 3 };

function packet(state: BfdStateName, over: Partial<ControlPacket> = {}): ControlPacket {
  return {
    diag: 0,
    state: BfdState[state],
    poll: false,
    final: false,
    controlPlaneIndependent: false,
    authPresent: false,
    demand: false,
    multipoint: false,
    detectMult: 3,
    myDiscr: 99,
    yourDiscr: 7,
    desiredMinTxUs: 300_000,
    requiredMinRxUs: 300_000,
    requiredMinEchoRxUs: 0,
    ...over,
  };
}

function inState(state: BfdStateName): BfdSession {
  return { ...createSession(7, timers), state };
}

/** Up the way the protocol gets there: Down, Init, Up, and the Poll answered. */
function upSession(): BfdSession {
  let s = createSession(7, timers);
  for (const p of [packet('Down'), packet('Init'), packet('Up', { final: true })]) s = receive(s, p).session;
  expect(s.state).toBe('Up');
  expect(s.poll).toBeNull();
  return s;
}

/** RFC 5880 6.8.6, the state changes, as the text says them (independent of table.ts). */
function expected(local: BfdStateName, remote: BfdStateName): { next: BfdStateName; diag?: number } {
  if (local === 'AdminDown') return { next: 'AdminDown' };
  if (remote === 'AdminDown') {
    return local === 'Down'
      ? { next: 'Down' }
      : { next: 'Down', diag: BfdDiag.NEIGHBOR_SIGNALED_SESSION_DOWN };
  }
  if (local === 'Down') {
    if (remote === 'Down') return { next: 'Init' };
    if (remote === 'Init') return { next: 'Up' };
    return { next: 'Down' };
  }
  if (local === 'Init') return remote === 'Init' || remote === 'Up' ? { next: 'Up' } : { next: 'Init' };
  return remote === 'Down' ? { next: 'Down', diag: BfdDiag.NEIGHBOR_SIGNALED_SESSION_DOWN } : { next: 'Up' };
}

describe('RFC 5880 6.8.6 reception, every cell', () => {
  const cells = STATE_NAMES.flatMap((l) =>
    STATE_NAMES.flatMap((r) => [false, true].map((poll) => [l, r, poll] as const)),
  );
  it.each(cells)('%s receiving %s (Poll %s)', (local, remote, poll) => {
    const s = inState(local);
    const { session, actions } = receive(s, packet(remote, { poll }));
    const want = expected(local, remote);
    expect(RECEIVE[local][remote].next).toBe(want.next);
    expect(session.state).toBe(want.next);
    // The peer's values are taken in before anything else, even in AdminDown.
    expect(session.remoteDiscr).toBe(99);
    expect(session.remoteState).toBe(remote);
    const change = actions.find((a) => a.type === 'state-change');
    if (want.next === local) expect(change).toBeUndefined();
    else
      expect(change).toEqual({
        type: 'state-change',
        from: local,
        to: want.next,
        diag: want.next === 'Up' ? BfdDiag.NO_DIAGNOSTIC : (want.diag ?? s.localDiag),
        remoteAdminDown: remote === 'AdminDown',
      });
    // The Final answers every Poll, except in AdminDown where the packet is discarded.
    expect(actions.some((a) => a.type === 'send-final')).toBe(poll && local !== 'AdminDown');
  });
});

describe('timers (6.8.2-6.8.4)', () => {
  it('sends at least a second apart until Up, then at the configured interval through a Poll', () => {
    let s = createSession(7, timers);
    expect(s.desiredMinTxUs).toBe(SLOW_TX_US);
    expect(txIntervalUs(s)).toBe(SLOW_TX_US);
    s = receive(s, packet('Down')).session;
    expect(s.state).toBe('Init');
    s = receive(s, packet('Init')).session;
    expect(s.state).toBe('Up');
    expect(s.desiredMinTxUs).toBe(300_000);
    expect(s.poll).toEqual({ txUs: SLOW_TX_US, rxUs: 300_000 });
    expect(controlPacket(s).poll).toBe(true);
    // Faster at once: the peer already sees 300 ms in our packets.
    expect(txIntervalUs(s)).toBe(300_000);
    s = receive(s, packet('Up', { final: true })).session;
    expect(s.poll).toBeNull();
    expect(controlPacket(s).poll).toBe(false);
  });

  it('uses the larger of our interval and the peer Required Min RX', () => {
    const s = receive(upSession(), packet('Up', { requiredMinRxUs: 500_000 })).session;
    expect(txIntervalUs(s)).toBe(500_000);
  });

  it('detection time is the peer multiplier times the larger of our RX and its TX', () => {
    const s = receive(inState('Up'), packet('Up', { detectMult: 5, desiredMinTxUs: 200_000 })).session;
    expect(detectionTimeUs(s)).toBe(5 * 300_000);
    const slow = receive(inState('Up'), packet('Up', { detectMult: 2, desiredMinTxUs: 700_000 })).session;
    expect(detectionTimeUs(slow)).toBe(1_400_000);
    expect(detectionTimeUs(createSession(7, timers))).toBe(0);
  });

  it('keeps the old slower TX and the old faster RX until the Final (6.8.3)', () => {
    let s = upSession();
    s = setTimers(s, { minTxUs: 1_000_000, minRxUs: 100_000, multiplier: 3 }).session;
    expect(s.poll).toEqual({ txUs: 300_000, rxUs: 300_000 });
    // An increase of TX waits; a decrease of RX is not used for detection yet.
    expect(txIntervalUs(s)).toBe(300_000);
    expect(detectionTimeUs(s)).toBe(3 * 300_000);
    expect(controlPacket(s)).toMatchObject({
      poll: true,
      desiredMinTxUs: 1_000_000,
      requiredMinRxUs: 100_000,
    });
    s = receive(s, packet('Up', { final: true, desiredMinTxUs: 100_000 })).session;
    expect(txIntervalUs(s)).toBe(1_000_000);
    expect(detectionTimeUs(s)).toBe(3 * 100_000);
  });

  it('takes a slower RX and a faster TX at once, so neither side sees a false failure', () => {
    let s = receive(upSession(), packet('Up', { requiredMinRxUs: 50_000 })).session;
    s = setTimers(s, { minTxUs: 100_000, minRxUs: 900_000, multiplier: 3 }).session;
    expect(txIntervalUs(s)).toBe(100_000);
    expect(detectionTimeUs(s)).toBe(3 * 900_000);
  });

  it('changes timers without a Poll while not Up', () => {
    const s = setTimers(createSession(7, timers), {
      minTxUs: 50_000,
      minRxUs: 50_000,
      multiplier: 5,
    }).session;
    expect(s.poll).toBeNull();
    expect(s.desiredMinTxUs).toBe(SLOW_TX_US);
    expect(s.requiredMinRxUs).toBe(50_000);
    expect(s.detectMult).toBe(5);
  });

  it('stops periodic packets for a peer asking for none, or in its Demand mode', () => {
    expect(transmitting(receive(inState('Up'), packet('Up', { requiredMinRxUs: 0 })).session)).toBe(false);
    expect(transmitting(receive(inState('Up'), packet('Up', { demand: true })).session)).toBe(false);
    expect(transmitting(receive(inState('Down'), packet('Down', { demand: true })).session)).toBe(true);
  });
});

describe('Detection Time expiry (6.8.4)', () => {
  it.each(['Init', 'Up'] as const)('takes %s Down with diagnostic 1 and forgets the peer', (state) => {
    const s = state === 'Up' ? upSession() : { ...inState('Init'), remoteDiscr: 99, remoteDetectMult: 3 };
    const { session, actions } = expire(s);
    expect(session.state).toBe('Down');
    expect(session.localDiag).toBe(BfdDiag.CONTROL_DETECTION_TIME_EXPIRED);
    expect(session.remoteDiscr).toBe(0);
    expect(detectionTimeUs(session)).toBe(0);
    expect(session.desiredMinTxUs).toBe(SLOW_TX_US);
    expect(actions).toEqual([
      { type: 'state-change', from: state, to: 'Down', diag: 1, remoteAdminDown: false },
    ]);
  });

  it('in Down only forgets the discriminator', () => {
    const s = { ...inState('Down'), remoteDiscr: 5 };
    const { session, actions } = expire(s);
    expect(session.state).toBe('Down');
    expect(session.remoteDiscr).toBe(0);
    expect(actions).toEqual([]);
  });
});

describe('Administrative Control (6.8.16)', () => {
  it('goes AdminDown with diagnostic 7 and back to Down', () => {
    const up = receive(inState('Up'), packet('Up')).session;
    const down = adminDown(up);
    expect(down.session.state).toBe('AdminDown');
    expect(controlPacket(down.session)).toMatchObject({ state: BfdState.AdminDown, diag: 7 });
    expect(adminDown(down.session).actions).toEqual([]);
    const back = adminUp(down.session);
    expect(back.session.state).toBe('Down');
    expect(back.session.localDiag).toBe(0);
    expect(adminUp(up).actions).toEqual([]);
  });
});

describe('transmission (6.8.7)', () => {
  it('jitters each interval to 75-100%, 75-90% with Detect Mult 1', () => {
    fc.assert(
      fc.property(fc.double({ min: 0, max: 1, maxExcluded: true, noNaN: true }), fc.boolean(), (r, one) => {
        const s = createSession(7, { ...timers, multiplier: one ? 1 : 3 });
        const i = jitteredIntervalUs(s, r);
        expect(i).toBeGreaterThanOrEqual(0.75 * SLOW_TX_US);
        expect(i).toBeLessThanOrEqual((one ? 0.9 : 1) * SLOW_TX_US);
      }),
    );
  });

  it('never sets Poll and Final together, and echoes the session values', () => {
    const s = { ...receive(inState('Up'), packet('Up')).session, poll: { txUs: 1, rxUs: 1 } };
    expect(controlPacket(s, true)).toMatchObject({ poll: false, final: true, myDiscr: 7, yourDiscr: 99 });
    expect(controlPacket(s)).toMatchObject({ poll: true, final: false, controlPlaneIndependent: false });
  });
});
