import { BfdDefaults } from '../bfd/index.js';
import { versionOf } from './addresses.js';
import { FAMILIES, type FamilyName, type IpVersion, ListenDefaults, MaxPrefixDefaults } from './constants.js';
import type { Context } from './decoders.js';
import { type Path, problem } from './problem.js';
import { resolveAuth, type SecretFiles } from './resolve-auth.js';
import { BUILTIN_POLICY_NAMES } from './resolve-policy.js';
import { resolveTimers, type Timers } from './resolve-timers.js';
import type { BfdConfig, PeerConfig, RemoteAs } from './schema.js';
import type { RawBfdTimers, RawPeer } from './sections.js';

/** What checking a peer needs from the rest of the configuration. */
export interface PeerScope {
  readonly ctx: Context;
  readonly files: SecretFiles;
  readonly localAs: number | undefined;
  readonly ipVersions: readonly IpVersion[];
  readonly timers: Timers;
  readonly policyNames: ReadonlySet<string>;
  readonly bfdProfiles: ReadonlyMap<string, RawBfdTimers>;
}

/**
 * A peer's (or a template's) `bfd`, its profile looked up and defaults applied (FRR's 300 ms,
 * 300 ms, 3); null when the profile is not defined (the problem says so).
 */
export function resolveBfd(
  raw: Pick<RawPeer, 'bfd'>,
  path: Path,
  scope: PeerScope,
): BfdConfig | undefined | null {
  const b = raw.bfd;
  if (b === undefined || b.kind === 'off') return undefined;
  let timers: RawBfdTimers = {};
  let profile: string | undefined;
  if (b.kind === 'profile') {
    const found = scope.bfdProfiles.get(b.profile);
    if (!found) {
      const known = [...scope.bfdProfiles.keys()];
      const defined = known.length === 0 ? 'bfd_profiles defines none' : `defined: ${known.join(', ')}`;
      scope.ctx.problems.push(
        problem(
          [...path, 'bfd'],
          `no BFD profile named ${JSON.stringify(b.profile)} (${defined})`,
          b.profile,
        ),
      );
      return null;
    }
    timers = found;
    profile = b.profile;
  } else if (b.kind === 'timers') {
    timers = b.timers;
  }
  return {
    minRx: timers.minRx ?? BfdDefaults.minRxMs,
    minTx: timers.minTx ?? BfdDefaults.minTxMs,
    multiplier: timers.multiplier ?? BfdDefaults.multiplier,
    profile,
  };
}

function familyOf(address: string): FamilyName {
  return versionOf(address) === 4 ? 'ipv4-unicast' : 'ipv6-unicast';
}

function resolveFamilies(raw: RawPeer, path: Path, scope: PeerScope): readonly FamilyName[] | undefined {
  const versions = `[${scope.ipVersions.join(', ')}]`;
  if (raw.families === undefined) {
    if (raw.interface !== undefined && raw.peerIp === undefined) {
      // An unnumbered link carries both families over its IPv6 session (RFC 8950 for IPv4).
      const both: FamilyName[] = ['ipv4-unicast', 'ipv6-unicast'];
      return both.filter((f) => scope.ipVersions.includes(FAMILIES[f].ipVersion));
    }
    if (raw.peerIp === undefined) return undefined;
    const family = familyOf(raw.peerIp);
    if (!scope.ipVersions.includes(FAMILIES[family].ipVersion)) {
      scope.ctx.problems.push(
        problem(
          [...path, 'families'],
          `defaults to ${family} (the family of peer_ip), which speaker.ip_versions ${versions} leaves out; list the families`,
        ),
      );
      return undefined;
    }
    return [family];
  }
  let ok = true;
  raw.families.forEach((f, i) => {
    if (!scope.ipVersions.includes(FAMILIES[f].ipVersion)) {
      scope.ctx.problems.push(
        problem(
          [...path, 'families', i],
          `${f} needs ${FAMILIES[f].ipVersion} in speaker.ip_versions ${versions}`,
          f,
        ),
      );
      ok = false;
    }
  });
  return ok ? raw.families : undefined;
}

