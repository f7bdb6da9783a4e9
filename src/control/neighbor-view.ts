import { formatIpv4 } from '../address/index.js';
import type {
  FamilyCounts,
  FamilyName,
  MessageCounts,
  NeighborDetail,
  NeighborSummary,
} from '../api/index.js';
import { diagText } from '../bfd/index.js';
import { familyName, type MessageCounts as SessionCounts } from '../bgp/session/index.js';
import { Afi, type AfiCode, capabilitiesOf, type OpenMessage } from '../bgp/wire/index.js';
import type { Rib } from '../rib/index.js';
import { MS_PER_SECOND, type Neighbor } from '../routing/index.js';

/* The views `show summary` and `show neighbors` print, built from the neighbours on request. */

const FAMILY_AFI: Readonly<Record<FamilyName, AfiCode>> = {
  'ipv4-unicast': Afi.IPV4,
  'ipv6-unicast': Afi.IPV6,
};

function counts(c: SessionCounts): MessageCounts {
  return {
    open: c.open,
    update: c.update,
    notification: c.notification,
    keepalive: c.keepalive,
    routeRefresh: c.routeRefresh,
  };
}

/** One neighbor's line of `show summary`. */
export function neighborSummary(b: Neighbor, now: number): NeighborSummary {
  const { config, peer } = b;
  const prefixes: Partial<Record<FamilyName, FamilyCounts>> = {};
  for (const f of config.families) prefixes[f] = b.counts(FAMILY_AFI[f]);
  return {
    name: config.name,
    address: config.peerIp,
    remoteAs: b.session?.info.negotiated.remoteAs ?? config.remoteAs,
    ...(config.dynamic && { dynamic: config.dynamic }),
    state: peer.state,
    stateSeconds: Math.max(0, Math.floor((now - b.stateSince) / MS_PER_SECOND)),
    adminDown: b.stoppedBy !== null && b.stoppedBy !== 'max-prefix',
    prefixes,
    messages: { sent: counts(peer.stats.sent), received: counts(peer.stats.received) },
    establishedTransitions: b.establishedTransitions,
    ...(b.bfd && {
      bfd: { state: b.bfd.status?.state ?? 'Down', transitions: b.bfd.status?.transitions ?? 0 },
    }),
  };
}

function capabilities(b: Neighbor): string[] {
  const n = b.session?.info.negotiated;
  if (!n) return [];
  const out: string[] = [];
  if (n.families.length > 0) out.push('multiprotocol');
  if (n.routeRefresh) out.push('route-refresh');
  if (n.enhancedRouteRefresh) out.push('enhanced-route-refresh');
  if (n.as4) out.push('four-octet-as');
  if (n.addPath.length > 0) out.push('add-path');
  if (n.extendedNextHop.length > 0) out.push('extended-next-hop');
  if (n.extendedMessage) out.push('extended-message');
  if (n.gracefulRestart) out.push('graceful-restart');
  if (n.longLivedGracefulRestart) out.push('long-lived-graceful-restart');
  if (n.fqdn) out.push('fqdn');
  return out;
}

/** The capabilities each side's OPEN carried, each name once, in the order sent. */
function openCapabilities(b: Neighbor): Pick<NeighborDetail, 'localCapabilities' | 'remoteCapabilities'> {
  const info = b.session?.info;
  if (!info) return {};
  const names = (open: OpenMessage) => [
    ...new Set(capabilitiesOf(open).map((c) => (c.name === 'raw' ? `code ${c.code}` : c.name))),
  ];
  return { localCapabilities: names(info.localOpen), remoteCapabilities: names(info.remoteOpen) };
}

/** RFC 4724 on `show neighbors`: the peer's capability and the routes kept across its restart. */
function gracefulRestartView(b: Neighbor, now: number): Pick<NeighborDetail, 'gracefulRestart'> {
  const gr = b.session?.info.negotiated.gracefulRestart;
  const stale = b.staleRoutes;
  if (!gr && !stale) return {};
  return {
    gracefulRestart: {
      ...(gr && {
        peerRestartTime: gr.restartTime,
        peerRestarting: gr.restartState,
        notification: gr.notificationExchanged,
        forwarding: gr.families.filter((f) => f.forwardingState).map((f) => familyName(f.afi, f.safi)),
      }),
      ...(stale && {
        stale: {
          phase: stale.phase,
          'ipv4-unicast': stale.stale.ipv4,
          'ipv6-unicast': stale.stale.ipv6,
          secondsLeft: Math.max(0, Math.ceil((stale.deadline - now) / MS_PER_SECOND)),
        },
      }),
    },
  };
}

