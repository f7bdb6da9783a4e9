import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { GOBGP_API_PORT, READY_POLL_INTERVAL, READY_TIMEOUT, TABLE_QUERY_TIMEOUT } from './constants.js';
import { DaemonBase, type NeighborStatus, type ReceivedRoute, type RouteQuery } from './daemon.js';
import { type RunOptions, run } from './exec.js';
import { renderGobgpConfig } from './gobgp-config.js';
import { parseGobgpLog, parseGobgpNeighbors, parseGobgpRib } from './gobgp-parse.js';
import { signalProcess } from './process.js';
import type { Family, NeighborSpec, Originate } from './spec.js';
import { waitFor } from './wait.js';

/** Prefixes added to gobgpd's RIB at once (each `gobgp global rib add` is one process). */
const RIB_ADD_CONCURRENCY = 4;

/** GoBGP 3.10 in a namespace: config from TOML, API on loopback inside the namespace. */
export class GobgpDaemon extends DaemonBase {
  readonly impl = 'gobgp' as const;

  get configFile(): string {
    return join(this.dir, 'gobgpd.toml');
  }

  get logFile(): string {
    return join(this.dir, 'gobgpd.log');
  }

  protected versionArgv(): string[] {
    return ['gobgpd', '--version'];
  }

  protected async launch(restarting = false): Promise<void> {
    mkdirSync(this.dir, { recursive: true });
    writeFileSync(this.configFile, renderGobgpConfig(this.current));
    this.spawn(
      this.inNamespace([
        'gobgpd',
        '-f',
        this.configFile,
        '-t',
        'toml',
        '--api-hosts',
        `127.0.0.1:${GOBGP_API_PORT}`,
        '--pprof-disable',
        '--log-plain',
        '--log-level',
        'info',
        // RFC 4724 Restart State in its OPENs: it comes back from a crash.
        ...(restarting ? ['--graceful-restart'] : []),
      ]),
      'gobgpd',
      this.logFile,
    );
    // Ready once the API answers and every configured neighbor is loaded.
    const want = this.current.neighbors.length;
    await this.waitReady(
      async () => ((await this.neighbors()).length >= want ? true : undefined),
      'gobgpd API with its neighbors',
      this.logFile,
    );
    for (const f of ['ipv4', 'ipv6'] as const) {
      const prefixes = this.current.originate?.[f] ?? [];
      if (prefixes.length > 0) await this.applyOriginate(f, prefixes, true);
    }
  }

  /** gobgpd crashes (SIGKILL) and starts again with --graceful-restart (the R bit), its routes added anew. */
  async crashAndRestart(originate?: Originate): Promise<void> {
    await this.kill('gobgpd');
    if (originate) this.current = { ...this.current, originate };
    await this.launch(true);
  }

  /** Runs the gobgp CLI against this daemon (inside its namespace) and returns stdout. */
  gobgp(args: readonly string[], opts: RunOptions = {}): Promise<string> {
    return run(this.inNamespace(['gobgp', '-u', '127.0.0.1', '-p', String(GOBGP_API_PORT), ...args]), opts);
  }

  async neighbors(): Promise<NeighborStatus[]> {
    const text = await this.gobgp(['neighbor', '-j']);
    const log = existsSync(this.logFile) ? parseGobgpLog(readFileSync(this.logFile, 'utf8')) : new Map();
    return parseGobgpNeighbors(text, log);
  }

  async routes(family: Family, query: RouteQuery = {}): Promise<ReceivedRoute[]> {
    const text = await this.gobgp(['global', 'rib', '-a', family, '-j'], { timeoutMs: TABLE_QUERY_TIMEOUT });
    const all = parseGobgpRib(text, family);
    return query.from === undefined ? all : all.filter((r) => r.from === query.from);
  }

  /** Routes as received from one neighbor, before import policy (`gobgp neighbor X adj-in`). */
  async adjIn(address: string, family: Family): Promise<ReceivedRoute[]> {
    this.requireNeighbor(address);
    const text = await this.gobgp(['neighbor', address, 'adj-in', '-a', family, '-j'], {
      timeoutMs: TABLE_QUERY_TIMEOUT,
    });
    return parseGobgpRib(text, family);
  }

  async shutdownNeighbor(address: string, message?: string): Promise<void> {
    this.requireNeighbor(address);
    // `gobgp neighbor X disable` drops --reason; the deprecated `shutdown` sends it (RFC 9003)
    // but leaves the neighbor enabled, so it is followed by `disable`.
    if (message) await this.gobgp(['neighbor', address, 'shutdown', '--reason', message]);
    await this.gobgp(['neighbor', address, 'disable']);
  }

  async enableNeighbor(address: string): Promise<void> {
    this.requireNeighbor(address);
    await this.gobgp(['neighbor', address, 'enable']);
  }

  /** Rewrites the config and makes gobgpd reload it (SIGHUP): it adds, deletes and updates neighbors. */
  private async reload(settled: (ns: NeighborStatus[]) => boolean): Promise<void> {
    writeFileSync(this.configFile, renderGobgpConfig(this.current));
    for (const r of this.procs) signalProcess(r, 'SIGHUP');
    await waitFor(async () => (settled(await this.neighbors()) ? true : undefined), {
      timeoutMs: READY_TIMEOUT,
      intervalMs: READY_POLL_INTERVAL,
      what: `${this.name}: gobgpd config reload`,
    });
  }

  protected applyNeighborAdded(n: NeighborSpec): Promise<void> {
    return this.reload((ns) => ns.some((x) => x.address === n.address));
  }

  protected applyNeighborRemoved(n: NeighborSpec): Promise<void> {
    return this.reload((ns) => !ns.some((x) => x.address === n.address));
  }

  protected async applyOriginate(family: Family, prefixes: readonly string[], add: boolean): Promise<void> {
    const queue = [...prefixes];
    const worker = async (): Promise<void> => {
      for (let p = queue.shift(); p !== undefined; p = queue.shift()) {
        await this.gobgp(['global', 'rib', add ? 'add' : 'del', p, '-a', family]);
      }
    };
    await Promise.all(Array.from({ length: Math.min(RIB_ADD_CONCURRENCY, queue.length) }, worker));
  }
}
