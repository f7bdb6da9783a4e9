import type { EstablishedInfo, Logger, NotificationEvent, Peer, StateChange } from '../bgp/session/index.js';
import {
  Afi,
  type AfiCode,
  CeaseSubcode,
  describeError,
  RouteRefreshSubtype,
  Safi,
} from '../bgp/wire/constants.js';
import type { RouteRefreshMessage } from '../bgp/wire/route-refresh.js';
import type { UpdateMessage } from '../bgp/wire/update.js';
import type { MaxPrefixes, PeerConfig } from '../config/index.js';
import { MaxPrefixGuard, type PeerPolicies } from '../policy/index.js';
import type { ExportTarget, PeerKind, Rib, RibPeer, UpdateGroups } from '../rib/index.js';
import {
  type Exporter,
  Importer,
  type InterfaceTable,
  MS_PER_SECOND,
  type RouteFlow,
  RoutingDefaults,
  SessionExport,
  sessionAddresses,
} from '../routing/index.js';
import { maxPrefixConfig } from './policies.js';

/** What a binding needs from the speaker: narrow, so tests can build one around a real Peer. */
export interface BindingComponents {
  readonly rib: Rib;
  readonly groups: UpdateGroups;
  readonly flow: RouteFlow;
  readonly log: Logger;
  readonly interfaces: () => InterfaceTable;
  readonly now: () => number;
  /** Where long work yields to the event loop (setImmediate). */
  readonly defer: (fn: () => void) => void;
  readonly setTimer: (fn: () => void, ms: number) => unknown;
  readonly clearTimer: (handle: unknown) => void;
  /** A NOTIFICATION went either way (for the metrics). */
  readonly onNotification?: (peer: string, n: NotificationEvent) => void;
  /** The Established session ended (settings kept for the next session can now apply). */
  readonly onSessionEnded?: (peer: string) => void;
}

/** Why a peer is down on purpose, if it is. */
export type StopCause = 'config' | 'operator' | 'max-prefix';

/** The last NOTIFICATION, with when it happened. */
export interface NotificationRecord {
  readonly event: NotificationEvent;
  readonly description: string;
  readonly at: Date;
}

/** One Established session's state on our side. */
interface LiveSession {
  readonly info: EstablishedInfo;
  readonly ribPeer: RibPeer;
  readonly importer: Importer;
  readonly outbound: SessionExport;
}

const FAMILIES: readonly AfiCode[] = [Afi.IPV4, Afi.IPV6];

function peerKind(config: PeerConfig): PeerKind {
  if (config.type === 'ebgp') return 'ebgp';
  return config.routeReflectorClient ? 'ibgp-client' : 'ibgp-nonclient';
}

/**
 * One configured peer's glue: its session's events through import policy into the RIB, and
 * the RIB's changes through its Adj-RIB-Out and export policy back to the session, with
 * back-pressure both ways and End-of-RIB after the initial table. Owns what the session knows
 * nothing about: max-prefix, why the peer is down, what it was sent.
 */
export class PeerBinding {
  readonly name: string;
  #config: PeerConfig;
  #peer: Peer;
  #policies: PeerPolicies;
  readonly #c: BindingComponents;
  readonly #log: Logger;
  #unbind: (() => void)[] = [];
  #session: LiveSession | null = null;
  /** A RibPeer whose routes are still being withdrawn after its session ended. */
  #clearing: RibPeer | null = null;
  #guards: Map<AfiCode, MaxPrefixGuard> = new Map();
  #stoppedBy: StopCause | null = null;
  #restartTimer: unknown = null;
  #softIn: { cursor: number; family: number } | null = null;
  #stateSince: number;
  #establishedTransitions = 0;
  #lastNotification: NotificationRecord | undefined;
  #lastError: string | undefined;

