import { KindedError } from '../../components/index.js';
import { KEEPALIVE_HOLD_TIME_RATIO, MAX_HOLD_TIME, MIN_HOLD_TIME } from '../wire/index.js';
import { FsmDefaults } from './constants.js';

/** Per-peer FSM settings (RFC 4271 section 8 session attributes). Times are whole seconds. */
export interface FsmConfig {
  /** ConnectRetryTime: how long one outgoing connection attempt may take. */
  readonly connectRetryTime: number;
  /** HoldTime we propose in our OPEN; 0 or 3..65535. */
  readonly holdTime: number;
  /** KeepaliveTime; negotiation lowers it to a third of the agreed hold time when needed. */
  readonly keepaliveTime: number;
  /** DelayOpenTime: how long to wait for the peer's OPEN before sending ours (when delayOpen). */
  readonly delayOpenTime: number;
  /** IdleHoldTime: wait in Idle before an automatic restart. */
  readonly idleHoldTime: number;
  /** Cap for the doubled idle hold time of a flapping peer. */
  readonly maxIdleHoldTime: number;
  /** Established time after which the damping level is reset to zero. */
  readonly dampResetTime: number;
  /** DelayOpen: wait for the peer's OPEN after the TCP connection comes up. */
  readonly delayOpen: boolean;
  /** DampPeerOscillations: double the idle hold time each time the session flaps. */
  readonly dampPeerOscillations: boolean;
  /** PassiveTcpEstablishment: never connect, only accept the peer's connection. */
  readonly passive: boolean;
  /** AllowAutomaticStart: after a failure, restart by itself once the idle hold time is over. */
  readonly allowAutomaticStart: boolean;
  /** SendNOTIFICATIONwithoutOPEN: may send a NOTIFICATION before our OPEN went out (DelayOpen). */
  readonly sendNotificationWithoutOpen: boolean;
}

/** An invalid FSM setting; `field` names it. */
export class FsmConfigError extends KindedError<'fsm-config'> {
  readonly field: string;
  constructor(field: string, detail: string) {
    super('fsm-config', `fsm config: ${field} ${detail}`);
    this.field = field;
  }
}

const MAX_SECONDS = 0xffff;

function seconds(field: string, value: unknown, min: number, max = MAX_SECONDS): number {
  if (typeof value !== 'number' || !Number.isInteger(value) || value < min || value > max) {
    throw new FsmConfigError(
      field,
      `must be a whole number of seconds in ${min}..${max}, got ${String(value)}`,
    );
  }
  return value;
}

function flag(field: string, value: unknown): boolean {
  if (typeof value !== 'boolean')
    throw new FsmConfigError(field, `must be true or false, got ${String(value)}`);
  return value;
}

/** Fills defaults and checks every field; throws FsmConfigError on the first bad one. */
export function resolveFsmConfig(init: Partial<FsmConfig> = {}): FsmConfig {
  const holdTime = seconds('holdTime', init.holdTime ?? FsmDefaults.holdTime, 0, MAX_HOLD_TIME);
  // RFC 4271 section 4.2: a Hold Time of one or two seconds is never acceptable.
  if (holdTime !== 0 && holdTime < MIN_HOLD_TIME) {
    throw new FsmConfigError('holdTime', `must be 0 or at least ${MIN_HOLD_TIME}, got ${holdTime}`);
  }
  const keepaliveTime = seconds(
    'keepaliveTime',
    init.keepaliveTime ?? Math.floor(holdTime / KEEPALIVE_HOLD_TIME_RATIO),
    holdTime === 0 ? 0 : 1,
  );
  // 0: restart (or accept) at once after a reset, as an operator may choose for a passive peer.
  const idleHoldTime = seconds('idleHoldTime', init.idleHoldTime ?? FsmDefaults.idleHoldTime, 0);
  const maxIdleHoldTime = seconds(
    'maxIdleHoldTime',
    init.maxIdleHoldTime ?? Math.max(FsmDefaults.maxIdleHoldTime, idleHoldTime),
    idleHoldTime,
  );
  return {
    connectRetryTime: seconds('connectRetryTime', init.connectRetryTime ?? FsmDefaults.connectRetryTime, 1),
    holdTime,
    keepaliveTime,
    delayOpenTime: seconds('delayOpenTime', init.delayOpenTime ?? FsmDefaults.delayOpenTime, 1),
    idleHoldTime,
    maxIdleHoldTime,
    dampResetTime: seconds('dampResetTime', init.dampResetTime ?? FsmDefaults.dampResetTime, 1),
    delayOpen: flag('delayOpen', init.delayOpen ?? FsmDefaults.delayOpen),
    dampPeerOscillations: flag(
      'dampPeerOscillations',
      init.dampPeerOscillations ?? FsmDefaults.dampPeerOscillations,
    ),
    passive: flag('passive', init.passive ?? FsmDefaults.passive),
    allowAutomaticStart: flag(
      'allowAutomaticStart',
      init.allowAutomaticStart ?? FsmDefaults.allowAutomaticStart,
    ),
    sendNotificationWithoutOpen: flag(
      'sendNotificationWithoutOpen',
      init.sendNotificationWithoutOpen ?? FsmDefaults.sendNotificationWithoutOpen,
    ),
  };
}
