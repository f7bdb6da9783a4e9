import { KindedError } from '../components/index.js';
/**
 * What the control socket and the CLI can ask of a running speaker. The speaker implements
 * SpeakerControl; the API server serves it over a unix socket; the CLI prints it. Every value
 * is plain JSON data, so `--json` output is exactly this.
 */

export type SessionState = 'Idle' | 'Connect' | 'Active' | 'OpenSent' | 'OpenConfirm' | 'Established';
export type FamilyName = 'ipv4-unicast' | 'ipv6-unicast';

export interface NotificationView {
  readonly direction: 'sent' | 'received';
  readonly code: number;
  readonly subcode: number;
  /** e.g. "CEASE/ADMINISTRATIVE_SHUTDOWN (6/2)". */
  readonly description: string;
  /** RFC 9003 shutdown communication, when there was one. */
  readonly message?: string;
  /** ISO 8601. */
  readonly at: string;
}

export interface FamilyCounts {
  readonly received: number;
  readonly accepted: number;
  readonly advertised: number;
}

export interface NeighborSummary {
  /** The configured name; the address when none was given. */
  readonly name: string;
  readonly address: string;
  /**
   * The AS its OPEN gave while Established; else as configured: a number, or for a dynamic
   * neighbour's template possibly external (any AS but ours) or internal (ours).
   */
  readonly remoteAs: number | 'external' | 'internal';
  /** A dynamic neighbour: the listen range it connected from and the template it is built from. */
  readonly dynamic?: { readonly range: string; readonly template: string };
  readonly state: SessionState;
  /** Seconds in the current state. */
  readonly stateSeconds: number;
  readonly adminDown: boolean;
  /**
   * One entry per configured family, zeros while the session is down, so `show summary` can
   * list the neighbor under each family it belongs to.
   */
  readonly prefixes: Readonly<Partial<Record<FamilyName, FamilyCounts>>>;
  /** Messages by type since the speaker started; `show summary` prints the totals (MsgRcvd, MsgSent). */
  readonly messages: { readonly sent: MessageCounts; readonly received: MessageCounts };
  /** Times the session reached Established since the speaker started (FRR's connectionsEstablished). */
  readonly establishedTransitions: number;
  /** RFC 5880 BFD, when configured: `show neighbors` has the rest. */
  readonly bfd?: BfdSummary;
}

export interface BfdSummary {
  /** AdminDown, Down, Init or Up. */
  readonly state: string;
  /** State changes since the session was configured. */
  readonly transitions: number;
}

export interface NeighborDetail extends NeighborSummary {
  readonly localAs: number;
  readonly localAddress?: string;
  /** BGP unnumbered: the link the peer is found on, and its link-local address once found. */
  readonly interface?: string;
  readonly linkNeighbor?: string;
  readonly ebgp: boolean;
  readonly remoteRouterId?: string;
  readonly holdTime?: number;
  readonly keepaliveTime?: number;
  /** Negotiated families and capabilities, names as in the OPEN codec. */
  readonly families: readonly FamilyName[];
  readonly capabilities: readonly string[];
  /** What each OPEN of the session carried, by name (a capability we do not know: "code N"). */
  readonly localCapabilities?: readonly string[];
  readonly remoteCapabilities?: readonly string[];
  /** Reconnect back-off as configured (seconds), and while waiting after a reset the seconds left. */
  readonly idleHoldTime: number;
  readonly maxIdleHoldTime: number;
  readonly reconnectIn?: number;
  readonly lastNotification?: NotificationView;
  readonly lastError?: string;
  /** RFC 4724: what the peer advertised, and its routes we keep while it restarts. */
  readonly gracefulRestart?: GracefulRestartView;
  /** RFC 5880 BFD tied to the session, when configured. */
  readonly bfd?: BfdView;
}

