import { formatPrefix } from './addresses.js';
import { HIDDEN } from './problem.js';
import type { Config, PeerConfig, PolicyConfig, SpeakerConfig, StaticRoute } from './schema.js';

/**
 * What applying a changed setting takes, weakest first:
 * - none: nothing to do (names, descriptions, defaults that reach peers through their own values);
 * - live: applied at once, no session touched (log level, listener, max-prefix limit);
 * - next-session: used from the next session on (timers, passive, graceful restart);
 * - soft-in: received routes go through the import policy again (RFC 2918 ROUTE-REFRESH or
 *   the stored Adj-RIB-In); the session stays up;
 * - soft-out: sent routes go through the export policy again and changes are sent;
 * - reset: the session is closed (RFC 4486 Cease, Other Configuration Change) and reopened;
 * - restart: the speaker's identity changed (local_as, router_id): every session must be reset
 *   and a peer may see us as a different router, so the speaker should refuse it live.
 */
export type Effect = 'none' | 'live' | 'next-session' | 'soft-in' | 'soft-out' | 'reset' | 'restart';

export interface FieldChange {
  /** The key as the file spells it: "hold_time", "speaker.router_id", "policies.tor-in". */
  readonly field: string;
  readonly before: unknown;
  readonly after: unknown;
  readonly effect: Effect;
}

export interface PeerChange {
  readonly name: string;
  readonly before: PeerConfig;
  readonly after: PeerConfig;
  /** The peer's own settings that changed. */
  readonly changes: readonly FieldChange[];
  /** Policies of its chains whose definition (or a list they use) changed. */
  readonly policies: { readonly import: readonly string[]; readonly export: readonly string[] };
  /** Close and reopen the session. Implies nothing else needs doing. */
  readonly reset: boolean;
  /** `shutdown` became true: close the session (Cease, Administrative Shutdown) and stay down. */
  readonly stop: boolean;
  /** `shutdown` became false: start the session. */
  readonly start: boolean;
  readonly softIn: boolean;
  readonly softOut: boolean;
}

export interface RouteChange {
  readonly before: StaticRoute;
  readonly after: StaticRoute;
}

/**
 * How to go from one configuration to the next without disturbing what did not change.
 * Apply removals first (an address may move from a removed peer to an added one).
 */
export interface ReloadPlan {
  /** True when nothing differs. */
  readonly empty: boolean;
  /** A speaker change with effect 'restart' is present. */
  readonly restartRequired: boolean;
  readonly speaker: readonly FieldChange[];
  readonly peers: {
    readonly added: readonly PeerConfig[];
    readonly removed: readonly PeerConfig[];
    readonly changed: readonly PeerChange[];
  };
  readonly routes: {
    readonly added: readonly StaticRoute[];
    readonly removed: readonly StaticRoute[];
    readonly changed: readonly RouteChange[];
  };
  /** Policy names whose definition, or a list they use, changed; added and removed ones. */
  readonly policies: {
    readonly added: readonly string[];
    readonly removed: readonly string[];
    readonly changed: readonly string[];
  };
  /** OVN changes: reconnect the OVSDB clients and derive the routes again. */
  readonly ovn: readonly FieldChange[];
  /** OVN route table changes: the tables are followed anew (routes that stay are not withdrawn). */
  readonly ovnRouteTables: readonly FieldChange[];
  /** Sink changes: the changed sinks are rebuilt and reconciled. */
  readonly sinks: readonly FieldChange[];
  /** BMP changes: the collectors are connected anew and get the state afresh. */
  readonly bmp: readonly FieldChange[];
  /**
   * listen_ranges and peer_templates changes: the listener's ranges follow, and each live
   * dynamic neighbour takes its template's change as the equivalent peer change would.
   */
  readonly dynamic: readonly FieldChange[];
  /** MRT changes: the dump timer and the recording begin anew. */
  readonly mrt: readonly FieldChange[];
}

/** Every field has its effect here; the Record type makes a new field fail to compile until it does. */
const SPEAKER_EFFECTS: Readonly<Record<keyof SpeakerConfig, Effect>> = {
  name: 'live',
  localAs: 'restart',
  routerId: 'restart',
  ipVersions: 'live',
  listen: 'live',
  holdTime: 'none',
  keepaliveTime: 'none',
  connectRetry: 'none',
  idleHoldTime: 'none',
  maxIdleHoldTime: 'none',
  idleHoldResetTime: 'none',
  gracefulRestart: 'next-session',
  // The Loc-RIB chooses with these options from its first path on.
  bestpath: 'restart',
  controlSocket: 'live',
  metrics: 'live',
  // Read by each probe and each tick of the loop monitor.
  health: 'live',
  log: 'live',
  // Done once when the process starts; a reload has nothing to apply.
  warmUp: 'none',
};

