/**
 * A SpeakerControl over fixed data, for the control socket, CLI and metrics tests. The real
 * speaker is tested where it is built; here only serving and printing what it returns matters.
 */
import {
  ControlError,
  type MessageCounts,
  type NeighborDetail,
  type OvnView,
  type RibEntryView,
  type RibQuery,
  type SinkView,
  type SpeakerControl,
  type SummaryView,
} from '../../src/api/index.js';

const counts = (open: number, update: number, notification: number, keepalive: number, routeRefresh = 0) =>
  ({ open, update, notification, keepalive, routeRefresh }) satisfies MessageCounts;

export const SPINE1: NeighborDetail = {
  name: 'spine1',
  address: '198.18.0.2',
  remoteAs: 65001,
  state: 'Established',
  stateSeconds: 201,
  adminDown: false,
  prefixes: {
    'ipv4-unicast': { received: 4, accepted: 3, advertised: 5 },
    'ipv6-unicast': { received: 1, accepted: 1, advertised: 2 },
  },
  messages: { sent: counts(1, 6, 0, 7, 0), received: counts(1, 4, 0, 6, 1) },
  localAs: 64512,
  localAddress: '198.18.0.1',
  ebgp: true,
  remoteRouterId: '198.18.0.2',
  holdTime: 90,
  keepaliveTime: 30,
  families: ['ipv4-unicast', 'ipv6-unicast'],
  capabilities: ['multiprotocol', 'route-refresh', 'four-octet-as'],
  establishedTransitions: 1,
  idleHoldTime: 5,
  maxIdleHoldTime: 120,
};

export const SPINE2: NeighborDetail = {
  name: 'spine2',
  address: '2001:db8::2',
  remoteAs: 4200000002,
  state: 'Active',
  stateSeconds: 5,
  adminDown: false,
  prefixes: { 'ipv6-unicast': { received: 0, accepted: 0, advertised: 0 } },
  messages: { sent: counts(2, 0, 1, 0), received: counts(1, 0, 1, 0) },
  localAs: 64512,
  ebgp: true,
  families: [],
  capabilities: [],
  establishedTransitions: 3,
  idleHoldTime: 5,
  maxIdleHoldTime: 120,
  reconnectIn: 17,
  lastNotification: {
    direction: 'received',
    code: 6,
    subcode: 2,
    description: 'CEASE/ADMINISTRATIVE_SHUTDOWN (6/2)',
    message: 'maintenance window',
    at: '2025-01-02T03:04:05.000Z',
  },
  lastError: 'connection refused',
};

/** Named by its address only, iBGP, shut down for a day and a bit. */
export const RR1: NeighborDetail = {
  name: '198.18.0.4',
  address: '198.18.0.4',
  remoteAs: 64512,
  state: 'Idle',
  stateSeconds: 90_061,
  adminDown: true,
  prefixes: { 'ipv4-unicast': { received: 0, accepted: 0, advertised: 0 } },
  messages: { sent: counts(0, 0, 0, 0), received: counts(0, 0, 0, 0) },
  localAs: 64512,
  ebgp: false,
  families: [],
  capabilities: [],
  establishedTransitions: 0,
  idleHoldTime: 0,
  maxIdleHoldTime: 0,
};

export const NEIGHBORS: readonly NeighborDetail[] = [SPINE1, SPINE2, RR1];

export const SUMMARY: SummaryView = {
  routerId: '198.18.0.1',
  localAs: 64512,
  neighbors: NEIGHBORS.map(
    ({
      name,
      address,
      remoteAs,
      state,
      stateSeconds,
      adminDown,
      prefixes,
      messages,
      establishedTransitions,
    }) => ({
      name,
      address,
      remoteAs,
      state,
      stateSeconds,
      adminDown,
      prefixes,
      messages,
      establishedTransitions,
    }),
  ),
  rib: { 'ipv4-unicast': 3, 'ipv6-unicast': 1 },
};

export const RIB: readonly RibEntryView[] = [
  {
    prefix: '198.18.10.0/24',
    paths: [
      {
        from: 'spine1',
        nextHop: '198.18.0.2',
        asPath: '65001',
        origin: 'igp',
        med: 0,
        localPref: 100,
        communities: ['65001:100', 'no-export'],
        largeCommunities: ['65001:1:2'],
        extendedCommunities: ['rt:65001:100', '0x4300:000000000007'],
        best: true,
        multipath: true,
        reason: 'AS Path',
      },
      {
        from: '198.18.0.4',
        nextHop: '198.18.0.4',
        asPath: '65003 65004',
        origin: 'incomplete',
        localPref: 100,
        communities: [],
        largeCommunities: [],
        extendedCommunities: [],
        best: false,
        multipath: false,
      },
    ],
  },
  {
    prefix: '198.18.20.0/24',
    paths: [
      {
        from: 'spine1',
        nextHop: '198.18.0.2',
        asPath: '65001 65005',
        origin: 'egp',
        med: 20,
        communities: [],
        largeCommunities: [],
        extendedCommunities: [],
        best: true,
        multipath: false,
        reason: 'First path received',
      },
    ],
  },
  {
    prefix: '198.19.5.7/32',
    paths: [
      {
        from: 'local',
        nextHop: '198.18.0.1',
        asPath: '',
        origin: 'igp',
        localPref: 100,
        communities: [],
        largeCommunities: [],
        extendedCommunities: [],
        best: true,
        multipath: false,
        reason: 'First path received',
      },
    ],
  },
  {
    prefix: '2001:db8:100::/48',
    paths: [
      {
        from: 'spine1',
        nextHop: '2001:db8::1:2',
        asPath: '65001',
        origin: 'igp',
        communities: [],
        largeCommunities: [],
        extendedCommunities: [],
        best: true,
        multipath: false,
        reason: 'First path received',
      },
    ],
  },
];

