import type { EstablishedInfo, SessionEnd } from '../bgp/session/index.js';
import { Afi, type AfiCode, encodeMessageBytes, Safi } from '../bgp/wire/index.js';
import {
  type CollectorInit,
  type MonitoredSession,
  type RibView,
  type SessionEnding,
  type Stat,
  StatType,
} from '../bmp/index.js';
import type { BmpRouteMonitoring, Config } from '../config/index.js';
import { type Rib, RibPrefix } from '../rib/index.js';
import type { Neighbor } from '../routing/index.js';

const FAMILIES: readonly AfiCode[] = [Afi.IPV4, Afi.IPV6];

/**
 * One Established session as BMP reads it: the OPENs, its routes before import policy (the
 * importer's store, or the Adj-RIB-In when the policy accepts everything unchanged) and after
 * it (the RIB's Adj-RIB-In), and its counters. Bound to this session's RIB peer and importer.
 */
export function monitoredSession(
  neighbor: Neighbor,
  info: EstablishedInfo,
  rib: Rib,
  now: number,
): MonitoredSession {
  const live = neighbor.session;
  if (!live) throw new Error(`neighbor ${neighbor.name} has no session`);
  const { ribPeer, importer } = live;
  const n = info.negotiated;
  const families = n.families.filter((f) => f.safi === Safi.UNICAST).map((f) => f.afi as AfiCode);
  const adjRibIn = () => rib.adjRibIn(ribPeer);
  const session: MonitoredSession = {
    peer: {
      name: neighbor.name,
      address: info.connection.remote.address,
      port: info.connection.remote.port,
      localAddress: info.connection.local.address,
      localPort: info.connection.local.port,
      asn: n.remoteAs,
      bgpId: n.remoteBgpId,
      context: info.context,
      sentOpen: encodeMessageBytes(info.localOpen),
      receivedOpen: encodeMessageBytes(info.remoteOpen),
      families,
      upAt: now,
    },
    preRoutes(visit) {
      const store = importer.store;
      if (!store) {
        session.postRoutes(visit);
        return;
      }
      for (const afi of FAMILIES) {
        store.visit(afi, 0, Number.POSITIVE_INFINITY, (words, off, len, pathId, attrs) =>
          visit(afi, words, off, len, pathId, attrs),
        );
      }
    },
    postRoutes(visit) {
      for (const r of adjRibIn().entries())
        visit(r.prefix.afi, r.prefix.words(), 0, r.prefix.len, r.pathId, r.attrs);
    },
    accepted(afi, words, off, len) {
      return adjRibIn().lookup(RibPrefix.fromWords(afi, words, off, len));
    },
    stats() {
      const out: Stat[] = [];
      let received = 0;
      let held = 0;
      let accepted = 0;
      const perFamily: Stat[] = [];
      for (const afi of families) {
        const sent = importer.received(afi);
        const c = rib.counts(ribPeer, afi);
        received += sent;
        held += c.received;
        accepted += c.accepted;
        perFamily.push(
          { type: StatType.ADJ_RIB_IN_ROUTES_PER_AFI_SAFI, afi, safi: Safi.UNICAST, value: sent },
          { type: StatType.LOC_RIB_ROUTES_PER_AFI_SAFI, afi, safi: Safi.UNICAST, value: c.accepted },
        );
      }
      // Section 4.8: type 0 is what import policy turned away; 7 the Adj-RIB-In as sent
      // (pre-policy), 8 the paths that entered the decision process.
      out.push(
        { type: StatType.REJECTED_PREFIXES, value: Math.max(0, received - held) },
        { type: StatType.ADJ_RIB_IN_ROUTES, value: received },
        { type: StatType.LOC_RIB_ROUTES, value: accepted },
        ...perFamily,
      );
      return out;
    },
  };
  return session;
}

/** How a session ended, as Peer Down tells it (RFC 7854 section 4.9). */
export function sessionEnding(end: SessionEnd | undefined): SessionEnding {
  if (!end) return { notification: null, deconfigured: true };
  const n = end.notification;
  if (n) {
    const bytes = encodeMessageBytes({
      type: 'notification',
      code: n.code,
      subcode: n.subcode,
      data: n.data,
    });
    return { notification: { direction: n.direction, bytes } };
  }
  // The connection went under us: the peer's side (reason 4); anything else was our FSM's doing.
  if (end.event === 'TcpConnectionFails') return { notification: null };
  return { notification: null, localEvent: end.event };
}

/** The configured collectors as the station takes them. */
export function bmpCollectors(config: Config): CollectorInit[] {
  const bmp = config.bmp;
  if (!bmp) return [];
  const { name, localAs, routerId } = config.speaker;
  return bmp.collectors.map((c) => ({
    address: c.address,
    port: c.port,
    views: VIEWS[c.routeMonitoring],
    statisticsInterval: c.statisticsInterval,
    minRetryMs: c.minRetryMs,
    maxRetryMs: c.maxRetryMs,
    bufferLimit: bmp.bufferLimit,
    sysName: name,
    sysDescr: `ovn-bgp-speaker, AS ${localAs}, router id ${routerId}`,
  }));
}

const VIEWS: Readonly<Record<BmpRouteMonitoring, readonly RibView[]>> = {
  pre_policy: ['pre'],
  post_policy: ['post'],
  both: ['pre', 'post'],
};
