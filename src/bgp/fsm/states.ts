import type { Timer } from './actions.js';
import { TIMERS } from './actions.js';
import type { FsmConfig } from './config.js';
import { resolveFsmConfig } from './config.js';

/** RFC 4271 section 8.2.2, in order. */
export const STATES = ['Idle', 'Connect', 'Active', 'OpenSent', 'OpenConfirm', 'Established'] as const;
export type State = (typeof STATES)[number];

/** Which timers the FSM has started and not yet stopped or seen expire. */
export type TimerSet = Readonly<Record<Timer, boolean>>;

/** Agreed on receipt of the peer's OPEN (RFC 4271 section 4.2); 0 means no hold timer and no keepalives. */
export interface Negotiated {
  readonly holdTime: number;
  readonly keepaliveTime: number;
}

/** Everything the FSM carries between steps: plain data, safe to log, compare and copy. */
export interface FsmState {
  readonly state: State;
  readonly config: FsmConfig;
  /** RFC 4271 section 8: times the peer session failed since the last start or ManualStop. */
  readonly connectRetryCounter: number;
  readonly negotiated: Negotiated | null;
  /** Flaps counted by peer oscillation damping; the idle hold time is doubled this many times. */
  readonly dampingLevel: number;
  /** PassiveTcpEstablishment of the last start; automatic restarts reuse it. */
  readonly passive: boolean;
  readonly timers: TimerSet;
}

export const NO_TIMERS: TimerSet = Object.freeze(
  Object.fromEntries(TIMERS.map((t) => [t, false])) as Record<Timer, boolean>,
);

/**
 * A new FSM in Idle. Throws FsmConfigError naming the field when the configuration is invalid;
 * `step` itself never throws.
 */
export function createFsm(init: Partial<FsmConfig> = {}): FsmState {
  const config = resolveFsmConfig(init);
  return {
    state: 'Idle',
    config,
    connectRetryCounter: 0,
    negotiated: null,
    dampingLevel: 0,
    passive: config.passive,
    timers: NO_TIMERS,
  };
}

export function runningTimers(s: FsmState): Timer[] {
  return TIMERS.filter((t) => s.timers[t]);
}