/** A neighbour's BFD session, as FRR's `show bfd peer` words it. */
export interface BfdView extends BfdSummary {
  /** The peer's state as it last said. */
  readonly remoteState: string;
  readonly multihop: boolean;
  readonly localDiscriminator: number;
  readonly remoteDiscriminator: number;
  /** Configured: our Required Min RX, Desired Min TX once Up, Detect Mult (ms, ms, count). */
  readonly configured: { readonly minRx: number; readonly minTx: number; readonly multiplier: number };
  /** The peer's advertised values (0 until heard). */
  readonly remote: { readonly minRx: number; readonly minTx: number; readonly multiplier: number };
  /**
   * The peer's C bit: its BFD does not share fate with its control plane, so BFD Down means
   * its forwarding failed and graceful restart keeps none of its routes (RFC 5882 4.3).
   */
  readonly remoteControlPlaneIndependent: boolean;
  /** Agreed: the interval we send at and the time without packets that takes the session Down (ms). */
  readonly txInterval: number;
  readonly detectionTime: number;
  /** The last diagnostics each side sent (RFC 5880 4.1), in words. */
  readonly localDiagnostic: string;
  readonly remoteDiagnostic: string;
  /** ISO time of the last state change. */
  readonly lastChange: string;
  /** Why the session last went Down, while it ever did. */
  readonly lastDownReason?: string;
  /** When and why BFD last closed the BGP session. */
  readonly lastSessionDrop?: { readonly at: string; readonly reason: string };
}

export interface GracefulRestartView {
  /** From the peer's OPEN on the Established session. */
  readonly peerRestartTime?: number;
  /** Its R bit: the peer says it has just restarted. */
  readonly peerRestarting?: boolean;
  /** Both sides set the N bit (RFC 8538). */
  readonly notification?: boolean;
  /** Families the peer kept forwarding for (F bit). */
  readonly forwarding?: readonly string[];
  /** Routes kept stale from its last session, while any are left. */
  readonly stale?: {
    /** restarting (its Restart Time), long-lived (RFC 9494), waiting-end-of-rib (it is back). */
    readonly phase: 'restarting' | 'long-lived' | 'waiting-end-of-rib';
    readonly 'ipv4-unicast': number;
    readonly 'ipv6-unicast': number;
    /** Until the running timer (its Restart Time, then our stale routes time) sweeps them. */
    readonly secondsLeft: number;
  };
}

export interface MessageCounts {
  readonly open: number;
  readonly update: number;
  readonly notification: number;
  readonly keepalive: number;
  readonly routeRefresh: number;
}

export interface PathView {
  /** Peer name, or "local" for routes the speaker originates. */
  readonly from: string;
  readonly nextHop: string;
  readonly asPath: string;
  readonly origin: 'igp' | 'egp' | 'incomplete';
  readonly med?: number;
  readonly localPref?: number;
  readonly communities: readonly string[];
  readonly largeCommunities: readonly string[];
  /** RFC 4360, as policies spell them: "rt:65001:100", "soo:198.18.0.1:7", "0x4300:000000000007". */
  readonly extendedCommunities: readonly string[];
  readonly best: boolean;
  readonly multipath: boolean;
  /** On the best path: the decision step that chose it ("Local Pref", "AS Path", ...). */
  readonly reason?: string;
  /** RFC 7911 path id, on `show received`/`advertised` when the session agreed ADD-PATH. */
  readonly pathId?: number;
  /**
   * On `show received` only: what import became of the path. `accepted`: a candidate in the
   * Loc-RIB (what `show summary` counts as accepted); `policy-rejected`: the import policy
   * rejected it; the loop verdicts: the RIB keeps it out of the decision (RFC 4271 9.1.2,
   * RFC 4456 8).
   */
  readonly verdict?: ReceivedVerdict;
  /** A path of the `ovn` origin: the OVN row it came from and why its next hop was chosen. */
  readonly ovn?: OvnPathView;
  /** On `show rib`: kept from a peer's session that ended gracefully, not announced again yet. */
  readonly stale?: true;
  /** ... and past its Restart Time, kept by long-lived graceful restart (RFC 9494). */
  readonly longLivedStale?: true;
}

