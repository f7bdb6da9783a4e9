import { describe, expect, it } from 'vitest';
import {
  type Config,
  dynamicPeerConfig,
  dynamicPeerName,
  notActedOnWarnings,
  type PeerConfig,
  planPeerChange,
  planReload,
  redactConfig,
} from '../../src/config/index.js';
import { parse, problemLines, SPEAKER } from './support.js';

// peer_templates and listen_ranges: what they accept, the problems they name, the peer a
// connection from a range becomes, and what a reload plans for them.

const POLICIES = `policies:
  all: { statements: [{ action: accept }] }
`;

const TEMPLATES = `peer_templates:
  leaves:
    remote_as: external
    hold_time: 9
    auth_type: md5
    password: leaf-secret
    import: [all]
    export: [all]
  spines:
    remote_as: internal
    families: [ipv4-unicast, ipv6-unicast]
    route_reflector_client: true
  fixed:
    remote_as: 65100
    import: [all]
    export: [all]
    bfd: fast
bfd_profiles:
  fast: { min_rx: 100, multiplier: 5 }
`;

const RANGES = `listen_ranges:
  - { prefix: 198.18.0.0/24, template: leaves, limit: 3 }
  - { prefix: 2001:db8:7::/64, template: spines }
  - { prefix: 198.18.9.0/24, template: fixed }
`;

const config = (text: string): Config => parse(text).config;

describe('peer_templates and listen_ranges', () => {
  const c = config(`${SPEAKER}${POLICIES}${TEMPLATES}${RANGES}`);

  it('templates keep a peer’s settings without an address; external, internal and numbers make the type', () => {
    expect(c.peerTemplates.map((t) => [t.name, t.remoteAs, t.type])).toEqual([
      ['leaves', 'external', 'ebgp'],
      ['spines', 'internal', 'ibgp'],
      ['fixed', 65100, 'ebgp'],
    ]);
    const leaves = c.peerTemplates[0]!;
    expect(leaves).toMatchObject({
      holdTime: 9,
      keepaliveTime: 3,
      auth: { type: 'md5', password: 'leaf-secret' },
      families: undefined,
      import: ['all'],
    });
    expect(c.peerTemplates[1]).toMatchObject({ routeReflectorClient: true });
    // BFD as a peer's: off unless asked, a profile looked up with the defaults for the rest.
    expect(leaves.bfd).toBeUndefined();
    expect(c.peerTemplates[2]!.bfd).toEqual({ minRx: 100, minTx: 300, multiplier: 5, profile: 'fast' });
  });

  it('redactConfig hides template passwords as it hides peers’', () => {
    expect(JSON.stringify(redactConfig(c))).not.toContain('leaf-secret');
    expect(JSON.stringify(c)).toContain('leaf-secret');
  });

  it('ranges name their template; the limit defaults to FRR’s 100', () => {
    expect(c.listenRanges).toEqual([
      {
        prefix: { afi: 1, addr: '198.18.0.0', len: 24 },
        text: '198.18.0.0/24',
        template: 'leaves',
        limit: 3,
      },
      {
        prefix: { afi: 2, addr: '2001:db8:7::', len: 64 },
        text: '2001:db8:7::/64',
        template: 'spines',
        limit: 100,
      },
      {
        prefix: { afi: 1, addr: '198.18.9.0', len: 24 },
        text: '198.18.9.0/24',
        template: 'fixed',
        limit: 100,
      },
    ]);
  });

  it('a connection becomes a passive peer named after its address, families from the address unless given', () => {
    const p = dynamicPeerConfig(c.peerTemplates[0]!, c.listenRanges[0]!, '198.18.0.7');
    expect(p).toMatchObject({
      name: 'dyn-198.18.0.7',
      peerIp: '198.18.0.7',
      remoteAs: 'external',
      type: 'ebgp',
      passive: true,
      shutdown: false,
      families: ['ipv4-unicast'],
      holdTime: 9,
      auth: { type: 'md5', password: 'leaf-secret' },
      localAddress: undefined,
      dynamic: { range: '198.18.0.0/24', template: 'leaves' },
    });
    const six = dynamicPeerConfig(c.peerTemplates[1]!, c.listenRanges[1]!, '2001:db8:7::9');
    expect(six).toMatchObject({ name: 'dyn-2001:db8:7::9', families: ['ipv4-unicast', 'ipv6-unicast'] });
    expect(dynamicPeerName('2001:db8::1')).toBe('dyn-2001:db8::1');
  });

  it('a connection’s peer has every field a configured peer has (and the dynamic mark besides)', () => {
    const configured = config(
      `${SPEAKER}${POLICIES}peers:\n  - { name: x, peer_ip: 198.18.1.2, remote_as: 65001, import: [all], export: [all] }\n`,
    ).peers[0]!;
    const dynamic = dynamicPeerConfig(c.peerTemplates[2]!, c.listenRanges[2]!, '198.18.9.5');
    expect(Object.keys(dynamic).sort()).toEqual([...Object.keys(configured), 'dynamic'].sort());
  });
});

