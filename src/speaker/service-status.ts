/**
 * What the speaker tells its service manager (sd_notify), in words: the STATUS= line
 * `systemctl status` shows, and the notifier built from the environment systemd gave us.
 */
import type { SummaryView } from '../api/index.js';
import { type Logger, systemScheduler } from '../components/index.js';
import { formatProblem, type ReloadOutcome } from '../config/index.js';
import { type NotifyEnv, ServiceNotifier } from '../service/index.js';

/** "2/3 sessions Established, 1204 routes (ipv4-unicast 1200, ipv6-unicast 4)". */
export function runningStatus(summary: SummaryView): string {
  const up = summary.neighbors.filter((n) => n.state === 'Established').length;
  const families = Object.entries(summary.rib);
  const routes = families.reduce((sum, [, n]) => sum + n, 0);
  const each = families.map(([f, n]) => `${f} ${n}`).join(', ');
  return `${up}/${summary.neighbors.length} sessions Established, ${routes} routes${each ? ` (${each})` : ''}`;
}

/** The status after a reload: what changed, or why the file was refused. */
export function reloadStatus(outcome: ReloadOutcome, running: string): string {
  if (!outcome.ok) {
    const first = outcome.error.problems[0];
    return `configuration not reloaded (${first ? formatProblem(first) : outcome.error.kind}); ${running}`;
  }
  return `configuration reloaded; ${running}`;
}

/** The sd_notify channel when systemd asked for one; a NOTIFY_SOCKET we cannot use is logged, not fatal. */
export function serviceNotifier(env: NotifyEnv, pid: number, logger: Logger): ServiceNotifier | null {
  try {
    return ServiceNotifier.fromEnv(env, pid, { clock: systemScheduler, logger });
  } catch (error) {
    logger.warn({ error: String(error) }, 'sd_notify: NOTIFY_SOCKET is set but cannot be used');
    return null;
  }
}
