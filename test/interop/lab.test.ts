import { spawn } from 'node:child_process';
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  DaemonRoot,
  isRunning,
  Lab,
  LabError,
  type LabOptions,
  listNamespaces,
  normaliseState,
  type ProcessRecord,
  parseBirdProtocols,
  parseBirdRoutes,
  parseFrrNeighbors,
  parseFrrRoutes,
  parseGobgpLog,
  parseGobgpNeighbors,
  parseGobgpRib,
  planTopology,
  renderBfddConfig,
  renderBirdConfig,
  renderFrrConfig,
  renderGobgpConfig,
  run,
} from '../../frr-interop/lab/index.js';
import { checkNeighbor } from '../../frr-interop/lab/spec.js';

// The interop lab itself: its pure parts (address plan, configs, parsers of daemon output) and,
// as root, real labs with FRR, GoBGP and BIRD in namespaces, torn down by PID and by name.

const IS_ROOT = process.getuid?.() === 0;
const SPEAKER = { as: 65000, routerId: '198.18.0.1' } as const;
const ESTABLISH_WAIT_MS = 20_000;
/** A 4-octet AS (RFC 6793) on one side of the direct link. */
const GOBGP_AS = 4_200_000_002;

async function expectLabError(
  p: Promise<unknown> | (() => unknown),
  kind: string,
  text: RegExp,
): Promise<void> {
  let caught: unknown;
  try {
    await (typeof p === 'function' ? p() : p);
  } catch (e) {
    caught = e;
  }
  expect(caught).toBeInstanceOf(LabError);
  expect((caught as LabError).kind).toBe(kind);
  expect((caught as LabError).message).toMatch(text);
}

describe('address plan and daemon specs', () => {
  const opts: LabOptions = {
    id: 'x1',
    speaker: SPEAKER,
    peers: [
      { name: 'frr', impl: 'frr', as: 65001 },
      { name: 'gobgp', impl: 'gobgp', as: 4_200_000_001 },
    ],
    links: [{ a: 'frr', b: 'gobgp' }],
  };

  it('gives link i 198.18.<i>.0/24 and 2001:db8:<i>::/64, speaker .1 and peer .2', () => {
    const t = planTopology(opts);
    expect(t.speakerNs).toBe('obs-x1-speaker');
    expect(t.namespaces).toEqual(['obs-x1-speaker', 'obs-x1-frr', 'obs-x1-gobgp']);
    expect(t.dir).toBe('/tmp/obs-lab-x1');
    expect(t.peers[1]?.link).toEqual({
      a: {
        node: 'speaker',
        ns: 'obs-x1-speaker',
        ifname: 'to-gobgp',
        address: { ipv4: '198.18.2.1', ipv6: '2001:db8:2::1' },
      },
      b: {
        node: 'gobgp',
        ns: 'obs-x1-gobgp',
        ifname: 'to-speaker',
        address: { ipv4: '198.18.2.2', ipv6: '2001:db8:2::2' },
      },
      subnet: { ipv4: '198.18.2.0/24', ipv6: '2001:db8:2::/64' },
    });
    expect(t.links[0]?.a.address).toEqual({ ipv4: '198.18.100.1', ipv6: '2001:db8:ff00::1' });
    expect(t.links[0]?.b.address).toEqual({ ipv4: '198.18.100.2', ipv6: '2001:db8:ff00::2' });
  });

  it('points each peer at the speaker over IPv4 and IPv6 and at its linked peers', () => {
    const [frr, gobgp] = planTopology(opts).peers;
    expect(frr?.spec.routerId).toBe('198.18.1.2');
    expect(frr?.spec.neighbors).toEqual([
      { address: '198.18.1.1', remoteAs: 65000, families: ['ipv4'] },
      { address: '2001:db8:1::1', remoteAs: 65000, families: ['ipv6'] },
      { address: '198.18.100.2', remoteAs: 4_200_000_001, families: ['ipv4'] },
      { address: '2001:db8:ff00::2', remoteAs: 4_200_000_001, families: ['ipv6'] },
    ]);
    expect(gobgp?.spec.neighbors.map((n) => [n.address, n.remoteAs])).toEqual([
      ['198.18.2.1', 65000],
      ['2001:db8:2::1', 65000],
      ['198.18.100.1', 65001],
      ['2001:db8:ff00::1', 65001],
    ]);
  });

  it('applies speaker session options (transport, families, password, AS)', () => {
    const t = planTopology({
      ...opts,
      links: [],
      peers: [
        {
          name: 'bird',
          impl: 'bird',
          as: 65000,
          speakerSessions: {
            transports: ['ipv6'],
            families: ['ipv4', 'ipv6'],
            password: 'sekrit',
            remoteAs: 65100,
            holdTime: 3,
          },
        },
        { name: 'quiet', impl: 'frr', as: 65002, speakerSessions: false },
      ],
    });
    expect(t.peers[0]?.spec.neighbors).toEqual([
      {
        address: '2001:db8:1::1',
        remoteAs: 65100,
        families: ['ipv4', 'ipv6'],
        password: 'sekrit',
        holdTime: 3,
      },
    ]);
    expect(t.peers[1]?.spec.neighbors).toEqual([]);
  });

  it.each([
    ['a bad lab id', { id: 'Bad-Id' }, /lab id/],
    ['a bad peer name', { peers: [{ name: 'has-dash', impl: 'frr', as: 1 }] }, /peer name/],
    ['a peer named speaker', { peers: [{ name: 'speaker', impl: 'frr', as: 1 }] }, /peer name/],
    [
      'the same peer twice',
      {
        peers: [
          { name: 'a', impl: 'frr', as: 1 },
          { name: 'a', impl: 'bird', as: 2 },
        ],
      },
      /given twice/,
    ],
    ['an unknown implementation', { peers: [{ name: 'a', impl: 'quagga', as: 1 }] }, /unknown impl/],
    ['an AS of 0', { peers: [{ name: 'a', impl: 'frr', as: 0 }] }, /AS number/],
    ['an AS above 2^32-1', { speaker: { as: 2 ** 32, routerId: '198.18.0.1' } }, /AS number/],
    ['a router id that is not a dotted quad', { speaker: { as: 1, routerId: '2001:db8::1' } }, /router id/],
    ['a link to an unknown peer', { links: [{ a: 'frr', b: 'nobody' }] }, /no peer nobody/],
    ['a link to itself', { links: [{ a: 'frr', b: 'frr' }] }, /itself/],
  ])('rejects %s with a clear invalid-spec error', async (_name, patch, text) => {
    const bad = { ...opts, ...patch } as LabOptions;
    await expectLabError(() => planTopology(bad), 'invalid-spec', text);
  });

  it.each([
    ['a password with a quote', { password: 'a"b' }, /password/],
    ['a hold time of 2 s (RFC 4271 §4.2)', { holdTime: 2 }, /hold time/],
    ['a local address of the other family', { localAddress: '2001:db8::1' }, /local address/],
    ['no address family', { families: [] }, /no address family/],
  ])('refuses a neighbor with %s', async (_name, patch, text) => {
    const lab = planTopology({ ...opts, peers: [{ name: 'frr', impl: 'frr', as: 65001 }], links: [] });
    const n = { address: '198.18.9.9', remoteAs: 65009, families: ['ipv4'] as const, ...patch };
    const spec = { ...lab.peers[0]!.spec, neighbors: [n] };
    await expectLabError(() => renderThroughCheck(spec), 'invalid-spec', text);
  });
});

