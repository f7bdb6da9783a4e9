// Over 400 lines on purpose: the composition root builds, starts, reloads and closes every part
// (sessions, RIB, pipeline, neighbours, sinks, OVN, control and metrics) and answers the control
// socket through the control views; each method is a few lines of wiring and no routing rule
// lives here.
import { networkInterfaces } from 'node:os';
import { parseIpv4 } from '../address/index.js';
import {
  type ApiRouteView,
  type BmpView,
  ControlError,
  type ControlServer,
  type MetricsServer,
  type MrtDumpResult,
  type MrtInjectionView,
  type NeighborDetail,
  type OvnView,
  type PeerEditResult,
  type RibEntryView,
  type RibQuery,
  type RouteActionResult,
  type SinkView,
  type SpeakerControl,
  type SpeakerMetrics,
  type SummaryView,
  startControlServer,
  startMetricsServer,
  type WatchSink,
  type WatchTopic,
} from '../api/index.js';
import { BfdService } from '../bfd/index.js';
import { type MessageStats, type Peer, Sessions } from '../bgp/session/index.js';
import { AttrInterner } from '../bgp/wire/index.js';
import { BmpStation } from '../bmp/index.js';
import { runCliInSpeaker } from '../cli/serve.js';
import {
  childLogger,
  type Logger,
  type Scheduler,
  silentLogger,
  systemClock,
  systemScheduler,
} from '../components/index.js';
import type { Config, LogLevel, PeerConfig, PeerEdit, ReloadOutcome } from '../config/index.js';
import { formatProblem, notActedOnWarnings } from '../config/index.js';
import {
  advertisedView,
  bmpView,
  findNeighbor,
  neighborDetail,
  neighborSummary,
  ovnPaths,
  ovnStats,
  ovnView,
  receivedView,
  ribCounts,
  ribView,
  routeTablesView,
  tapMessageStats,
  WatchHub,
} from '../control/index.js';
import { Rib, RibDefaults, UpdateGroups } from '../rib/index.js';
import {
  ApiRoutes,
  advertisedGracefulRestart,
  type BfdSessions,
  DynamicNeighbors,
  type InterfaceTable,
  LocalOrigin,
  Neighbor,
  type NeighborComponents,
  OvnPublishing,
  OwnRestart,
  originateAll,
  RouteFlow,
  SessionExports,
  type SessionMonitor,
} from '../routing/index.js';
import { bmpCollectors, monitoredSession, sessionEnding } from './bmp-sessions.js';
import { Forwarding, type SinkTargetFactory } from './forwarding.js';
import { SpeakerHealth } from './health.js';
import { UnnumberedLinks } from './links.js';
import { SpeakerMrt } from './mrt.js';
import { OvnRouteTables } from './ovn-route-tables.js';
import { type CompiledPolicies, compileConfigPolicies, peerPolicies } from './policies.js';
import { applyReloadPlan, type ReloadHost } from './reload.js';
import { listenRanges, sessionPeerInit } from './session-init.js';
import { sinkTargets } from './sink-targets.js';

/** The few things a speaker takes from its surroundings; each has a real default. */
export interface SpeakerComponents {
  /** pino, or anything with its methods; default silent. */
  readonly logger?: Logger;
  /** Applies `speaker.log.level` on start and reload (pino: `level => logger.level = level`). */
  readonly setLogLevel?: (level: LogLevel) => void;
  /** Our interfaces' addresses (next hops for the other family); default os.networkInterfaces. */
  readonly interfaces?: () => InterfaceTable;
  /** Timers, yields and wall-clock time (for "seconds in this state"); default the system's. */
  readonly clock?: Scheduler;
  /** Builds each configured sink's target; default the real kernel, zebra and OVN NB ones. */
  readonly sinkTargets?: SinkTargetFactory;
  /**
   * Checks a run-time peer change against the running configuration (ConfigStore.editPeer);
   * without it, the control API cannot add, change or remove peers.
   */
  readonly peerEdits?: (edit: PeerEdit) => ReloadOutcome;
  /** Where peers' BFD sessions run; default a BfdService (a worker thread) started on first use. */
  readonly bfd?: BfdSessions;
}

