import type { Clock, Logger } from '../../components/index.js';
import type { IfindexOf } from '../link-local.js';

/** What the zebra shell takes, so tests can pass their own clock and logger. */
export interface ZebraComponents {
  readonly clock?: Clock;
  readonly logger?: Logger;
  /** Uniform in [0, 1): the reconnect jitter. */
  readonly random?: () => number;
  /**
   * The index of an interface as zebra knows it (a link-local next hop goes with it): read in
   * our own network namespace, which is zebra's when both run on the host.
   */
  readonly ifindexOf?: IfindexOf;
}
