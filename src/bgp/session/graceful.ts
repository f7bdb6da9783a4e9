import { type GracefulRestartNegotiated, isHardReset } from '../wire/index.js';

/**
 * Whether an Established session that ended keeps the peer's routes (as stale) instead of
 * withdrawing them: only when both sides advertised graceful restart, and then
 *
 * - without any NOTIFICATION (the connection was lost or closed): RFC 4724 section 4.2;
 * - after a NOTIFICATION either way (a hold timer expiry sends one) only when both sides set the
 *   N bit and it is not a Cease / Hard Reset: RFC 8538 sections 4 and 3.
 */
export function endsGracefully(
  gr: GracefulRestartNegotiated | null,
  notification: { readonly code: number; readonly subcode: number } | null,
): boolean {
  if (!gr) return false;
  if (!notification) return true;
  return gr.notificationExchanged && !isHardReset(notification);
}
