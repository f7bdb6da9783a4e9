import { existsSync, mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { birdProtocolName, renderBirdConfig } from './bird-config.js';
import { parseBirdProtocols, parseBirdRoutes } from './bird-parse.js';
import { TABLE_QUERY_TIMEOUT } from './constants.js';
import { DaemonBase, type NeighborStatus, type ReceivedRoute, type RouteQuery } from './daemon.js';
import { invalid, LabError } from './errors.js';
import { type RunOptions, run } from './exec.js';
import type { Family, NeighborSpec, Originate } from './spec.js';

const TABLE: Record<Family, string> = { ipv4: 'master4', ipv6: 'master6' };
/** birdc answers `configure` with one of these when the new config was accepted. */
const RECONFIGURED = /Reconfigured|Reconfiguration in progress|Reconfiguration already in progress/;
/** `show status` once BIRD runs: up, or (started with -R) still recovering from its restart. */
const READY = /up and running|Graceful restart recovery in progress/;
/** An RFC 9003 message travels inside a quoted birdc argument. */
const SHUTDOWN_MESSAGE = /^[^"\\\n]{0,255}$/;

/** BIRD (2 from the host, 3 from the trixie root) in a namespace, driven through birdc on its own control socket. */
export class BirdDaemon extends DaemonBase {
  readonly impl = 'bird' as const;

  get configFile(): string {
    return join(this.dir, 'bird.conf');
  }

  get controlSocket(): string {
    return join(this.dir, 'bird.ctl');
  }

  get logFile(): string {
    return join(this.dir, 'bird.log');
  }

  private writeConfig(): void {
    writeFileSync(this.configFile, renderBirdConfig(this.current, { logFile: this.logFile }));
  }

  protected versionArgv(): string[] {
    return ['bird', '--version'];
  }

  protected async launch(recovering = false): Promise<void> {
    mkdirSync(this.dir, { recursive: true });
    this.writeConfig();
    const out = join(this.dir, 'bird.out');
    this.spawn(
      this.inNamespace([
        'bird',
        '-f',
        '-c',
        this.configFile,
        '-s',
        this.controlSocket,
        '-P',
        join(this.dir, 'bird.pid'),
        // Graceful restart recovery: the R bit, and the F bit for its graceful restart channels.
        ...(recovering ? ['-R'] : []),
      ]),
      'bird',
      out,
    );
    await this.waitReady(
      async () =>
        existsSync(this.controlSocket) && READY.test(await this.birdc(['show', 'status'])) ? true : undefined,
      'bird control socket',
      out,
    );
  }

  /** BIRD crashes (SIGKILL) and starts again with -R (graceful restart recovery), announcing `originate`. */
  async crashAndRestart(originate?: Originate): Promise<void> {
    await this.kill('bird');
    if (originate) this.current = { ...this.current, originate };
    await this.launch(true);
  }

  /** Runs one birdc command (given as words) on this BIRD's control socket; returns its output. */
  birdc(words: readonly string[], opts: RunOptions = {}): Promise<string> {
    // The control socket is a unix socket: birdc need not enter the namespace.
    return run(this.client(['birdc', '-s', this.controlSocket, ...words]), opts);
  }

  /** Rewrites bird.conf from the current spec and asks BIRD to load it. */
  async reconfigure(): Promise<void> {
    this.writeConfig();
    const out = await this.birdc(['configure']);
    if (!RECONFIGURED.test(out))
      throw new LabError('invalid-spec', `${this.name}: birdc configure: ${out.trim()}`);
  }

  private protocolFor(address: string): string {
    this.requireNeighbor(address);
    return birdProtocolName(address);
  }

  async neighbors(): Promise<NeighborStatus[]> {
    return parseBirdProtocols(await this.birdc(['show', 'protocols', 'all']));
  }

  override async neighbor(address: string): Promise<NeighborStatus | undefined> {
    if (!this.current.neighbors.some((n) => n.address === address)) return undefined;
    const text = await this.birdc(['show', 'protocols', 'all', birdProtocolName(address)]);
    return parseBirdProtocols(text).find((n) => n.address === address);
  }

  async routes(family: Family, query: RouteQuery = {}): Promise<ReceivedRoute[]> {
    const names = new Map(this.current.neighbors.map((n) => [birdProtocolName(n.address), n.address]));
    const words = ['show', 'route', 'table', TABLE[family]];
    if (query.from !== undefined) words.push('protocol', this.protocolFor(query.from));
    const text = await this.birdc([...words, 'all'], { timeoutMs: TABLE_QUERY_TIMEOUT });
    return parseBirdRoutes(text, family, (p) => names.get(p));
  }

  /**
   * Asks the neighbor for its routes again (RFC 2918 ROUTE-REFRESH; RFC 7313 when enhanced
   * route refresh was agreed). BIRD 2 says `reload in`; BIRD 3 split reloading into
   * `reload filters` (re-run the import filter) and `reload bgp` (ask the peer), and has no
   * plain `reload in` any more.
   */
  async refreshIn(address: string): Promise<void> {
    const reload = (await this.major()) >= 3 ? ['reload', 'bgp', 'in'] : ['reload', 'in'];
    await this.birdc([...reload, this.protocolFor(address)]);
  }

  async shutdownNeighbor(address: string, message?: string): Promise<void> {
    if (message !== undefined && !SHUTDOWN_MESSAGE.test(message)) {
      throw invalid('shutdown message: at most 255 characters, no quotes, backslashes or newlines');
    }
    const words = ['disable', this.protocolFor(address)];
    if (message !== undefined) words.push(`"${message}"`);
    await this.birdc(words);
  }

  async enableNeighbor(address: string): Promise<void> {
    await this.birdc(['enable', this.protocolFor(address)]);
  }

  protected applyNeighborAdded(_n: NeighborSpec): Promise<void> {
    return this.reconfigure();
  }

  protected applyNeighborRemoved(_n: NeighborSpec): Promise<void> {
    return this.reconfigure();
  }

  protected applyOriginate(_family: Family, _prefixes: readonly string[], _add: boolean): Promise<void> {
    return this.reconfigure();
  }
}
