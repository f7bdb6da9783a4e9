/**
 * What the speaker tells its service manager and its probes: the event loop's liveness.
 */
export { LagLog, LoopWatch, type LoopWatchInit } from './loop-watch.js';
