import type { MessageCounts, MessageStats } from '../bgp/session/index.js';
import { MessageType } from '../bgp/wire/index.js';

/** Where per-message counts go (SpeakerMetrics is one). */
export interface MessageObserver {
  messageReceived(peer: string, type: number): void;
  messageSent(peer: string, type: number): void;
}

const FIELD_TYPE: Readonly<Record<keyof MessageCounts, number>> = {
  open: MessageType.OPEN,
  update: MessageType.UPDATE,
  notification: MessageType.NOTIFICATION,
  keepalive: MessageType.KEEPALIVE,
  routeRefresh: MessageType.ROUTE_REFRESH,
};

/**
 * Reports every message a peer's session counts to `observer`, as it is counted. The session
 * keeps its counts in plain fields (`stats.sent.update += n`); each field becomes an accessor
 * that passes the increase on, so the Prometheus counters move with the session's own counts
 * and nothing polls. Counts made before the tap are not reported.
 */
export function tapMessageStats(stats: MessageStats, peer: () => string, observer: MessageObserver): void {
  const tap = (counts: MessageCounts, report: (peer: string, type: number) => void) => {
    for (const field of Object.keys(FIELD_TYPE) as (keyof MessageCounts)[]) {
      let value = counts[field];
      const type = FIELD_TYPE[field];
      Object.defineProperty(counts, field, {
        enumerable: true,
        configurable: true,
        get: () => value,
        set: (next: number) => {
          const name = peer();
          for (let n = next - value; n > 0; n--) report(name, type);
          value = next;
        },
      });
    }
  };
  tap(stats.received, (p, t) => observer.messageReceived(p, t));
  tap(stats.sent, (p, t) => observer.messageSent(p, t));
}