/** Configs are rendered only from checked specs; the daemon classes check on construction. */
async function renderThroughCheck(spec: Parameters<typeof renderFrrConfig>[0]): Promise<void> {
  const { FrrDaemon } = await import('../../frr-interop/lab/index.js');
  new FrrDaemon({ name: 'x', ns: 'obs-x-x', dir: '/nonexistent' }, spec);
}

describe('daemon configs', () => {
  const spec = {
    routerId: '198.18.1.2',
    as: 65001,
    neighbors: [
      { address: '198.18.1.1', remoteAs: 65000, families: ['ipv4'] as const, password: 'pw', passive: true },
      {
        address: '2001:db8:1::1',
        remoteAs: 65001,
        families: ['ipv6'] as const,
        routeReflectorClient: true,
        addPath: 'send' as const,
        holdTime: 30,
        keepalive: 10,
        connectRetry: 1,
      },
    ],
    originate: { ipv4: ['198.19.1.0/24'], ipv6: ['2001:db8:100::/48'] },
    extraConfig: ['! extra'],
  };

  it('graceful restart: bgpd-wide in FRR with the F bit, per neighbor and family in GoBGP, per protocol in BIRD', () => {
    const gr = {
      routerId: '198.18.1.2',
      as: 65001,
      neighbors: [
        {
          address: '198.18.1.1',
          remoteAs: 65000,
          families: ['ipv4'] as const,
          gracefulRestart: { restartTime: 90 },
        },
      ],
    };
    const frr = renderFrrConfig(gr, { hostname: 'frr', logFile: '/x/bgpd.log' }).split('\n');
    expect(frr).toEqual(
      expect.arrayContaining([
        ' bgp graceful-restart',
        ' bgp graceful-restart preserve-fw-state',
        ' bgp graceful-restart restart-time 90',
      ]),
    );
    expect(renderFrrConfig(spec, { hostname: 'frr', logFile: '/x' })).not.toMatch(/graceful-restart/);
    const gobgp = renderGobgpConfig(gr);
    expect(gobgp).toContain(
      '  [neighbors.graceful-restart.config]\n    enabled = true\n    notification-enabled = true\n    restart-time = 90\n',
    );
    expect(gobgp).toContain('    [neighbors.afi-safis.mp-graceful-restart.config]\n      enabled = true');
    expect(renderGobgpConfig(spec)).not.toMatch(/graceful-restart/);
    // BIRD: both roles on the protocol, and a bounded wait when it recovers from its own restart.
    const bird = renderBirdConfig(gr, { logFile: '/x/bird.log' }).split('\n');
    expect(bird).toEqual(
      expect.arrayContaining([
        'graceful restart wait 30;',
        '  graceful restart on;',
        '  graceful restart time 90;',
      ]),
    );
    const llgr = renderBirdConfig(
      { ...gr, neighbors: [{ ...gr.neighbors[0]!, gracefulRestart: { longLivedStaleTime: 600 } }] },
      { logFile: '/x/bird.log' },
    );
    expect(llgr).toContain('  long lived graceful restart on;\n  long lived stale time 600;');
    expect(renderBirdConfig(spec, { logFile: '/x' })).not.toMatch(/graceful restart/);
    expect(() => checkNeighbor({ ...gr.neighbors[0], gracefulRestart: { restartTime: 5000 } })).toThrow(
      /graceful restart time/,
    );
  });

  it('BFD: neighbor X bfd with a bfdd profile of its timers in FRR, bfd on and protocol bfd in BIRD', () => {
    const n = {
      address: '198.18.1.1',
      remoteAs: 65000,
      families: ['ipv4'] as const,
      multihop: 2,
      bfd: { minRx: 200, minTx: 100, multiplier: 5, checkControlPlaneFailure: true },
    };
    const bfd = { routerId: '198.18.1.2', as: 65001, neighbors: [n] };
    const frr = renderFrrConfig(bfd, { hostname: 'frr', logFile: '/x/bgpd.log' }).split('\n');
    expect(frr).toEqual(
      expect.arrayContaining([
        ' neighbor 198.18.1.1 ebgp-multihop 2',
        ' neighbor 198.18.1.1 bfd',
        ' neighbor 198.18.1.1 bfd profile lab_198_18_1_1',
        ' neighbor 198.18.1.1 bfd check-control-plane-failure',
      ]),
    );
    expect(renderBfddConfig(bfd, { hostname: 'frr', logFile: '/x/bfdd.log' })).toContain(
      ' profile lab_198_18_1_1\n  receive-interval 200\n  transmit-interval 100\n  detect-multiplier 5\n exit\n',
    );
    // Without BFD: no bfdd (undefined), no bfd lines, no protocol bfd.
    expect(renderBfddConfig(spec, { hostname: 'frr', logFile: '/x' })).toBeUndefined();
    expect(renderFrrConfig(spec, { hostname: 'frr', logFile: '/x' })).not.toMatch(/ bfd/);
    const bird = renderBirdConfig(bfd, { logFile: '/x/bird.log' });
    expect(bird).toContain('  multihop 2;\n  bfd on;\n');
    const timers = 'min rx interval 200 ms; min tx interval 100 ms; multiplier 5;';
    expect(bird).toContain(
      `protocol bfd lab_bfd {\n  interface "*" { ${timers} };\n  multihop { ${timers} };\n}\n`,
    );
    expect(renderBirdConfig(spec, { logFile: '/x' })).not.toMatch(/bfd/);
  });

  it('FRR: turns off the FRR 8 defaults that block a lab and maps every option', () => {
    const conf = renderFrrConfig(spec, { hostname: 'frr', logFile: '/x/bgpd.log' }).split('\n');
    for (const line of [
      'log file /x/bgpd.log informational',
      'router bgp 65001',
      ' bgp router-id 198.18.1.2',
      ' no bgp ebgp-requires-policy',
      ' no bgp network import-check',
      ' no bgp default ipv4-unicast',
      ' neighbor 198.18.1.1 remote-as 65000',
      ' neighbor 198.18.1.1 timers 3 9',
      ' neighbor 198.18.1.1 timers connect 2',
      ' neighbor 198.18.1.1 password pw',
      ' neighbor 198.18.1.1 passive',
      ' neighbor 2001:db8:1::1 timers 10 30',
      ' neighbor 2001:db8:1::1 timers connect 1',
      '  network 198.19.1.0/24',
      '  neighbor 198.18.1.1 activate',
      '  network 2001:db8:100::/48',
      '  neighbor 2001:db8:1::1 route-reflector-client',
      '  neighbor 2001:db8:1::1 addpath-tx-all-paths',
      '  neighbor 2001:db8:1::1 disable-addpath-rx',
      '! extra',
    ]) {
      expect(conf).toContain(line);
    }
    // The IPv4 neighbor is activated only in the IPv4 block.
    const v6 = conf.slice(conf.indexOf(' address-family ipv6 unicast'));
    expect(v6).not.toContain('  neighbor 198.18.1.1 activate');
  });

  it('GoBGP: neighbors with password, passive mode, route reflection and ADD-PATH in TOML', () => {
    const toml = renderGobgpConfig(spec);
    expect(toml).toContain('[global.config]\n  as = 65001\n  router-id = "198.18.1.2"\n  port = 179');
    expect(toml).toContain('neighbor-address = "198.18.1.1"\n    peer-as = 65000\n    auth-password = "pw"');
    expect(toml).toContain('[neighbors.transport.config]\n    passive-mode = true');
    expect(toml).toContain('route-reflector-client = true\n    route-reflector-cluster-id = "198.18.1.2"');
    expect(toml).toContain(
      'afi-safi-name = "ipv6-unicast"\n    [neighbors.afi-safis.add-paths.config]\n      send-max = 8',
    );
    expect(toml).toContain('hold-time = 30\n    keepalive-interval = 10\n    connect-retry = 1');
  });

  it('BIRD: one protocol per neighbor, named after its address, exporting only static and BGP routes', () => {
    const conf = renderBirdConfig(spec, { logFile: '/x/bird.log' });
    expect(conf).toContain('router id 198.18.1.2;');
    expect(conf).toContain('protocol static lab_static4 { ipv4; route 198.19.1.0/24 blackhole; }');
    expect(conf).toContain(
      'protocol bgp nb_198_18_1_1 {\n  local as 65001;\n  neighbor 198.18.1.1 as 65000;',
    );
    expect(conf).toContain('  password "pw";\n  passive on;');
    expect(conf).toContain('protocol bgp nb_2001_db8_1__1 {');
    expect(conf).toContain(
      '  rr client on;\n  ipv6 { import all; export filter lab_export; add paths tx; };',
    );
    expect(conf).toContain('filter lab_export { if source ~ [RTS_STATIC, RTS_BGP] then accept; reject; }');
  });
});

