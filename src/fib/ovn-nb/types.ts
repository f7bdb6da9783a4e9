import type { Logger } from '../../components/index.js';
import type {
  ClientEvents,
  ClientStatus,
  Clock,
  Operation,
  Row,
  TlsFiles,
  TransactResult,
} from '../../ovsdb/index.js';

/* The OVN NB target's surface: what it is built from, what it needs of a client, what it reports. */

type NbEvents = ClientEvents<Record<string, Row>>;

/** What the target uses of an OvsdbClient (one is; tests pass a fake). */
export interface NbClient {
  readonly synced: boolean;
  readonly status: ClientStatus;
  table(name: string): ReadonlyMap<string, Row>;
  on<K extends 'changes' | 'status'>(event: K, listener: (value: NbEvents[K]) => void): () => void;
  whenSynced(timeoutMs?: number): Promise<void>;
  transact(ops: readonly Operation[]): Promise<TransactResult>;
}

export interface OvnNbTargetInit {
  /** NB remotes (`tcp:127.0.0.1:6641`, `unix:/run/ovn/ovnnb_db.sock`, a cluster's list). */
  readonly remotes?: string | readonly string[];
  /** A client to share instead (it must monitor at least ovnNbSinkMonitor(mark)); not started or closed here. */
  readonly client?: NbClient;
  readonly tls?: TlsFiles;
  /** Logical_Router the routes go on. */
  readonly router: string;
  readonly outputPort?: string;
  readonly routeTable?: string;
  /** external_ids `{key: value}` of every row of ours; key defaults to "ovn-bgp-speaker". */
  readonly mark: { readonly key?: string; readonly value: string };
  readonly readyTimeoutMs?: number;
  readonly settleTimeoutMs?: number;
  readonly conflictRetries?: number;
}

export interface OvnNbComponents {
  readonly logger?: Logger;
  readonly clock?: Clock;
  readonly random?: () => number;
}

export interface OvnNbStatus {
  readonly connected: boolean;
  /** The NB server in use (or being tried). */
  readonly remote?: string;
  readonly router: string;
  readonly routerUuid?: string;
  /** "key=value" */
  readonly mark: string;
  /** Prefixes we want in NB. */
  readonly routes: number;
  /** Rows of ours on the router, as the replica has them now. */
  readonly rows: number;
  readonly transactions: number;
  /** Transactions whose precondition failed (the router changed under us) and were re-planned. */
  readonly conflicts: number;
  /** Sessions lost with a transaction out; each is settled from the fresh replica. */
  readonly unknownOutcomes: number;
  /** Reconciles of our own after a reconnect, a lost transaction, or the router appearing. */
  readonly repairs: number;
  /** Next hops we cannot write, by prefix. */
  readonly skipped: readonly { readonly prefix: string; readonly reason: string }[];
  readonly lastTransactMs?: number;
  readonly lastError?: string;
}
