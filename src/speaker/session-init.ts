import type { AddPathSetting, SessionsPeerInit } from '../bgp/session/index.js';
import { gtsm, type RangeEntry, type TtlOptions } from '../bgp/transport/index.js';
import type { Config, PeerConfig } from '../config/index.js';

function addPathSetting(a: PeerConfig['addPath']): AddPathSetting | undefined {
  if (a.receive && a.send) return 'both';
  if (a.receive) return 'receive';
  if (a.send) return 'send';
  return undefined;
}

function ttlOf(p: PeerConfig): TtlOptions | undefined {
  if (p.ttlSecurity !== undefined) return gtsm(p.ttlSecurity);
  if (p.ebgpMultihop !== undefined) return { ttl: p.ebgpMultihop };
  return undefined;
}

/** RFC 4271 8.1.1: the wait after a reset, doubled per flap only when the cap is above it. */
function reconnectBackoff(p: PeerConfig) {
  return {
    idleHoldTime: p.idleHoldTime,
    maxIdleHoldTime: p.maxIdleHoldTime,
    dampResetTime: p.idleHoldResetTime,
    dampPeerOscillations: p.idleHoldTime > 0 && p.maxIdleHoldTime > p.idleHoldTime,
  };
}

/**
 * The listen ranges as the listener takes them: each with its template's TCP-MD5 password,
 * one key for the whole prefix.
 */
export function listenRanges(config: Config): RangeEntry[] {
  return config.listenRanges.map((r) => {
    const auth = config.peerTemplates.find((t) => t.name === r.template)?.auth;
    return { prefix: r.text, password: auth?.type === 'md5' ? auth.password : null };
  });
}

/** A configured peer as the session layer takes it; our AS and router id come from the speaker. */
export function sessionPeerInit(p: PeerConfig): SessionsPeerInit {
  const addPath = addPathSetting(p.addPath);
  const ttl = ttlOf(p);
  return {
    name: p.name,
    address: p.peerIp,
    port: p.port,
    remoteAs: p.remoteAs,
    localAddress: p.localAddress,
    password: p.auth.type === 'md5' ? p.auth.password : null,
    ...(ttl && { ttl }),
    families: p.families,
    extendedMessage: p.extendedMessage,
    ...(p.longLivedStaleTime !== undefined && { longLivedStaleTime: p.longLivedStaleTime }),
    extendedNextHop: p.extendedNextHop,
    enhancedRouteRefresh: p.enhancedRouteRefresh,
    ...(addPath && { addPath: Object.fromEntries(p.families.map((f) => [f, addPath])) }),
    holdTime: p.holdTime,
    keepaliveTime: p.keepaliveTime,
    connectRetryTime: p.connectRetry,
    ...reconnectBackoff(p),
    passive: p.passive,
    // Started by the speaker once its events are bound; `shutdown` keeps it down.
    enabled: false,
    // A dynamic neighbour's key is its listen range's, on the listener for the whole prefix.
    ...(p.dynamic && { keyFromRange: true }),
  };
}