/** As FRR: what the OPEN or the TCP connection carries needs a reset; policy needs a refresh. */
const PEER_EFFECTS: Readonly<Record<keyof PeerConfig, Effect>> = {
  name: 'none',
  description: 'none',
  peerIp: 'reset',
  interface: 'reset',
  port: 'reset',
  remoteAs: 'reset',
  type: 'reset',
  // Which range and template a dynamic neighbour came from: what show prints of it.
  dynamic: 'none',
  auth: 'reset',
  holdTime: 'next-session',
  keepaliveTime: 'next-session',
  connectRetry: 'next-session',
  idleHoldTime: 'next-session',
  maxIdleHoldTime: 'next-session',
  idleHoldResetTime: 'next-session',
  passive: 'next-session',
  shutdown: 'reset',
  families: 'reset',
  localAddress: 'reset',
  ebgpMultihop: 'reset',
  ttlSecurity: 'reset',
  addPath: 'reset',
  routeReflectorClient: 'reset',
  nextHopSelf: 'soft-out',
  nextHopUnchanged: 'soft-out',
  extendedMessage: 'reset',
  longLivedStaleTime: 'next-session',
  extendedNextHop: 'reset',
  enhancedRouteRefresh: 'reset',
  maxPrefixes: 'live',
  // The BFD session changes (or comes, or goes) beside the BGP session (RFC 5880 6.8.3 Poll).
  bfd: 'live',
  import: 'soft-in',
  export: 'soft-out',
};

/** The validated configuration is plain data built in schema order, so its JSON compares it (maps as entry lists). */
function same(a: unknown, b: unknown): boolean {
  return JSON.stringify(a, mapsAsEntries) === JSON.stringify(b, mapsAsEntries);
}

function mapsAsEntries(_key: string, value: unknown): unknown {
  return value instanceof Map ? [...value.entries()] : value;
}

function snake(key: string): string {
  return key.replace(/[A-Z]/g, (c) => `_${c.toLowerCase()}`);
}

/** Passwords never travel in a plan (plans are logged). */
function shown(field: string, value: unknown): unknown {
  if (field !== 'auth' || typeof value !== 'object' || value === null) return value;
  return 'password' in value ? { ...value, password: HIDDEN } : value;
}

function fieldChanges<T extends object>(
  before: T,
  after: T,
  effects: Readonly<Record<keyof T, Effect>>,
  prefix: string,
): FieldChange[] {
  const out: FieldChange[] = [];
  for (const key of Object.keys(effects) as (keyof T & string)[]) {
    if (same(before[key], after[key])) continue;
    out.push({
      field: `${prefix}${snake(key)}`,
      before: shown(key, before[key]),
      after: shown(key, after[key]),
      effect: effects[key],
    });
  }
  return out;
}

/** A policy's definition together with the lists it names, so a changed list changes the policy. */
function policyFingerprints(p: PolicyConfig): Map<string, string> {
  const byName = <T extends { name: string }>(lists: readonly T[]) => new Map(lists.map((l) => [l.name, l]));
  const prefix = byName(p.prefixLists);
  const community = byName(p.communityLists);
  const large = byName(p.largeCommunityLists);
  const ext = byName(p.extendedCommunityLists);
  const asPath = byName(p.asPathLists);
  const out = new Map<string, string>();
  for (const policy of p.policies) {
    const refs = policy.statements.map((s) => [
      s.match?.prefixList && prefix.get(s.match.prefixList),
      s.match?.nextHop && prefix.get(s.match.nextHop),
      s.match?.communityList && community.get(s.match.communityList),
      s.match?.largeCommunityList && large.get(s.match.largeCommunityList),
      s.match?.asPath && asPath.get(s.match.asPath),
      s.set?.communities?.deleteList && community.get(s.set.communities.deleteList),
      s.set?.largeCommunities?.deleteList && large.get(s.set.largeCommunities.deleteList),
      s.match?.extendedCommunityList && ext.get(s.match.extendedCommunityList),
      s.set?.extendedCommunities?.deleteList && ext.get(s.set.extendedCommunities.deleteList),
    ]);
    out.set(policy.name, JSON.stringify([policy, refs]));
  }
  return out;
}

