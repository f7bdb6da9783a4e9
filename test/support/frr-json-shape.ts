/**
 * Compares the shape of our FRR-shaped JSON with FRR's own: every field we print (but those
 * under ovnBgpSpeaker) must be one FRR prints, with the same JSON type. Keys that name a
 * neighbor (its address) or an address family are compared as one, `*`, since the two sides
 * have other neighbors and families.
 */
import { isIP } from 'node:net';
import { OWN_FIELDS_KEY } from '../../src/cli/frr-json.js';

const FAMILY_KEYS = new Set(['ipv4Unicast', 'ipv6Unicast']);

const kind = (v: unknown) => (v === null ? 'null' : Array.isArray(v) ? 'array' : typeof v);
const mapKey = (k: string) => (isIP(k) !== 0 || FAMILY_KEYS.has(k) ? '*' : k);

/** Every path in `doc` ("*.peers.*.pfxRcd") with the JSON types of its values (one per neighbor). */
export function shapeOf(
  doc: unknown,
  prefix = '',
  out = new Map<string, Set<string>>(),
): Map<string, Set<string>> {
  if (kind(doc) !== 'object') return out;
  for (const [k, v] of Object.entries(doc as Record<string, unknown>)) {
    if (k === OWN_FIELDS_KEY) continue;
    const path = prefix === '' ? mapKey(k) : `${prefix}.${mapKey(k)}`;
    out.set(path, (out.get(path) ?? new Set()).add(kind(v)));
    shapeOf(v, path, out);
  }
  return out;
}

export interface ShapeReport {
  /** Our paths FRR printed with another type: always a defect. */
  readonly wrongType: string[];
  /** Our paths FRR did not print at all, unless listed as printed by FRR only sometimes. */
  readonly unknown: string[];
}

/**
 * `sometimes`: paths FRR prints only in cases a capture may not show (a description set, a
 * session that ended with a NOTIFICATION, an iBGP peer): checked for type where FRR has them.
 */
export function compareShapes(ours: unknown, frr: unknown, sometimes: ReadonlySet<string>): ShapeReport {
  const theirs = shapeOf(frr);
  const wrongType: string[] = [];
  const unknown: string[] = [];
  for (const [path, types] of shapeOf(ours)) {
    const seen = theirs.get(path);
    if (seen === undefined) {
      if (!sometimes.has(path)) unknown.push(path);
      continue;
    }
    for (const type of types)
      if (!seen.has(type)) wrongType.push(`${path}: ours ${type}, FRR ${[...seen].join('|')}`);
  }
  return { wrongType, unknown };
}

/** FRR's summary fields we claim to print for every neighbor, with FRR's meaning. */
export const SUMMARY_CLAIMED = [
  '*.routerId',
  '*.as',
  '*.peerCount',
  '*.peers',
  '*.failedPeers',
  '*.displayedPeers',
  '*.totalPeers',
  ...[
    'remoteAs',
    'localAs',
    'version',
    'msgRcvd',
    'msgSent',
    'peerUptime',
    'peerUptimeMsec',
    'pfxRcd',
    'pfxSnt',
    'state',
    'peerState',
    'connectionsEstablished',
    'connectionsDropped',
    'idType',
  ].map((f) => `*.peers.*.${f}`),
];

/** ... and of `show bgp neighbors json`, for an Established eBGP neighbor. */
export const NEIGHBORS_CLAIMED = [
  ...[
    'remoteAs',
    'localAs',
    'nbrExternalLink',
    'bgpVersion',
    'remoteRouterId',
    'bgpState',
    'bgpTimerUpMsec',
    'bgpTimerUpString',
    'bgpTimerUpEstablishedEpoch',
    'bgpTimerHoldTimeMsecs',
    'bgpTimerKeepAliveIntervalMsecs',
    'neighborCapabilities',
    'neighborCapabilities.4byteAs',
    'neighborCapabilities.routeRefresh',
    'neighborCapabilities.multiprotocolExtensions.*.advertisedAndReceived',
    'messageStats',
    ...['opens', 'notifications', 'updates', 'keepalives'].flatMap((m) => [
      `messageStats.${m}Sent`,
      `messageStats.${m}Recv`,
    ]),
    'messageStats.routeRefreshSent',
    'messageStats.routeRefreshRecv',
    'messageStats.totalSent',
    'messageStats.totalRecv',
    'addressFamilyInfo.*.acceptedPrefixCounter',
    'addressFamilyInfo.*.sentPrefixCounter',
    'connectionsEstablished',
    'connectionsDropped',
    'hostLocal',
    'hostForeign',
  ].map((f) => `*.${f}`),
];

/**
 * Printed by FRR only in cases the captures do not show (a description, an iBGP peer, a
 * shutdown, a NOTIFICATION, a capability one side did not send; FRR 8.4 names graceful restart
 * advertised by one side only `gracefulRestartCapability`).
 */
export const SOMETIMES = new Set([
  '*.peers.*.desc',
  '*.nbrDesc',
  '*.nbrInternalLink',
  '*.adminShutDown',
  '*.lastNotificationReason',
  '*.lastErrorCodeSubcode',
  '*.lastShutdownDescription',
  '*.neighborCapabilities.enhancedRouteRefresh',
  '*.neighborCapabilities.extendedMessage',
  '*.neighborCapabilities.gracefulRestart',
  '*.neighborCapabilities.longLivedGracefulRestart',
]);
