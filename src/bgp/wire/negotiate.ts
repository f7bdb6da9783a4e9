import type { AddPathModeCode, AfiSafi, Capability } from './capabilities.js';
import {
  AddPathMode,
  Afi,
  AS_TRANS,
  ErrorCode,
  GracefulRestartAfFlag,
  GracefulRestartFlag,
  KEEPALIVE_HOLD_TIME_RATIO,
  OpenSubcode,
  Safi,
} from './constants.js';
import { BgpError } from './errors.js';
import { capabilitiesOf, lastCapability, type OpenMessage } from './open.js';

/**
 * The peer AS our configuration expects: a number, or (FRR's `remote-as external` and
 * `remote-as internal`) any AS other than ours, or ours.
 */
export type ExpectedRemoteAs = number | 'external' | 'internal';

export interface NegotiateOptions {
  /** The peer AS from our configuration. */
  readonly expectedRemoteAs: ExpectedRemoteAs;
  readonly localAs: number;
  /** Defaults to whether `expectedRemoteAs` is another AS than `localAs` (external: yes, internal: no). */
  readonly ebgp?: boolean;
}

/** Whether a peer with this expected AS is external to `localAs`. */
export function isExternal(expected: ExpectedRemoteAs, localAs: number): boolean {
  if (expected === 'external') return true;
  if (expected === 'internal') return false;
  return expected !== localAs;
}

export interface AddPathNegotiated extends AfiSafi {
  /** We may send several paths: we said send, they said receive (RFC 7911 section 4). */
  readonly send: boolean;
  /** They may send several paths: we said receive, they said send. */
  readonly receive: boolean;
}

export interface ExtendedNextHopNegotiated extends AfiSafi {
  readonly nextHopAfi: number;
  /** The peer advertised it, so we may send such next hops (RFC 8950 section 3). */
  readonly send: boolean;
  /** We advertised it, so the peer may send them to us. */
  readonly receive: boolean;
}

export interface GracefulRestartFamilyNegotiated extends AfiSafi {
  readonly forwardingState: boolean;
}

export interface GracefulRestartNegotiated {
  /** R bit: the peer has restarted (RFC 4724 section 3). */
  readonly restartState: boolean;
  /** N bit: the peer supports graceful NOTIFICATION handling (RFC 8538). */
  readonly notification: boolean;
  /**
   * Both sides set the N bit (RFC 8538 section 2): a NOTIFICATION either way keeps the routes
   * like a lost connection does, unless it is a Cease / Hard Reset.
   */
  readonly notificationExchanged: boolean;
  readonly restartTime: number;
  readonly families: readonly GracefulRestartFamilyNegotiated[];
}

export interface LongLivedFamilyNegotiated extends AfiSafi {
  /** F bit of the peer's LLGR capability: its forwarding state survived (RFC 9494). */
  readonly forwardingState: boolean;
  /** The peer's Long-lived Stale Time for the family, in seconds. */
  readonly staleTime: number;
}

/** What both ends agreed on, as plain data for the session and the RIB. */
export interface Negotiated {
  readonly holdTime: number;
  readonly keepaliveTime: number;
  /** Both sent the 4-octet AS capability (RFC 6793): AS_PATH carries 4-octet ASes. */
  readonly as4: boolean;
  /** The peer's real AS. */
  readonly remoteAs: number;
  readonly remoteBgpId: number;
  readonly families: readonly AfiSafi[];
  /** Only families where at least one direction is enabled. */
  readonly addPath: readonly AddPathNegotiated[];
  /** Only triples where at least one direction is enabled. */
  readonly extendedNextHop: readonly ExtendedNextHopNegotiated[];
  /** Both advertised RFC 8654 Extended Message: messages up to 65535 octets. */
  readonly extendedMessage: boolean;
  /** The peer advertised Route Refresh, so we may send ROUTE-REFRESH (RFC 2918 section 4). */
  readonly routeRefresh: boolean;
  /** Both advertised Enhanced Route Refresh (RFC 7313): BoRR/EoRR and the 7/1 length error. */
  readonly enhancedRouteRefresh: boolean;
  /** The peer's graceful restart parameters when both sides advertised the capability. */
  readonly gracefulRestart: GracefulRestartNegotiated | null;
  /**
   * RFC 9494: the peer's long-lived stale times, when both sides advertised long-lived
   * graceful restart and graceful restart was agreed too; negotiated families only.
   */
  readonly longLivedGracefulRestart: { readonly families: readonly LongLivedFamilyNegotiated[] } | null;
  readonly fqdn: { readonly hostname: string; readonly domain: string } | null;
}

const IPV4_UNICAST: AfiSafi = { afi: Afi.IPV4, safi: Safi.UNICAST };
/** afi(16) and safi(up to 16 with RFC 8950) in one number, for set lookups. */
const familyKey = (f: AfiSafi): number => f.afi * 0x10000 + f.safi;

function badPeerAs(detail: string): BgpError {
  return new BgpError('open-bad-peer-as', ErrorCode.OPEN_MESSAGE, OpenSubcode.BAD_PEER_AS, undefined, detail);
}

