/**
 * What the speaker tells its service manager and its probes: sd_notify(3) over a unix
 * datagram socket (through libc), and the event loop's liveness.
 */

export { UnixDatagramSender } from './datagram.js';
export { LagLog, LoopWatch, type LoopWatchInit } from './loop-watch.js';
export {
  type NotifyEnv,
  type NotifyTransport,
  notifyMessage,
  ServiceNotifier,
  type ServiceNotifierComponents,
  watchdogPingMs,
} from './notify.js';
export { encodeSockaddrUn, NotifySocketError, SUN_PATH_BYTES } from './sockaddr-un.js';