export type ReceivedVerdict =
  | 'accepted'
  | 'policy-rejected'
  | 'as-path-loop'
  | 'originator-id-loop'
  | 'cluster-list-loop';

export interface OvnPathView {
  readonly kind: string;
  readonly origin: OvnOriginView;
  readonly why: string;
}

export interface RibEntryView {
  readonly prefix: string;
  readonly paths: readonly PathView[];
}

export interface SummaryView {
  readonly routerId: string;
  readonly localAs: number;
  readonly neighbors: readonly NeighborSummary[];
  readonly rib: Readonly<Record<FamilyName, number>>;
}

export interface RibQuery {
  /**
   * A prefix ("198.18.10.0/24": that entry) or an address ("198.18.10.7": the longest prefix
   * that covers it), as vtysh reads `show bgp ipv4 unicast X`.
   */
  readonly prefix?: string;
  readonly afi?: 4 | 6;
  /** At most this many entries (the full table is large); default 1000. */
  readonly limit?: number;
}

/** What the neighbor.* methods return once the speaker has carried the action out. */
export interface NeighborActionResult {
  readonly peer: string;
  readonly action: 'reset' | 'shutdown' | 'enable' | 'refresh';
}

/**
 * A running speaker, as the control socket serves it. `peer` arguments take a neighbor's name
 * or its address; an unknown one throws ControlError('unknown-peer').
 */
/** One forwarding plane the speaker installs best paths into (`show sinks`). */
export interface SinkView {
  readonly name: string;
  /** starting, syncing, in-sync, retrying, closed. */
  readonly state: string;
  /** Changes waiting for the target, coalesced per prefix. */
  readonly pending: number;
  /** Changes the target took since start. */
  readonly applied: number;
  readonly failures: number;
  readonly lastError?: string;
  /** ISO time of the last successful apply or reconcile. */
  readonly lastSuccess?: string;
  /** Wanted prefixes the plane does not hold, with why (the first few). */
  readonly notInstalled?: readonly { readonly prefix: string; readonly reason: string }[];
  /** The plane's own counters (the kernel's: routes, conflicts, routes put back, ...), in order. */
  readonly details?: readonly { readonly name: string; readonly value: number | string }[];
}

/** One BMP collector (`show bmp`). */
export interface BmpCollectorView {
  readonly address: string;
  readonly port: number;
  /** connecting, up, waiting (to connect again), closed. */
  readonly state: string;
  /** ISO time of the last state change. */
  readonly since: string;
  /** Adj-RIB-In views sent: pre-policy, post-policy. */
  readonly routeMonitoring: readonly string[];
  /** Sessions the collector was told of on this connection. */
  readonly peers: number;
  readonly connects: number;
  /** Times the queue passed its limit and was dropped with the connection. */
  readonly drops: number;
  readonly messages: number;
  readonly bytes: number;
  /** Bytes waiting for the collector. */
  readonly queued: number;
  /** The state is being sent (after a connect). */
  readonly dumping: boolean;
  readonly lastError?: string;
  /** While waiting: ms until the next attempt. */
  readonly retryMs?: number;
}

/** BMP (RFC 7854) as `show bmp` prints it; no collectors when none is configured. */
export interface BmpView {
  readonly collectors: readonly BmpCollectorView[];
}

/** Where an OVN-derived route came from. */
export interface OvnOriginView {
  readonly db: 'nb' | 'sb';
  readonly table: string;
  readonly uuid: string;
  readonly name: string;
}

export interface OvnRouteView {
  readonly prefix: string;
  readonly nextHop: string;
  /** floating-ip, tenant-network, lb-vip, provider-port, pod-subnet, service-vip; OVN's own: nat, lb, connected, static. */
  readonly kind: string;
  readonly origin: OvnOriginView;
  /** How the next hop was chosen. */
  readonly why: string;
}

