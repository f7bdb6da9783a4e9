import type { Clock, Logger } from '../../components/index.js';

/** What the zebra shell takes, so tests can pass their own clock and logger. */
export interface ZebraComponents {
  readonly clock?: Clock;
  readonly logger?: Logger;
  /** Uniform in [0, 1): the reconnect jitter. */
  readonly random?: () => number;
}
