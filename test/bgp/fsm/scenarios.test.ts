import { describe, expect, it } from 'vitest';
import type { FsmAction, FsmEvent, FsmState } from '../../../src/bgp/fsm/index.js';
import { createFsm, notificationEvent, resolveCollision, run, step } from '../../../src/bgp/fsm/index.js';
import { start, stop, TEST_CONFIG, types } from './support.js';

const up = (s: FsmState, ...events: FsmEvent[]) => run(s, events).state;
const ESTABLISH_ACTIVE: FsmEvent[] = [
  { type: 'ManualStart' },
  { type: 'Tcp_CR_Acked' },
  { type: 'BGPOpen', holdTime: 90 },
  { type: 'KeepAliveMsg' },
];
const notifications = (actions: readonly FsmAction[]) =>
  actions.filter((a) => a.type === 'send-notification');
const idleHoldWait = (actions: readonly FsmAction[]) =>
  actions.find((a) => a.type === 'start-timer' && a.timer === 'idle-hold');

describe('happy path', () => {
  it('goes Idle → Connect → OpenSent → OpenConfirm → Established with the RFC 4271 timers', () => {
    let s = createFsm(TEST_CONFIG);
    let r = step(s, { type: 'ManualStart' });
    expect(r.state.state).toBe('Connect');
    expect(r.actions).toEqual([
      { type: 'initialize-resources' },
      start('connect-retry', 120, true),
      { type: 'connect' },
    ]);
    s = r.state;

    r = step(s, { type: 'Tcp_CR_Acked' });
    expect(r.state.state).toBe('OpenSent');
    // RFC 4271 8.2.2: the HoldTimer gets a "large value" (4 minutes) until the peer's OPEN.
    expect(r.actions).toEqual([stop('connect-retry'), { type: 'send-open' }, start('hold', 240)]);
    s = r.state;

    r = step(s, { type: 'BGPOpen', holdTime: 30 });
    expect(r.state.state).toBe('OpenConfirm');
    expect(r.state.negotiated).toEqual({ holdTime: 30, keepaliveTime: 10 });
    expect(r.actions).toEqual([{ type: 'send-keepalive' }, start('keepalive', 10, true), start('hold', 30)]);
    s = r.state;

    r = step(s, { type: 'KeepAliveMsg' });
    expect(r.state.state).toBe('Established');
    expect(r.actions).toEqual([start('hold', 30), { type: 'established' }]);
    s = r.state;

    r = step(s, { type: 'KeepaliveTimer_Expires' });
    expect(r.actions).toEqual([{ type: 'send-keepalive' }, start('keepalive', 10, true)]);
    r = step(r.state, { type: 'UpdateMsg' });
    expect(r.actions).toEqual([{ type: 'process-update' }, start('hold', 30)]);
    r = step(r.state, { type: 'RouteRefreshMsg' });
    expect(r.actions).toEqual([{ type: 'process-route-refresh' }, start('hold', 30)]);
    expect(r.state.state).toBe('Established');
  });

  it('with a negotiated hold time of 0 runs neither hold timer nor keepalives (RFC 4271 4.2)', () => {
    const sent = up(createFsm(TEST_CONFIG), { type: 'ManualStart' }, { type: 'Tcp_CR_Acked' });
    const r = step(sent, { type: 'BGPOpen', holdTime: 0 });
    expect(r.actions).toEqual([{ type: 'send-keepalive' }, stop('hold')]);
    expect(r.state.negotiated).toEqual({ holdTime: 0, keepaliveTime: 0 });
    const est = step(r.state, { type: 'KeepAliveMsg' });
    expect(est.actions).toEqual([{ type: 'established' }]);
    expect(step(est.state, { type: 'UpdateMsg' }).actions).toEqual([{ type: 'process-update' }]);
  });
});

