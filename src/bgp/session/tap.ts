import type { ConnectionInfo } from './peer-events.js';

/**
 * Sees every whole message of a peer's connections, both ways, header included, as it is
 * read or queued (an MRT recording). Sent UPDATEs may come several to a buffer. The bytes
 * are views: copy what is kept.
 */
export interface MessageTap {
  message(direction: 'received' | 'sent', bytes: Uint8Array, connection: ConnectionInfo): void;
}

/**
 * Where a peer's sessions look for its tap: one object shared by them, so a tap set or cleared
 * reaches the running connection, and an unset one costs a field read per message.
 */
export interface TapPoint {
  tap: MessageTap | null;
}
