/**
 * What `show summary --json` and `show neighbors --json` print: the shape of FRR's
 * `show bgp summary json` and `show bgp neighbors json`, so a script written against vtysh
 * reads us with only the command changed. A field carries FRR's name only where it means what
 * FRR's does (test/cli/frr-json.test.ts holds them to FRR 8.4's and 10.3's own output in
 * fixtures/frr-json); what only we know sits under `ovnBgpSpeaker`, a key FRR never uses.
 * FRR fields we have no value for (tableVersion, inq, outq, ports, timers' internals) are left
 * out rather than made up. Pure: `now` is passed in.
 */
import type {
  FamilyName,
  MessageCounts,
  NeighborDetail,
  NeighborSummary,
  NotificationView,
  SummaryView,
} from '../api/types.js';
import { FAMILY_TITLE, totalMessages } from './format-summary.js';
import { formatUpDown } from './format-time.js';

/** FRR's address family keys (bgp_afi_safi json names). */
export const FRR_FAMILY_KEY: Readonly<Record<FamilyName, string>> = {
  'ipv4-unicast': 'ipv4Unicast',
  'ipv6-unicast': 'ipv6Unicast',
};
const FAMILIES = Object.keys(FAMILY_TITLE) as FamilyName[];

/** The key under which every field of our own goes. */
export const OWN_FIELDS_KEY = 'ovnBgpSpeaker';

/** FRR's BGP version column: always 4. */
const BGP_VERSION = 4;
const MS = 1000;

type Json = Record<string, unknown>;

const idType = (address: string) => (address.includes(':') ? 'ipv6' : 'ipv4');

/** Times the session left Established: FRR counts a drop each time an Established session ends. */
function dropped(n: NeighborSummary): number {
  return Math.max(0, n.establishedTransitions - (n.state === 'Established' ? 1 : 0));
}

/**
 * FRR's peerUptime: since the session last came up or went down; "never" when it never came
 * up. Ours is the time in the current state, which is the same while Established (and, while
 * down, counts from the last state change rather than from the drop).
 */
function uptime(n: NeighborSummary, now: number): Json {
  if (n.establishedTransitions === 0 && n.state !== 'Established')
    return { peerUptime: 'never', peerUptimeMsec: 0 };
  return {
    peerUptime: formatUpDown(n.stateSeconds),
    peerUptimeMsec: n.stateSeconds * MS,
    ...(n.state === 'Established' && {
      peerUptimeEstablishedEpoch: Math.floor(now / MS) - n.stateSeconds,
    }),
  };
}

/** One neighbor under one family of `show bgp summary json`. */
export function frrSummaryPeer(n: NeighborSummary, family: FamilyName, localAs: number, now: number): Json {
  const counts = n.prefixes[family];
  return {
    remoteAs: n.remoteAs,
    localAs,
    version: BGP_VERSION,
    msgRcvd: totalMessages(n.messages.received),
    msgSent: totalMessages(n.messages.sent),
    ...uptime(n, now),
    pfxRcd: counts?.accepted ?? 0,
    pfxSnt: counts?.advertised ?? 0,
    state: n.state,
    peerState: n.adminDown ? 'Admin' : 'OK',
    connectionsEstablished: n.establishedTransitions,
    connectionsDropped: dropped(n),
    ...(n.name !== n.address && { desc: n.name }),
    idType: idType(n.address),
    [OWN_FIELDS_KEY]: {
      name: n.name,
      stateSeconds: n.stateSeconds,
      adminDown: n.adminDown,
      ...(counts && { prefixes: counts }),
    },
  };
}

/**
 * `show bgp summary json`: one object per family that has neighbors, each with its peers keyed
 * by address. A neighbor with no family yet is listed under every family shown (every family
 * when none has a neighbor), as the table does, so none is left out; with no neighbors at all
 * the answer is `{}`, as FRR's is.
 */
export function frrSummary(s: SummaryView, now: number): Json {
  const familyless = (n: NeighborSummary) => !FAMILIES.some((f) => n.prefixes[f]);
  const present = FAMILIES.filter((f) => s.neighbors.some((n) => n.prefixes[f]));
  const families = present.length > 0 ? present : s.neighbors.length > 0 ? FAMILIES : [];
  const out: Json = {};
  for (const f of families) {
    const listed = s.neighbors.filter((n) => n.prefixes[f] || familyless(n));
    const peers: Json = {};
    for (const n of listed) peers[n.address] = frrSummaryPeer(n, f, s.localAs, now);
    const established = listed.filter((n) => n.state === 'Established').length;
    out[FRR_FAMILY_KEY[f]] = {
      routerId: s.routerId,
      as: s.localAs,
      peerCount: listed.length,
      peers,
      failedPeers: listed.length - established,
      displayedPeers: listed.length,
      totalPeers: listed.length,
      [OWN_FIELDS_KEY]: { locRibPrefixes: s.rib[f] ?? 0 },
    };
  }
  return out;
}