/** Something in OVN that could not be advertised, and why. */
export interface OvnProblemView {
  readonly kind: string;
  readonly origin: OvnOriginView;
  readonly message: string;
}

/** `show ovn`: the connection, every advertised route with its OVN row, what could not be. */
export interface OvnView {
  readonly mode: string;
  /**
   * Where routes come from (`ovn.source`) and whether the SB has OVN's own Advertised_Route,
   * e.g. "auto (Advertised_Route in SB)".
   */
  readonly source?: string;
  readonly nb: string;
  readonly sb: string;
  readonly routes: readonly OvnRouteView[];
  readonly problems: readonly OvnProblemView[];
  /** Routes per kind. */
  readonly counts: Readonly<Record<string, number>>;
  /** Milliseconds the last derivation took. */
  readonly lastDerivationMs?: number;
  /** OVN 25.03 on a chassis: the route tables ovn-controller fills, as followed (ovn_route_tables). */
  readonly tables?: readonly OvnTableView[];
}

/** One OVN route table: what the kernel holds there (ovn-controller's protocol) and what we advertise of it. */
export interface OvnTableView {
  /** The router's name, or `table N`. */
  readonly name: string;
  /** Absent while the router is not in the Southbound. */
  readonly table?: number;
  /** e.g. "following, last read 3 s ago (start)" or "router not in the Southbound". */
  readonly state: string;
  readonly routes: readonly OvnTableRouteView[];
  /** The sink writing learned routes into the table, when `learn` names policies. */
  readonly learnSink?: string;
}

export interface OvnTableRouteView {
  readonly prefix: string;
  /** The metrics the table holds it at (none: it left, and is held). */
  readonly metrics: readonly number[];
  /** advertised, held (left the table, still advertised with the worst MED), skipped (local-only). */
  readonly state: 'advertised' | 'held' | 'skipped';
  readonly med?: number;
  readonly prepend?: number;
  /** Seconds until a held route is withdrawn. */
  readonly heldFor?: number;
}

/** What the OVN metrics read at each scrape: counts only, never the routes themselves. */
export interface OvnStatsView {
  readonly connected: { readonly nb: boolean; readonly sb: boolean };
  /** Routes advertised, per kind ("floating-ip", ...). */
  readonly routes: Readonly<Record<string, number>>;
  /** Routes not advertised, per problem kind ("port-unbound", ...). */
  readonly problems: Readonly<Record<string, number>>;
  readonly lastDerivationMs: number;
  /** From the first OVSDB update of the last burst to its routes in the RIB. */
  readonly lastChangeMs?: number;
}

/** A route the control API announced (the `api` origin), as `route.announce` took it. */
export interface ApiRouteView {
  readonly prefix: string;
  readonly nextHop: string;
  readonly origin: 'igp' | 'egp' | 'incomplete';
  readonly med?: number;
  readonly localPref?: number;
  readonly communities: readonly string[];
  readonly largeCommunities: readonly string[];
}

export interface RouteActionResult {
  readonly prefix: string;
  readonly action: 'announced' | 'replaced' | 'unchanged' | 'withdrawn';
}

export interface PeerEditResult {
  readonly peer: string;
  readonly action: 'added' | 'changed' | 'removed';
  /** What the speaker did, as a reload logs it ("peer b added (198.18.1.3, AS 65000)"). */
  readonly changes: readonly string[];
}

export type WatchTopic = 'bestpath' | 'sessions';

/**
 * One line of a `watch` stream after its result. The stream opens with the state at the
 * moment of subscribing (a `session` per neighbor, a `bestpath` per prefix), then `synced`,
 * then every change as it happens; nothing falls between the snapshot and the changes. An
 * event may repeat what the snapshot said (apply it as "set"), it never skips a change.
 */
