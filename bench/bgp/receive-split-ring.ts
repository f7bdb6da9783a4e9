/*
 * The shared memory between bench/bgp/receive-split.ts and its worker.
 *
 *   records: RECORD_INTS int32 per UPDATE, a ring
 *     [message offset in the table | attribute field end | first column | prefixes | columns used]
 *   words/lens: IPv4 prefix columns, a ring; a record's prefixes never wrap
 *   ctl: the counters below (int32, Atomics)
 */

export const RECORD_INTS = 5;

export const Ctl = {
  /** Records the worker wrote. */
  WRITTEN: 0,
  /** Records the main thread applied. */
  READ: 1,
  /** Columns the main thread gave back (its records' "columns used"). */
  COLUMNS_FREED: 2,
  /** The worker reached the end of the table. */
  DONE: 3,
  /** The main thread waits for a message (the worker posts one when it writes). */
  SLEEPING: 4,
} as const;

export const CTL_INTS = 5;

export interface SplitShared {
  readonly table: SharedArrayBuffer;
  readonly records: SharedArrayBuffer;
  readonly words: SharedArrayBuffer;
  readonly lens: SharedArrayBuffer;
  readonly ctl: SharedArrayBuffer;
}
