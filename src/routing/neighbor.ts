import type {
  EstablishedInfo,
  Family,
  NotificationEvent,
  Peer,
  SessionEnd,
  StateChange,
} from '../bgp/session/index.js';
import {
  Afi,
  type AfiCode,
  CeaseSubcode,
  capabilitiesOf,
  describeError,
  type RouteRefreshMessage,
  RouteRefreshSubtype,
  Safi,
  type UpdateMessage,
} from '../bgp/wire/index.js';
import type { Logger, Scheduler } from '../components/index.js';
import type { PeerConfig } from '../config/index.js';
import type { PeerPolicies } from '../policy/index.js';
import type { PeerKind, Rib, RibPeer, UpdateGroups } from '../rib/index.js';
import type { Exporter } from './exporter.js';
import type { Importer } from './importer.js';
import { MaxPrefixWatch, maxPrefixConfig } from './max-prefix-watch.js';
import { type BfdSessions, bfdSpec, NeighborBfd } from './neighbor-bfd.js';
import { NeighborRestart } from './neighbor-restart.js';
import { PeerRoutes } from './peer-routes.js';
import { RefreshStale } from './refresh-stale.js';
import type { RouteFlow } from './route-flow.js';
import type { InterfaceTable } from './session-addresses.js';
import type { SessionExports } from './session-exports.js';
import type { StaleStatus } from './stale-routes.js';

/** What a neighbour needs from the speaker: narrow, so tests can build one around a real Peer. */
export interface NeighborComponents {
  readonly rib: Rib;
  readonly groups: UpdateGroups;
  readonly flow: RouteFlow;
  /** The live sessions the `bgp` route consumer kicks. */
  readonly exports: SessionExports;
  readonly log: Logger;
  readonly interfaces: () => InterfaceTable;
  /**
   * Wall-clock time for "seconds in this state", the max-prefix restart and stale-route
   * timers, and where long work yields to the event loop.
   */
  readonly clock: Scheduler;
  /** A NOTIFICATION went either way (for the metrics). */
  readonly onNotification?: (peer: string, n: NotificationEvent) => void;
  /** The Established session ended (settings kept for the next session can now apply). */
  readonly onSessionEnded?: (peer: string) => void;
  /**
   * Seconds a restarted peer has to send its End-of-RIBs before what it did not announce again
   * goes, and a refreshing peer its EoRR (speaker.graceful_restart.stale_routes_time); default
   * 360 as FRR's stalepath-time, which FRR uses for both.
   */
  readonly staleRoutesTime?: () => number;
  /** BFD sessions for peers with `bfd` (RFC 5880); absent: BFD is not run. */
  readonly bfd?: BfdSessions;
  /** Told of the sessions and of each UPDATE once the RIB took it (BMP); read per event, absent: none. */
  readonly monitor?: SessionMonitor;
}

/** What a monitor (BMP, RFC 7854) hears of a neighbour's sessions. */
export interface SessionMonitor {
  up(neighbor: Neighbor, info: EstablishedInfo): void;
  /** After the import policy and the RIB took it: the Adj-RIB-In holds its outcome. */
  update(neighbor: Neighbor, u: UpdateMessage): void;
  /** `end` is undefined when the peer was removed from the configuration. */
  down(neighbor: Neighbor, end: SessionEnd | undefined): void;
  /** Import policy ran again over the stored routes: the Adj-RIB-In may hold other routes now. */
  reimported(neighbor: Neighbor): void;
}

/** FRR's `bgp graceful-restart stalepath-time` default. */
const DEFAULT_STALE_ROUTES_TIME = 360;

/** Why a peer is down on purpose, if it is. */
export type StopCause = 'config' | 'operator' | 'max-prefix';

/** The last NOTIFICATION, with when it happened. */
export interface NotificationRecord {
  readonly event: NotificationEvent;
  readonly description: string;
  readonly at: Date;
}

/** One Established session: what was negotiated, its routes both ways, the peer's refreshes. */
interface LiveSession {
  readonly info: EstablishedInfo;
  readonly routes: PeerRoutes;
  /** RFC 7313's receiving side, when enhanced route refresh was agreed. */
  readonly refresh: RefreshStale | null;
}

const FAMILIES: readonly AfiCode[] = [Afi.IPV4, Afi.IPV6];