export type WatchEvent =
  | {
      readonly type: 'bestpath';
      readonly seq: number;
      readonly prefix: string;
      /** The new best path; null when the prefix has no usable path any more. */
      readonly path: PathView | null;
    }
  | {
      readonly type: 'session';
      readonly seq: number;
      readonly peer: string;
      readonly state: SessionState;
      /** Absent in the snapshot. */
      readonly previous?: SessionState;
      readonly reason?: string;
    }
  | { readonly type: 'synced'; readonly seq: number }
  /** The client fell too far behind; the speaker closes the stream after this. */
  | { readonly type: 'overflow'; readonly seq: number; readonly message: string };

/** An event without its sequence number (the stream numbers them); a thunk is built when sent. */
export type WatchItem = DistributiveOmit<WatchEvent, 'seq'> | (() => DistributiveOmit<WatchEvent, 'seq'>);
type DistributiveOmit<T, K extends PropertyKey> = T extends unknown ? Omit<T, K> : never;

/** Where a subscription's events go, in order, from the snapshot on. */
export interface WatchSink {
  push(item: WatchItem): void;
}

export interface SpeakerControl {
  summary(): SummaryView;
  neighbors(name?: string): NeighborDetail[];
  rib(query: RibQuery): RibEntryView[];
  advertised(peer: string, query: RibQuery): RibEntryView[];
  received(peer: string, query: RibQuery): RibEntryView[];
  resetNeighbor(peer: string): Promise<void>;
  shutdownNeighbor(peer: string, message?: string): Promise<void>;
  enableNeighbor(peer: string): Promise<void>;
  refreshNeighbor(peer: string): Promise<void>;
  sinks(): SinkView[];
  /** Null when no ovn section is configured. */
  ovn(): OvnView | null;
  /** BMP collectors; absent on a speaker without BMP support. */
  bmp?(): BmpView;
  /** `route` as an entry of the file's routes section; originated by the `api` origin. */
  announceRoute(route: unknown): RouteActionResult;
  withdrawRoute(prefix: string): RouteActionResult;
  apiRoutes(): ApiRouteView[];
  /** `peer` as an entry of the file's peers section, checked with the whole configuration. */
  editPeer(
    edit: { op: 'add' | 'change'; peer: unknown } | { op: 'remove'; name: string },
  ): Promise<PeerEditResult>;
  /** Snapshot first, then changes, into `sink` (synchronously registered); returns the unsubscribe. */
  watch(topics: readonly WatchTopic[], sink: WatchSink): () => void;
  /** The Loc-RIB as an MRT TABLE_DUMP_V2 file: `path`, else the configured mrt.dump.path. */
  dumpRib(path?: string): Promise<MrtDumpResult>;
  /** An MRT file's routes originated as `name` (the `mrt` origin), replacing what `name` held. */
  injectMrt(name: string, path: string): Promise<MrtInjectionView>;
  withdrawMrt(name: string): Promise<MrtInjectionView>;
  mrtInjections(): MrtInjectionView[];
}

/** A finished Loc-RIB dump. */
export interface MrtDumpResult {
  readonly path: string;
  /** RIB records written: one per prefix, its best path. */
  readonly prefixes: number;
  /** Entries of the PEER_INDEX_TABLE. */
  readonly peers: number;
  readonly bytes: number;
}

/** An injected MRT file. */
export interface MrtInjectionView {
  readonly name: string;
  readonly path: string;
  readonly ipv4: number;
  readonly ipv6: number;
  readonly records: number;
  /** Records not read as routes (other types, multicast, messages other than UPDATE). */
  readonly skipped: number;
  /** Routes whose attributes RFC 7606 turned into withdrawals. */
  readonly invalid: number;
  /** Milliseconds the file took to read and originate. */
  readonly ms: number;
}

/**
 * The control socket's methods: their params and results, one line of JSON each way.
 * `neighbors` without a peer lists every neighbor.
 */