export type Call = readonly [method: string, ...args: unknown[]];

export interface FakeControl extends SpeakerControl {
  /** Every call the server made, in order. */
  readonly calls: Call[];
}

function familyOf(prefix: string): 4 | 6 {
  return prefix.includes(':') ? 6 : 4;
}

function query(entries: readonly RibEntryView[], q: RibQuery): RibEntryView[] {
  return entries
    .filter((e) => q.afi === undefined || familyOf(e.prefix) === q.afi)
    .filter((e) => q.prefix === undefined || e.prefix === q.prefix)
    .slice(0, q.limit);
}

export const SINKS: SinkView[] = [
  {
    name: 'kernel',
    state: 'in-sync',
    pending: 0,
    applied: 1204,
    failures: 0,
    lastSuccess: '2026-12-03T10:00:00.000Z',
  },
  {
    name: 'zebra',
    state: 'retrying',
    pending: 12,
    applied: 0,
    failures: 3,
    lastError: 'connect ENOENT /run/frr/zserv.api',
  },
];

export const OVN: OvnView = {
  mode: 'central',
  nb: 'connected (unix:/run/ovn/ovnnb_db.sock)',
  sb: 'connected (unix:/run/ovn/ovnsb_db.sock)',
  routes: [
    {
      prefix: '198.18.64.100/32',
      nextHop: '198.18.1.12',
      kind: 'floating-ip',
      origin: {
        db: 'nb',
        table: 'NAT',
        uuid: '6f1c2b0e-9a41-4c55-8d0e-2c4b8f3a1d10',
        name: 'router1 198.18.64.100',
      },
      why: 'chassis hv1 (Port_Binding vm1), Encap ip',
    },
  ],
  problems: [
    {
      kind: 'port-unbound',
      origin: {
        db: 'nb',
        table: 'NAT',
        uuid: '0b7d5e21-3c9a-4f6e-9b1d-7a2e4c6f8d01',
        name: 'router1 198.18.64.105',
      },
      message: 'logical port vm9 is not bound to any chassis',
    },
  ],
  counts: { 'floating-ip': 1 },
  lastDerivationMs: 0.4,
};

/** The fixture speaker; `overrides` replace single methods (a speaker that fails, or hangs). */
export function fakeControl(overrides: Partial<SpeakerControl> = {}): FakeControl {
  const calls: Call[] = [];
  const neighbor = (peer: string) => {
    const n = NEIGHBORS.find((x) => x.name === peer || x.address === peer);
    if (!n) throw new ControlError('unknown-peer', `no neighbor named ${peer}`);
    return n;
  };
  const action =
    (method: string) =>
    async (peer: string, ...rest: unknown[]) => {
      calls.push([method, peer, ...rest]);
      neighbor(peer);
    };
  return {
    calls,
    summary: () => {
      calls.push(['summary']);
      return SUMMARY;
    },
    neighbors: (peer) => {
      calls.push(['neighbors', peer]);
      return peer === undefined ? [...NEIGHBORS] : [neighbor(peer)];
    },
    rib: (q) => {
      calls.push(['rib', q]);
      return query(RIB, q);
    },
    advertised: (peer, q) => {
      calls.push(['advertised', peer, q]);
      neighbor(peer);
      return query(RIB.slice(2, 3), q);
    },
    received: (peer, q) => {
      calls.push(['received', peer, q]);
      return neighbor(peer) === SPINE1 ? query(RIB.slice(0, 2), q) : [];
    },
    resetNeighbor: action('resetNeighbor'),
    shutdownNeighbor: action('shutdownNeighbor'),
    enableNeighbor: action('enableNeighbor'),
    refreshNeighbor: action('refreshNeighbor'),
    sinks: () => SINKS,
    ovn: () => OVN,
    announceRoute: (route) => {
      calls.push(['announceRoute', route]);
      return { prefix: String((route as { prefix?: unknown }).prefix), action: 'announced' };
    },
    withdrawRoute: (prefix) => {
      calls.push(['withdrawRoute', prefix]);
      return { prefix, action: 'withdrawn' };
    },
    apiRoutes: () => [],
    editPeer: async (edit) => {
      calls.push(['editPeer', edit]);
      const name = edit.op === 'remove' ? edit.name : String((edit.peer as { name?: unknown }).name);
      return {
        peer: name,
        action: edit.op === 'add' ? 'added' : edit.op === 'change' ? 'changed' : 'removed',
        changes: [],
      };
    },
    dumpRib: async (path) => {
      calls.push(['dumpRib', path]);
      return { path: path ?? '/var/lib/ovn-bgp-speaker/rib.mrt', prefixes: 3, peers: 2, bytes: 400 };
    },
    injectMrt: async (name, path) => {
      calls.push(['injectMrt', name, path]);
      return { name, path, ipv4: 2, ipv6: 1, records: 4, skipped: 0, invalid: 0, ms: 1 };
    },
    withdrawMrt: async (name) => {
      calls.push(['withdrawMrt', name]);
      if (name !== 'table') throw new ControlError('unknown-route', `no MRT file injected as ${name}`);
      return { name, path: '/tmp/table.mrt', ipv4: 2, ipv6: 1, records: 4, skipped: 0, invalid: 0, ms: 1 };
    },
    mrtInjections: () => [],
    watch: (topics, sink) => {
      calls.push(['watch', topics]);
      sink.push({ type: 'session', peer: 'spine1', state: 'Established' });
      sink.push({ type: 'synced' });
      return () => calls.push(['unwatch']);
    },
    ...overrides,
  };
}
