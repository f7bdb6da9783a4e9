/**
 * The BGP finite state machine (RFC 4271 section 8), pure: `step(state, event)` returns the
 * next state and the actions for the session shell. Time-free: timers are events.
 */
export type { FsmAction, FsmActionType, SendNotificationAction, StartTimerAction, Timer } from './actions.js';
export { TIMERS } from './actions.js';
export type { CollisionInput, CollisionVerdict, ConnectionDirection } from './collision.js';
export { resolveCollision } from './collision.js';
export type { FsmConfig } from './config.js';
export { FsmConfigError, resolveFsmConfig } from './config.js';
export {
  FsmDefaults,
  JITTER_MAX_FACTOR,
  JITTER_MIN_FACTOR,
  LARGE_HOLD_TIME,
  MIN_AS_ORIGINATION_INTERVAL,
  MIN_ROUTE_ADVERTISEMENT_INTERVAL,
} from './constants.js';
export type { FsmEvent, FsmEventType } from './events.js';
export { EVENT_TYPES, notificationEvent, RFC_EVENT_NUMBER, TIMER_EXPIRY_EVENT } from './events.js';
export type { FsmState, Negotiated, State, TimerSet } from './states.js';
export { createFsm, runningTimers, STATES } from './states.js';
export type { StepResult } from './step.js';
export { run, step } from './step.js';
export type { HoldTimeNegotiation } from './timers.js';
export {
  jitter,
  minAsOriginationInterval,
  minRouteAdvertisementInterval,
  negotiateHoldTime,
  timerDurationMs,
} from './timers.js';
