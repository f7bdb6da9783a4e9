import { chmodSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { beforeAll, describe, expect, it } from 'vitest';
import { type Config, loadConfig, redactConfig } from '../../src/config/index.js';
import { compilePolicies, type PolicyDefinitions } from '../../src/policy/index.js';
import { parse, SPEAKER } from './support.js';

const EXAMPLE = fileURLToPath(new URL('./fixtures/example.yaml', import.meta.url));
const PASSWORD_FILE = fileURLToPath(new URL('./fixtures/tor-a.password', import.meta.url));

/** What the annotated example (the one the README shows) must turn into, every default applied. */
const expected: Config = {
  speaker: {
    name: 'gw-speaker-1',
    localAs: 65000,
    routerId: '198.18.0.1',
    ipVersions: [4, 6],
    listen: { address: '::', port: 179 },
    holdTime: 90,
    keepaliveTime: 30,
    connectRetry: 120,
    idleHoldTime: 5,
    maxIdleHoldTime: 120,
    idleHoldResetTime: 300,
    gracefulRestart: { enabled: true, restartTime: 120, staleRoutesTime: 360 },
    bestpath: { maxPaths: 4, maxPathsIbgp: 1, multipathRelax: true, alwaysCompareMed: false },
    controlSocket: '/run/ovn-bgp-speaker/control.sock',
    metrics: { listen: { address: '127.0.0.1', port: 9179 } },
    health: { stallMs: 5000, stallWindow: 10, readyRequires: { ovn: true, sinks: 'all', peers: 'any' } },
    log: { level: 'info' },
  },
  peers: [
    {
      name: 'tor-a',
      description: 'top-of-rack switch A',
      peerIp: '198.18.1.2',
      interface: undefined,
      port: 179,
      remoteAs: 65001,
      type: 'ebgp',
      auth: { type: 'md5', password: 's3cret-tor-a', passwordFile: PASSWORD_FILE },
      holdTime: 9,
      keepaliveTime: 3,
      connectRetry: 120,
      idleHoldTime: 5,
      maxIdleHoldTime: 120,
      idleHoldResetTime: 300,
      passive: false,
      shutdown: false,
      families: ['ipv4-unicast', 'ipv6-unicast'],
      localAddress: '198.18.1.1',
      ebgpMultihop: undefined,
      ttlSecurity: 1,
      addPath: { receive: false, send: false },
      routeReflectorClient: false,
      nextHopSelf: false,
      nextHopUnchanged: false,
      extendedMessage: false,
      longLivedStaleTime: undefined,
      extendedNextHop: false,
      enhancedRouteRefresh: false,
      maxPrefixes: { limit: 1000, warningOnly: false, warningThreshold: 80, restartAfter: 30 },
      bfd: { minRx: 100, minTx: 100, multiplier: 3, profile: 'fast' },
      import: ['from-tor'],
      export: ['to-tor'],
    },
    {
      name: 'tor-b',
      description: undefined,
      peerIp: '2001:db8:1::2',
      interface: undefined,
      port: 179,
      remoteAs: 65002,
      type: 'ebgp',
      auth: { type: 'none' },
      holdTime: 90,
      keepaliveTime: 30,
      connectRetry: 120,
      idleHoldTime: 5,
      maxIdleHoldTime: 120,
      idleHoldResetTime: 300,
      passive: true,
      shutdown: false,
      families: ['ipv6-unicast'],
      localAddress: undefined,
      ebgpMultihop: 2,
      ttlSecurity: undefined,
      addPath: { receive: true, send: false },
      routeReflectorClient: false,
      nextHopSelf: false,
      nextHopUnchanged: false,
      extendedMessage: false,
      longLivedStaleTime: undefined,
      extendedNextHop: false,
      enhancedRouteRefresh: false,
      maxPrefixes: { limit: 500, warningOnly: false, warningThreshold: 75, restartAfter: 0 },
      bfd: { minRx: 300, minTx: 500, multiplier: 3, profile: undefined },
      import: ['from-tor'],
      export: ['to-tor'],
    },
    {
      name: 'rr-1',
      description: undefined,
      peerIp: '198.18.0.2',
      interface: undefined,
      port: 179,
      remoteAs: 65000,
      type: 'ibgp',
      auth: { type: 'none' },
      holdTime: 90,
      keepaliveTime: 30,
      connectRetry: 120,
      idleHoldTime: 5,
      maxIdleHoldTime: 120,
      idleHoldResetTime: 300,
      passive: false,
      shutdown: true,
      families: ['ipv4-unicast'],
      localAddress: undefined,
      ebgpMultihop: undefined,
      ttlSecurity: undefined,
      addPath: { receive: false, send: false },
      routeReflectorClient: true,
      nextHopSelf: true,
      nextHopUnchanged: false,
      extendedMessage: false,
      longLivedStaleTime: undefined,
      extendedNextHop: false,
      enhancedRouteRefresh: false,
      maxPrefixes: undefined,
      bfd: undefined,
      import: [],
      export: ['accept-all'],
    },
  ],
  routes: [
    {
      prefix: { afi: 1, addr: '198.18.100.0', len: 24 },
      nextHop: 'self',
      origin: 'igp',
      med: 10,
      localPref: undefined,
      // 65000:100 and NO_EXPORT (RFC 1997).
      communities: [65000 * 2 ** 16 + 100, 0xffffff01],
      largeCommunities: [[65000, 1, 2]],
      extendedCommunities: ['rt:65000:100'],
    },
    {
      prefix: { afi: 2, addr: '2001:db8:100::', len: 48 },
      nextHop: '2001:db8:1::1',
      origin: 'incomplete',
      med: undefined,
      localPref: 200,
      communities: [],
      largeCommunities: [],
      extendedCommunities: [],
    },
    {
      prefix: { afi: 1, addr: '198.18.10.0', len: 24 },
      nextHop: 'self',
      origin: 'igp',
      med: undefined,
      localPref: undefined,
      communities: [],
      largeCommunities: [],
      extendedCommunities: [],
    },
    {
      prefix: { afi: 2, addr: '2001:db8:10::', len: 48 },
      nextHop: 'self',
      origin: 'igp',
      med: undefined,
      localPref: undefined,
      communities: [],
      largeCommunities: [],
      extendedCommunities: [],
    },
  ],
  policy: {
    prefixLists: [
      {
        name: 'lab-v4',
        family: 'ipv4',
        entries: [
          { seq: 5, action: 'permit', prefix: '198.18.0.0/15', le: 24 },
          { seq: 10, action: 'deny', prefix: 'any' },
        ],
      },
      {
        name: 'lab-v6',
        family: 'ipv6',
        entries: [{ action: 'permit', prefix: '2001:db8::/32', ge: 48, le: 64 }],
      },
    ],
    communityLists: [
      {
        name: 'from-customers',
        entries: [
          { action: 'permit', communities: ['65000:100'] },
          { action: 'permit', communities: ['65001:*', 'no-export'] },
        ],
      },
    ],
    largeCommunityLists: [{ name: 'tenants', entries: [{ action: 'permit', communities: ['65000:1:*'] }] }],
    extendedCommunityLists: [
      {
        name: 'other-vrf',
        entries: [
          { action: 'permit', communities: ['rt:65000:666'] },
          { action: 'permit', communities: ['rt:198.18.0.1:*'] },
        ],
      },
    ],
    asPathLists: [
      {
        name: 'via-tor',
        entries: [
          { action: 'permit', regex: '^6500[12]_' },
          { action: 'deny', containsAs: 64512 },
        ],
      },
    ],
    policies: [
      {
        name: 'from-tor',
        statements: [
          { name: 'not-ours', match: { extendedCommunityList: 'other-vrf' }, action: 'reject' },
          {
            name: 'lab-only-v4',
            match: { prefixList: 'lab-v4', asPath: 'via-tor' },
            set: { localPref: 200, communities: { add: ['65000:200'] } },
            action: 'accept',
          },
          { name: 'lab-only-v6', match: { prefixList: 'lab-v6', family: 'ipv6' }, action: 'accept' },
        ],
        defaultAction: 'reject',
      },
      {
        name: 'to-tor',
        statements: [
          {
            match: { communityList: 'from-customers' },
            set: {
              med: '+10',
              asPathPrepend: { count: 2 },
              communities: { remove: ['65001:*'] },
              extendedCommunities: { remove: ['rt:65001:*'], add: ['soo:65000:1'] },
            },
            action: 'accept',
          },
          { match: { largeCommunityList: 'tenants' }, action: 'accept' },
        ],
      },
    ],
  },
  ovn: {
    nb: [
      { method: 'tcp', host: '198.18.0.10', port: 6641, portGiven: true, text: 'tcp:198.18.0.10:6641' },
      { method: 'tcp', host: '198.18.0.11', port: 6641, portGiven: true, text: 'tcp:198.18.0.11:6641' },
      { method: 'tcp', host: '198.18.0.12', port: 6641, portGiven: true, text: 'tcp:198.18.0.12:6641' },
    ],
    sb: [
      { method: 'ssl', host: '2001:db8::10', port: 6642, portGiven: true, text: 'ssl:[2001:db8::10]:6642' },
    ],
    ssl: {
      privateKey: '/etc/ovn-bgp-speaker/key.pem',
      certificate: '/etc/ovn-bgp-speaker/cert.pem',
      caCert: '/etc/ovn-bgp-speaker/cacert.pem',
    },
    mode: 'central',
    source: 'auto',
    chassis: undefined,
    ovs: 'unix:/var/run/openvswitch/db.sock',
    localNextHop: {},
    chassisNextHops: new Map([['gw1', { ipv4: '198.18.1.11', ipv6: '2001:db8:1::11' }]]),
    coalesceMs: 20,
    holdTime: 60,
    routes: {
      floatingIps: { enabled: true, communities: [65000 * 65536 + 101], largeCommunities: [] },
      tenantNetworks: {
        enabled: true,
        communities: [],
        largeCommunities: [],
        select: { kind: 'marker', marker: 'ovn-bgp-speaker:advertise' },
      },
      loadBalancerVips: { enabled: true, communities: [], largeCommunities: [] },
      providerPorts: { enabled: true, communities: [], largeCommunities: [] },
      podSubnets: { enabled: true, communities: [], largeCommunities: [] },
      serviceVips: { enabled: false, communities: [], largeCommunities: [] },
      // As floating_ips and load_balancer_vips, which they are when the speaker derives them.
      nat: { enabled: true, communities: [65000 * 65536 + 101], largeCommunities: [] },
      lb: { enabled: true, communities: [], largeCommunities: [] },
      connected: { enabled: true, communities: [65000 * 65536 + 103], largeCommunities: [] },
      static: { enabled: true, communities: [], largeCommunities: [] },
    },
  },
  ovnRouteTables: undefined,
  peerTemplates: [],
  listenRanges: [],
  mrt: undefined,
  sinks: {
    kernel: { table: 200, metric: 20, protocol: 186, onStop: 'keep', install: [] },
    zebra: { socket: '/run/frr/zserv.api', instance: 1, distance: 20, metric: 0, install: [] },
    ovnNb: undefined,
  },
  bmp: undefined,
};

describe('the annotated example', () => {
  // Git keeps no mode bits but the executable one, and a password file must be private.
  beforeAll(() => chmodSync(PASSWORD_FILE, 0o600));

  it('loads into the expected typed configuration, every default applied', () => {
    const loaded = loadConfig(EXAMPLE);
    expect(loaded.config).toEqual(expected);
    expect(loaded.warnings).toEqual([]);
  });

  it('redacted for logs, it keeps everything but the password', () => {
    const { config } = loadConfig(EXAMPLE);
    const redacted = redactConfig(config);
    expect(JSON.stringify(redacted)).not.toContain('s3cret-tor-a');
    expect(redacted.peers[0].auth).toEqual({
      type: 'md5',
      password: '(hidden)',
      passwordFile: PASSWORD_FILE,
    });
    expect({ ...redacted, peers: [] }).toEqual({ ...config, peers: [] });
    expect(redacted.peers.slice(1)).toEqual(config.peers.slice(1));
  });

  it('its policies are what the policy compiler takes, and compile', () => {
    const defs: PolicyDefinitions = loadConfig(EXAMPLE).config.policy;
    const compiled = compilePolicies(defs, { localAs: 65000 });
    expect([...compiled.keys()]).toEqual(['from-tor', 'to-tor', 'accept-all', 'reject-all']);
  });
});

describe('the smallest configuration', () => {
  it('is a speaker with a name, an AS and a router id', () => {
    const { config } = parse(SPEAKER);
    expect(config.speaker).toEqual({
      name: 's1',
      localAs: 65000,
      routerId: '198.18.0.1',
      ipVersions: [4, 6],
      listen: { address: '::', port: 179 },
      holdTime: 90,
      keepaliveTime: 30,
      connectRetry: 120,
      idleHoldTime: 5,
      maxIdleHoldTime: 120,
      idleHoldResetTime: 300,
      gracefulRestart: { enabled: false, restartTime: 120, staleRoutesTime: 360 },
      bestpath: { maxPaths: 1, maxPathsIbgp: 1, multipathRelax: false, alwaysCompareMed: false },
      controlSocket: '/run/ovn-bgp-speaker/control.sock',
      metrics: undefined,
      health: { stallMs: 5000, stallWindow: 10, readyRequires: { ovn: true, sinks: 'all', peers: 'none' } },
      log: { level: 'info' },
    });
    expect(config.peers).toEqual([]);
    expect(config.routes).toEqual([]);
    expect(config.ovn).toBeUndefined();
    expect(config.sinks).toEqual({ kernel: undefined, zebra: undefined, ovnNb: undefined });
    expect(config.policy).toEqual({
      prefixLists: [],
      communityLists: [],
      largeCommunityLists: [],
      extendedCommunityLists: [],
      asPathLists: [],
      policies: [],
    });
  });
});

describe('accepted spellings, normalised', () => {
  it.each([
    ['65000', 65000],
    ['"65000"', 65000],
    ['"1.10"', 65546],
    ['"0.65535"', 65535],
    ['4294967295', 4294967295],
  ])('local_as: %s is AS %d', (text, asn) => {
    expect(parse(SPEAKER.replace('65000', text)).config.speaker.localAs).toBe(asn);
  });

  it('addresses are canonical (RFC 5952) and prefixes parsed to {afi, addr, len}', () => {
    const { config } = parse(
      `${SPEAKER}peers:\n  - { name: a, peer_ip: "2001:DB8:0:0:0:0:0:2", remote_as: 65001, local_address: "2001:0db8::1" }\nnetworks: ["2001:DB8:A::/48"]\n`,
    );
    expect(config.peers[0].peerIp).toBe('2001:db8::2');
    expect(config.peers[0].localAddress).toBe('2001:db8::1');
    expect(config.routes[0].prefix).toEqual({ afi: 2, addr: '2001:db8:a::', len: 48 });
  });

  it('ip_version: 6 alone carries IPv6 only; a hold time without keepalive brings its own third', () => {
    const { config } = parse(
      `${SPEAKER}  ip_version: 6\n  hold_time: 30\npeers:\n  - { name: a, peer_ip: 2001:db8::2, remote_as: 65001, hold_time: 0 }\n`,
    );
    expect(config.speaker.ipVersions).toEqual([6]);
    expect(config.speaker.keepaliveTime).toBe(10);
    expect(config.peers[0]).toMatchObject({ holdTime: 0, keepaliveTime: 0, families: ['ipv6-unicast'] });
  });

  it('a peer keeps the speaker keepalive when it sets none and no hold time of its own', () => {
    const { config } = parse(
      `${SPEAKER}  hold_time: 60\n  keepalive_time: 5\npeers:\n  - { name: a, peer_ip: 198.18.1.2, remote_as: 65001 }\n`,
    );
    expect(config.peers[0]).toMatchObject({ holdTime: 60, keepaliveTime: 5 });
  });

  it('anchors and aliases share settings between peers', () => {
    const { config } = parse(
      `${SPEAKER}peers:\n  - { name: a, peer_ip: 198.18.1.2, remote_as: 65001, families: &both [ipv4-unicast, ipv6-unicast] }\n  - { name: b, peer_ip: 198.18.1.3, remote_as: 65001, families: *both }\n`,
    );
    expect(config.peers.map((p) => p.families)).toEqual([
      ['ipv4-unicast', 'ipv6-unicast'],
      ['ipv4-unicast', 'ipv6-unicast'],
    ]);
  });
});