describe('problems', () => {
  it.each([
    [
      'a range naming no template',
      `${TEMPLATES}listen_ranges:\n  - { prefix: 198.18.0.0/24, template: leafs }\n`,
      ['listen_ranges[0].template: no peer template named "leafs" (defined: leaves, spines, fixed)'],
    ],
    [
      'the same prefix twice',
      `${TEMPLATES}listen_ranges:\n  - { prefix: 198.18.0.0/24, template: leaves }\n  - { prefix: 198.18.0.0/24, template: fixed }\n`,
      ['listen_ranges[1].prefix: 198.18.0.0/24 is already the prefix of listen_ranges[0]'],
    ],
    [
      'host bits in a range',
      `${TEMPLATES}listen_ranges:\n  - { prefix: 198.18.0.1/24, template: leaves }\n`,
      ['listen_ranges[0].prefix: "198.18.0.1/24" has host bits set (the network is 198.18.0.0/24)'],
    ],
    [
      'a limit of 0',
      `${TEMPLATES}listen_ranges:\n  - { prefix: 198.18.0.0/24, template: leaves, limit: 0 }\n`,
      ['listen_ranges[0].limit: expected an integer 1..65535, got 0'],
    ],
    [
      'remote_as neither a number nor a kind',
      'peer_templates:\n  t: { remote_as: outside }\n',
      [
        'peer_templates.t.remote_as: expected an AS number 1..4294967295, external or internal, got "outside"',
      ],
    ],
    [
      'AS_TRANS as a template’s remote_as',
      'peer_templates:\n  t: { remote_as: 23456 }\n',
      ['peer_templates.t.remote_as: 23456 is AS_TRANS'],
    ],
    [
      'a key a template cannot have',
      'peer_templates:\n  t: { remote_as: internal, peer_ip: 198.18.0.1 }\n',
      ['peer_templates.t.peer_ip: unknown key'],
    ],
    [
      'type against internal',
      'peer_templates:\n  t: { remote_as: internal, type: ebgp }\n',
      ['peer_templates.t.type: is ebgp, but remote_as internal makes it ibgp'],
    ],
    [
      'route reflection on an external template',
      'peer_templates:\n  t: { remote_as: external, route_reflector_client: true, import: [all], export: [all] }\n',
      [
        'peer_templates.t.route_reflector_client: route reflection (RFC 4456) is for iBGP peers; this template is eBGP',
      ],
    ],
    [
      'an unknown policy',
      'peer_templates:\n  t: { remote_as: internal, import: [nope] }\n',
      ['peer_templates.t.import[0]: no policy named "nope"'],
    ],
    [
      'an unknown BFD profile',
      'peer_templates:\n  t: { remote_as: internal, bfd: slow }\n',
      ['peer_templates.t.bfd: no BFD profile named "slow" (bfd_profiles defines none)'],
    ],
    [
      'md5 without a password',
      'peer_templates:\n  t: { remote_as: internal, auth_type: md5 }\n',
      ['peer_templates.t.password: auth_type is md5: give password or password_file'],
    ],
    [
      'a configured peer named like a dynamic neighbour',
      `${TEMPLATES}listen_ranges:\n  - { prefix: 198.18.0.0/24, template: spines }\npeers:\n  - { name: dyn-1, peer_ip: 198.18.1.2, remote_as: 65000 }\n`,
      ['peers[0].name: names starting with dyn- are the dynamic neighbours'],
    ],
    [
      'extended_next_hop on an IPv4 range',
      'peer_templates:\n  t: { remote_as: internal, extended_next_hop: true }\nlisten_ranges:\n  - { prefix: 198.18.0.0/24, template: t }\n',
      [
        'listen_ranges[0].template: t sets extended_next_hop, which applies to IPv6 sessions; 198.18.0.0/24 is IPv4',
      ],
    ],
  ])('%s', (_name, text, want) => {
    const lines = problemLines(`${SPEAKER}${POLICIES}${text}`);
    expect(lines).toHaveLength(want.length);
    for (const [i, w] of want.entries()) expect(lines[i]).toContain(w);
  });

  it('an IPv6 range on an IPv4-only listener, and a range of a version the speaker does not carry', () => {
    const speaker = `${SPEAKER}  ip_versions: [4]\n  listen: { address: 0.0.0.0 }\n`;
    const lines = problemLines(
      `${speaker}peer_templates:\n  t: { remote_as: internal }\nlisten_ranges:\n  - { prefix: 2001:db8::/64, template: t }\n`,
    );
    expect(lines).toEqual([
      expect.stringContaining(
        'listen_ranges[0].prefix: 2001:db8::/64 is IPv6, which speaker.ip_versions [4] leaves out',
      ),
      expect.stringContaining(
        'listen_ranges[0].prefix: 2001:db8::/64 is IPv6; speaker.listen.address 0.0.0.0 takes IPv4 connections only',
      ),
    ]);
  });

  it('long-lived graceful restart on a template is said not to keep a dynamic neighbour’s routes', () => {
    const c = parse(
      `${SPEAKER}peer_templates:\n  t: { remote_as: internal, long_lived_stale_time: 60 }\n`,
    ).config;
    expect(notActedOnWarnings(c)).toEqual([
      expect.stringContaining('keeps no routes of a dynamic neighbour (templates t)'),
    ]);
    expect(
      notActedOnWarnings(parse(`${SPEAKER}peer_templates:\n  t: { remote_as: internal }\n`).config),
    ).toEqual([]);
  });

  it('RFC 8212: an external template without policies is warned about', () => {
    const loaded = parse(`${SPEAKER}peer_templates:\n  t: { remote_as: external }\n`);
    expect(loaded.warnings.map((w) => w.segments.join('.'))).toEqual([
      'peer_templates.t.import',
      'peer_templates.t.export',
    ]);
  });
});