describe('passive start', () => {
  it('listens in Active, never connects, and comes up on the peer connection', () => {
    let r = step(createFsm(TEST_CONFIG), { type: 'ManualStart_with_PassiveTcpEstablishment' });
    expect(r.state.state).toBe('Active');
    expect(r.actions).toEqual([{ type: 'initialize-resources' }, start('connect-retry', 120, true)]);

    r = step(r.state, { type: 'ConnectRetryTimer_Expires' });
    expect(r.state.state).toBe('Active');
    expect(types(r.actions)).not.toContain('connect');

    r = step(r.state, { type: 'TcpConnectionConfirmed' });
    expect(r.state.state).toBe('OpenSent');
    const est = up(r.state, { type: 'BGPOpen', holdTime: 90 }, { type: 'KeepAliveMsg' });
    expect(est.state).toBe('Established');
  });

  it('restarts passively after a failure', () => {
    const s = up(
      createFsm(TEST_CONFIG),
      { type: 'ManualStart_with_PassiveTcpEstablishment' },
      { type: 'TcpConnectionFails' },
    );
    expect(s.state).toBe('Idle');
    const r = step(s, { type: 'IdleHoldTimer_Expires' });
    expect(r.state.state).toBe('Active');
    expect(types(r.actions)).not.toContain('connect');
  });

  it('an active peer in Active connects when the ConnectRetryTimer expires', () => {
    const active = up(
      createFsm(TEST_CONFIG),
      { type: 'ManualStart' },
      { type: 'Tcp_CR_Acked' },
      { type: 'TcpConnectionFails' },
    );
    expect(active.state).toBe('Active');
    const r = step(active, { type: 'ConnectRetryTimer_Expires' });
    expect(r.state.state).toBe('Connect');
    expect(r.actions).toEqual([start('connect-retry', 120, true), { type: 'connect' }]);
  });
});

describe('DelayOpen (RFC 4271 8.1.1 group 4)', () => {
  const cfg = { ...TEST_CONFIG, delayOpen: true };
  const delayed = () => up(createFsm(cfg), { type: 'ManualStart' }, { type: 'Tcp_CR_Acked' });

  it('holds our OPEN back after the TCP connection comes up', () => {
    const r = step(up(createFsm(cfg), { type: 'ManualStart' }), { type: 'Tcp_CR_Acked' });
    expect(r.state.state).toBe('Connect');
    expect(r.actions).toEqual([stop('connect-retry'), start('delay-open', 7)]);
  });

  it('answers an OPEN that arrives meanwhile with OPEN + KEEPALIVE (event 20)', () => {
    const r = step(delayed(), { type: 'BGPOpen', holdTime: 90 });
    expect(r.state.state).toBe('OpenConfirm');
    expect(r.actions).toEqual([
      stop('delay-open'),
      { type: 'send-open' },
      { type: 'send-keepalive' },
      start('keepalive', 30, true),
      start('hold', 90),
    ]);
  });

  it('sends its OPEN when the DelayOpenTimer expires', () => {
    const r = step(delayed(), { type: 'DelayOpenTimer_Expires' });
    expect(r.state.state).toBe('OpenSent');
    expect(r.actions).toEqual([{ type: 'send-open' }, start('hold', 240)]);
  });

  it('falls back to Active when the connection fails while waiting', () => {
    const r = step(delayed(), { type: 'TcpConnectionFails' });
    expect(r.state.state).toBe('Active');
    expect(r.actions).toEqual([
      stop('delay-open'),
      { type: 'drop-connection' },
      start('connect-retry', 120, true),
    ]);
  });

  it('tells the peer about a bad OPEN only with SendNOTIFICATIONwithoutOPEN', () => {
    const bad: FsmEvent = { type: 'BGPOpenMsgErr', subcode: 2 };
    expect(notifications(step(delayed(), bad).actions)).toEqual([
      { type: 'send-notification', code: 2, subcode: 2 },
    ]);
    const quiet = up(
      createFsm({ ...cfg, sendNotificationWithoutOpen: false }),
      { type: 'ManualStart' },
      { type: 'Tcp_CR_Acked' },
    );
    expect(notifications(step(quiet, bad).actions)).toEqual([]);
  });
});