function peerKind(config: PeerConfig): PeerKind {
  if (config.type === 'ebgp') return 'ebgp';
  return config.routeReflectorClient ? 'ibgp-client' : 'ibgp-nonclient';
}

/**
 * One configured peer, a neighbour: its session's events, what an operator or a reload does
 * to it, route refresh, and why it is down when it is. The routes it exchanges are
 * PeerRoutes' job (one per Established session), its routes between sessions (kept stale
 * for its graceful restart, or withdrawn) NeighborRestart's, and the prefix limit
 * MaxPrefixWatch's.
 */
export class Neighbor {
  readonly name: string;
  #config: PeerConfig;
  #peer: Peer;
  #policies: PeerPolicies;
  readonly #c: NeighborComponents;
  readonly #log: Logger;
  readonly #maxPrefix: MaxPrefixWatch;
  readonly #restart: NeighborRestart;
  #unbind: (() => void)[] = [];
  #session: LiveSession | null = null;
  #stoppedBy: StopCause | null = null;
  #stateSince: number;
  #establishedTransitions = 0;
  #lastNotification: NotificationRecord | undefined;
  #lastError: string | undefined;
  #bfd: NeighborBfd | null = null;
  /** BFD is closing the session: why, and whether the peer's forwarding failed (its C bit). */
  #bfdDrop: { readonly reason: string; readonly forwardingFailed: boolean } | null = null;

