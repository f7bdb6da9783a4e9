import { KEEPALIVE_HOLD_TIME_RATIO } from '../bgp/wire/index.js';
import type { Context } from './decoders.js';
import { type Path, problem } from './problem.js';

export interface Timers {
  readonly holdTime: number;
  readonly keepaliveTime: number;
  readonly connectRetry: number;
  /** Seconds in Idle after a reset before reconnecting (or accepting); 0: at once, no back-off. */
  readonly idleHoldTime: number;
  /** Cap of the doubling wait of a flapping peer; equal to idleHoldTime: no back-off. */
  readonly maxIdleHoldTime: number;
  /** Established this long: the next reset waits idleHoldTime again. */
  readonly idleHoldResetTime: number;
}

export interface RawTimers {
  readonly holdTime?: number;
  readonly keepaliveTime?: number;
  readonly connectRetry?: number;
  readonly idleHoldTime?: number;
  readonly maxIdleHoldTime?: number;
  readonly idleHoldResetTime?: number;
}

/** A hold time set without a keepalive brings its own third (RFC 4271 section 10); else inherit both. */
export function resolveTimers(raw: RawTimers, inherited: Timers, path: Path, ctx: Context): Timers {
  const holdTime = raw.holdTime ?? inherited.holdTime;
  const keepaliveTime =
    raw.keepaliveTime ??
    (raw.holdTime === undefined
      ? inherited.keepaliveTime
      : Math.floor(raw.holdTime / KEEPALIVE_HOLD_TIME_RATIO));
  const ka = raw.keepaliveTime;
  if (ka !== undefined) {
    const at = [...path, 'keepalive_time'];
    if (holdTime === 0 && ka !== 0) {
      ctx.problems.push(
        problem(at, `must be 0 or left out when hold_time is 0 (no keepalives), got ${ka}`, ka),
      );
    } else if (holdTime !== 0 && (ka === 0 || ka >= holdTime)) {
      ctx.problems.push(
        problem(at, `expected 1..${holdTime - 1} (less than hold_time ${holdTime}), got ${ka}`, ka),
      );
    }
  }
  return {
    holdTime,
    keepaliveTime,
    connectRetry: raw.connectRetry ?? inherited.connectRetry,
    ...resolveIdleHold(raw, inherited, path, ctx),
  };
}

/**
 * The reconnect back-off: a wait set without a cap raises the inherited cap to it (as FRR and
 * BIRD never wait less than asked); a cap below the wait is a problem naming both.
 */
function resolveIdleHold(
  raw: RawTimers,
  inherited: Timers,
  path: Path,
  ctx: Context,
): Pick<Timers, 'idleHoldTime' | 'maxIdleHoldTime' | 'idleHoldResetTime'> {
  const idleHoldTime = raw.idleHoldTime ?? inherited.idleHoldTime;
  const maxIdleHoldTime = raw.maxIdleHoldTime ?? Math.max(inherited.maxIdleHoldTime, idleHoldTime);
  if (raw.maxIdleHoldTime !== undefined && raw.maxIdleHoldTime < idleHoldTime) {
    ctx.problems.push(
      problem(
        [...path, 'max_idle_hold_time'],
        `must be at least idle_hold_time ${idleHoldTime}, got ${raw.maxIdleHoldTime}`,
        raw.maxIdleHoldTime,
      ),
    );
  }
  return {
    idleHoldTime,
    maxIdleHoldTime,
    idleHoldResetTime: raw.idleHoldResetTime ?? inherited.idleHoldResetTime,
  };
}
