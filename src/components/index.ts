/**
 * What every shell takes from its caller: a logger, a clock or scheduler, and the error base;
 * and how long work yields to the event loop.
 */
export {
  type Clock,
  type Scheduler,
  systemClock,
  systemScheduler,
  type TimerHandle,
  type TimerOptions,
} from './clock.js';
export { KindedError } from './errors.js';
export { childLogger, type Logger, silentLogger } from './logger.js';
export { nextTurn, Pacer } from './pace.js';
export { MS_PER_SECOND } from './units.js';
// libc.ts (the koffi bindings) is imported by its own path: koffi is a native module, which the
// CLI's client commands and the BFD worker need not load just by importing this index.
