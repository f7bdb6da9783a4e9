import { existsSync, readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { FRR_DAEMON_DIR, TABLE_QUERY_TIMEOUT } from './constants.js';
import { DaemonBase, type NeighborStatus, type ReceivedRoute, type RouteQuery } from './daemon.js';
import { LabError } from './errors.js';
import { type RunOptions, run } from './exec.js';
import {
  frrAddNeighborCommands,
  frrAddressFamilyCommand,
  renderBfddConfig,
  renderFrrConfig,
} from './frr-config.js';
import { parseFrrNeighbors, parseFrrRoutes } from './frr-parse.js';
import type { Family, NeighborSpec, Originate } from './spec.js';
import {
  prepareFrrDir,
  writeFrrFile,
  writeZebraConfig,
  zebraArgv,
  zebraReady,
  zebraSocket,
} from './zebra.js';

/** FRR logs config lines it could not parse as "... on config line N: ...". */
const CONFIG_ERROR = /config line \d+|Unknown command/i;
const FAMILY_WORD: Record<Family, string> = { ipv4: 'ipv4', ipv6: 'ipv6' };

/** FRR 8.4 (zebra + bgpd) in a namespace, driven through vtysh. */
export class FrrDaemon extends DaemonBase {
  readonly impl = 'frr' as const;
  /** Lines for zebra's configuration beyond its log (set before `start`). */
  zebraLines: readonly string[] = [];

  get bgpdLog(): string {
    return join(this.dir, 'bgpd.log');
  }

  /** zebra's ZAPI socket of this FRR. */
  get zebraSocket(): string {
    return zebraSocket(this.dir);
  }

  protected versionArgv(): string[] {
    return [join(FRR_DAEMON_DIR, 'bgpd'), '--version'];
  }

  protected async launch(): Promise<void> {
    prepareFrrDir(this.dir, this.root);
    const logStart = existsSync(this.bgpdLog) ? statSync(this.bgpdLog).size : 0;
    writeZebraConfig(this.dir, this.name, this.root, this.zebraLines);
    const conf = join(this.dir, 'bgpd.conf');
    writeFrrFile(
      conf,
      renderFrrConfig(this.current, { hostname: this.name, logFile: this.bgpdLog }),
      this.root,
    );
    const out = join(this.dir, 'frr.out');
    this.spawn(zebraArgv(this.ns, this.dir, this.root), 'zebra', out);
    await this.waitReady(async () => (zebraReady(this.dir) ? true : undefined), 'zebra sockets', out);
    await this.startBfdd(out);
    await this.startBgpd(conf, out, logStart);
  }

  /** bfdd, when a neighbor runs BFD: bgpd registers its sessions with it through zebra. */
  private async startBfdd(out: string): Promise<void> {
    const text = renderBfddConfig(this.current, { hostname: this.name, logFile: join(this.dir, 'bfdd.log') });
    if (text === undefined) return;
    const conf = join(this.dir, 'bfdd.conf');
    writeFrrFile(conf, text, this.root);
    this.spawn(
      this.inNamespace([
        join(FRR_DAEMON_DIR, 'bfdd'),
        '-z',
        this.zebraSocket,
        '--vty_socket',
        this.dir,
        '-i',
        join(this.dir, 'bfdd.pid'),
        '-f',
        conf,
        '-P',
        '0',
        // 8.4's control socket defaults to one path for the whole host (FRR 10 has none).
        ...(this.root ? [] : ['--bfdctl', join(this.dir, 'bfdd.sock')]),
      ]),
      'bfdd',
      out,
    );
    const vty = join(this.dir, 'bfdd.vty');
    await this.waitReady(async () => (existsSync(vty) ? true : undefined), 'bfdd vty socket', out);
  }

  /** Runs vtysh commands against this FRR's bfdd (`show bfd peers json`, ...). */
  async bfdVtysh(args: readonly string[]): Promise<string> {
    return run(
      this.client(['vtysh', '--vty_socket', this.dir, '-d', 'bfdd', ...args.flatMap((a) => ['-c', a])]),
    );
  }

  /**
   * bgpd crashes (SIGKILL: no NOTIFICATION, its sessions just close) and starts again from the
   * current configuration, zebra left running: a graceful restart as RFC 4724 means it.
   */
  async crashAndRestartBgpd(originate?: Originate, downMs = 0): Promise<void> {
    await this.kill('bgpd');
    // Stays away this long (bounded by the caller): past a short Restart Time, say.
    if (downMs > 0) await new Promise((r) => setTimeout(r, downMs));
    // What it announces once back (a crash is when the configuration can change unseen).
    if (originate) this.current = { ...this.current, originate };
    const conf = join(this.dir, 'bgpd.conf');
    const logStart = existsSync(this.bgpdLog) ? statSync(this.bgpdLog).size : 0;
    writeFrrFile(
      conf,
      renderFrrConfig(this.current, { hostname: this.name, logFile: this.bgpdLog }),
      this.root,
    );
    await this.startBgpd(conf, join(this.dir, 'frr.out'), logStart);
  }

  private async startBgpd(conf: string, out: string, logStart: number): Promise<void> {
    this.spawn(
      this.inNamespace([
        join(FRR_DAEMON_DIR, 'bgpd'),
        '-z',
        this.zebraSocket,
        '--vty_socket',
        this.dir,
        '-i',
        join(this.dir, 'bgpd.pid'),
        '-f',
        conf,
        '-P',
        '0',
      ]),
      'bgpd',
      out,
    );
    const vty = join(this.dir, 'bgpd.vty');
    await this.waitReady(
      async () => (existsSync(vty) ? JSON.parse(await this.vtysh(['show bgp summary json'])) : undefined),
      'bgpd answering vtysh',
      this.bgpdLog,
    );
    const bad = this.configErrors(logStart);
    if (bad.length > 0) {
      throw new LabError('invalid-spec', `${this.name}: bgpd rejected config lines:\n${bad.join('\n')}`);
    }
  }

  /** Config errors logged since `from` (the log is appended to across restarts). */
  private configErrors(from: number): string[] {
    if (!existsSync(this.bgpdLog)) return [];
    return readFileSync(this.bgpdLog)
      .subarray(from)
      .toString('utf8')
      .split('\n')
      .filter((l) => CONFIG_ERROR.test(l));
  }

  /**
   * Runs vtysh commands against this bgpd (each string is one `-c`). vtysh talks over unix
   * sockets, which are not tied to a namespace, so it runs from the caller's namespace.
   * Throws when vtysh reports an error ("% ..." or a non-zero exit).
   */
  async vtysh(commands: readonly string[], opts: RunOptions = {}): Promise<string> {
    const args = commands.flatMap((c) => ['-c', c]);
    const out = await run(this.client(['vtysh', '--vty_socket', this.dir, '-d', 'bgpd', ...args]), opts);
    const err = out.split('\n').find((l) => l.startsWith('% '));
    if (err !== undefined) throw new LabError('command-failed', `${this.name}: vtysh: ${err}`);
    return out;
  }

  /** Applies configuration lines inside `router bgp <as>` (conf t … end). */
  configure(lines: readonly string[]): Promise<string> {
    return this.vtysh(['configure terminal', `router bgp ${this.current.as}`, ...lines, 'end']);
  }

  async neighbors(): Promise<NeighborStatus[]> {
    return parseFrrNeighbors(await this.vtysh(['show bgp neighbors json']));
  }

  override async neighbor(address: string): Promise<NeighborStatus | undefined> {
    const text = await this.vtysh([`show bgp neighbors ${address} json`]);
    return parseFrrNeighbors(text).find((n) => n.address === address);
  }

  async routes(family: Family, query: RouteQuery = {}): Promise<ReceivedRoute[]> {
    const text = await this.vtysh([`show bgp ${FAMILY_WORD[family]} unicast json`], {
      timeoutMs: TABLE_QUERY_TIMEOUT,
    });
    const all = parseFrrRoutes(text, family);
    return query.from === undefined ? all : all.filter((r) => r.from === query.from);
  }

  async shutdownNeighbor(address: string, message?: string): Promise<void> {
    this.requireNeighbor(address);
    await this.configure([`neighbor ${address} shutdown${message ? ` message ${message}` : ''}`]);
  }

  async enableNeighbor(address: string): Promise<void> {
    this.requireNeighbor(address);
    await this.configure([`no neighbor ${address} shutdown`]);
  }

  protected async applyNeighborAdded(n: NeighborSpec): Promise<void> {
    await this.configure(frrAddNeighborCommands(n));
  }

  protected async applyNeighborRemoved(n: NeighborSpec): Promise<void> {
    await this.configure([`no neighbor ${n.address}`]);
  }

  protected async applyOriginate(family: Family, prefixes: readonly string[], add: boolean): Promise<void> {
    const verb = add ? 'network' : 'no network';
    await this.configure([
      frrAddressFamilyCommand(family),
      ...prefixes.map((p) => `${verb} ${p}`),
      'exit-address-family',
    ]);
  }
}