/**
 * Checks the peer's OPEN against ours and our configuration, and intersects the capabilities.
 * Throws BgpError 2/2 (Bad Peer AS) or 2/3 (Bad BGP Identifier); capabilities themselves are
 * optional (RFC 5492), so a capability only one side has is simply not used.
 */
export function negotiate(local: OpenMessage, remote: OpenMessage, opts: NegotiateOptions): Negotiated {
  const localCaps = capabilitiesOf(local);
  const remoteCaps = capabilitiesOf(remote);
  const has = (caps: readonly Capability[], name: Capability['name']) => caps.some((c) => c.name === name);

  const remoteAs4 = lastCapability(remoteCaps, 'four-octet-as');
  const as4 = has(localCaps, 'four-octet-as') && remoteAs4 !== undefined;
  const remoteAs = checkRemoteAs(remote.myAs, remoteAs4?.as, as4, opts.expectedRemoteAs, opts.localAs);

  // RFC 6286 section 2.2: zero is caught by decodeOpen; for an internal peer an identifier equal
  // to ours is also Bad BGP Identifier.
  const ebgp = opts.ebgp ?? isExternal(opts.expectedRemoteAs, opts.localAs);
  if (!ebgp && remote.bgpId === local.bgpId) {
    throw new BgpError(
      'open-bad-bgp-identifier',
      ErrorCode.OPEN_MESSAGE,
      OpenSubcode.BAD_BGP_IDENTIFIER,
      undefined,
      'internal peer uses our BGP Identifier',
    );
  }

  // RFC 4271 section 4.2: the smaller Hold Time; keepalives at a third of it (section 4.4).
  const holdTime = Math.min(local.holdTime, remote.holdTime);
  const families = intersectFamilies(localCaps, remoteCaps);
  const both = (name: Capability['name']) => has(localCaps, name) && has(remoteCaps, name);
  const fqdn = lastCapability(remoteCaps, 'fqdn');

  return {
    holdTime,
    keepaliveTime: Math.floor(holdTime / KEEPALIVE_HOLD_TIME_RATIO),
    as4,
    remoteAs,
    remoteBgpId: remote.bgpId,
    families,
    addPath: negotiateAddPath(localCaps, remoteCaps, families),
    extendedNextHop: negotiateExtendedNextHop(localCaps, remoteCaps, families),
    // RFC 8654 section 4 lets each direction follow the other side's advertisement; like FRR we
    // use one limit, and only when both advertised it.
    extendedMessage: both('extended-message'),
    // RFC 2918 section 4: we may send ROUTE-REFRESH once the peer advertised the capability.
    routeRefresh: has(remoteCaps, 'route-refresh'),
    // RFC 7313 section 4: BoRR/EoRR once both advertised Enhanced Route Refresh.
    enhancedRouteRefresh: both('enhanced-route-refresh'),
    gracefulRestart: both('graceful-restart')
      ? negotiateGracefulRestart(localCaps, remoteCaps, families)
      : null,
    longLivedGracefulRestart:
      both('graceful-restart') && both('long-lived-graceful-restart')
        ? negotiateLongLived(remoteCaps, families)
        : null,
    fqdn: fqdn ? { hostname: fqdn.hostname, domain: fqdn.domain } : null,
  };
}

/** RFC 4271 section 6.2 (Bad Peer AS) with RFC 6793 and RFC 7607 applied. Returns the real AS. */
function checkRemoteAs(
  myAs: number,
  capAs: number | undefined,
  as4: boolean,
  expected: ExpectedRemoteAs,
  localAs: number,
): number {
  // RFC 7607 section 2: AS 0 in My AS or in the 4-octet AS capability is Bad Peer AS.
  if (myAs === 0 || capAs === 0) throw badPeerAs('AS 0 (RFC 7607)');
  if (capAs !== undefined) {
    // RFC 6793 section 3: AS_TRANS stands in for a 4-octet AS and is never a speaker's own AS,
    // and a speaker whose AS fits in 2 octets sends that AS in My AS. FRR enforces the same.
    if (capAs === AS_TRANS) throw badPeerAs('4-octet AS capability carries AS_TRANS');
    if (myAs !== AS_TRANS && myAs !== capAs) {
      throw badPeerAs(`My AS ${myAs} disagrees with the 4-octet AS capability ${capAs}`);
    }
  }
  const real = as4 && capAs !== undefined ? capAs : myAs;
  // RFC 4271 section 6.2: the AS in the OPEN must be the one configured; `external` takes any
  // AS but ours and `internal` only ours (FRR's remote-as external / internal, checked alike).
  if (expected === 'external') {
    if (real === localAs) throw badPeerAs(`peer AS ${real} is our own AS, configured external`);
  } else if (expected === 'internal') {
    if (real !== localAs) throw badPeerAs(`peer AS ${real} is not our AS ${localAs}, configured internal`);
  } else if (real !== expected) {
    throw badPeerAs(`peer AS ${real}, configured ${expected}`);
  }
  return real;
}