export interface ControlMethods {
  readonly summary: { readonly params: Record<string, never>; readonly result: SummaryView };
  readonly neighbors: { readonly params: { readonly peer?: string }; readonly result: NeighborDetail[] };
  readonly rib: { readonly params: RibQuery; readonly result: RibEntryView[] };
  readonly advertised: {
    readonly params: RibQuery & { readonly peer: string };
    readonly result: RibEntryView[];
  };
  readonly received: {
    readonly params: RibQuery & { readonly peer: string };
    readonly result: RibEntryView[];
  };
  readonly 'neighbor.reset': {
    readonly params: { readonly peer: string };
    readonly result: NeighborActionResult;
  };
  readonly 'neighbor.shutdown': {
    readonly params: { readonly peer: string; readonly message?: string };
    readonly result: NeighborActionResult;
  };
  readonly 'neighbor.enable': {
    readonly params: { readonly peer: string };
    readonly result: NeighborActionResult;
  };
  readonly 'neighbor.refresh': {
    readonly params: { readonly peer: string };
    readonly result: NeighborActionResult;
  };
  readonly sinks: { readonly params: Record<string, never>; readonly result: SinkView[] };
  readonly ovn: { readonly params: Record<string, never>; readonly result: OvnView | null };
  readonly bmp: { readonly params: Record<string, never>; readonly result: BmpView };
  readonly version: { readonly params: Record<string, never>; readonly result: ApiVersionView };
  readonly 'route.announce': {
    readonly params: { readonly route: unknown };
    readonly result: RouteActionResult;
  };
  readonly 'route.withdraw': {
    readonly params: { readonly prefix: string };
    readonly result: RouteActionResult;
  };
  readonly routes: { readonly params: Record<string, never>; readonly result: ApiRouteView[] };
  readonly 'peer.add': { readonly params: { readonly peer: unknown }; readonly result: PeerEditResult };
  readonly 'peer.change': { readonly params: { readonly peer: unknown }; readonly result: PeerEditResult };
  readonly 'peer.remove': { readonly params: { readonly peer: string }; readonly result: PeerEditResult };
  readonly 'mrt.dump': { readonly params: { readonly path?: string }; readonly result: MrtDumpResult };
  readonly 'mrt.inject': {
    readonly params: { readonly name: string; readonly path: string };
    readonly result: MrtInjectionView;
  };
  readonly 'mrt.withdraw': { readonly params: { readonly name: string }; readonly result: MrtInjectionView };
  readonly 'mrt.list': { readonly params: Record<string, never>; readonly result: MrtInjectionView[] };
  /** A stream: this result, then one `{"id", "event"}` line per WatchEvent until either side closes. */
  readonly watch: {
    readonly params: { readonly topics?: readonly WatchTopic[] };
    readonly result: { readonly api: number; readonly topics: readonly WatchTopic[] };
  };
}

export interface ApiVersionView {
  /** Bumped when a method or a result changes incompatibly; additions keep it. */
  readonly api: number;
  readonly methods: readonly string[];
}
export type ControlMethod = keyof ControlMethods;
export type ControlParams<M extends ControlMethod> = ControlMethods[M]['params'];
export type ControlResult<M extends ControlMethod> = ControlMethods[M]['result'];

export type ControlErrorCode =
  | 'unknown-peer'
  | 'unknown-route'
  | 'bad-request'
  | 'not-established'
  | 'unsupported'
  | 'internal'
  | 'timeout'
  /** Every connection slot of the control socket is held: try again shortly. */
  | 'busy';

/** Errors the API returns with a stable code, e.g. an unknown peer name. */
export class ControlError extends KindedError<ControlErrorCode> {
  /** The code the API answers with; the same as `kind`. */
  get code(): ControlErrorCode {
    return this.kind;
  }
  constructor(code: ControlErrorCode, message: string) {
    super(code, message);
  }
}