describe('connection collision (RFC 4271 6.8)', () => {
  // Outgoing connection: we connected, sent OPEN, got the peer's OPEN: now in OpenConfirm.
  const outgoing = () =>
    up(
      createFsm(TEST_CONFIG),
      { type: 'ManualStart' },
      { type: 'Tcp_CR_Acked' },
      { type: 'BGPOpen', holdTime: 90 },
    );
  // Incoming connection from the same peer: accepted, our OPEN sent, now its OPEN arrives.
  const incoming = () =>
    up(
      createFsm(TEST_CONFIG),
      { type: 'ManualStart_with_PassiveTcpEstablishment' },
      { type: 'TcpConnectionConfirmed' },
    );
  const CEASE_COLLISION = { type: 'send-notification', code: 6, subcode: 7 };

  it('keeps our outgoing connection when our BGP Identifier is higher', () => {
    const verdict = resolveCollision({
      localId: 0xc6120002, // 198.18.0.2
      remoteId: 0xc6120001, // 198.18.0.1
      received: 'incoming',
      otherState: outgoing().state,
    });
    expect(verdict).toMatchObject({
      collision: true,
      close: 'this',
      closeDirection: 'incoming',
      code: 6,
      subcode: 7,
    });

    const dumped = step(incoming(), { type: 'OpenCollisionDump' });
    expect(dumped.state.state).toBe('Idle');
    expect(dumped.actions[0]).toEqual(CEASE_COLLISION);
    expect(types(dumped.actions)).toContain('drop-connection');
    expect(idleHoldWait(dumped.actions)).toBeUndefined(); // this FSM is disposed, not restarted
    expect(dumped.state.dampingLevel).toBe(0); // a collision is not a flap

    expect(step(outgoing(), { type: 'KeepAliveMsg' }).state.state).toBe('Established');
  });

  it('gives way to the peer connection when the peer BGP Identifier is higher', () => {
    const verdict = resolveCollision({
      localId: 0xc6120001,
      remoteId: 0xc6120002,
      received: 'incoming',
      otherState: outgoing().state,
    });
    expect(verdict).toMatchObject({ collision: true, close: 'other', closeDirection: 'outgoing' });

    const dumped = step(outgoing(), { type: 'OpenCollisionDump' });
    expect(dumped.state.state).toBe('Idle');
    expect(dumped.actions[0]).toEqual(CEASE_COLLISION);

    const survivor = up(incoming(), { type: 'BGPOpen', holdTime: 90 }, { type: 'KeepAliveMsg' });
    expect(survivor.state).toBe('Established');
  });
});

describe('peer oscillation damping (RFC 4271 8.1.1 DampPeerOscillations)', () => {
  const flap = (s: FsmState) => {
    const est =
      s.state === 'Idle' ? up(s, { type: 'IdleHoldTimer_Expires' }, ...ESTABLISH_ACTIVE.slice(1)) : s;
    expect(est.state).toBe('Established');
    return step(est, { type: 'TcpConnectionFails' });
  };

  it('doubles the idle hold time with every flap up to the cap, and forgives after a stable session', () => {
    let r = flap(up(createFsm(TEST_CONFIG), ...ESTABLISH_ACTIVE));
    const waits: number[] = [];
    for (let i = 0; i < 6; i++) {
      const wait = idleHoldWait(r.actions);
      expect(wait).toBeDefined();
      if (wait?.type === 'start-timer') waits.push(wait.seconds);
      r = flap(r.state);
    }
    expect(waits).toEqual([5, 10, 20, 40, 40, 40]);

    // Up again: the reset timer starts; a flap before it expires keeps the back-off.
    const est = up(r.state, { type: 'IdleHoldTimer_Expires' }, ...ESTABLISH_ACTIVE.slice(1, 3));
    const established = step(est, { type: 'KeepAliveMsg' });
    expect(established.actions).toContainEqual(start('damp-reset', 300));

    const forgiven = step(established.state, { type: 'DampResetTimer_Expires' });
    expect(forgiven.state.dampingLevel).toBe(0);
    expect(forgiven.actions).toEqual([]);
    expect(idleHoldWait(step(forgiven.state, { type: 'TcpConnectionFails' }).actions)).toEqual(
      start('idle-hold', 5),
    );
  });

  it('stops the reset timer when the session drops before it expires', () => {
    const flapped = flap(up(createFsm(TEST_CONFIG), ...ESTABLISH_ACTIVE)).state;
    const again = up(flapped, { type: 'IdleHoldTimer_Expires' }, ...ESTABLISH_ACTIVE.slice(1));
    expect(again.timers['damp-reset']).toBe(true);
    const r = step(again, { type: 'NotifMsg' });
    expect(r.actions).toContainEqual(stop('damp-reset'));
    expect(r.state.dampingLevel).toBe(2);
  });

  it('waits the plain idle hold time when damping is off', () => {
    const cfg = { ...TEST_CONFIG, dampPeerOscillations: false };
    let s = up(createFsm(cfg), ...ESTABLISH_ACTIVE);
    for (let i = 0; i < 4; i++) {
      const r = flap(s);
      expect(idleHoldWait(r.actions)).toEqual(start('idle-hold', 5));
      expect(r.state.dampingLevel).toBe(0);
      s = r.state;
    }
  });

  it('defers an AutomaticStart while the idle hold time runs; a ManualStart overrides it', () => {
    const waiting = flap(up(createFsm(TEST_CONFIG), ...ESTABLISH_ACTIVE)).state;
    expect(step(waiting, { type: 'AutomaticStart' })).toEqual({ state: waiting, actions: [] });
    const manual = step(waiting, { type: 'ManualStart' });
    expect(manual.state.state).toBe('Connect');
    expect(manual.actions[0]).toEqual(stop('idle-hold'));
  });
});