function planPolicies(before: PolicyConfig, after: PolicyConfig): ReloadPlan['policies'] {
  const old = policyFingerprints(before);
  const now = policyFingerprints(after);
  return {
    added: [...now.keys()].filter((n) => !old.has(n)),
    removed: [...old.keys()].filter((n) => !now.has(n)),
    changed: [...now.keys()].filter((n) => old.has(n) && old.get(n) !== now.get(n)),
  };
}

/**
 * What changes for one peer (or one live dynamic neighbour, its settings from the old and the
 * new template); undefined when nothing does.
 */
export function planPeerChange(
  before: PeerConfig,
  after: PeerConfig,
  changedPolicies: ReadonlySet<string>,
): PeerChange | undefined {
  const changes = fieldChanges(before, after, PEER_EFFECTS, '');
  // A policy the peer keeps using may itself have changed: refresh without touching the session.
  const policyChanged = (dir: 'import' | 'export') =>
    after[dir].filter((n) => changedPolicies.has(n) && before[dir].includes(n));
  const policies = { import: policyChanged('import'), export: policyChanged('export') };
  if (changes.length === 0 && policies.import.length === 0 && policies.export.length === 0) return undefined;
  const stop = !before.shutdown && after.shutdown;
  const start = before.shutdown && !after.shutdown;
  const reset = !stop && !start && !after.shutdown && changes.some((c) => c.effect === 'reset');
  const live = !reset && !stop && !start && !after.shutdown;
  return {
    name: after.name,
    before,
    after,
    changes,
    policies,
    reset,
    stop,
    start,
    softIn: live && (policies.import.length > 0 || changes.some((c) => c.effect === 'soft-in')),
    softOut: live && (policies.export.length > 0 || changes.some((c) => c.effect === 'soft-out')),
  };
}

function planRoutes(before: readonly StaticRoute[], after: readonly StaticRoute[]): ReloadPlan['routes'] {
  const old = new Map(before.map((r) => [formatPrefix(r.prefix), r]));
  const now = new Map(after.map((r) => [formatPrefix(r.prefix), r]));
  const changed: RouteChange[] = [];
  for (const [key, r] of now) {
    const was = old.get(key);
    if (was !== undefined && !same(was, r)) changed.push({ before: was, after: r });
  }
  return {
    added: after.filter((r) => !old.has(formatPrefix(r.prefix))),
    removed: before.filter((r) => !now.has(formatPrefix(r.prefix))),
    changed,
  };
}

/** The plan for a reload from `before` to `after`. Pure. */
export function planReload(before: Config, after: Config): ReloadPlan {
  const speaker = fieldChanges(before.speaker, after.speaker, SPEAKER_EFFECTS, 'speaker.');
  const policies = planPolicies(before.policy, after.policy);
  const changedPolicies = new Set(policies.changed);
  const oldPeers = new Map(before.peers.map((p) => [p.name, p]));
  const newNames = new Set(after.peers.map((p) => p.name));
  const changed: PeerChange[] = [];
  for (const p of after.peers) {
    const was = oldPeers.get(p.name);
    const change = was && planPeerChange(was, p, changedPolicies);
    if (change) changed.push(change);
  }
  const peers = {
    added: after.peers.filter((p) => !oldPeers.has(p.name)),
    removed: before.peers.filter((p) => !newNames.has(p.name)),
    changed,
  };
  const routes = planRoutes(before.routes, after.routes);
  const ovn = same(before.ovn, after.ovn)
    ? []
    : [{ field: 'ovn', before: before.ovn, after: after.ovn, effect: 'live' as const }];
  const ovnRouteTables = same(before.ovnRouteTables, after.ovnRouteTables)
    ? []
    : [
        {
          field: 'ovn_route_tables',
          before: before.ovnRouteTables,
          after: after.ovnRouteTables,
          effect: 'live' as const,
        },
      ];
  const sinks = (['kernel', 'zebra', 'ovnNb'] as const)
    .filter((k) => !same(before.sinks[k], after.sinks[k]))
    .map((k) => ({
      field: `sinks.${k}`,
      before: before.sinks[k],
      after: after.sinks[k],
      effect: 'live' as const,
    }));
  const bmp = same(before.bmp, after.bmp)
    ? []
    : [{ field: 'bmp', before: before.bmp, after: after.bmp, effect: 'live' as const }];
  const dynamic = [
    ...(same(before.listenRanges, after.listenRanges)
      ? []
      : [
          {
            field: 'listen_ranges',
            before: before.listenRanges,
            after: after.listenRanges,
            effect: 'live' as const,
          },
        ]),
    ...templateChanges(before, after),
  ];
  const mrt = same(before.mrt, after.mrt)
    ? []
    : [{ field: 'mrt', before: before.mrt, after: after.mrt, effect: 'live' as const }];
  const empty =
    dynamic.length === 0 &&
    mrt.length === 0 &&
    speaker.length === 0 &&
    peers.added.length + peers.removed.length + peers.changed.length === 0 &&
    routes.added.length + routes.removed.length + routes.changed.length === 0 &&
    policies.added.length + policies.removed.length + policies.changed.length === 0 &&
    ovn.length === 0 &&
    ovnRouteTables.length === 0 &&
    sinks.length === 0 &&
    bmp.length === 0;
  return {
    empty,
    restartRequired: speaker.some((c) => c.effect === 'restart'),
    speaker,
    peers,
    routes,
    policies,
    ovn,
    ovnRouteTables,
    sinks,
    bmp,
    dynamic,
    mrt,
  };
}