/** RFC 5880 on `show neighbors`: the BFD session tied to the peer. */
function bfdView(b: Neighbor): Pick<NeighborDetail, 'bfd'> {
  const bfd = b.bfd;
  const st = bfd?.status;
  if (!bfd) return {};
  const spec = bfd.spec;
  const drop = bfd.lastDown;
  return {
    bfd: {
      state: st?.state ?? 'Down',
      remoteState: st?.remoteState ?? 'Down',
      multihop: spec.multihop,
      localDiscriminator: st?.localDiscr ?? 0,
      remoteDiscriminator: st?.remoteDiscr ?? 0,
      configured: { minRx: spec.minRxMs, minTx: spec.minTxMs, multiplier: spec.multiplier },
      remote: {
        minRx: st?.remoteMinRxMs ?? 0,
        minTx: st?.remoteMinTxMs ?? 0,
        multiplier: st?.remoteMultiplier ?? 0,
      },
      remoteControlPlaneIndependent: st?.remoteControlPlaneIndependent ?? false,
      txInterval: st?.txIntervalMs ?? 0,
      detectionTime: st?.detectionTimeMs ?? 0,
      localDiagnostic: diagText(st?.localDiag ?? 0),
      remoteDiagnostic: diagText(st?.remoteDiag ?? 0),
      transitions: st?.transitions ?? 0,
      lastChange: new Date(st?.lastChangeAt ?? 0).toISOString(),
      ...(st?.lastDownReason && { lastDownReason: st.lastDownReason }),
      ...(drop && { lastSessionDrop: { at: new Date(drop.at).toISOString(), reason: drop.reason } }),
    },
  };
}

/** `show neighbors`: one neighbor in full. */
export function neighborDetail(b: Neighbor, now: number, localAs: number): NeighborDetail {
  const s = b.session;
  const n = s?.info.negotiated;
  const last = b.lastNotification;
  const idleHoldLeft = b.peer.idleHoldLeftMs;
  const localAddress = s?.info.connection.local.address ?? b.config.localAddress;
  const families = (n?.families ?? [])
    .map((f) => familyName(f.afi, f.safi))
    .filter((f): f is FamilyName => f in FAMILY_AFI);
  // The summary's short BFD state gives way to the full view below.
  const { bfd: _short, ...summary } = neighborSummary(b, now);
  return {
    ...summary,
    localAs,
    ...(localAddress !== undefined && { localAddress }),
    ebgp: b.config.type === 'ebgp',
    ...(n && { remoteRouterId: formatIpv4(n.remoteBgpId) }),
    ...(s && { holdTime: s.info.holdTime, keepaliveTime: s.info.keepaliveTime }),
    families,
    capabilities: capabilities(b),
    ...openCapabilities(b),
    ...gracefulRestartView(b, now),
    idleHoldTime: b.config.idleHoldTime,
    maxIdleHoldTime: b.config.maxIdleHoldTime,
    ...(idleHoldLeft !== undefined && { reconnectIn: Math.ceil(idleHoldLeft / MS_PER_SECOND) }),
    ...(last && {
      lastNotification: {
        direction: last.event.direction,
        code: last.event.code,
        subcode: last.event.subcode,
        description: last.description,
        ...(last.event.message !== null && { message: last.event.message }),
        at: last.at.toISOString(),
      },
    }),
    ...(b.lastError !== undefined && { lastError: b.lastError }),
    ...bfdView(b),
  };
}

/** Loc-RIB prefix counts per family, for `show summary`. */
export function ribCounts(rib: Rib): Record<FamilyName, number> {
  return { 'ipv4-unicast': rib.locRib(Afi.IPV4).selected, 'ipv6-unicast': rib.locRib(Afi.IPV6).selected };
}
