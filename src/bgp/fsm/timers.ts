import { MS_PER_SECOND } from '../../components/index.js';
import {
  ErrorCode,
  KEEPALIVE_HOLD_TIME_RATIO,
  MAX_HOLD_TIME,
  MIN_HOLD_TIME,
  OpenSubcode,
} from '../wire/index.js';
import type { StartTimerAction } from './actions.js';
import type { FsmConfig } from './config.js';
import {
  JITTER_MAX_FACTOR,
  JITTER_MIN_FACTOR,
  MAX_DAMPING_LEVEL,
  MIN_AS_ORIGINATION_INTERVAL,
  MIN_ROUTE_ADVERTISEMENT_INTERVAL,
} from './constants.js';

/**
 * RFC 4271 section 10 jitter: `seconds` times a factor uniform in [0.75, 1.0], chosen by
 * `random` in [0, 1). Out-of-range or non-finite randoms are clamped, never thrown on.
 */
export function jitter(seconds: number, random: number): number {
  const r = Number.isFinite(random) ? Math.min(Math.max(random, 0), 1) : 0;
  return seconds * (JITTER_MIN_FACTOR + (JITTER_MAX_FACTOR - JITTER_MIN_FACTOR) * r);
}

/** How long the shell arms the timer of a `start-timer` action, in whole milliseconds. */
export function timerDurationMs(action: StartTimerAction, random: () => number): number {
  const seconds = action.jitter ? jitter(action.seconds, random()) : action.seconds;
  return Math.round(seconds * MS_PER_SECOND);
}

/** RFC 4271 section 9.2.1.2 timer with section 10 jitter, in seconds. */
export function minAsOriginationInterval(random: () => number): number {
  return jitter(MIN_AS_ORIGINATION_INTERVAL, random());
}

/** RFC 4271 section 9.2.1.1 timer with section 10 jitter, in seconds (`base` overrides the default). */
export function minRouteAdvertisementInterval(
  internal: boolean,
  random: () => number,
  base: number = internal ? MIN_ROUTE_ADVERTISEMENT_INTERVAL.IBGP : MIN_ROUTE_ADVERTISEMENT_INTERVAL.EBGP,
): number {
  return jitter(base, random());
}

export type HoldTimeNegotiation =
  | { readonly ok: true; readonly holdTime: number; readonly keepaliveTime: number }
  | { readonly ok: false; readonly code: number; readonly subcode: number };

/**
 * RFC 4271 section 4.2: the session uses the smaller of our Hold Time and the peer's; 0 means
 * neither hold timer nor keepalives. A peer Hold Time of 1 or 2 (or anything that is not a
 * 2-octet value) is answered with OPEN Message Error / Unacceptable Hold Time (section 6.2).
 * Keepalives go at our KeepaliveTime, but at least three times per agreed hold time.
 */
export function negotiateHoldTime(
  localHoldTime: number,
  remoteHoldTime: number,
  localKeepaliveTime: number = Math.floor(localHoldTime / KEEPALIVE_HOLD_TIME_RATIO),
): HoldTimeNegotiation {
  const acceptable =
    Number.isInteger(remoteHoldTime) &&
    remoteHoldTime >= 0 &&
    remoteHoldTime <= MAX_HOLD_TIME &&
    (remoteHoldTime === 0 || remoteHoldTime >= MIN_HOLD_TIME);
  if (!acceptable) {
    return { ok: false, code: ErrorCode.OPEN_MESSAGE, subcode: OpenSubcode.UNACCEPTABLE_HOLD_TIME };
  }
  const holdTime = Math.min(localHoldTime, remoteHoldTime);
  if (holdTime === 0) return { ok: true, holdTime: 0, keepaliveTime: 0 };
  const keepaliveTime = Math.max(
    1,
    Math.min(localKeepaliveTime, Math.floor(holdTime / KEEPALIVE_HOLD_TIME_RATIO)),
  );
  return { ok: true, holdTime, keepaliveTime };
}

/**
 * Idle hold time before an automatic restart. With DampPeerOscillations (RFC 4271 8.1.1) it
 * doubles with each damping level up to maxIdleHoldTime; without, it is always idleHoldTime.
 */
export function idleHoldSeconds(config: FsmConfig, level: number): number {
  if (!config.dampPeerOscillations) return config.idleHoldTime;
  return Math.min(config.idleHoldTime * 2 ** level, config.maxIdleHoldTime);
}

/** The damping level after one more flap: grows until the idle hold time reaches its cap. */
export function nextDampingLevel(config: FsmConfig, level: number): number {
  if (!config.dampPeerOscillations) return level;
  if (idleHoldSeconds(config, level) >= config.maxIdleHoldTime) return level;
  return Math.min(level + 1, MAX_DAMPING_LEVEL);
}
