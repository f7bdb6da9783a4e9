import type { AfiSafi, GracefulRestartCapability } from './capabilities.js';
import { GRACEFUL_RESTART_TIME_MAX, GracefulRestartAfFlag, GracefulRestartFlag } from './constants.js';

/*
 * RFC 4724 (graceful restart) on the wire: the capability we advertise, with RFC 8538's N bit.
 * The Hard Reset that wraps a NOTIFICATION (RFC 8538 section 3) is the NOTIFICATION's own
 * business: see notification.ts.
 */

/** One family of our capability: its Forwarding State (F) bit. */
export interface LocalGracefulRestartFamily extends AfiSafi {
  /** We kept forwarding packets for this family across the restart (RFC 4724 section 3). */
  readonly forwarding: boolean;
}

/** What we advertise: the Restart State (R) and Notification (N) bits, Restart Time, families. */
export interface LocalGracefulRestart {
  /** Seconds a peer should keep our routes when our session goes (0..4095). */
  readonly restartTime: number;
  /** R: we have restarted and are not done yet (routes deferred, End-of-RIB not sent). */
  readonly restarting: boolean;
  /** N: we do RFC 8538 (a NOTIFICATION other than Hard Reset keeps routes too). */
  readonly notification: boolean;
  readonly families: readonly LocalGracefulRestartFamily[];
}

/** The capability value for `local` (RFC 4724 section 3, RFC 8538 section 2). */
export function gracefulRestartCapability(local: LocalGracefulRestart): GracefulRestartCapability {
  if (
    !Number.isInteger(local.restartTime) ||
    local.restartTime < 0 ||
    local.restartTime > GRACEFUL_RESTART_TIME_MAX
  ) {
    throw new RangeError(`restart time ${local.restartTime} is not in 0..${GRACEFUL_RESTART_TIME_MAX}`);
  }
  return {
    name: 'graceful-restart',
    flags:
      (local.restarting ? GracefulRestartFlag.RESTART_STATE : 0) |
      (local.notification ? GracefulRestartFlag.NOTIFICATION : 0),
    restartTime: local.restartTime,
    families: local.families.map((f) => ({
      afi: f.afi,
      safi: f.safi,
      flags: f.forwarding ? GracefulRestartAfFlag.FORWARDING_STATE : 0,
    })),
  };
}
