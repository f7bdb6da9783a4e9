import type { Clock, Logger } from '../../components/index.js';
import type { Resolution } from './resolve.js';
import type { RtnlSocketFactory } from './rtnl-socket.js';

/* The kernel target's surface: what it is built from and what it reports. */

export interface KernelTargetInit {
  /** Routing table (RT_TABLE_MAIN 254 by default; a VRF's table too). */
  readonly table: number;
  /** RTA_PRIORITY of our routes. */
  readonly metric: number;
  /** rtm_protocol of our routes: with the table, the mark that says a route is ours. */
  readonly protocol: number;
  /** On close: delete every route of ours (flush) or leave them for the next start (keep). */
  readonly onStop: 'flush' | 'keep';
  /** What `show sinks` and the logs call it; default `kernel`. */
  readonly name?: string;
  readonly batch?: number;
  readonly maxInFlight?: number;
  readonly recvBuffer?: number;
  readonly sendBuffer?: number;
  readonly monitorRecvBuffer?: number;
  readonly requestTimeoutMs?: number;
  /** Watch for routes of ours deleted or replaced by others and put them back; default true. */
  readonly monitor?: boolean;
  readonly repairLimit?: number;
  readonly repairWindowMs?: number;
  readonly repairDelayMs?: number;
  readonly verifyIntervalMs?: number;
  readonly dropCheckMs?: number;
}

export interface KernelComponents {
  readonly logger?: Logger;
  /** Opens a NETLINK_ROUTE socket; tests pass a fake kernel. */
  readonly openSocket?: RtnlSocketFactory;
  /** Request timeouts, repair delays and repair windows; default the system's monotonic clock. */
  readonly clock?: Clock;
}

/** Why a wanted prefix is not in the kernel as ours. */
export type KernelProblem =
  /** The kernel refused it, or no next hop resolves. */
  | 'failed'
  /** A route of another protocol holds the same (prefix, metric) in our table. */
  | 'conflict'
  /** Somebody kept removing or replacing it; we stopped putting it back. */
  | 'displaced';

export interface KernelStatus {
  readonly open: boolean;
  readonly table: number;
  readonly protocol: number;
  readonly metric: number;
  /** Routes of ours in the kernel as far as we know. */
  readonly routes: number;
  readonly nexthopSets: number;
  /** Wanted prefixes not installed, by cause, and the first few with their reason. */
  readonly problems: { readonly failed: number; readonly conflict: number; readonly displaced: number };
  readonly problemSample: readonly {
    readonly prefix: string;
    readonly problem: KernelProblem;
    readonly reason: string;
  }[];
  readonly nextHops: readonly {
    readonly address: string;
    readonly resolution: Resolution['kind'];
    readonly detail: string;
  }[];
  readonly repairs: number;
  readonly gaveUp: number;
  /** Next hops that resolved otherwise after somebody's route change, and were followed. */
  readonly nextHopsMoved: number;
  readonly monitor: {
    readonly on: boolean;
    readonly events: number;
    /** Notifications of other tables, skipped. */
    readonly otherTables: number;
    readonly overruns: number;
    readonly dropped: number;
    readonly tuned: readonly string[];
  };
  readonly socket: {
    readonly tuned: readonly string[];
    readonly batch: number;
    readonly maxInFlight: number;
  };
  readonly lastError?: string;
}