describe('parsers of daemon output', () => {
  it.each([
    ['Established', 'Established'],
    ['Idle (Admin)', 'Idle'],
    ['Clearing', 'Idle'],
    ['OpenSent', 'OpenSent'],
    ['Down', 'Idle'],
    ['BGP_FSM_OPENCONFIRM', 'OpenConfirm'],
    [6, 'Established'],
    [3, 'Active'],
    [2, 'Connect'],
    [0, 'Idle'],
    [99, 'Idle'],
  ] as const)('normalises %s to %s', (raw, want) => {
    expect(normaliseState(raw)).toBe(want);
  });

  it('FRR neighbors: state, counts and the last NOTIFICATION with its shutdown message', () => {
    const text = JSON.stringify({
      '198.18.102.1': {
        remoteAs: 65003,
        bgpState: 'Idle',
        connectionsDropped: 1,
        lastErrorCodeSubcode: '0602',
        lastNotificationReason: 'Cease/Administrative Shutdown',
        lastShutdownDescription: 'bird says bye',
        lastResetDueTo: 'BGP Notification received',
        addressFamilyInfo: { ipv4Unicast: { acceptedPrefixCounter: 0 } },
      },
      '198.18.100.2': {
        remoteAs: 65002,
        bgpState: 'Established',
        adminShutDown: false,
        lastResetDueTo: 'Waiting for peer OPEN',
        addressFamilyInfo: { ipv4Unicast: { acceptedPrefixCounter: 2 } },
      },
    });
    expect(parseFrrNeighbors(text)).toEqual([
      {
        address: '198.18.102.1',
        state: 'Idle',
        rawState: 'Idle',
        adminDown: false,
        remoteAs: 65003,
        prefixesReceived: { ipv4: 0 },
        lastError: 'BGP Notification received: Cease/Administrative Shutdown',
        lastNotification: {
          code: 6,
          subcode: 2,
          direction: 'received',
          reason: 'Cease/Administrative Shutdown',
          message: 'bird says bye',
        },
      },
      {
        address: '198.18.100.2',
        state: 'Established',
        rawState: 'Established',
        adminDown: false,
        remoteAs: 65002,
        prefixesReceived: { ipv4: 2 },
      },
    ]);
  });

  it('FRR routes: keeps learned paths, drops locally originated ones', () => {
    const text = JSON.stringify({
      routes: {
        '198.19.2.0/24': [
          {
            valid: true,
            bestpath: true,
            path: '65002',
            peerId: '198.18.100.2',
            nexthops: [{ ip: '198.18.100.2' }],
          },
        ],
        '198.19.1.0/24': [
          { valid: true, bestpath: true, path: '', peerId: '(unspec)', nexthops: [{ ip: '0.0.0.0' }] },
        ],
      },
    });
    expect(parseFrrRoutes(text, 'ipv4')).toEqual([
      {
        prefix: '198.19.2.0/24',
        family: 'ipv4',
        from: '198.18.100.2',
        nextHops: ['198.18.100.2'],
        asPath: [65002],
        best: true,
      },
    ]);
  });

  it('GoBGP log: last Peer Down reason and NOTIFICATION (with RFC 9003 message) per neighbor', () => {
    const log = [
      'time="2026-12-02T13:07:17Z" level=warning msg="received notification" Code=6 Communicated-Reason="maintenance now" Data="[]" Key=198.18.1.2 Subcode=2 Topic=Peer',
      'time="2026-12-02T13:07:17Z" level=info msg="Peer Down" Key=198.18.1.2 Reason="notification-received code 6(cease) subcode 2(administrative shutdown)" State=BGP_FSM_ESTABLISHED Topic=Peer',
      'time="2026-12-02T13:07:24Z" level=warning msg="sent notification" Code=6 Communicated-Reason= Data="[]" Key="2001:db8:1::2" State=BGP_FSM_ESTABLISHED Subcode=2 Topic=Peer',
    ].join('\n');
    const facts = parseGobgpLog(log);
    expect(facts.get('198.18.1.2')).toEqual({
      lastNotification: { direction: 'received', code: 6, subcode: 2, message: 'maintenance now' },
      lastError: 'notification-received code 6(cease) subcode 2(administrative shutdown)',
    });
    expect(facts.get('2001:db8:1::2')).toEqual({
      lastNotification: { direction: 'sent', code: 6, subcode: 2 },
    });
    const peers = JSON.stringify([
      {
        conf: { neighbor_address: '198.18.1.2', peer_asn: 65001 },
        state: { session_state: 6, admin_state: 1 },
        afi_safis: [{ state: { family: { afi: 1, safi: 1 }, received: 2, accepted: 1 } }],
      },
    ]);
    expect(parseGobgpNeighbors(peers, facts)[0]).toMatchObject({
      address: '198.18.1.2',
      state: 'Established',
      adminDown: true,
      remoteAs: 65001,
      prefixesReceived: { ipv4: 1 },
      lastNotification: { message: 'maintenance now' },
    });
  });

  it('GoBGP RIB: AS path, next hop (NEXT_HOP or MP_REACH) and source of learned paths', () => {
    const rib = JSON.stringify({
      '2001:db8:100::/48': [
        {
          best: true,
          'neighbor-ip': '2001:db8:1::2',
          attrs: [
            { type: 2, as_paths: [{ segment_type: 2, asns: [65001, 65005] }] },
            { type: 14, nexthop: '2001:db8:1::2' },
          ],
        },
      ],
      '2001:db8:200::/48': [{ best: true, attrs: [{ type: 14, nexthop: '::' }] }],
    });
    expect(parseGobgpRib(rib, 'ipv6')).toEqual([
      {
        prefix: '2001:db8:100::/48',
        family: 'ipv6',
        from: '2001:db8:1::2',
        nextHops: ['2001:db8:1::2'],
        asPath: [65001, 65005],
        best: true,
      },
    ]);
  });

  it('BIRD protocols: state, neighbor, imported routes, last error and shutdown message', () => {
    const text = [
      'BIRD 2.0.12 ready.',
      'Name       Proto      Table      State  Since         Info',
      'device1    Device     ---        up     13:07:55.684  ',
      'nb_198_18_3_1 BGP        ---        start  13:08:03.230  Active        Received: Administrative shutdown',
      '  Message:        going down for test',
      '  BGP state:          Active',
      '    Neighbor address: 198.18.3.1',
      '    Neighbor AS:      65001',
      '    Local AS:         65003',
      '    Last error:       Received: Administrative shutdown',
      '  Channel ipv4',
      '    State:          DOWN',
      '',
      'nb_2001_db8_3__1 BGP        ---        up     13:07:57.659  Established   ',
      '  BGP state:          Established',
      '    Neighbor address: 2001:db8:3::1',
      '    Neighbor AS:      65001',
      '  Channel ipv6',
      '    State:          UP',
      '    Routes:         2 imported, 1 exported, 2 preferred',
      '',
    ].join('\n');
    expect(parseBirdProtocols(text)).toEqual([
      {
        address: '198.18.3.1',
        state: 'Active',
        rawState: 'Active',
        adminDown: false,
        remoteAs: 65001,
        prefixesReceived: {},
        lastError: 'Received: Administrative shutdown',
        lastNotification: {
          direction: 'received',
          reason: 'Administrative shutdown',
          message: 'going down for test',
        },
      },
      {
        address: '2001:db8:3::1',
        state: 'Established',
        rawState: 'Established',
        adminDown: false,
        remoteAs: 65001,
        prefixesReceived: { ipv6: 2 },
      },
    ]);
  });

  it('BIRD routes: a prefix with two paths, attributes, only known protocols', () => {
    const text = [
      'BIRD 2.0.12 ready.',
      'Table master6:',
      '2001:db8:100::/48    unicast [nb_2001_db8_ff02__2 13:07:58.910] * (100) [AS65001i]',
      '\tvia 2001:db8:ff02::2 on to-frr',
      '\tType: BGP univ',
      '\tBGP.origin: IGP',
      '\tBGP.as_path: 65001',
      '\tBGP.next_hop: 2001:db8:ff02::2 fe80::4883:56ff:fead:c8a6',
      '\tBGP.med: 0',
      '\tBGP.local_pref: 100',
      '                     unicast [nb_2001_db8_ff01__1 13:07:59.001] (100) [AS65001i]',
      '\tvia 2001:db8:ff01::1 on to-gobgp',
      '\tBGP.as_path: 65002 65001',
      '\tBGP.next_hop: 2001:db8:ff01::1',
      '\tBGP.local_pref: 100',
      '\tBGP.ext_community: (rt, 65002, 1) (generic, 0x43000000, 0x7)',
      '2001:db8:300::/48    blackhole [lab_static6 13:07:55.684] * (200)',
      '\tType: static univ',
    ].join('\n');
    const names = new Map([
      ['nb_2001_db8_ff02__2', '2001:db8:ff02::2'],
      ['nb_2001_db8_ff01__1', '2001:db8:ff01::1'],
    ]);
    expect(parseBirdRoutes(text, 'ipv6', (p) => names.get(p))).toEqual([
      {
        prefix: '2001:db8:100::/48',
        family: 'ipv6',
        from: '2001:db8:ff02::2',
        nextHops: ['2001:db8:ff02::2', 'fe80::4883:56ff:fead:c8a6'],
        asPath: [65001],
        best: true,
        med: 0,
        localPref: 100,
      },
      {
        prefix: '2001:db8:100::/48',
        family: 'ipv6',
        from: '2001:db8:ff01::1',
        nextHops: ['2001:db8:ff01::1'],
        asPath: [65002, 65001],
        best: false,
        localPref: 100,
        extCommunities: ['rt 65002:1', 'generic 0x43000000:0x7'],
      },
    ]);
  });

  it('BIRD 3 routes: the attributes under their BIRD 3 names (bgp_path, bgp_next_hop, ...)', () => {
    // As BIRD 3.1.8 prints them: the names its filters use, where BIRD 2 printed BGP.as_path etc.
    const text = [
      'BIRD 3.1.8 ready.',
      'Table master4:',
      '198.19.1.0/24        unicast [nb_198_18_100_1 19:56:55.467] * (100) [AS65001i]',
      '\tvia 198.18.100.1 on to-b2',
      '\tpreference: 100',
      '\tigp_metric: 0',
      '\tfrom: 198.18.100.1',
      '\tsource: BGP',
      '\tbgp_origin: IGP',
      '\tbgp_path: 4200000000 65001',
      '\tbgp_next_hop: 198.18.100.1',
      '\tbgp_med: 5',
      '\tbgp_local_pref: 100',
      '\tbgp_ext_community: (rt, 65001, 100) (ro, 198.18.0.1, 7)',
      '\tInternal route handling values: 0L 7G 0S id 4',
      '198.19.2.0/24        blackhole [lab_static4 19:56:54.563] * (200)',
      '\tpreference: 200',
      '\tsource: static',
    ].join('\n');
    expect(
      parseBirdRoutes(text, 'ipv4', (p) => (p === 'nb_198_18_100_1' ? '198.18.100.1' : undefined)),
    ).toEqual([
      {
        prefix: '198.19.1.0/24',
        family: 'ipv4',
        from: '198.18.100.1',
        nextHops: ['198.18.100.1'],
        asPath: [4_200_000_000, 65001],
        best: true,
        med: 5,
        localPref: 100,
        extCommunities: ['rt 65001:100', 'soo 198.18.0.1:7'],
      },
    ]);
  });
});