  constructor(config: PeerConfig, peer: Peer, policies: PeerPolicies, components: NeighborComponents) {
    this.name = config.name;
    this.#config = config;
    this.#policies = policies;
    this.#c = components;
    this.#log = components.log.child ? components.log.child({ peer: config.name }) : components.log;
    this.#stateSince = components.clock.now();
    this.#peer = peer;
    this.#restart = new NeighborRestart({ ...components, log: this.#log });
    this.#maxPrefix = new MaxPrefixWatch(config.maxPrefixes && maxPrefixConfig(config.maxPrefixes), {
      clock: components.clock,
      warn: (a) => this.#log.warn({ count: a.count, limit: a.limit }, a.message),
      stop: (a) => {
        this.#log.warn({ count: a.count, limit: a.limit }, a.message);
        this.#stoppedBy = 'max-prefix';
        // RFC 4486 section 4: Cease, Maximum Number of Prefixes Reached.
        this.#peer.stop(CeaseSubcode.MAXIMUM_NUMBER_OF_PREFIXES_REACHED, undefined, a.data);
      },
      restart: (after) => {
        if (this.#stoppedBy !== 'max-prefix') return;
        this.#log.info({ after }, 'max-prefix restart timer expired: starting the session again');
        this.enable();
      },
    });
    this.#bind(peer);
    for (const w of policies.warnings) this.#log.warn({ rfc: 8212 }, w);
    this.#syncBfd();
  }

  /** The BFD session tied to this peer, when `bfd` is configured. */
  get bfd(): NeighborBfd | null {
    return this.#bfd;
  }

  get config(): PeerConfig {
    return this.#config;
  }

  get peer(): Peer {
    return this.#peer;
  }

  get policies(): PeerPolicies {
    return this.#policies;
  }

  get stoppedBy(): StopCause | null {
    return this.#stoppedBy;
  }

  get stateSince(): number {
    return this.#stateSince;
  }

  get establishedTransitions(): number {
    return this.#establishedTransitions;
  }

  get lastNotification(): NotificationRecord | undefined {
    return this.#lastNotification;
  }

  get lastError(): string | undefined {
    return this.#lastError;
  }

  /** The peer's routes kept across its restart, while any are stale. */
  get staleRoutes(): StaleStatus | null {
    return this.#restart.status();
  }

  /** The Established session, if any. */
  get session(): {
    readonly info: EstablishedInfo;
    readonly ribPeer: RibPeer;
    readonly importer: Importer;
    readonly exporter: Exporter;
  } | null {
    const s = this.#session;
    return (
      s && {
        info: s.info,
        ribPeer: s.routes.ribPeer,
        importer: s.routes.importer,
        exporter: s.routes.export.exporter,
      }
    );
  }

  /**
   * Starts the session unless something keeps it down: the configuration (`shutdown: true`),
   * an operator's shutdown or a max-prefix stop (those wait for `enable`).
   */
  start(): void {
    if (this.#config.shutdown) {
      this.#stoppedBy = 'config';
      return;
    }
    if (this.#stoppedBy === 'operator' || this.#stoppedBy === 'max-prefix') return;
    this.#stoppedBy = null;
    this.#peer.start();
  }

  /** The configuration now has the peer shut down: Cease/2 (RFC 4486) and stay down. */
  stopByConfig(): void {
    this.#maxPrefix.cancelRestart();
    this.#stoppedBy = 'config';
    this.#peer.stop(CeaseSubcode.ADMINISTRATIVE_SHUTDOWN);
  }

  /** Prefix counts of a family: sent by the peer, accepted into the RIB, advertised to it. */
  counts(afi: AfiCode): { received: number; accepted: number; advertised: number } {
    return this.#session?.routes.counts(afi) ?? { received: 0, accepted: 0, advertised: 0 };
  }

  // Operator actions (`neighbor PEER ...`).

  /** Administrative shutdown (Cease/2 with an RFC 9003 message); stays down until enabled. */
  shutdown(message?: string): void {
    this.#maxPrefix.cancelRestart();
    this.#stoppedBy = 'operator';
    this.#peer.shutdown(message);
  }

  /** Undoes a shutdown (operator's, configured, or max-prefix). */
  enable(): void {
    this.#maxPrefix.cancelRestart();
    this.#stoppedBy = null;
    this.#peer.start();
  }

  /**
   * Administrative Reset (Cease/4) and start again; a peer stopped by max-prefix starts again
   * (as FRR's `clear bgp`). False when the peer is shut down (enable it instead).
   */
  reset(message?: string): boolean {
    if (this.#stoppedBy === 'operator' || this.#stoppedBy === 'config') return false;
    if (this.#stoppedBy === 'max-prefix') {
      this.enable();
      return true;
    }
    this.#peer.reset(message);
    return true;
  }

  /**
   * Routes again from the peer: RFC 2918 ROUTE-REFRESH when it supports it, else the stored
   * routes through import policy again. False when the session is not Established.
   */
  refresh(): boolean {
    const s = this.#session;
    if (!s) return false;
    if (s.info.negotiated.routeRefresh) {
      for (const f of s.info.negotiated.families) {
        if (f.safi === Safi.UNICAST) this.#peer.refresh(f.afi, f.safi);
      }
    } else {
      s.routes.softIn();
    }
    return true;
  }

  // Reconfiguration (SIGHUP).

  /** New policies: soft in (stored routes through import again) and soft out (sent routes through export again). */
  setPolicies(policies: PeerPolicies, softIn: boolean, softOut: boolean): void {
    const before = this.#policies;
    this.#policies = policies;
    const known = new Set(before.warnings);
    for (const w of policies.warnings) if (!known.has(w)) this.#log.warn({ rfc: 8212 }, w);
    this.#session?.routes.setPolicies(policies, softIn, softOut);
  }

  /** A changed configuration that needs no new session: max-prefix, next-hop-self, descriptions. */
  setConfig(config: PeerConfig): void {
    const before = this.#config;
    this.#config = config;
    if (JSON.stringify(before.maxPrefixes) !== JSON.stringify(config.maxPrefixes)) {
      this.#maxPrefix.setLimit(config.maxPrefixes && maxPrefixConfig(config.maxPrefixes));
      if (this.#stoppedBy === 'max-prefix') {
        this.#log.info({}, 'max-prefix settings changed: starting the session again');
        this.enable();
      }
      // A new limit holds at once for what the peer has sent already (as FRR applies it).
      const s = this.#session;
      if (s) for (const afi of FAMILIES) this.#checkMaxPrefix(s, afi);
    }
    if (before.nextHopSelf !== config.nextHopSelf) this.#session?.routes.setNextHopSelf(config.nextHopSelf);
    if (before.nextHopUnchanged !== config.nextHopUnchanged)
      this.#session?.routes.setNextHopUnchanged(config.nextHopUnchanged);
    this.#syncBfd();
  }

  /**
   * Moves to a new session object (the old one was removed from the sessions with its Cease);
   * why the peer was down on purpose carries over. Call `start` afterwards.
   */
  rebind(config: PeerConfig, peer: Peer): void {
    for (const off of this.#unbind) off();
    this.#unbind = [];
    this.#config = config;
    this.#peer = peer;
    this.#stateSince = this.#c.clock.now();
    this.#bind(peer);
    this.#maxPrefix.setLimit(config.maxPrefixes && maxPrefixConfig(config.maxPrefixes));
    this.#syncBfd();
  }

  /** The peer is removed from the configuration: stop listening and forget its routes. */
  detach(): void {
    this.#maxPrefix.cancelRestart();
    for (const off of this.#unbind) off();
    this.#unbind = [];
    this.#onDown('peer removed', undefined, false);
    this.#restart.detach();
    this.#bfd?.close();
    this.#bfd = null;
  }

  // BFD (RFC 5880, RFC 5882): one session per configured peer, opened with the configuration.

  #syncBfd(): void {
    const spec = this.#c.bfd && bfdSpec(this.#config, this.#c.interfaces());
    if (!spec) {
      this.#bfd?.close();
      this.#bfd = null;
      return;
    }
    if (this.#bfd) {
      this.#bfd.reconfigure(spec);
      return;
    }
    this.#bfd = new NeighborBfd(this.#c.bfd!, spec, {
      log: this.#log,
      interfaces: this.#c.interfaces,
      drop: (reason, forwardingFailed) => this.#dropForBfd(reason, forwardingFailed),
      kick: () => this.#kickForBfd(),
      now: () => this.#c.clock.now(),
    });
  }

  /**
   * BFD Down: the BGP session closes at once, without a NOTIFICATION the dead path would not
   * carry (as FRR's bgpd drops the connection), and tries again. Its routes go at once, unless
   * graceful restart keeps them (RFC 4724 4.2) and the peer's BFD shares fate with its control
   * plane (C bit clear, RFC 5882 4.3).
   */
  #dropForBfd(reason: string, forwardingFailed: boolean): void {
    const state = this.#peer.state;
    if (state !== 'OpenSent' && state !== 'OpenConfirm' && state !== 'Established') return;
    if (!this.#peer.enabled) return;
    this.#bfdDrop = { reason, forwardingFailed };
    this.#peer.stopForRestart();
    this.#bfdDrop = null;
    this.#lastError = reason;
    this.#peer.start();
  }

  /** BFD Up while BGP waits to connect: connect now rather than at the next retry. */
  #kickForBfd(): void {
    const state = this.#peer.state;
    if (!this.#peer.enabled || this.#stoppedBy !== null) return;
    if (state !== 'Idle' && state !== 'Connect' && state !== 'Active') return;
    this.#peer.stopForRestart();
    this.#peer.start();
  }

  #bind(peer: Peer): void {
    this.#unbind = [
      peer.on('state', (c) => this.#onState(c)),
      peer.on('established', (info) => this.#onEstablished(info)),
      peer.on('down', (reason, end) => this.#onDown(reason, end)),
      peer.on('update', (u) => this.#onUpdate(u)),
      peer.on('end-of-rib', (f) => this.#onEndOfRib(f)),
      peer.on('route-refresh', (m) => this.#onRouteRefresh(m)),
      peer.on('notification', (n) => this.#onNotification(n)),
    ];
  }

  #onState(c: StateChange): void {
    this.#stateSince = this.#c.clock.now();
    if (c.to === 'Idle' && c.reason !== '') this.#lastError = c.reason;
  }

  #onNotification(n: NotificationEvent): void {
    this.#lastNotification = {
      event: n,
      description: describeError(n.code, n.subcode),
      at: new Date(this.#c.clock.now()),
    };
    this.#c.onNotification?.(this.name, n);
  }

  #onEstablished(info: EstablishedInfo): void {
    this.#establishedTransitions++;
    this.#maxPrefix.reset();
    const kind = peerKind(this.#config);
    // A peer found on its link is at the link-local address the session runs to.
    const unnumbered = this.#config.interface;
    const address = unnumbered === undefined ? this.#config.peerIp : info.connection.remote.address;
    const staleRoutesTime = this.#c.staleRoutesTime?.() ?? DEFAULT_STALE_ROUTES_TIME;
    const ribPeer = this.#restart.established({
      name: this.name,
      kind,
      address,
      ...(unnumbered !== undefined && { interface: unnumbered }),
      negotiated: info.negotiated,
      staleRoutesTime,
    });
    const routes = new PeerRoutes(
      this.#peer,
      info,
      {
        name: this.name,
        kind,
        address,
        ...(unnumbered !== undefined && { interface: unnumbered }),
        nextHopSelf: this.#config.nextHopSelf,
        nextHopUnchanged: this.#config.nextHopUnchanged,
        policies: this.#policies,
        ...(ribPeer && { ribPeer }),
        sendPaths: this.#config.addPath.sendPaths,
      },
      { ...this.#c, log: this.#log, reimported: () => this.#c.monitor?.reimported(this) },
    );
    const refresh = info.negotiated.enhancedRouteRefresh
      ? new RefreshStale(
          {
            peer: routes.ribPeer,
            store: routes.importer,
            gracefulRestart: capabilitiesOf(info.remoteOpen).some((c) => c.name === 'graceful-restart'),
            staleTime: staleRoutesTime,
          },
          { ...this.#c, log: this.#log },
        )
      : null;
    this.#session = { info, routes, refresh };
    this.#c.monitor?.up(this, info);
  }

  #onDown(reason: string, end?: SessionEnd, notify = true): void {
    const s = this.#session;
    if (!s) return;
    this.#session = null;
    // A refresh's marks settle first: what the end of the session keeps stale must not be
    // purged by a refresh the peer will never finish.
    s.refresh?.close();
    this.#c.monitor?.down(this, end);
    s.routes.close();
    const longLived = this.#config.longLivedStaleTime ?? 0;
    const bfd = this.#bfdDrop;
    const graceful = end?.graceful === true && !bfd?.forwardingFailed;
    this.#restart.ended(s.routes.ribPeer, s.info.negotiated, graceful, longLived, bfd?.reason ?? reason);
    if (notify) this.#c.onSessionEnded?.(this.name);
  }

  #onEndOfRib(f: Family): void {
    if (f.safi !== Safi.UNICAST) return;
    this.#log.info({ afi: f.afi, safi: f.safi }, 'End-of-RIB received');
    this.#restart.endOfRib(f.afi);
    if (f.afi === Afi.IPV4 || f.afi === Afi.IPV6) this.#session?.refresh?.endOfRib(f.afi);
  }

  #onUpdate(u: UpdateMessage): Promise<void> | undefined {
    const s = this.#session;
    if (!s) return undefined;
    const wait = s.routes.update(u);
    // Optional chaining: with no monitor, nothing is built per UPDATE.
    this.#c.monitor?.update(this, u);
    if (this.#maxPrefix.active) {
      if (u.nlri.count > 0) this.#checkMaxPrefix(s, Afi.IPV4);
      const mp = u.attrs?.mpReach?.afi;
      if (u.mpNlri && u.mpNlri.count > 0 && (mp === Afi.IPV4 || mp === Afi.IPV6)) this.#checkMaxPrefix(s, mp);
    }
    return wait;
  }

  #checkMaxPrefix(s: LiveSession, afi: AfiCode): void {
    if (this.#session !== s) return;
    this.#maxPrefix.check(afi, this.#c.rib.counts(s.routes.ribPeer, afi).accepted);
  }

  #onRouteRefresh(m: RouteRefreshMessage): void {
    const s = this.#session;
    if (!s) return;
    if (m.subtype === RouteRefreshSubtype.NORMAL) {
      // RFC 2918: send the routes again (both families: one Adj-RIB-Out holds them), inside
      // BoRR/EoRR when RFC 7313 was agreed.
      this.#log.info({ afi: m.afi, safi: m.safi }, 'route refresh requested by the peer');
      s.routes.resend(undefined, m.afi as AfiCode);
      return;
    }
    // The peer's own refresh, framed (RFC 7313 section 4): only where it was agreed, and only
    // for the families we keep routes of.
    if (m.safi !== Safi.UNICAST || (m.afi !== Afi.IPV4 && m.afi !== Afi.IPV6)) return;
    if (!s.refresh) {
      this.#log.debug({ subtype: m.subtype }, 'BoRR/EoRR without enhanced route refresh agreed ignored');
      return;
    }
    if (m.subtype === RouteRefreshSubtype.BORR) s.refresh.begin(m.afi);
    else if (m.subtype === RouteRefreshSubtype.EORR) s.refresh.end(m.afi);
  }
}
