/**
 * The two clocks of a latency sample, both read in this process (performance.now):
 *
 *   CommitWatch  an OVSDB monitor on NB: NAT rows whose external_ip is the sample's (a
 *                condition, so nothing else ever crosses) and NB_Global nb_cfg/sb_cfg.
 *                ovsdb-server sends a commit's notifications to every monitor at once, before
 *                the transact reply, so the instant this monitor sees the row is the instant
 *                the speaker's monitor does: the commit. sb_cfg reaching the commit's nb_cfg
 *                is ovn-northd done with it (what `ovn-nbctl --wait=sb` waits for).
 *   FRR          bgpd's RIB read over a held vty connection every `pollMs`: the first answer
 *                holding (or no longer holding) the prefix. Resolution: pollMs + one query.
 */
import { type ChangeBatch, OvsdbClient, type Row } from '../../src/ovsdb/index.js';
import type { VtyClient } from './vty.js';

const SYNC_MS = 30_000;

interface Waiter {
  readonly ip: string;
  readonly change: 'insert' | 'delete';
  readonly resolve: (t: { at: number; nbCfg: number }) => void;
}

export class CommitWatch {
  readonly #client: OvsdbClient;
  #waiter: Waiter | null = null;
  /** performance.now() when each sb_cfg value was first seen. */
  readonly #sbCfgAt = new Map<number, number>();
  #nbCfg = 0;
  #sbCfg = 0;

