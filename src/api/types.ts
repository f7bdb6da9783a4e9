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
  readonly remoteAs: number;
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
}

export interface NeighborDetail extends NeighborSummary {
  readonly localAs: number;
  readonly localAddress?: string;
  readonly ebgp: boolean;
  readonly remoteRouterId?: string;
  readonly holdTime?: number;
  readonly keepaliveTime?: number;
  /** Negotiated families and capabilities, names as in the OPEN codec. */
  readonly families: readonly FamilyName[];
  readonly capabilities: readonly string[];
  readonly establishedTransitions: number;
  readonly lastNotification?: NotificationView;
  readonly lastError?: string;
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
  /** floating-ip, tenant-network, lb-vip, provider-port, pod-subnet, service-vip. */
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
  readonly nb: string;
  readonly sb: string;
  readonly routes: readonly OvnRouteView[];
  readonly problems: readonly OvnProblemView[];
  /** Routes per kind. */
  readonly counts: Readonly<Record<string, number>>;
  /** Milliseconds the last derivation took. */
  readonly lastDerivationMs?: number;
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
}
export type ControlMethod = keyof ControlMethods;
export type ControlParams<M extends ControlMethod> = ControlMethods[M]['params'];
export type ControlResult<M extends ControlMethod> = ControlMethods[M]['result'];

export type ControlErrorCode = 'unknown-peer' | 'bad-request' | 'not-established' | 'internal' | 'timeout';

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
