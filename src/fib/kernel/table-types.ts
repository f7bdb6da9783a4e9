import type { Clock, Logger } from '../../components/index.js';
import type { RtnlSocketFactory } from './rtnl-socket.js';
import type { TableChange, TableRoute } from './table-routes.js';

/* The kernel table reader's surface: what it is built from, whom it tells, what it reports. */

export interface TableReaderInit {
  /** The routing table read (OVN: the router's datapath tunnel key). */
  readonly table: number;
  /** rtm_protocol values read; default [84] (RTPROT_OVN). Routes of others in the table are not ours to read. */
  readonly protocols?: readonly number[];
  readonly settleMs?: number;
  readonly maxHoldMs?: number;
  readonly resyncDelayMs?: number;
  readonly resyncIntervalMs?: number;
  readonly recvBuffer?: number;
  readonly monitorRecvBuffer?: number;
  readonly requestTimeoutMs?: number;
  readonly dropCheckMs?: number;
}

export interface TableReaderComponents {
  readonly logger?: Logger;
  /** Opens a NETLINK_ROUTE socket; tests pass a fake kernel. */
  readonly openSocket?: RtnlSocketFactory;
  /** Burst windows, resync delays, dump timeouts; default the system's monotonic clock. */
  readonly clock?: Clock;
}

/** Where the reader's news goes. Both are called with the table they are about. */
export interface TableReaderHandlers {
  /** The whole table, once: when start() has read it. Everything after comes as changes. */
  readonly sync: (routes: readonly TableRoute[], table: number) => void;
  /**
   * Prefixes whose metrics changed since the last call, a burst at a time: after a table
   * switch and after lost notifications too, then only what differs.
   */
  readonly change: (changes: readonly TableChange[], table: number) => void;
}

/**
 * Why the table was dumped: the start, a table switch, lost notifications, or a delete at a
 * key that held more than one route of ours (only a dump says what is left there).
 */
export type TableSyncReason = 'start' | 'table' | 'lost' | 'verify';

export interface TableReaderStatus {
  readonly open: boolean;
  readonly table: number;
  readonly protocols: readonly number[];
  /** Prefixes held, and (prefix, metric) routes: a prefix at two metrics counts twice. */
  readonly prefixes: number;
  readonly routes: number;
  /** Prefixes changed and not reported yet (a burst in its settle time, or a dump under way). */
  readonly pending: number;
  /** Change callbacks made, and the prefix changes they carried. */
  readonly batches: number;
  readonly changes: number;
  /** Dumps of the table that completed (start, table switches, after lost notifications). */
  readonly syncs: number;
  readonly lastSync?: {
    readonly reason: TableSyncReason;
    readonly ageMs: number;
    readonly tookMs: number;
    readonly routes: number;
    /** Prefixes it found changed (0 for the first one, which is reported whole). */
    readonly changes: number;
  };
  readonly monitor: {
    readonly on: boolean;
    readonly events: number;
    readonly otherTables: number;
    readonly overruns: number;
    readonly dropped: number;
    readonly tuned: readonly string[];
  };
  readonly socket: { readonly tuned: readonly string[] };
  readonly lastError?: string;
}