  private constructor(client: OvsdbClient) {
    this.#client = client;
    client.on('changes', (b) => this.#onBatch(b));
  }

  static async start(nbRemote: string): Promise<CommitWatch> {
    const client = new OvsdbClient({
      remotes: nbRemote,
      database: 'OVN_Northbound',
      tables: {
        NAT: { columns: ['external_ip'], where: false },
        NB_Global: { columns: ['nb_cfg', 'sb_cfg'] },
      },
    }).start();
    await client.whenSynced(SYNC_MS);
    return new CommitWatch(client);
  }

  #onBatch(b: ChangeBatch): void {
    const at = performance.now();
    let hit = false;
    for (const c of b.changes) {
      if (c.table === 'NB_Global' && c.new) {
        this.#nbCfg = Number(c.new.nb_cfg);
        const sb = Number(c.new.sb_cfg);
        if (sb !== this.#sbCfg) {
          this.#sbCfg = sb;
          if (!this.#sbCfgAt.has(sb)) this.#sbCfgAt.set(sb, at);
        }
      }
      const w = this.#waiter;
      const row = (w?.change === 'insert' ? (c.old ? null : c.new) : c.new ? null : c.old) as Row | null;
      if (c.table === 'NAT' && row && row.external_ip === w?.ip) hit = true;
    }
    if (hit && b.reason === 'update') {
      const w = this.#waiter!;
      this.#waiter = null;
      w.resolve({ at, nbCfg: this.#nbCfg });
    }
  }

  /**
   * Watches NAT rows of external_ip `ip`; resolves once the monitor has them, with a promise
   * of the commit that next inserts (or deletes) one. A row entering the condition comes as
   * an insert too: it is already held when arm() resolves, so only a delete can follow it.
   */
  async arm(
    ip: string,
    change: 'insert' | 'delete',
  ): Promise<{ commit: Promise<{ at: number; nbCfg: number }> }> {
    this.#waiter = null;
    await this.#client.setConditions({ NAT: [['external_ip', '==', ip]] });
    // Wrapped: an async function returning a bare promise would wait for it.
    return {
      commit: new Promise((resolve) => {
        this.#waiter = { ip, change, resolve };
      }),
    };
  }

  /** When sb_cfg first reached `n` or more (ovn-northd done with nb_cfg n); undefined if not yet. */
  sbCfgAt(n: number): number | undefined {
    let best: number | undefined;
    for (const [cfg, at] of this.#sbCfgAt) if (cfg >= n && (best === undefined || at < best)) best = at;
    return best;
  }

  get nbCfg(): number {
    return this.#nbCfg;
  }

  close(): Promise<void> {
    return this.#client.close();
  }
}

const sleep = (ms: number) => new Promise<void>((r) => setTimeout(r, ms));

/** When FRR's answers for a prefix first showed it in each state (performance.now). */
export interface RouteSeen {
  /** add: a path for it is in the table; del: the path is gone or marked removed. */
  readonly received: number;
  /** add: that path is selected best; del: the prefix is gone from the table. */
  readonly settled: number;
}

/**
 * Reads `show bgp ipv4 unicast PREFIX json` until the change is settled. bgpd stores a path
 * as it parses the UPDATE and selects best paths later, from its work queue: both instants
 * are kept, the first being "FRR has the /32".
 */
export async function watchRoute(
  vty: VtyClient,
  prefix: string,
  change: 'add' | 'del',
  timeoutMs: number,
  pollMs: number,
): Promise<RouteSeen> {
  const end = performance.now() + timeoutMs;
  let received: number | undefined;
  for (;;) {
    const out = await vty.command(`show bgp ipv4 unicast ${prefix} json`);
    const at = performance.now();
    const present = out.includes('"paths"');
    if (change === 'add') {
      if (present) received ??= at;
      if (present && out.includes('"overall":true')) return { received: received ?? at, settled: at };
    } else {
      if (!present || out.includes('"removed":true')) received ??= at;
      if (!present) return { received: received ?? at, settled: at };
    }
    if (at > end)
      throw new Error(`FRR: ${prefix} not ${change === 'add' ? 'best' : 'gone'} after ${timeoutMs} ms`);
    await sleep(pollMs);
  }
}

/** Prefixes FRR accepted from `neighbor` (show bgp ipv4 unicast summary). */
export async function received(vty: VtyClient, neighbor: string): Promise<number> {
  const out = await vty.command('show bgp ipv4 unicast summary json');
  const peers = (JSON.parse(out) as { peers?: Record<string, { pfxRcd?: number }> }).peers ?? {};
  return peers[neighbor]?.pfxRcd ?? 0;
}

/** performance.now() of the first answer in which FRR holds exactly `count` prefixes from `neighbor`. */
export async function waitReceived(
  vty: VtyClient,
  neighbor: string,
  count: number,
  timeoutMs: number,
  pollMs: number,
): Promise<number> {
  const end = performance.now() + timeoutMs;
  let last = -1;
  for (;;) {
    last = await received(vty, neighbor);
    const at = performance.now();
    if (last === count) return at;
    if (at > end)
      throw new Error(`FRR: ${last} prefixes from ${neighbor}, not ${count}, after ${timeoutMs} ms`);
    await sleep(pollMs);
  }
}

/** When FRR's answers showed a removed prefix losing its use, and leaving (performance.now). */
export interface RemovalSeen {
  /** No usable path any more: gone, marked removed, or only at MED `leavingMed`. */
  readonly left: number;
  /** The prefix is gone from the table. */
  readonly gone: number;
}

/**
 * Reads `show bgp ipv4 unicast PREFIX json` until the prefix is gone, noting first when it
 * had no path left but ones at MED `leavingMed`: a sender that marks a route on its way out
 * with the worst MED before it withdraws it (ours, leaving an OVN route table) has moved the
 * fabric away then, if any other path exists.
 */
export async function watchRemoval(
  vty: VtyClient,
  prefix: string,
  leavingMed: number,
  timeoutMs: number,
  pollMs: number,
): Promise<RemovalSeen> {
  const end = performance.now() + timeoutMs;
  let left: number | undefined;
  for (;;) {
    const out = await vty.command(`show bgp ipv4 unicast ${prefix} json`);
    const at = performance.now();
    const paths = (JSON.parse(out) as { paths?: { metric?: number; removed?: boolean }[] }).paths ?? [];
    if (paths.every((p) => p.removed || p.metric === leavingMed)) left ??= at;
    if (paths.length === 0) return { left: left ?? at, gone: at };
    if (at > end) throw new Error(`FRR: ${prefix} not gone after ${timeoutMs} ms`);
    await sleep(pollMs);
  }
}

/**
 * performance.now() of the first answer in which FRR's count of prefixes from `neighbor` had
 * moved off `from`, and of the first in which it was `count`: when a batch began to arrive,
 * and when all of it had.
 */
export async function waitReceivedSpan(
  vty: VtyClient,
  neighbor: string,
  from: number,
  count: number,
  timeoutMs: number,
  pollMs: number,
): Promise<{ readonly first: number; readonly last: number }> {
  const end = performance.now() + timeoutMs;
  let first: number | undefined;
  for (;;) {
    const n = await received(vty, neighbor);
    const at = performance.now();
    if (n !== from) first ??= at;
    if (n === count) return { first: first ?? at, last: at };
    if (at > end) throw new Error(`FRR: ${n} prefixes from ${neighbor}, not ${count}, after ${timeoutMs} ms`);
    await sleep(pollMs);
  }
}