describe('reload plans', () => {
  const before = config(`${SPEAKER}${POLICIES}${TEMPLATES}${RANGES}`);

  it('nothing changed: the plan is empty', () => {
    expect(planReload(before, config(`${SPEAKER}${POLICIES}${TEMPLATES}${RANGES}`)).empty).toBe(true);
  });

  it('a template or a range changed: one change each, passwords hidden', () => {
    const after = config(
      `${SPEAKER}${POLICIES}${TEMPLATES.replace('leaf-secret', 'new-secret')}${RANGES.replace('limit: 3', 'limit: 4')}`,
    );
    const plan = planReload(before, after);
    expect(plan.empty).toBe(false);
    expect(plan.dynamic.map((c) => c.field)).toEqual(['listen_ranges', 'peer_templates.leaves']);
    expect(JSON.stringify(plan.dynamic)).not.toContain('secret');
  });

  it('a live dynamic neighbour takes a template change as the peer change would', () => {
    const after = config(
      `${SPEAKER}${POLICIES}${TEMPLATES.replace('hold_time: 9', 'hold_time: 30')}${RANGES}`,
    );
    const peer = (c: Config): PeerConfig =>
      dynamicPeerConfig(c.peerTemplates[0]!, c.listenRanges[0]!, '198.18.0.7');
    const timers = planPeerChange(peer(before), peer(after), new Set());
    expect(timers?.changes.map((c) => [c.field, c.effect])).toEqual([
      ['hold_time', 'next-session'],
      ['keepalive_time', 'next-session'],
    ]);
    expect(timers?.reset).toBe(false);
    const policy = config(
      `${SPEAKER}${POLICIES}${TEMPLATES.replace('export: [all]\n  spines', 'export: []\n  spines')}${RANGES}`,
    );
    expect(planPeerChange(peer(before), peer(policy), new Set())).toMatchObject({
      softOut: true,
      reset: false,
    });
    const auth = config(`${SPEAKER}${POLICIES}${TEMPLATES.replace('leaf-secret', 'other')}${RANGES}`);
    expect(planPeerChange(peer(before), peer(auth), new Set())).toMatchObject({ reset: true });
  });
});