/** One change per template added, removed or changed; passwords hidden as for peers. */
function templateChanges(before: Config, after: Config): FieldChange[] {
  const old = new Map(before.peerTemplates.map((t) => [t.name, t]));
  const now = new Map(after.peerTemplates.map((t) => [t.name, t]));
  const out: FieldChange[] = [];
  for (const name of new Set([...old.keys(), ...now.keys()])) {
    const [a, b] = [old.get(name), now.get(name)];
    if (same(a, b)) continue;
    const hide = (t: typeof a) => t && { ...t, auth: shown('auth', t.auth) };
    out.push({ field: `peer_templates.${name}`, before: hide(a), after: hide(b), effect: 'live' });
  }
  return out;
}

function show(value: unknown): string {
  return value === undefined ? '(unset)' : JSON.stringify(value);
}

/** The plan as log lines, one per change: "peer tor-a: hold_time 90 -> 9 (next-session)". */
export function describePlan(plan: ReloadPlan): string[] {
  const lines: string[] = [];
  const change = (c: FieldChange) => `${c.field} ${show(c.before)} -> ${show(c.after)} (${c.effect})`;
  for (const c of plan.speaker) lines.push(change(c));
  for (const p of plan.peers.removed) lines.push(`peer ${p.name} removed`);
  for (const p of plan.peers.added) lines.push(`peer ${p.name} added (${p.peerIp}, AS ${p.remoteAs})`);
  for (const p of plan.peers.changed) {
    const what = p.stop
      ? 'stop'
      : p.start
        ? 'start'
        : p.reset
          ? 'reset'
          : [p.softIn && 'soft-in', p.softOut && 'soft-out'].filter(Boolean).join(', ') ||
            'no session change';
    const details = [
      ...p.changes.map(change),
      ...[...p.policies.import, ...p.policies.export].map((n) => `policy ${n} changed`),
    ];
    lines.push(`peer ${p.name}: ${what}: ${details.join('; ')}`);
  }
  for (const r of plan.routes.removed) lines.push(`route ${formatPrefix(r.prefix)} withdrawn`);
  for (const r of plan.routes.added) lines.push(`route ${formatPrefix(r.prefix)} announced`);
  for (const r of plan.routes.changed)
    lines.push(`route ${formatPrefix(r.after.prefix)} re-announced with new attributes`);
  for (const [kind, names] of Object.entries(plan.policies)) {
    for (const n of names as readonly string[]) lines.push(`policy ${n} ${kind}`);
  }
  if (plan.ovn.length > 0) lines.push('ovn settings changed: reconnecting and deriving the routes again');
  if (plan.ovnRouteTables.length > 0) lines.push('ovn_route_tables changed: following the tables anew');
  for (const c of plan.sinks) lines.push(`${c.field} changed: rebuilding it`);
  if (plan.bmp.length > 0) lines.push('bmp changed: connecting to the collectors anew');
  for (const c of plan.dynamic)
    lines.push(`${c.field} changed: applied to the listener and the dynamic neighbours`);
  if (plan.mrt.length > 0) lines.push('mrt changed: dumping and recording as it now says');
  return lines;
}