/** RFC 8950 here means IPv4 routes over an IPv6 session: an IPv6 peer_ip and ipv4-unicast negotiated. */
function checkExtendedNextHop(
  raw: RawPeer,
  families: readonly FamilyName[] | undefined,
  path: Path,
  scope: PeerScope,
): void {
  if (raw.extendedNextHop !== true) return;
  const at = [...path, 'extended_next_hop'];
  if (raw.peerIp !== undefined && versionOf(raw.peerIp) === 4) {
    scope.ctx.problems.push(problem(at, `applies to IPv6 sessions; peer_ip ${raw.peerIp} is IPv4`, true));
  }
  if (families !== undefined && !families.includes('ipv4-unicast')) {
    scope.ctx.problems.push(
      problem(at, `needs ipv4-unicast in families (families is [${families.join(', ')}])`, true),
    );
  }
}

export function checkPolicyNames(names: readonly string[] | undefined, path: Path, scope: PeerScope): void {
  names?.forEach((n, i) => {
    if (scope.policyNames.has(n)) return;
    const own = [...scope.policyNames].filter((p) => !BUILTIN_POLICY_NAMES.includes(p));
    const builtIn = `built in: ${BUILTIN_POLICY_NAMES.join(', ')}`;
    const defined =
      own.length === 0 ? `no policies are defined; ${builtIn}` : `defined: ${own.join(', ')}; ${builtIn}`;
    scope.ctx.problems.push(problem([...path, i], `no policy named ${JSON.stringify(n)} (${defined})`, n));
  });
}

/** Settings a peer and a template share, with the rules on them. */
type SessionSettings = Pick<
  RawPeer,
  | 'ebgpMultihop'
  | 'ttlSecurity'
  | 'routeReflectorClient'
  | 'nextHopSelf'
  | 'nextHopUnchanged'
  | 'import'
  | 'export'
>;

/** How the problems name what they are about: a peer, or a template and the peers made from it. */
export interface SettingsOwner {
  readonly noun: 'peer' | 'template';
  readonly peers: string;
}
export const PEER: SettingsOwner = { noun: 'peer', peers: 'it' };

/** The rules on session settings that need no address: a peer's and a template's alike. */
export function checkSessionRules(
  raw: SessionSettings,
  type: 'ebgp' | 'ibgp' | undefined,
  path: Path,
  scope: PeerScope,
  owner: SettingsOwner,
): void {
  const { ctx } = scope;
  const at = (key: string) => [...path, key];
  if (raw.ebgpMultihop !== undefined && raw.ttlSecurity !== undefined) {
    ctx.problems.push(problem(at('ttl_security'), 'cannot be combined with ebgp_multihop', raw.ttlSecurity));
  }
  if (type === 'ibgp' && raw.ebgpMultihop !== undefined) {
    ctx.problems.push(
      problem(
        at('ebgp_multihop'),
        `applies to eBGP peers only; this ${owner.noun} is iBGP`,
        raw.ebgpMultihop,
      ),
    );
  }
  if (type === 'ebgp' && raw.routeReflectorClient === true) {
    ctx.problems.push(
      problem(
        at('route_reflector_client'),
        `route reflection (RFC 4456) is for iBGP peers; this ${owner.noun} is eBGP`,
        true,
      ),
    );
  }
  if (raw.nextHopSelf === true && raw.nextHopUnchanged === true) {
    ctx.problems.push(
      problem(
        at('next_hop_unchanged'),
        "contradicts next_hop_self: true (our address, or the route's own next hop; choose one)",
        true,
      ),
    );
  }
}