describe('errors and stops', () => {
  it('sends Hold Timer Expired (code 4) when the HoldTimer fires', () => {
    const est = up(createFsm(TEST_CONFIG), ...ESTABLISH_ACTIVE);
    const r = step(est, { type: 'HoldTimer_Expires' });
    expect(r.state.state).toBe('Idle');
    expect(r.actions).toEqual([
      { type: 'send-notification', code: 4, subcode: 0 },
      stop('keepalive'),
      { type: 'left-established' },
      { type: 'drop-connection' },
      { type: 'release-resources' },
      start('idle-hold', 5),
    ]);
    expect(r.state.connectRetryCounter).toBe(1);
  });

  it('ManualStop sends Cease/Administrative Shutdown with the RFC 9003 message and does not restart', () => {
    const est = up(createFsm(TEST_CONFIG), ...ESTABLISH_ACTIVE);
    const r = step(est, { type: 'ManualStop', message: 'moving to new hardware' });
    expect(r.actions[0]).toEqual({
      type: 'send-notification',
      code: 6,
      subcode: 2,
      message: 'moving to new hardware',
    });
    expect(idleHoldWait(r.actions)).toBeUndefined();
    expect(r.state).toMatchObject({ state: 'Idle', connectRetryCounter: 0 });
    // Nothing but a start event brings it back.
    for (const e of [
      'AutomaticStop',
      'IdleHoldTimer_Expires',
      'TcpConnectionFails',
      'KeepAliveMsg',
    ] as const) {
      expect(step(r.state, { type: e } as FsmEvent).state.state).toBe('Idle');
    }
  });

  it('ManualStop carries the message with Administrative Reset, not with Peer De-configured', () => {
    const est = up(createFsm(TEST_CONFIG), ...ESTABLISH_ACTIVE);
    expect(step(est, { type: 'ManualStop', subcode: 4, message: 'clear' }).actions[0]).toEqual({
      type: 'send-notification',
      code: 6,
      subcode: 4,
      message: 'clear',
    });
    expect(step(est, { type: 'ManualStop', subcode: 3, message: 'gone' }).actions[0]).toEqual({
      type: 'send-notification',
      code: 6,
      subcode: 3,
    });
  });

  it('a silent ManualStop (stop for a graceful restart) closes without a NOTIFICATION', () => {
    const est = up(createFsm(TEST_CONFIG), ...ESTABLISH_ACTIVE);
    const r = step(est, { type: 'ManualStop', silent: true, subcode: 2, message: 'ignored' });
    expect(notifications(r.actions)).toEqual([]);
    expect(types(r.actions)).toEqual(expect.arrayContaining(['left-established', 'drop-connection']));
    expect(r.state).toMatchObject({ state: 'Idle', connectRetryCounter: 0 });
    expect(idleHoldWait(r.actions)).toBeUndefined();
  });

  it('ManualStop in Idle cancels a pending automatic restart', () => {
    const waiting = up(createFsm(TEST_CONFIG), { type: 'ManualStart' }, { type: 'TcpConnectionFails' });
    expect(waiting.timers['idle-hold']).toBe(true);
    const r = step(waiting, { type: 'ManualStop' });
    expect(r.actions).toEqual([stop('idle-hold')]);
    expect(step(r.state, { type: 'IdleHoldTimer_Expires' }).state.state).toBe('Idle');
  });

  it('AutomaticStop (max-prefix) passes Cease subcode and RFC 4486 data through and restarts later', () => {
    const data = Uint8Array.of(0, 1, 1, 0, 0, 0x27, 0x10);
    const r = step(up(createFsm(TEST_CONFIG), ...ESTABLISH_ACTIVE), {
      type: 'AutomaticStop',
      subcode: 1,
      data,
    });
    expect(r.actions[0]).toEqual({ type: 'send-notification', code: 6, subcode: 1, data });
    expect(idleHoldWait(r.actions)).toEqual(start('idle-hold', 5));
  });

  it('refuses a peer Hold Time of 1 or 2 with OPEN Message Error / Unacceptable Hold Time', () => {
    const sent = up(createFsm(TEST_CONFIG), { type: 'ManualStart' }, { type: 'Tcp_CR_Acked' });
    for (const holdTime of [1, 2]) {
      const r = step(sent, { type: 'BGPOpen', holdTime });
      expect(r.state.state).toBe('Idle');
      expect(r.actions[0]).toEqual({ type: 'send-notification', code: 2, subcode: 6 });
    }
  });

  it('uses the RFC 6608 subcode and message type for unexpected messages', () => {
    const sent = up(createFsm(TEST_CONFIG), { type: 'ManualStart' }, { type: 'Tcp_CR_Acked' });
    const confirm = step(sent, { type: 'BGPOpen', holdTime: 90 }).state;
    const est = step(confirm, { type: 'KeepAliveMsg' }).state;
    const first = (s: FsmState, e: FsmEvent) => step(s, e).actions[0];
    expect(first(sent, { type: 'KeepAliveMsg' })).toEqual({
      type: 'send-notification',
      code: 5,
      subcode: 1,
      data: Uint8Array.of(4),
    });
    expect(first(confirm, { type: 'UpdateMsg' })).toEqual({
      type: 'send-notification',
      code: 5,
      subcode: 2,
      data: Uint8Array.of(2),
    });
    expect(first(est, { type: 'BGPOpen', holdTime: 90 })).toEqual({
      type: 'send-notification',
      code: 5,
      subcode: 3,
      data: Uint8Array.of(1),
    });
    // A timer that should not be running is an FSM error too, with no message to name.
    expect(first(est, { type: 'ConnectRetryTimer_Expires' })).toEqual({
      type: 'send-notification',
      code: 5,
      subcode: 0,
    });
  });

  it('never answers a NOTIFICATION with one', () => {
    const est = up(createFsm(TEST_CONFIG), ...ESTABLISH_ACTIVE);
    const sent = up(createFsm(TEST_CONFIG), { type: 'ManualStart' }, { type: 'Tcp_CR_Acked' });
    for (const s of [est, sent]) {
      for (const code of [6, 2]) {
        const r = step(s, notificationEvent(code, 1));
        expect(r.state.state).toBe('Idle');
        expect(notifications(r.actions)).toEqual([]);
      }
    }
  });

  it('does not count a version error (event 24) in OpenSent: version negotiation is not a failure', () => {
    const sent = up(createFsm(TEST_CONFIG), { type: 'ManualStart' }, { type: 'Tcp_CR_Acked' });
    expect(notificationEvent(2, 1)).toEqual({ type: 'NotifMsgVerErr' });
    expect(step(sent, notificationEvent(2, 1)).state).toMatchObject({
      state: 'Idle',
      connectRetryCounter: 0,
      dampingLevel: 0,
    });
  });

  it('retries a refused outgoing connection after the idle hold time, uncounted (RFC 4271 8.2.2 Connect, event 18)', () => {
    let s = up(createFsm(TEST_CONFIG), { type: 'ManualStart' });
    for (let i = 0; i < 3; i++) {
      const r = step(s, { type: 'TcpConnectionFails' });
      expect(r.state).toMatchObject({ state: 'Idle', connectRetryCounter: 0, dampingLevel: 0 });
      expect(idleHoldWait(r.actions)).toEqual(start('idle-hold', 5));
      s = step(r.state, { type: 'IdleHoldTimer_Expires' }).state;
      expect(s.state).toBe('Connect');
    }
  });

  it('stays in Idle after a failure when automatic start is not allowed', () => {
    const s = up(createFsm({ ...TEST_CONFIG, allowAutomaticStart: false }), ...ESTABLISH_ACTIVE);
    const r = step(s, { type: 'TcpConnectionFails' });
    expect(idleHoldWait(r.actions)).toBeUndefined();
    expect(r.state.timers['idle-hold']).toBe(false);
  });

  it('refuses connections in Idle', () => {
    expect(step(createFsm(), { type: 'TcpConnectionConfirmed' }).actions).toEqual([
      { type: 'drop-connection' },
    ]);
  });
});

describe('step is total', () => {
  it('ignores events and states it does not know instead of throwing', () => {
    const s = createFsm();
    for (const e of [{ type: 'toString' }, { type: '__proto__' }, { type: 'Bogus' }, null, undefined, 42]) {
      expect(step(s, e as unknown as FsmEvent)).toEqual({ state: s, actions: [] });
    }
    const odd = { ...s, state: 'constructor' } as unknown as FsmState;
    expect(step(odd, { type: 'ManualStart' })).toEqual({ state: odd, actions: [] });
  });

  it('clamps out-of-range subcodes instead of passing them to the encoder', () => {
    const est = up(createFsm(TEST_CONFIG), ...ESTABLISH_ACTIVE);
    expect(step(est, { type: 'UpdateMsgErr', subcode: 999 }).actions[0]).toEqual({
      type: 'send-notification',
      code: 3,
      subcode: 0,
    });
    expect(step(est, { type: 'ManualStop', subcode: -1 }).actions[0]).toEqual({
      type: 'send-notification',
      code: 6,
      subcode: 2,
    });
  });
});
