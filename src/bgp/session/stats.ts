import { MessageType } from '../wire/index.js';

/** Messages by type, as `show bgp neighbors` counts them. */
export interface MessageCounts {
  open: number;
  update: number;
  notification: number;
  keepalive: number;
  routeRefresh: number;
}

export interface MessageStats {
  readonly sent: MessageCounts;
  readonly received: MessageCounts;
}

const zero = (): MessageCounts => ({ open: 0, update: 0, notification: 0, keepalive: 0, routeRefresh: 0 });

export function newMessageStats(): MessageStats {
  return { sent: zero(), received: zero() };
}

const FIELD: Readonly<Record<number, keyof MessageCounts>> = {
  [MessageType.OPEN]: 'open',
  [MessageType.UPDATE]: 'update',
  [MessageType.NOTIFICATION]: 'notification',
  [MessageType.KEEPALIVE]: 'keepalive',
  [MessageType.ROUTE_REFRESH]: 'routeRefresh',
};

export function countMessage(counts: MessageCounts, type: number): void {
  const field = FIELD[type];
  if (field) counts[field]++;
}