/** Policy names that exist; RFC 8212: without policies an eBGP session exchanges nothing (legal, rarely meant). */
export function checkPolicies(
  raw: SessionSettings,
  type: 'ebgp' | 'ibgp' | undefined,
  path: Path,
  scope: PeerScope,
  owner: SettingsOwner,
): void {
  const at = (key: string) => [...path, key];
  checkPolicyNames(raw.import, at('import'), scope);
  checkPolicyNames(raw.export, at('export'), scope);
  if (type !== 'ebgp') return;
  if ((raw.import ?? []).length === 0) {
    scope.ctx.warnings.push(
      problem(
        at('import'),
        `eBGP ${owner.noun} without import policy: no routes are accepted from ${owner.peers} (RFC 8212)`,
      ),
    );
  }
  if ((raw.export ?? []).length === 0) {
    scope.ctx.warnings.push(
      problem(
        at('export'),
        `eBGP ${owner.noun} without export policy: no routes are sent to ${owner.peers} (RFC 8212)`,
      ),
    );
  }
}

/** A peer is found by its address or by its link (BGP unnumbered): one of the two, never both. */
function checkPeerAddress(raw: RawPeer, path: Path, ctx: Context): boolean {
  if (raw.peerIp !== undefined && raw.interface !== undefined) {
    ctx.problems.push(
      problem(
        [...path, 'interface'],
        `cannot be combined with peer_ip ${raw.peerIp}: a peer is found by its address or on its link`,
        raw.interface,
      ),
    );
    return false;
  }
  if (raw.peerIp === undefined && raw.interface === undefined) {
    // A bad peer_ip or interface has its own problem already.
    const said = ctx.problems.some(
      (p) =>
        p.segments.length === 3 &&
        p.segments[0] === path[0] &&
        p.segments[1] === path[1] &&
        (p.segments[2] === 'peer_ip' || p.segments[2] === 'interface'),
    );
    if (!said)
      ctx.problems.push(
        problem([...path, 'peer_ip'], 'is required (or interface, for a peer found on its link)'),
      );
    return false;
  }
  if (raw.interface !== undefined && raw.localAddress !== undefined) {
    ctx.problems.push(
      problem(
        [...path, 'local_address'],
        `${raw.localAddress} cannot be set for a peer on interface ${raw.interface}: the session runs between link-local addresses`,
        raw.localAddress,
      ),
    );
    return false;
  }
  return true;
}

/** What a remote AS makes a session: external and internal say it; a number is compared with ours. */
export function peerType(remoteAs: RemoteAs, localAs: number | undefined): 'ebgp' | 'ibgp' | undefined {
  if (remoteAs === 'external') return 'ebgp';
  if (remoteAs === 'internal') return 'ibgp';
  if (localAs === undefined) return undefined;
  return remoteAs === localAs ? 'ibgp' : 'ebgp';
}