/** RFC 4760 section 8: without any multiprotocol capability a speaker does IPv4 unicast only. */
function advertisedFamilies(caps: readonly Capability[]): AfiSafi[] {
  const out: AfiSafi[] = [];
  const seen = new Set<number>();
  for (const c of caps) {
    if (c.name !== 'multiprotocol' || seen.has(familyKey(c))) continue;
    seen.add(familyKey(c));
    out.push({ afi: c.afi, safi: c.safi });
  }
  return out.length > 0 ? out : [IPV4_UNICAST];
}

function intersectFamilies(localCaps: readonly Capability[], remoteCaps: readonly Capability[]): AfiSafi[] {
  const remote = new Set(advertisedFamilies(remoteCaps).map(familyKey));
  return advertisedFamilies(localCaps).filter((f) => remote.has(familyKey(f)));
}

/** Send/Receive per family across every add-path capability; a later entry replaces an earlier one. */
function addPathModes(caps: readonly Capability[]): Map<number, AddPathModeCode> {
  const modes = new Map<number, AddPathModeCode>();
  for (const c of caps) {
    if (c.name === 'add-path') for (const f of c.families) modes.set(familyKey(f), f.mode);
  }
  return modes;
}

function negotiateAddPath(
  localCaps: readonly Capability[],
  remoteCaps: readonly Capability[],
  families: readonly AfiSafi[],
): AddPathNegotiated[] {
  const local = addPathModes(localCaps);
  const remote = addPathModes(remoteCaps);
  const out: AddPathNegotiated[] = [];
  for (const f of families) {
    const l = local.get(familyKey(f)) ?? 0;
    const r = remote.get(familyKey(f)) ?? 0;
    // RFC 7911 section 4: we may send multiple paths if we said "send" and the peer "receive".
    const send = (l & AddPathMode.SEND) !== 0 && (r & AddPathMode.RECEIVE) !== 0;
    const receive = (l & AddPathMode.RECEIVE) !== 0 && (r & AddPathMode.SEND) !== 0;
    if (send || receive) out.push({ afi: f.afi, safi: f.safi, send, receive });
  }
  return out;
}

function extendedNextHops(
  caps: readonly Capability[],
): Map<string, { afi: number; safi: number; nextHopAfi: number }> {
  const out = new Map<string, { afi: number; safi: number; nextHopAfi: number }>();
  for (const c of caps) {
    if (c.name !== 'extended-next-hop') continue;
    for (const f of c.families) out.set(`${f.afi}/${f.safi}/${f.nextHopAfi}`, f);
  }
  return out;
}

function negotiateExtendedNextHop(
  localCaps: readonly Capability[],
  remoteCaps: readonly Capability[],
  families: readonly AfiSafi[],
): ExtendedNextHopNegotiated[] {
  const negotiated = new Set(families.map(familyKey));
  const local = extendedNextHops(localCaps);
  const remote = extendedNextHops(remoteCaps);
  const out: ExtendedNextHopNegotiated[] = [];
  for (const [key, f] of new Map([...local, ...remote])) {
    if (!negotiated.has(familyKey(f))) continue;
    out.push({
      afi: f.afi,
      safi: f.safi,
      nextHopAfi: f.nextHopAfi,
      send: remote.has(key),
      receive: local.has(key),
    });
  }
  return out;
}

function negotiateGracefulRestart(
  localCaps: readonly Capability[],
  remoteCaps: readonly Capability[],
  families: readonly AfiSafi[],
): GracefulRestartNegotiated | null {
  // RFC 4724 section 3: with several instances, all but the last are ignored.
  const gr = lastCapability(remoteCaps, 'graceful-restart');
  const ours = lastCapability(localCaps, 'graceful-restart');
  if (!gr || !ours) return null;
  const negotiated = new Set(families.map(familyKey));
  const notification = (gr.flags & GracefulRestartFlag.NOTIFICATION) !== 0;
  return {
    restartState: (gr.flags & GracefulRestartFlag.RESTART_STATE) !== 0,
    notification,
    notificationExchanged: notification && (ours.flags & GracefulRestartFlag.NOTIFICATION) !== 0,
    restartTime: gr.restartTime,
    families: gr.families
      .filter((f) => negotiated.has(familyKey(f)))
      .map((f) => ({
        afi: f.afi,
        safi: f.safi,
        forwardingState: (f.flags & GracefulRestartAfFlag.FORWARDING_STATE) !== 0,
      })),
  };
}

function negotiateLongLived(
  remoteCaps: readonly Capability[],
  families: readonly AfiSafi[],
): { families: LongLivedFamilyNegotiated[] } | null {
  const llgr = lastCapability(remoteCaps, 'long-lived-graceful-restart');
  if (!llgr) return null;
  const negotiated = new Set(families.map(familyKey));
  return {
    families: llgr.families
      .filter((f) => negotiated.has(familyKey(f)))
      .map((f) => ({
        afi: f.afi,
        safi: f.safi,
        forwardingState: (f.flags & GracefulRestartAfFlag.FORWARDING_STATE) !== 0,
        staleTime: f.staleTime,
      })),
  };
}