  constructor(config: PeerConfig, peer: Peer, policies: PeerPolicies, components: BindingComponents) {
    this.name = config.name;
    this.#config = config;
    this.#policies = policies;
    this.#c = components;
    this.#log = components.log.child ? components.log.child({ peer: config.name }) : components.log;
    this.#stateSince = components.now();
    this.#peer = peer;
    this.#bind(peer);
    this.#setGuards(config.maxPrefixes);
    for (const w of policies.warnings) this.#log.warn({ rfc: 8212 }, w);
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

  /** The Established session, if any. */
  get session(): {
    readonly info: EstablishedInfo;
    readonly ribPeer: RibPeer;
    readonly importer: Importer;
    readonly exporter: Exporter;
  } | null {
    const s = this.#session;
    return s && { info: s.info, ribPeer: s.ribPeer, importer: s.importer, exporter: s.outbound.exporter };
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
    this.#cancelRestart();
    this.#stoppedBy = 'config';
    this.#peer.stop(CeaseSubcode.ADMINISTRATIVE_SHUTDOWN);
  }

  /** Prefix counts of a family: sent by the peer, accepted into the RIB, advertised to it. */
  counts(afi: AfiCode): { received: number; accepted: number; advertised: number } {
    const s = this.#session;
    if (!s) return { received: 0, accepted: 0, advertised: 0 };
    return {
      received: s.importer.received(afi),
      accepted: this.#c.rib.counts(s.ribPeer, afi).accepted,
      advertised: s.outbound.exporter.advertised.count(afi),
    };
  }

  // Operator actions (`neighbor PEER ...`).

  /** Administrative shutdown (Cease/2 with an RFC 9003 message); stays down until enabled. */
  shutdown(message?: string): void {
    this.#cancelRestart();
    this.#stoppedBy = 'operator';
    this.#peer.shutdown(message);
  }

  /** Undoes a shutdown (operator's, configured, or max-prefix). */
  enable(): void {
    this.#cancelRestart();
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
      this.#startSoftIn();
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
    const s = this.#session;
    if (!s) return;
    if (softIn && s.importer.setFilter(policies.import)) this.#startSoftIn();
    if (softOut) s.outbound.resync({ filter: policies.export });
  }

  /** A changed configuration that needs no new session: max-prefix, next-hop-self, descriptions. */
  setConfig(config: PeerConfig): void {
    const before = this.#config;
    this.#config = config;
    if (JSON.stringify(before.maxPrefixes) !== JSON.stringify(config.maxPrefixes)) {
      this.#setGuards(config.maxPrefixes);
      if (this.#stoppedBy === 'max-prefix') {
        this.#log.info({}, 'max-prefix settings changed: starting the session again');
        this.enable();
      }
      // A new limit holds at once for what the peer has sent already (as FRR applies it).
      const s = this.#session;
      if (s) for (const afi of FAMILIES) this.#checkMaxPrefix(s, afi);
    }
    if (before.nextHopSelf !== config.nextHopSelf)
      this.#session?.outbound.resync({ nextHopSelf: config.nextHopSelf });
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
    this.#stateSince = this.#c.now();
    this.#bind(peer);
    this.#setGuards(config.maxPrefixes);
  }

  /** The peer is removed from the configuration: stop listening and forget its routes. */
  detach(): void {
    this.#cancelRestart();
    for (const off of this.#unbind) off();
    this.#unbind = [];
    this.#onDown('peer removed', false);
    if (this.#clearing) {
      this.#c.rib.removePeer(this.#clearing);
      this.#clearing = null;
      this.#c.flow.schedule();
    }
  }

  /** The RIB changed: send what the Adj-RIB-Out now holds (no-op while sending already). */
  kick(): void {
    this.#session?.outbound.kick();
  }

  #bind(peer: Peer): void {
    this.#unbind = [
      peer.on('state', (c) => this.#onState(c)),
      peer.on('established', (info) => this.#onEstablished(info)),
      peer.on('down', (reason) => this.#onDown(reason)),
      peer.on('update', (u) => this.#onUpdate(u)),
      peer.on('route-refresh', (m) => this.#onRouteRefresh(m)),
      peer.on('notification', (n) => this.#onNotification(n)),
    ];
  }

  #onState(c: StateChange): void {
    this.#stateSince = this.#c.now();
    if (c.to === 'Idle' && c.reason !== '') this.#lastError = c.reason;
  }

  #onNotification(n: NotificationEvent): void {
    this.#lastNotification = { event: n, description: describeError(n.code, n.subcode), at: new Date() };
    this.#c.onNotification?.(this.name, n);
  }

  #onEstablished(info: EstablishedInfo): void {
    const { rib } = this.#c;
    this.#establishedTransitions++;
    if (this.#clearing) {
      // The last session's routes are still being withdrawn: finish now, the id is needed again.
      rib.removePeer(this.#clearing);
      this.#clearing = null;
    }
    for (const g of this.#guards.values()) g.reset();
    const n = info.negotiated;
    const kind = peerKind(this.#config);
    const ribPeer = rib.addPeer({
      id: this.name,
      kind,
      asn: n.remoteAs,
      routerId: n.remoteBgpId,
      address: this.#config.peerIp,
    });
    const addPathIn: [boolean, boolean] = [info.context.update.addPathIpv4, info.context.update.addPathIpv6];
    const importer = new Importer(rib, ribPeer, this.#policies.import, addPathIn);
    const local = sessionAddresses(info.connection.local.address, this.#c.interfaces());
    const target: ExportTarget = {
      kind,
      localIpv4: local.ipv4,
      localIpv6: local.ipv6,
      nextHopSelf: this.#config.nextHopSelf,
      ...(kind === 'ebgp' && { sharedSubnets: local.subnets }),
    };
    const outbound = new SessionExport(this.name, this.#peer, info, target, local, this.#policies.export, {
      groups: this.#c.groups,
      rib,
      log: this.#log,
      defer: this.#c.defer,
    });
    this.#session = { info, ribPeer, importer, outbound };
  }

  #onDown(reason: string, notify = true): void {
    const s = this.#session;
    if (!s) return;
    this.#session = null;
    this.#softIn = null;
    s.outbound.close();
    this.#log.info({ reason }, 'session down: withdrawing its routes');
    this.#clearing = s.ribPeer;
    this.#clearSlice(s.ribPeer);
    if (notify) this.#c.onSessionEnded?.(this.name);
  }

  /** Withdraws a gone session's routes a slice per turn, so keepalives of other peers keep flowing. */
  #clearSlice(ribPeer: RibPeer): void {
    if (this.#clearing !== ribPeer) return;
    const { rib, flow } = this.#c;
    const left = rib.clearPeer(ribPeer, RoutingDefaults.CLEAR_SLICE_ROUTES);
    if (left === 0) {
      rib.removePeer(ribPeer);
      this.#clearing = null;
    } else {
      this.#c.defer(() => this.#guarded(() => this.#clearSlice(ribPeer)));
    }
    flow.schedule();
  }

  #onUpdate(u: UpdateMessage): Promise<void> | undefined {
    const s = this.#session;
    if (!s) return undefined;
    s.importer.apply(u);
    const { rib, flow } = this.#c;
    flow.schedule();
    if (this.#guards.size > 0) {
      if (u.nlri.count > 0) this.#checkMaxPrefix(s, Afi.IPV4);
      const mp = u.attrs?.mpReach?.afi;
      if (u.mpNlri && u.mpNlri.count > 0 && (mp === Afi.IPV4 || mp === Afi.IPV6)) this.#checkMaxPrefix(s, mp);
    }
    return rib.pending > RoutingDefaults.IMPORT_BACKLOG_PREFIXES ? flow.whenFlushed() : undefined;
  }

  #checkMaxPrefix(s: LiveSession, afi: AfiCode): void {
    const guard = this.#guards.get(afi);
    if (!guard || this.#session !== s) return;
    const action = guard.update(this.#c.rib.counts(s.ribPeer, afi).accepted);
    if (action.type === 'warn') {
      this.#log.warn({ count: action.count, limit: action.limit }, action.message);
    } else if (action.type === 'cease') {
      this.#log.warn({ count: action.count, limit: action.limit }, action.message);
      this.#stoppedBy = 'max-prefix';
      // RFC 4486 section 4: Cease, Maximum Number of Prefixes Reached.
      this.#peer.stop(CeaseSubcode.MAXIMUM_NUMBER_OF_PREFIXES_REACHED, undefined, action.data);
      const after = action.restartAfterSeconds;
      if (after !== undefined) {
        this.#cancelRestart();
        this.#restartTimer = this.#c.setTimer(() => {
          this.#restartTimer = null;
          if (this.#stoppedBy !== 'max-prefix') return;
          this.#log.info({ after }, 'max-prefix restart timer expired: starting the session again');
          this.enable();
        }, after * MS_PER_SECOND);
      }
    }
  }

  #onRouteRefresh(m: RouteRefreshMessage): void {
    const s = this.#session;
    // RFC 2918: send the routes again (both families: one Adj-RIB-Out holds them). BoRR/EoRR
    // markers (RFC 7313) from the peer need nothing here.
    if (!s || m.subtype !== RouteRefreshSubtype.NORMAL) return;
    this.#log.info({ afi: m.afi, safi: m.safi }, 'route refresh requested by the peer');
    s.outbound.resync();
  }

  #startSoftIn(): void {
    const fresh = this.#softIn === null;
    this.#softIn = { cursor: 0, family: 0 };
    if (fresh) this.#softInSlice();
  }

  /** Stored routes through the import policy again, a slice per turn. */
  #softInSlice(): void {
    const s = this.#session;
    const job = this.#softIn;
    if (!s || !job) return;
    const afi = FAMILIES[job.family]!;
    const next = s.importer.reimport(afi, job.cursor, RoutingDefaults.SOFT_IN_SLICE_ROUTES);
    if (next === -1) {
      job.family++;
      job.cursor = 0;
    } else {
      job.cursor = next;
    }
    this.#c.flow.schedule();
    if (job.family >= FAMILIES.length) {
      s.importer.reimportDone();
      this.#softIn = null;
      this.#log.info({}, 'import policy applied again to the stored routes');
      return;
    }
    this.#c.defer(() => this.#guarded(() => this.#softInSlice()));
  }

  /** Deferred work reports its failure instead of ending the process. */
  #guarded(work: () => void): void {
    try {
      work();
    } catch (error) {
      this.#log.error({ error: String(error) }, 'route work failed');
    }
  }

  #setGuards(m: MaxPrefixes | undefined): void {
    this.#guards = new Map();
    if (!m) return;
    for (const afi of FAMILIES) {
      this.#guards.set(afi, new MaxPrefixGuard(maxPrefixConfig(m), { afi, safi: Safi.UNICAST }));
    }
  }

  #cancelRestart(): void {
    if (this.#restartTimer !== null) this.#c.clearTimer(this.#restartTimer);
    this.#restartTimer = null;
  }
}