export function resolvePeer(raw: RawPeer, index: number, scope: PeerScope): PeerConfig | undefined {
  const { ctx } = scope;
  const path = ['peers', index];
  const at = (key: string) => [...path, key];
  const addressOk = checkPeerAddress(raw, path, ctx);
  const timers = resolveTimers(raw, scope.timers, path, ctx);
  const auth = resolveAuth(raw, path, ctx, scope.files);
  const families = resolveFamilies(raw, path, scope);
  const type = raw.remoteAs === undefined ? undefined : peerType(raw.remoteAs, scope.localAs);
  if (type !== undefined && raw.type !== undefined && raw.type !== type) {
    const why =
      typeof raw.remoteAs !== 'number'
        ? `remote_as ${raw.remoteAs} makes it ${type}`
        : type === 'ibgp'
          ? `remote_as ${raw.remoteAs} equals speaker.local_as`
          : `remote_as ${raw.remoteAs} differs from speaker.local_as ${scope.localAs}`;
    ctx.problems.push(problem(at('type'), `is ${raw.type}, but ${why}`, raw.type));
  }
  if (
    raw.localAddress !== undefined &&
    raw.peerIp !== undefined &&
    versionOf(raw.localAddress) !== versionOf(raw.peerIp)
  ) {
    ctx.problems.push(
      problem(
        at('local_address'),
        `${raw.localAddress} is not IPv${versionOf(raw.peerIp)} like peer_ip ${raw.peerIp}`,
        raw.localAddress,
      ),
    );
  }
  checkSessionRules(raw, type, path, scope, PEER);
  checkExtendedNextHop(raw, families, path, scope);
  const bfd = resolveBfd(raw, path, scope);
  checkPolicies(raw, type, path, scope, PEER);
  const peerIp = raw.peerIp ?? raw.interface;
  if (raw.name === undefined || peerIp === undefined || raw.remoteAs === undefined || !addressOk)
    return undefined;
  if (type === undefined || auth === undefined || families === undefined || bfd === null) return undefined;
  const mp = raw.maxPrefixes;
  const unnumbered = raw.interface !== undefined;
  return {
    name: raw.name,
    description: raw.description,
    peerIp,
    interface: raw.interface,
    port: raw.port ?? ListenDefaults.port,
    remoteAs: raw.remoteAs,
    type,
    auth,
    ...timers,
    passive: raw.passive ?? false,
    shutdown: raw.shutdown ?? false,
    families,
    localAddress: raw.localAddress,
    ebgpMultihop: raw.ebgpMultihop,
    ttlSecurity: raw.ttlSecurity,
    addPath: addPathOf(raw.addPath?.receive, raw.addPath?.send),
    routeReflectorClient: raw.routeReflectorClient ?? false,
    nextHopSelf: raw.nextHopSelf ?? false,
    nextHopUnchanged: raw.nextHopUnchanged ?? false,
    extendedMessage: raw.extendedMessage ?? false,
    longLivedStaleTime: raw.longLivedStaleTime,
    // As FRR for `neighbor IF interface`: IPv4 routes need an IPv6 next hop on such a link.
    extendedNextHop: raw.extendedNextHop ?? (unnumbered && families.includes('ipv4-unicast')),
    enhancedRouteRefresh: raw.enhancedRouteRefresh ?? false,
    maxPrefixes:
      mp?.limit === undefined
        ? undefined
        : {
            limit: mp.limit,
            warningOnly: mp.warningOnly ?? false,
            warningThreshold: mp.warningThreshold ?? MaxPrefixDefaults.warningThreshold,
            restartAfter: mp.restartAfter ?? MaxPrefixDefaults.restartAfter,
          },
    bfd,
    import: raw.import ?? [],
    export: raw.export ?? [],
  };
}

/** Names and addresses identify peers (incoming connections are matched by address). */
export function checkDuplicatePeers(raw: readonly RawPeer[], ctx: Context): void {
  const names = new Map<string, number>();
  const addresses = new Map<string, number>();
  const links = new Map<string, number>();
  raw.forEach((p, i) => {
    if (p.interface !== undefined) {
      const first = links.get(p.interface);
      if (first === undefined) links.set(p.interface, i);
      else
        ctx.problems.push(
          problem(
            ['peers', i, 'interface'],
            `${p.interface} is already the interface of peers[${first}]`,
            p.interface,
          ),
        );
    }
    if (p.name !== undefined) {
      const first = names.get(p.name);
      if (first === undefined) names.set(p.name, i);
      else
        ctx.problems.push(
          problem(
            ['peers', i, 'name'],
            `${JSON.stringify(p.name)} is already the name of peers[${first}]`,
            p.name,
          ),
        );
    }
    if (p.peerIp !== undefined) {
      const first = addresses.get(p.peerIp);
      if (first === undefined) addresses.set(p.peerIp, i);
      else
        ctx.problems.push(
          problem(['peers', i, 'peer_ip'], `${p.peerIp} is already the address of peers[${first}]`, p.peerIp),
        );
    }
  });
}

/** `add_path.send: true` sends every path; false (or absent) none. */
function addPathOf(receive: boolean | undefined, send: boolean | number | 'all' | 'ecmp' | undefined) {
  const sendPaths = send === true ? 'all' : send === false || send === undefined ? undefined : send;
  const base = { receive: receive ?? false, send: sendPaths !== undefined };
  return sendPaths === undefined ? base : { ...base, sendPaths };
}
