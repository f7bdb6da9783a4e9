import { Model } from './constants.js';
import type { Row } from './rows.js';

/*
 * Choosing a server from `_Server.Database` (ovsdb-server(5)), as ovsdb-idl does: a
 * standalone or relay database is always usable; a clustered one only when the member is
 * connected to its cluster, is the leader when we insist on it, belongs to the cluster we
 * saw first, and is not behind what we have already seen (its `index`).
 */

export interface ServerView {
  readonly model: string;
  readonly connected: boolean;
  readonly leader: boolean;
  readonly cid: string | null;
  readonly index: number | null;
}

export interface ServerRequirements {
  readonly leaderOnly: boolean;
  /** Cluster id seen first; another cluster is never mixed in. */
  readonly cid: string | null;
  /** Highest `index` seen; a member behind it would take the replica back in time. */
  readonly minIndex: number;
}

export type ServerVerdict = { readonly usable: true } | { readonly usable: false; readonly reason: string };

/** The `_Server.Database` row for `database`, read from the replica's decoded rows. */
export function serverView(rows: Iterable<Row>, database: string): ServerView | undefined {
  for (const row of rows) {
    if (row.name !== database) continue;
    return {
      model: String(row.model),
      connected: row.connected === true,
      leader: row.leader === true,
      cid: typeof row.cid === 'string' ? row.cid : null,
      index: typeof row.index === 'number' ? row.index : null,
    };
  }
  return undefined;
}

export function judgeServer(view: ServerView | undefined, need: ServerRequirements): ServerVerdict {
  if (!view) return { usable: false, reason: 'database not served here' };
  if (view.model !== Model.CLUSTERED) return { usable: true };
  if (!view.connected) return { usable: false, reason: 'member not connected to its cluster' };
  if (need.leaderOnly && !view.leader) return { usable: false, reason: 'member is not the leader' };
  if (need.cid !== null && view.cid !== null && view.cid !== need.cid) {
    return { usable: false, reason: `member of another cluster (${view.cid}, expected ${need.cid})` };
  }
  if (view.index !== null && view.index < need.minIndex) {
    return { usable: false, reason: `member is stale (index ${view.index} < ${need.minIndex})` };
  }
  return { usable: true };
}

export interface BackoffPolicy {
  readonly initialMs: number;
  readonly maxMs: number;
  /** 0..1: the part of each delay that is random. */
  readonly jitter: number;
}

/**
 * Delay before connection attempt number `attempt` (0 = straight after a loss: no delay).
 * Exponential from `initialMs`, capped at `maxMs`; then up to `jitter` of it is taken off at
 * random so that many speakers do not hit a restarted server in step.
 */
export function backoffDelay(attempt: number, policy: BackoffPolicy, random: () => number): number {
  if (attempt <= 0) return 0;
  const exp = Math.min(policy.maxMs, policy.initialMs * 2 ** Math.min(attempt - 1, 30));
  const jitter = Math.min(1, Math.max(0, policy.jitter));
  return Math.round(exp * (1 - jitter * random()));
}
