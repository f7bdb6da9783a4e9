/** What every shell takes from its caller: a logger, a clock or scheduler, and the error base. */
export { type Clock, type Scheduler, systemClock, systemScheduler, type TimerHandle } from './clock.js';
export { KindedError } from './errors.js';
export { childLogger, type Logger, silentLogger } from './logger.js';