/** PIDs whose command line mentions `text` (every lab daemon is started with paths in its lab directory). */
function processesMentioning(text: string): number[] {
  return readdirSync('/proc')
    .filter((d) => /^\d+$/.test(d))
    .filter((d) => {
      try {
        return readFileSync(`/proc/${d}/cmdline`, 'utf8').includes(text);
      } catch {
        return false;
      }
    })
    .map(Number);
}

/** Namespaces whose name starts with the lab's prefix. */
const namespacesOf = (id: string): Promise<string[]> => listNamespaces(`obs-${id}-`);

async function expectGone(id: string, records: readonly ProcessRecord[]): Promise<void> {
  expect(await namespacesOf(id)).toEqual([]);
  expect(records.length).toBeGreaterThan(0);
  for (const r of records) expect(isRunning(r), `${r.name} (pid ${r.pid})`).toBe(false);
}

describe.skipIf(!IS_ROOT)('a lab with FRR, GoBGP and BIRD', () => {
  const id = `t${process.pid}`;
  let lab: Lab;

  beforeAll(async () => {
    lab = await Lab.create({
      id,
      speaker: SPEAKER,
      peers: [
        {
          name: 'frr',
          impl: 'frr',
          as: 65001,
          originate: { ipv4: ['198.19.1.0/24'], ipv6: ['2001:db8:100::/48'] },
        },
        {
          name: 'gobgp',
          impl: 'gobgp',
          as: GOBGP_AS,
          originate: { ipv4: ['198.19.2.0/24'], ipv6: ['2001:db8:200::/48'] },
        },
        {
          name: 'bird',
          impl: 'bird',
          as: 65003,
          originate: { ipv4: ['198.19.3.0/24'], ipv6: ['2001:db8:300::/48'] },
        },
      ],
      // Short timers on the direct link, so a paused GoBGP is noticed within seconds.
      links: [{ a: 'frr', b: 'gobgp', session: { password: 'labsecret', holdTime: 3, keepalive: 1 } }],
    });
  });

  afterAll(async () => {
    await Lab.cleanup({ id });
  });

  it('creates the namespaces and addresses both ends of every veth', async () => {
    expect((await namespacesOf(id)).sort()).toEqual([
      `obs-${id}-bird`,
      `obs-${id}-frr`,
      `obs-${id}-gobgp`,
      `obs-${id}-speaker`,
    ]);
    const addrs = JSON.parse(await lab.exec(lab.speakerNs, ['ip', '-j', 'address', 'show'])) as {
      ifname: string;
      addr_info: { local: string; prefixlen: number }[];
    }[];
    const on = (ifname: string) =>
      addrs.find((a) => a.ifname === ifname)?.addr_info.map((x) => `${x.local}/${x.prefixlen}`);
    expect(on('to-frr')).toEqual(expect.arrayContaining(['198.18.1.1/24', '2001:db8:1::1/64']));
    expect(on('to-gobgp')).toEqual(expect.arrayContaining(['198.18.2.1/24', '2001:db8:2::1/64']));
    expect(on('to-bird')).toEqual(expect.arrayContaining(['198.18.3.1/24', '2001:db8:3::1/64']));
    expect(lab.peer('bird').address).toEqual({ ipv4: '198.18.3.2', ipv6: '2001:db8:3::2' });
  });

  it('reaches every peer from the speaker namespace over IPv4 and IPv6 at once (no DAD wait)', async () => {
    for (const p of lab.peers) {
      for (const a of [p.address.ipv4, p.address.ipv6]) {
        // A TCP connection to the peer's BGP port from the speaker's address on that link.
        const r = await run([
          'ip',
          'netns',
          'exec',
          lab.speakerNs,
          'timeout',
          '3',
          'bash',
          '-c',
          `exec 3<>/dev/tcp/${a}/179`,
        ]);
        expect(r).toBe('');
      }
    }
  });

  it('runs each daemon with a neighbor for the speaker on both transports, not established', async () => {
    for (const p of lab.peers) {
      expect(p.daemon.isRunning(), p.name).toBe(true);
      const ns = await p.daemon.neighbors();
      for (const address of [p.speakerAddress.ipv4, p.speakerAddress.ipv6]) {
        const n = ns.find((x) => x.address === address);
        expect(n, `${p.name} neighbor ${address}`).toBeDefined();
        expect(n?.remoteAs).toBe(SPEAKER.as);
        expect(['Idle', 'Connect', 'Active']).toContain(n?.state);
      }
    }
  });

  it('peers FRR and GoBGP over their direct link (TCP-MD5) and exchanges their prefixes', async () => {
    const frr = lab.frr('frr');
    const gobgp = lab.gobgp('gobgp');
    const link = lab.links[0]!;
    for (const f of ['ipv4', 'ipv6'] as const) {
      await frr.waitForNeighborState(link.b.address[f], 'Established', ESTABLISH_WAIT_MS);
      await gobgp.waitForNeighborState(link.a.address[f], 'Established', ESTABLISH_WAIT_MS);
    }
    const fromGobgp = await waitForRoute(
      () => frr.routes('ipv4', { from: link.b.address.ipv4 }),
      '198.19.2.0/24',
    );
    expect(fromGobgp).toMatchObject({ asPath: [GOBGP_AS], nextHops: [link.b.address.ipv4], best: true });
    const fromFrr = await waitForRoute(() => gobgp.routes('ipv6'), '2001:db8:100::/48');
    expect(fromFrr).toMatchObject({ from: link.a.address.ipv6, asPath: [65001] });
    const adjIn = await gobgp.adjIn(link.a.address.ipv4, 'ipv4');
    expect(adjIn.map((r) => r.prefix)).toContain('198.19.1.0/24');
  });

  it('pausing GoBGP (SIGSTOP) lets the FRR hold timer expire, and resume lets GoBGP run again', async () => {
    const frr = lab.frr('frr');
    const gobgp = lab.gobgp('gobgp');
    const addr = lab.links[0]!.b.address.ipv4;
    await frr.waitForNeighborState(addr, 'Established', ESTABLISH_WAIT_MS);
    gobgp.pause();
    try {
      const down = await frr.waitForNeighborState(addr, ['Idle', 'Connect', 'Active'], ESTABLISH_WAIT_MS);
      // RFC 4271 §6.5: Hold Timer Expired is NOTIFICATION code 4.
      expect(down.lastNotification).toMatchObject({ direction: 'sent', code: 4, subcode: 0 });
    } finally {
      gobgp.resume();
    }
    expect(gobgp.isRunning()).toBe(true);
  });

  it('restarts BIRD with new processes and keeps the state file current', async () => {
    const bird = lab.bird('bird');
    const before = bird.processes().map((r) => r.pid);
    await bird.restart();
    const after = bird.processes().map((r) => r.pid);
    expect(after).toHaveLength(1);
    expect(after).not.toEqual(before);
    const attached = Lab.attach({ id });
    expect(
      attached
        .bird('bird')
        .processes()
        .map((r) => r.pid),
    ).toEqual(after);
    expect(attached.bird('bird').isRunning()).toBe(true);
  });

  it('destroy stops every process (by PID) and deletes every namespace and file', async () => {
    const records = [...lab.processes()];
    expect(records.map((r) => r.owner).sort()).toEqual(['bird', 'frr', 'frr', 'gobgp']);
    const report = await lab.destroy();
    expect(report.survivors).toEqual([]);
    await expectGone(id, records);
    expect(existsSync(lab.dir)).toBe(false);
  });
});