/** FRR's messageStats. */
function messageStats(m: { readonly sent: MessageCounts; readonly received: MessageCounts }): Json {
  return {
    opensSent: m.sent.open,
    opensRecv: m.received.open,
    notificationsSent: m.sent.notification,
    notificationsRecv: m.received.notification,
    updatesSent: m.sent.update,
    updatesRecv: m.received.update,
    keepalivesSent: m.sent.keepalive,
    keepalivesRecv: m.received.keepalive,
    routeRefreshSent: m.sent.routeRefresh,
    routeRefreshRecv: m.received.routeRefresh,
    totalSent: totalMessages(m.sent),
    totalRecv: totalMessages(m.received),
  };
}

/** Our capability names (the OPEN codec's) as FRR's neighborCapabilities keys. */
const CAPABILITY_KEY: Readonly<Record<string, string>> = {
  'four-octet-as': '4byteAs',
  'route-refresh': 'routeRefresh',
  'enhanced-route-refresh': 'enhancedRouteRefresh',
  'extended-message': 'extendedMessage',
  'graceful-restart': 'gracefulRestart',
  'long-lived-graceful-restart': 'longLivedGracefulRestart',
};

/**
 * FRR's neighborCapabilities: "advertised", "received" or "advertisedAndReceived" per
 * capability, from what each OPEN carried; multiprotocolExtensions lists the negotiated
 * families (both sides sent them).
 */
function neighborCapabilities(n: NeighborDetail): Json {
  const local = new Set(n.localCapabilities ?? []);
  const remote = new Set(n.remoteCapabilities ?? []);
  const out: Json = {};
  for (const [ours, key] of Object.entries(CAPABILITY_KEY)) {
    const a = local.has(ours);
    const r = remote.has(ours);
    if (a || r) out[key] = a && r ? 'advertisedAndReceived' : a ? 'advertised' : 'received';
  }
  if (n.families.length > 0) {
    const mp: Json = {};
    for (const f of n.families) mp[FRR_FAMILY_KEY[f]] = { advertisedAndReceived: true };
    out.multiprotocolExtensions = mp;
  }
  return out;
}

const hex2 = (v: number) => v.toString(16).padStart(2, '0');

/** FRR's last-notification fields, when the session ended with one. */
function notificationFields(last: NotificationView | undefined, lastError: string | undefined): Json {
  return {
    ...(lastError !== undefined && { lastResetDueTo: lastError }),
    ...(last && {
      lastNotificationReason: last.description,
      lastErrorCodeSubcode: `${hex2(last.code)}${hex2(last.subcode)}`,
      ...(last.message !== undefined && { lastShutdownDescription: last.message }),
    }),
  };
}

/** Our fields without an FRR counterpart, for `ovnBgpSpeaker` of a neighbor. */
function ownNeighborFields(n: NeighborDetail): Json {
  const {
    address: _address,
    remoteAs: _remoteAs,
    localAs: _localAs,
    state: _state,
    messages: _messages,
    localAddress: _localAddress,
    remoteRouterId: _remoteRouterId,
    establishedTransitions: _established,
    ebgp: _ebgp,
    holdTime: _holdTime,
    keepaliveTime: _keepaliveTime,
    ...own
  } = n;
  return own;
}

/** One neighbor of `show bgp neighbors json`. */
export function frrNeighbor(n: NeighborDetail, now: number): Json {
  const up = n.state === 'Established';
  const afi: Json = {};
  for (const f of FAMILIES) {
    const c = n.prefixes[f];
    if (c) afi[FRR_FAMILY_KEY[f]] = { acceptedPrefixCounter: c.accepted, sentPrefixCounter: c.advertised };
  }
  return {
    remoteAs: n.remoteAs,
    localAs: n.localAs,
    [n.ebgp ? 'nbrExternalLink' : 'nbrInternalLink']: true,
    ...(n.name !== n.address && { nbrDesc: n.name }),
    bgpVersion: BGP_VERSION,
    ...(n.remoteRouterId !== undefined && { remoteRouterId: n.remoteRouterId }),
    bgpState: n.state,
    ...(n.adminDown && { adminShutDown: true }),
    ...(up && {
      bgpTimerUpMsec: n.stateSeconds * MS,
      bgpTimerUpString: formatUpDown(n.stateSeconds),
      bgpTimerUpEstablishedEpoch: Math.floor(now / MS) - n.stateSeconds,
    }),
    ...(n.holdTime !== undefined && { bgpTimerHoldTimeMsecs: n.holdTime * MS }),
    ...(n.keepaliveTime !== undefined && { bgpTimerKeepAliveIntervalMsecs: n.keepaliveTime * MS }),
    neighborCapabilities: neighborCapabilities(n),
    messageStats: messageStats(n.messages),
    addressFamilyInfo: afi,
    connectionsEstablished: n.establishedTransitions,
    connectionsDropped: dropped(n),
    ...notificationFields(n.lastNotification, n.lastError),
    ...(n.localAddress !== undefined && { hostLocal: n.localAddress }),
    hostForeign: n.address,
    [OWN_FIELDS_KEY]: ownNeighborFields(n),
  };
}

/** `show bgp neighbors json`: every neighbor keyed by its address. */
export function frrNeighbors(list: readonly NeighborDetail[], now: number): Json {
  const out: Json = {};
  for (const n of list) out[n.address] = frrNeighbor(n, now);
  return out;
}