/** `metrics.listen` as startMetricsServer takes it: HOST:PORT with IPv6 in brackets. */
function listenText(l: { address: string; port: number }): string {
  return l.address.includes(':') ? `[${l.address}]:${l.port}` : `${l.address}:${l.port}`;
}

/**
 * The running speaker: builds the graph from a configuration (sessions, RIB, update groups,
 * one neighbour per peer, static routes, control socket, metrics) and owns its lifecycle.
 * It is the SpeakerControl the control socket serves, and it applies reloads without
 * touching the sessions a reload does not concern.
 */
export class Speaker implements SpeakerControl {
  readonly #rib: Rib;
  readonly #groups: UpdateGroups;
  readonly #flow: RouteFlow;
  readonly #exports: SessionExports;
  readonly #sessions: Sessions;
  readonly #links: UnnumberedLinks;
  readonly #neighbors = new Map<string, Neighbor>();
  /** The neighbours admitted from listen ranges (they are in #neighbors too while they live). */
  readonly #dynamic: DynamicNeighbors;
  readonly #log: Logger;
  readonly #components: Required<
    Omit<SpeakerComponents, 'setLogLevel' | 'sinkTargets' | 'peerEdits' | 'bfd'>
  > &
    Pick<SpeakerComponents, 'setLogLevel' | 'peerEdits'>;
  readonly #forwarding: Forwarding;
  readonly #apiRoutes: ApiRoutes;
  readonly #watch: WatchHub;
  /** The event loop's liveness and what readiness asks of the parts (/healthz, /readyz). */
  readonly #health: SpeakerHealth;
  /** Start-up finished: every part built and started (readiness waits for it). */
  #started = false;
  readonly #mrt: SpeakerMrt;
  /** The `ovn` origin's routes; they outlive a reload's new watcher. */
  #ovnRoutes: LocalOrigin | undefined;
  #ovn: OvnPublishing | undefined;
  /** The `ovn-table` origin's routes (OVN 25.03 on a chassis); they outlive a reload's new tables. */
  #tableRoutes: LocalOrigin | undefined;
  #tables: OvnRouteTables | undefined;
  readonly #tapped = new WeakSet<MessageStats>();
  /** Peers whose settings for the next session wait for the current one to end. */
  readonly #pendingRebuild = new Set<string>();
  #config: Config;
  #policies: CompiledPolicies;
  #metrics: SpeakerMetrics | undefined;
  #control: ControlServer | undefined;
  #metricsServer: MetricsServer | undefined;
  #reloading: Promise<void> = Promise.resolve();
  #closing: Promise<void> | null = null;
  /** Our own graceful restart (RFC 4724 section 4.1), when it was configured at start. */
  #restart: OwnRestart | null = null;
  /** BMP (RFC 7854), when collectors are configured. */
  #bmp: BmpStation | undefined;
  /** What the neighbours tell BMP; handed to them only while a station runs. */
  readonly #bmpEvents: SessionMonitor = {
    up: (n, info) => this.#bmp?.up(monitoredSession(n, info, this.#rib, this.#components.clock.now())),
    update: (n, u) => this.#bmp?.update(n.name, u),
    down: (n, end) => this.#bmp?.down(n.name, sessionEnding(end)),
    reimported: (n) => this.#bmp?.reimported(n.name),
  };
  /** BFD's worker, started with the first peer that has `bfd`. */
  #bfd: BfdService | undefined;
  readonly #bfdSessions: BfdSessions = {
    open: (spec, listener) => {
      if (this.#bfdInjected) return this.#bfdInjected.open(spec, listener);
      this.#bfd ??= new BfdService(childLogger(this.#log, { part: 'bfd' }));
      return this.#bfd.open(spec, listener);
    },
  };
  #bfdInjected: BfdSessions | undefined;

  private constructor(
    config: Config,
    sessions: Sessions,
    components: SpeakerComponents,
    interner?: AttrInterner,
  ) {
    this.#config = config;
    this.#sessions = sessions;
    this.#components = {
      logger: components.logger ?? silentLogger,
      interfaces: components.interfaces ?? networkInterfaces,
      clock: components.clock ?? { ...systemClock, defer: systemScheduler.defer },
      setLogLevel: components.setLogLevel,
      peerEdits: components.peerEdits,
    };
    this.#bfdInjected = components.bfd;
    this.#log = this.#components.logger;
    this.#links = new UnnumberedLinks(sessions, this.#log);
    this.#rib = new Rib({
      localAs: config.speaker.localAs,
      routerId: parseIpv4(config.speaker.routerId),
      decision: config.speaker.bestpath,
    });
    this.#groups = new UpdateGroups({
      localAs: config.speaker.localAs,
      clusterId: this.#rib.clusterId,
      defaultLocalPref: RibDefaults.LOCAL_PREF,
    });
    this.#flow = new RouteFlow(
      this.#rib,
      (fn) => this.#components.clock.defer(fn),
      (error, consumer) => this.#log.error({ error: String(error), consumer }, 'route processing failed'),
    );
    // The sessions first: the update groups take the batch, then every session sends its share.
    this.#exports = new SessionExports(this.#rib, this.#groups);
    this.#flow.addConsumer(this.#exports);
    this.#apiRoutes = new ApiRoutes(this.#rib, this.#flow);
    this.#watch = new WatchHub(this.#flow, this.#rib, () =>
      [...this.#neighbors.values()].map((b) => ({ name: b.name, state: b.peer.state })),
    );
    this.#mrt = new SpeakerMrt({
      rib: this.#rib,
      flow: this.#flow,
      interner,
      clock: this.#components.clock,
      log: this.#log,
    });
    this.#policies = compileConfigPolicies(config);
    this.#dynamic = new DynamicNeighbors(config, {
      log: this.#log,
      clock: this.#components.clock,
      create: (c) => this.#addPeer(c),
      forget: (name, subcode) => this.#forgetDynamic(name, subcode),
      policies: (c) => peerPolicies(c, this.#policies),
      onRefused: (range) => this.#metrics?.dynamicRefused(range),
    });
    this.#forwarding = new Forwarding({
      flow: this.#flow,
      log: this.#log,
      target: components.sinkTargets ?? sinkTargets(this.#log),
      clock: this.#components.clock,
    });
    // Monotonic by default: a wall-clock step must not look like a stall.
    this.#health = new SpeakerHealth(
      {
        config: () => this.#config.speaker.health,
        started: () => this.#started && this.#closing === null,
        ovn: () => this.#ovn,
        tables: () => this.#tables,
        sinks: () => this.#forwarding.status(),
        neighbors: () => this.#neighbors.values(),
      },
      components.clock ?? systemScheduler,
    );
    this.#health.start();
  }

  /**
   * Starts a speaker: the BGP listener, every peer, the static routes, the control socket and
   * (when configured) the metrics endpoint. Whatever was started is closed again if a later
   * step fails (a control socket served by another speaker, a port in use).
   */
  static async start(config: Config, components: SpeakerComponents = {}): Promise<Speaker> {
    const logger = components.logger ?? silentLogger;
    components.setLogLevel?.(config.speaker.log.level);
    // Each new connection's OPEN asks the speaker, which exists by the time any connects.
    let built: Speaker | undefined;
    const interner = new AttrInterner();
    const sessions = await Sessions.create(
      {
        localAs: config.speaker.localAs,
        routerId: config.speaker.routerId,
        listen: {
          host: config.speaker.listen.address,
          port: config.speaker.listen.port,
          ranges: listenRanges(config),
        },
      },
      // The RIB applies each UPDATE before the next is decoded: its prefix lists can be reused.
      {
        logger,
        interner,
        reuseUpdateLists: true,
        // A connection from a listen range, no configured peer's: a dynamic neighbour or refused.
        admit: (remote) => (built ? built.#dynamic.admit(remote.address) : undefined),
        // Read per connection, so a reload's new restart time reaches the next session.
        gracefulRestart: () =>
          built
            ? advertisedGracefulRestart(
                built.#config.speaker.gracefulRestart,
                built.#config.sinks.kernel !== undefined,
                built.#restart,
              )
            : null,
      },
    );
    let speaker: Speaker;
    try {
      speaker = new Speaker(config, sessions, components, interner);
      built = speaker;
    } catch (error) {
      await sessions.close();
      throw error;
    }
    try {
      await speaker.#startServices(config);
      await speaker.#mrt.configure(config.mrt);
      // Before any OPEN: what the kernel kept decides our F bits.
      if (config.speaker.gracefulRestart.enabled) await speaker.#beginRestart(config);
      for (const p of config.peers) speaker.#addPeer(p);
      originateAll(speaker.#rib, config.routes);
      speaker.#flow.schedule();
      if (!speaker.#restart) await speaker.#forwarding.configure(config, speaker.#policies);
      await speaker.#setOvn(config);
      await speaker.#setRouteTables(config);
      await speaker.#setBmp(config);
    } catch (error) {
      await speaker.close();
      throw error;
    }
    speaker.#warnUnused(config);
    speaker.#started = true;
    const listen = sessions.address;
    speaker.#log.info(
      {
        name: config.speaker.name,
        localAs: config.speaker.localAs,
        routerId: config.speaker.routerId,
        listen,
        peers: config.peers.length,
        routes: config.routes.length,
      },
      'speaker started',
    );
    return speaker;
  }

  get config(): Config {
    return this.#config;
  }

  /** Where the BGP listener is bound (the port chosen when 0 was configured). */
  get listenAddress(): { address: string; port: number } | null {
    return this.#sessions.address;
  }

  get metricsUrl(): string | undefined {
    return this.#metricsServer?.url;
  }

  get controlSocket(): string | undefined {
    return this.#control?.path;
  }

  /** Runs the decision process now and sends what changed (tests; normally a turn later). */
  flush(): void {
    this.#flow.flush();
  }

  /** Applies a reload's outcome; reloads run one after the other. */
  reload(outcome: ReloadOutcome): Promise<void> {
    const run = () =>
      this.#applyReload(outcome).catch((error: unknown) =>
        this.#log.error({ error: String(error) }, 'reload failed'),
      );
    this.#reloading = this.#reloading.then(run);
    return this.#reloading;
  }

  /**
   * Stops everything: Cease (Administrative Shutdown with `message`; Hard Reset where RFC 8538
   * was agreed) to every peer, the listener, the control socket (its file is removed) and the
   * metrics endpoint. `forRestart` (graceful restart, RFC 4724): no NOTIFICATION, the
   * connections just close, so peers keep our routes until we are back; the sinks stop as
   * configured (the kernel sink's `on_stop: keep` leaves its routes forwarding).
   */
  close(message?: string, opts: { readonly forRestart?: boolean } = {}): Promise<void> {
    this.#closing ??= (async () => {
      const forRestart = opts.forRestart === true && this.#config.speaker.gracefulRestart.enabled;
      this.#health.stop();
      this.#restart?.cancel();
      this.#watch.close();
      this.#dynamic.close();
      this.#flow.close();
      await Promise.allSettled([this.#control?.close(), this.#metricsServer?.close()]);
      this.#links.close();
      await this.#sessions.close(message, { forRestart });
      await this.#mrt.close();
      for (const b of this.#neighbors.values()) b.detach();
      // After the sessions: each collector hears their Peer Downs, then Termination.
      await this.#bmp?.close();
      await this.#bfd?.close();
      await this.#ovn?.close();
      await this.#tables?.close({ keepRoutes: true });
      await this.#forwarding.close();
      this.#log.info({}, forRestart ? 'speaker stopped for a restart' : 'speaker stopped');
    })();
    return this.#closing;
  }

  // SpeakerControl.

  summary(): SummaryView {
    const now = this.#components.clock.now();
    return {
      routerId: this.#config.speaker.routerId,
      localAs: this.#config.speaker.localAs,
      neighbors: [...this.#neighbors.values()].map((b) => neighborSummary(b, now)),
      rib: ribCounts(this.#rib),
    };
  }

  neighbors(name?: string): NeighborDetail[] {
    const now = this.#components.clock.now();
    const list = name === undefined ? [...this.#neighbors.values()] : [findNeighbor(this.#neighbors, name)];
    return list.map((b) => neighborDetail(b, now, this.#config.speaker.localAs));
  }

  rib(query: RibQuery): RibEntryView[] {
    return ribView(this.#rib, query, () => ovnPaths(this.#ovn));
  }

  advertised(peer: string, query: RibQuery): RibEntryView[] {
    return advertisedView(findNeighbor(this.#neighbors, peer), query);
  }

  received(peer: string, query: RibQuery): RibEntryView[] {
    return receivedView(findNeighbor(this.#neighbors, peer), this.#rib, query);
  }

  async resetNeighbor(peer: string): Promise<void> {
    const b = findNeighbor(this.#neighbors, peer);
    if (!b.reset()) {
      throw new ControlError('not-established', `neighbor ${b.name} is shut down: enable it instead`);
    }
  }

  async shutdownNeighbor(peer: string, message?: string): Promise<void> {
    const b = findNeighbor(this.#neighbors, peer);
    b.shutdown(message);
    // A peer kept down sends no End-of-RIB: our restart does not wait for it.
    this.#restart?.removed(b.name);
  }

  async enableNeighbor(peer: string): Promise<void> {
    findNeighbor(this.#neighbors, peer).enable();
  }

  sinks(): SinkView[] {
    return this.#forwarding.status();
  }

  bmp(): BmpView {
    return bmpView(this.#bmp?.status() ?? []);
  }

  ovn(): OvnView | null {
    const now = this.#components.clock.now();
    const tables = this.#tables && routeTablesView(this.#tables.status(), this.#tables.southbound, now);
    if (!this.#ovn) return tables ?? null;
    const view = ovnView(this.#ovn);
    return tables ? { ...view, tables: tables.tables } : view;
  }

  announceRoute(route: unknown): RouteActionResult {
    return this.#apiRoutes.announce(route, this.#config);
  }

  withdrawRoute(prefix: string): RouteActionResult {
    return this.#apiRoutes.withdraw(prefix);
  }

  apiRoutes(): ApiRouteView[] {
    return this.#apiRoutes.list();
  }

  /** A peer added, changed or removed as if the file said so, then applied as a reload would. */
  async editPeer(edit: PeerEdit): Promise<PeerEditResult> {
    const edits = this.#components.peerEdits;
    if (!edits) {
      throw new ControlError('unsupported', 'this speaker was started without a configuration store');
    }
    const outcome = edits(edit);
    const name = edit.op === 'remove' ? edit.name : String((edit.peer as { name?: unknown })?.name);
    if (!outcome.ok) {
      const unknown = edit.op === 'remove' && !this.#neighbors.has(edit.name);
      const message = outcome.error.problems.map((p) => formatProblem(p)).join('; ');
      throw new ControlError(unknown ? 'unknown-peer' : 'bad-request', message);
    }
    this.#log.info({ peer: name, op: edit.op }, 'peer changed through the control API');
    await this.reload(outcome);
    const action = ({ add: 'added', change: 'changed', remove: 'removed' } as const)[edit.op];
    return { peer: name, action, changes: outcome.summary };
  }

  async dumpRib(path?: string): Promise<MrtDumpResult> {
    const target = path ?? this.#config.mrt?.dump?.path;
    if (target === undefined) {
      throw new ControlError('bad-request', 'no file given and no mrt.dump.path configured');
    }
    try {
      const r = await this.#mrt.dump(target);
      return { path: r.path, prefixes: r.prefixes, peers: r.peers, bytes: r.bytes };
    } catch (error) {
      throw new ControlError('bad-request', `cannot dump to ${target}: ${(error as Error).message}`);
    }
  }

  async injectMrt(name: string, path: string): Promise<MrtInjectionView> {
    try {
      return await this.#mrt.inject(name, path);
    } catch (error) {
      throw new ControlError('bad-request', `cannot inject ${path}: ${(error as Error).message}`);
    }
  }

  async withdrawMrt(name: string): Promise<MrtInjectionView> {
    const view = await this.#mrt.injections.withdraw(name);
    if (!view) throw new ControlError('unknown-route', `no MRT file injected as ${name}`);
    return view;
  }

  mrtInjections(): MrtInjectionView[] {
    return this.#mrt.injections.list();
  }

  watch(topics: readonly WatchTopic[], sink: WatchSink): () => void {
    return this.#watch.subscribe(topics, sink);
  }

  /**
   * Follows OVN's route tables per the configuration (anew after a change: what stays in a
   * table is not withdrawn in between); without ovn_route_tables, their routes go.
   */
  async #setRouteTables(config: Config): Promise<void> {
    await this.#tables?.close({ keepRoutes: true });
    this.#tables = undefined;
    const c = config.ovnRouteTables;
    if (!c) {
      this.#tableRoutes?.withdrawAll();
      return;
    }
    this.#tableRoutes ??= OvnRouteTables.origin(this.#rib, this.#flow);
    this.#tables = new OvnRouteTables(c, this.#policies, this.#tableRoutes, {
      rib: this.#rib,
      flow: this.#flow,
      forwarding: this.#forwarding,
      clock: this.#components.clock,
      log: this.#log,
      interfaces: this.#components.interfaces,
    });
    this.#tables.start();
  }

  /** BMP per the configuration: the collectors connected anew, told of the sessions up now. */
  async #setBmp(config: Config): Promise<void> {
    await this.#bmp?.close();
    this.#bmp = undefined;
    if (!config.bmp) return;
    const station = new BmpStation(bmpCollectors(config), { clock: this.#components.clock, log: this.#log });
    const now = this.#components.clock.now();
    const up = [...this.#neighbors.values()].flatMap((n) =>
      n.session ? [monitoredSession(n, n.session.info, this.#rib, now)] : [],
    );
    this.#bmp = station;
    station.start(up);
  }

  /** Watches OVN per the configuration (a new watcher after a change); without ovn, its routes go. */
  async #setOvn(config: Config): Promise<void> {
    await this.#ovn?.close();
    this.#ovn = undefined;
    if (!config.ovn) {
      this.#ovnRoutes?.withdrawAll();
      return;
    }
    this.#ovnRoutes ??= new LocalOrigin(this.#rib, this.#rib.origin('ovn'), this.#flow);
    this.#ovn = new OvnPublishing(config.ovn, this.#ovnRoutes, {
      log: this.#log,
      clock: this.#components.clock,
    });
    const restart = this.#restart;
    if (restart) void this.#ovn.ready.then(() => restart.ovnReady());
    this.#ovn.start();
  }

  async refreshNeighbor(peer: string): Promise<void> {
    const b = findNeighbor(this.#neighbors, peer);
    if (!b.refresh()) throw new ControlError('not-established', `neighbor ${b.name} is ${b.peer.state}`);
  }

  /**
   * RFC 4724 section 4.1 at start: the sinks are built but held (a previous run's kernel
   * routes keep forwarding untouched); what the kernel kept decides our F bits.
   */
  async #beginRestart(config: Config): Promise<void> {
    this.#forwarding.hold();
    await this.#forwarding.configure(config, this.#policies);
    const kept = new Set((await this.#forwarding.held()).get('kernel') ?? []);
    this.#restart = new OwnRestart(
      {
        peers: config.peers.filter((p) => !p.shutdown).map((p) => p.name),
        waitForOvn: config.ovn !== undefined,
        seconds: config.speaker.gracefulRestart.restartTime,
        kept,
      },
      {
        clock: this.#components.clock,
        log: this.#log,
        flow: this.#flow,
        exports: this.#exports,
        releaseSinks: () => this.#forwarding.release(),
      },
    );
  }

  /** Settings this version reads but does not act on yet: say so rather than ignore them quietly. */
  #warnUnused(config: Config): void {
    for (const warning of notActedOnWarnings(config)) this.#log.warn({}, warning);
  }

  async #startServices(config: Config): Promise<void> {
    this.#control = await startControlServer({
      path: config.speaker.controlSocket,
      control: this,
      logger: this.#log,
      cli: runCliInSpeaker,
    });
    await this.#setMetrics(config.speaker.metrics);
  }

  async #setMetrics(m: Config['speaker']['metrics']): Promise<void> {
    await this.#metricsServer?.close();
    this.#metricsServer = undefined;
    if (!m) return;
    // Loaded only when configured: prom-client is 4-5 MB resident.
    const { SpeakerMetrics } = await import('../api/metrics.js');
    this.#metrics ??= new SpeakerMetrics({
      control: this,
      forwarding: { ovn: () => (this.#ovn ? ovnStats(this.#ovn) : null), sinks: () => this.sinks() },
      bmp: () => this.bmp(),
      logger: this.#log,
    });
    for (const b of this.#neighbors.values()) this.#tap(b.peer);
    this.#metricsServer = await startMetricsServer({
      listen: listenText(m.listen),
      metrics: this.#metrics,
      health: this.#health,
      logger: this.#log,
    });
  }

  #tap(peer: Peer): void {
    const metrics = this.#metrics;
    if (!metrics || this.#tapped.has(peer.stats)) return;
    this.#tapped.add(peer.stats);
    tapMessageStats(peer.stats, () => peer.config.name, metrics);
  }

  #neighborComponents(): NeighborComponents {
    const speaker = this;
    return {
      rib: this.#rib,
      groups: this.#groups,
      flow: this.#flow,
      exports: this.#exports,
      log: this.#log,
      interfaces: this.#components.interfaces,
      clock: this.#components.clock,
      onNotification: (peer, n) => this.#metrics?.notification(peer, n.direction, n.code, n.subcode),
      onSessionEnded: (peer) => {
        if (this.#pendingRebuild.delete(peer)) void this.#rebuild(peer, undefined);
      },
      staleRoutesTime: () => this.#config.speaker.gracefulRestart.staleRoutesTime,
      // A getter: a station started or stopped by a reload reaches neighbours built before it,
      // and without one the UPDATE path finds no monitor and builds nothing.
      get monitor(): SessionMonitor | undefined {
        return speaker.#bmp ? speaker.#bmpEvents : undefined;
      },
      bfd: this.#bfdSessions,
    };
  }

  #newPeer(config: PeerConfig): Peer {
    const peer = this.#sessions.addPeer(sessionPeerInit(config));
    this.#tap(peer);
    this.#mrt.attach(peer);
    peer.on('state', (change) => this.#watch.session(config.name, change));
    peer.on('established', (info) => this.#restart?.established(config.name, info.negotiated));
    peer.on('end-of-rib', (f) => this.#restart?.endOfRib(config.name, f.afi, f.safi));
    if (config.interface !== undefined) this.#links.attach(config.interface);
    return peer;
  }

  #addPeer(config: PeerConfig): Neighbor {
    const peer = this.#newPeer(config);
    const b = new Neighbor(config, peer, peerPolicies(config, this.#policies), this.#neighborComponents());
    this.#neighbors.set(config.name, b);
    b.start();
    return b;
  }

  async #removePeer(name: string): Promise<void> {
    const b = this.#neighbors.get(name);
    if (!b) return;
    this.#neighbors.delete(name);
    this.#mrt.detach(name);
    this.#pendingRebuild.delete(name);
    this.#restart?.removed(name);
    // RFC 4486 Cease / Peer De-configured.
    if (b.config.interface !== undefined) this.#links.detach(b.config.interface);
    await this.#sessions.removePeer(b.peer.address);
    b.detach();
    this.#metrics?.forgetPeer(name);
  }

  /** A dynamic neighbour goes: Cease `subcode` first when its session is up and one is given. */
  async #forgetDynamic(name: string, subcode: number | undefined): Promise<void> {
    if (subcode !== undefined) this.#neighbors.get(name)?.peer.stop(subcode);
    await this.#removePeer(name);
  }

  /**
   * A new session object for a peer whose session settings changed; the old one sends
   * `cease` (when it is up) and closes first. The peer then starts unless it is kept down.
   */
  async #rebuild(name: string, cease: number | undefined): Promise<void> {
    const b = this.#neighbors.get(name);
    if (!b || this.#closing) return;
    if (cease !== undefined) b.peer.stop(cease);
    // A peer moved to another link (or to an address) stops discovery on the old one.
    const oldLink = b.peer.config.interface;
    if (oldLink !== undefined && oldLink !== b.config.interface) this.#links.detach(oldLink);
    await this.#sessions.removePeer(b.peer.address);
    if (this.#neighbors.get(name) !== b || this.#closing) return;
    b.rebind(b.config, this.#newPeer(b.config));
    b.start();
  }

  #reloadHost(): ReloadHost {
    return {
      log: this.#log,
      neighbor: (name) => this.#neighbors.get(name),
      peerPolicies: (p) => peerPolicies(p, this.#policies),
      addPeer: (p) => {
        this.#addPeer(p);
      },
      removePeer: (name) => this.#removePeer(name),
      reconfigureDynamic: async (config, changedPolicies) => {
        this.#sessions.setRanges(listenRanges(config));
        await this.#dynamic.reconfigure(config, changedPolicies);
      },
      rebuild: (name, cease) => this.#rebuild(name, cease),
      rebuildAfterSession: (name) => {
        const b = this.#neighbors.get(name);
        if (b?.session) this.#pendingRebuild.add(name);
        else return this.#rebuild(name, undefined);
        return Promise.resolve();
      },
      rib: this.#rib,
      setLogLevel: (level) => this.#components.setLogLevel?.(level),
      setControlSocket: async (path) => {
        await this.#control?.close();
        this.#control = await startControlServer({
          path,
          control: this,
          logger: this.#log,
          cli: runCliInSpeaker,
        });
      },
      setMetrics: (m) => this.#setMetrics(m),
      setSinks: (config, changed) => this.#forwarding.configure(config, this.#policies, changed),
      setOvn: (config) => this.#setOvn(config),
      setRouteTables: (config) => this.#setRouteTables(config),
      setBmp: (config) => this.#setBmp(config),
      setMrt: (config) => this.#mrt.configure(config.mrt),
    };
  }

  async #applyReload(outcome: ReloadOutcome): Promise<void> {
    if (this.#closing) return;
    if (!outcome.ok) {
      const e = outcome.error;
      this.#log.error(
        { kind: e.kind, problems: e.problems.map((p) => formatProblem(p, e.file)) },
        'configuration not reloaded: the running configuration is kept',
      );
      return;
    }
    for (const w of outcome.warnings) this.#log.warn({ problem: formatProblem(w) }, 'configuration warning');
    if (outcome.plan.empty) {
      this.#log.info({}, 'configuration reloaded: nothing changed');
      return;
    }
    this.#log.info({ changes: outcome.summary }, 'configuration reloaded');
    this.#config = outcome.config;
    this.#policies = compileConfigPolicies(outcome.config);
    try {
      await applyReloadPlan(this.#reloadHost(), outcome.plan, outcome.config);
    } catch (error) {
      this.#log.error({ error: String(error) }, 'applying the reloaded configuration failed');
    }
    this.#flow.schedule();
  }
}