async function waitForRoute(
  list: () => Promise<readonly { prefix: string }[]>,
  prefix: string,
): Promise<Record<string, unknown>> {
  const deadline = Date.now() + ESTABLISH_WAIT_MS;
  for (;;) {
    const r = (await list()).find((x) => x.prefix === prefix);
    if (r) return r as Record<string, unknown>;
    if (Date.now() > deadline) throw new Error(`no route ${prefix} within ${ESTABLISH_WAIT_MS} ms`);
    await new Promise((w) => setTimeout(w, 200));
  }
}

describe.skipIf(!IS_ROOT)('cleaning up after a crash', () => {
  const id = `t${process.pid}c`;
  const small: LabOptions = {
    id,
    speaker: SPEAKER,
    peers: [
      { name: 'frr', impl: 'frr', as: 65001 },
      { name: 'bird', impl: 'bird', as: 65003 },
    ],
  };

  afterAll(async () => {
    await Lab.cleanup({ id });
  });

  it('a second Lab object reading the state file removes processes, strays and namespaces', async () => {
    const crashed = await Lab.create(small);
    // Processes a test would start: one through the lab, one behind its back in a lab namespace.
    const tracked = crashed.spawn(crashed.speakerNs, ['sleep', '300'], { name: 'sleeper' });
    const stray = spawn('ip', ['netns', 'exec', crashed.peer('frr').ns, 'sleep', '300'], {
      detached: true,
      stdio: 'ignore',
    });
    stray.unref();
    const records = [...crashed.processes()];
    expect(records.map((r) => r.name)).toContain('sleeper');
    // `crashed` is dropped without destroy(), as if its process had died.
    const report = await Lab.attach({ id }).destroy();
    expect(report.stopped).toEqual(expect.arrayContaining([...records.map((r) => r.pid), stray.pid]));
    expect(report.survivors).toEqual([]);
    await expectGone(id, records);
    expect(isRunning(tracked.record)).toBe(false);
    expect(existsSync(crashed.dir)).toBe(false);
  });

  it('creating a lab over the leftovers of the same id cleans them first', async () => {
    const first = await Lab.create(small);
    const old = [...first.processes()];
    const second = await Lab.create(small);
    try {
      for (const r of old) expect(isRunning(r), r.name).toBe(false);
      expect(second.peers.every((p) => p.daemon.isRunning())).toBe(true);
    } finally {
      const records = [...second.processes()];
      await second.destroy();
      await expectGone(id, records);
    }
  });

  it('a config the daemon rejects fails with invalid-spec and leaves no namespace or process', async () => {
    const failing = Lab.create({
      ...small,
      peers: [
        {
          name: 'frr',
          impl: 'frr',
          as: 65001,
          extraConfig: ['router bgp 65001', ' neighbor 198.18.1.1 bogus'],
        },
      ],
    });
    await expectLabError(failing, 'invalid-spec', /bogus/);
    expect(await namespacesOf(id)).toEqual([]);
    // The logs are kept for diagnosis, but no process still runs from the lab's directory.
    const dir = `/tmp/obs-lab-${id}/`;
    expect(existsSync(`${dir}frr/bgpd.log`)).toBe(true);
    expect(processesMentioning(dir)).toEqual([]);
  });
});

