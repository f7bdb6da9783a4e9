import type { AfiSafi, GracefulRestartCapability } from './capabilities.js';
import {
  CeaseSubcode,
  ErrorCode,
  GRACEFUL_RESTART_TIME_MAX,
  GracefulRestartAfFlag,
  GracefulRestartFlag,
  NOTIFICATION_FIXED_LENGTH,
} from './constants.js';
import type { NotificationMessage } from './notification.js';

/*
 * RFC 4724 (graceful restart) and RFC 8538 (its NOTIFICATION extension) on the wire: the
 * capability we advertise, and the Hard Reset that wraps a NOTIFICATION meant to end a session
 * for good once both sides set the N bit.
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

/**
 * RFC 8538 section 5: the Cease subcodes whose suggested behaviour is Hard Reset (the session
 * ends for good and the routes go). Administrative Reset is "provide user control": like FRR's
 * default we keep it graceful, so `neighbor reset` refreshes the routes without a gap.
 */
export const HARD_RESET_CEASE_SUBCODES: ReadonlySet<number> = new Set([
  CeaseSubcode.MAXIMUM_NUMBER_OF_PREFIXES_REACHED,
  CeaseSubcode.ADMINISTRATIVE_SHUTDOWN,
  CeaseSubcode.PEER_DE_CONFIGURED,
  CeaseSubcode.HARD_RESET,
]);

export function isHardReset(n: Pick<NotificationMessage, 'code' | 'subcode'>): boolean {
  return n.code === ErrorCode.CEASE && n.subcode === CeaseSubcode.HARD_RESET;
}

/**
 * The NOTIFICATION to send once both sides set the N bit: a Cease that ends the session for
 * good goes as Hard Reset carrying it (RFC 8538 section 3), anything else unchanged.
 *
 *   Cease / Hard Reset, Data: | Error Code (1) | Subcode (1) | Data (variable) |
 */
export function withHardReset(n: NotificationMessage): NotificationMessage {
  if (n.code !== ErrorCode.CEASE || !HARD_RESET_CEASE_SUBCODES.has(n.subcode) || isHardReset(n)) return n;
  const data = new Uint8Array(NOTIFICATION_FIXED_LENGTH + n.data.length);
  data[0] = n.code;
  data[1] = n.subcode;
  data.set(n.data, NOTIFICATION_FIXED_LENGTH);
  return { type: 'notification', code: ErrorCode.CEASE, subcode: CeaseSubcode.HARD_RESET, data };
}

/** The NOTIFICATION a Hard Reset carries (RFC 8538 section 3), or null (not one, or too short). */
export function hardResetCause(n: NotificationMessage): NotificationMessage | null {
  if (!isHardReset(n) || n.data.length < NOTIFICATION_FIXED_LENGTH) return null;
  return {
    type: 'notification',
    code: n.data[0],
    subcode: n.data[1],
    data: n.data.subarray(NOTIFICATION_FIXED_LENGTH),
  };
}