describe.skipIf(!IS_ROOT)('peers of today (the trixie root)', () => {
  const id = `t${process.pid}t`;
  const opts: LabOptions = {
    id,
    speaker: SPEAKER,
    peers: [
      { name: 'frr', impl: 'frr', as: 65001, release: 'trixie' },
      { name: 'bird', impl: 'bird', as: 65003, release: 'trixie' },
      { name: 'gobgp', impl: 'gobgp', as: 65002 },
    ],
  };
  /** Mount points of the lab's directory anywhere (inside the root, that is). */
  const mountsOf = (dir: string) =>
    readFileSync('/proc/mounts', 'utf8')
      .split('\n')
      .map((l) => l.split(' ')[1] ?? '')
      .filter((t) => t.includes(`${dir}/`));

  afterAll(async () => {
    await Lab.cleanup({ id });
  });

  it('runs FRR 10.3 and BIRD 3.1 from the root beside the host GoBGP, and destroy unmounts them', async () => {
    const lab = await Lab.create(opts);
    const root = (await DaemonRoot.trixie()).path;
    expect(await lab.frr('frr').version()).toMatch(/^10\.3(\.|$)/);
    expect(await lab.bird('bird').version()).toMatch(/^3\.1\./);
    expect(await lab.gobgp('gobgp').version()).toMatch(/^3\.10\./);
    // Each daemon of the root sees its directory at the same path inside it.
    expect(mountsOf(lab.dir).sort()).toEqual([`${root}${lab.dir}/bird`, `${root}${lab.dir}/frr`]);
    await lab.destroy();
    expect(mountsOf(lab.dir)).toEqual([]);
    expect(existsSync(`${root}${lab.dir}`)).toBe(false);
  });

  it('a second Lab object (from the state file) unmounts what a lab that died left in the root', async () => {
    const crashed = await Lab.create(opts);
    const root = (await DaemonRoot.trixie()).path;
    const records = [...crashed.processes()];
    expect(mountsOf(crashed.dir)).toHaveLength(2);
    // `crashed` is dropped without destroy(), as if its process had died.
    await Lab.attach({ id }).destroy();
    await expectGone(id, records);
    expect(mountsOf(crashed.dir)).toEqual([]);
    expect(existsSync(`${root}${crashed.dir}`)).toBe(false);
    // The same directory mounts again for a new lab, though this process's root had it mounted.
    const again = await Lab.create(opts);
    try {
      expect(mountsOf(again.dir)).toHaveLength(2);
      await again
        .bird('bird')
        .waitForNeighborState(again.peer('bird').speakerAddress.ipv4, ['Active', 'Connect', 'Idle']);
    } finally {
      await again.destroy();
    }
    expect(mountsOf(again.dir)).toEqual([]);
  });
});
