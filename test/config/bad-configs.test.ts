import { describe, expect, it } from 'vitest';
import { configError, problemLines, SPEAKER } from './support.js';

/*
 * Each bad configuration with the exact problems it must produce: one line per problem, naming
 * file:line:column, the field path and the bad value. SPEAKER is lines 1-4; what a case adds
 * starts on line 5.
 */

interface Case {
  readonly name: string;
  readonly text: string;
  readonly want: readonly string[];
  readonly files?: Record<string, string>;
}

const PEER = `peers:
  - name: tor-a
    peer_ip: 198.18.1.2
    remote_as: 65001
`;

const cases: Case[] = [
  // --- bmp ---
  {
    name: 'bmp: a collector with no address',
    text: `${SPEAKER}bmp:\n  collectors:\n    - port: 11019\n`,
    want: ['config.yaml:7:7 bmp.collectors[0].address: required key is missing'],
  },
  {
    name: 'bmp: route_monitoring names no view',
    text: `${SPEAKER}bmp:\n  route_monitoring: loc_rib\n  collectors: [{ address: 198.18.0.9 }]\n`,
    want: [
      'config.yaml:6:3 bmp.route_monitoring: expected one of pre_policy, post_policy, both, got "loc_rib"',
    ],
  },
  {
    name: 'bmp: the first wait above the longest',
    text: `${SPEAKER}bmp:\n  collectors:\n    - { address: 198.18.0.9, min_retry_ms: 5000, max_retry_ms: 1000 }\n`,
    want: ['config.yaml:7:30 bmp.collectors[0].min_retry_ms: 5000 is above max_retry_ms (1000)'],
  },
  {
    name: 'bmp: the same collector twice',
    text: `${SPEAKER}bmp:\n  collectors:\n    - { address: 198.18.0.9 }\n    - { address: 198.18.0.9, port: 11019 }\n`,
    want: ['config.yaml:8:9 bmp.collectors[1].address: 198.18.0.9 port 11019 is collectors[0] already'],
  },
  {
    name: 'out of range: more equal-cost paths than a route can carry',
    text: `${SPEAKER}  bestpath:\n    max_paths: 65\n`,
    want: ['config.yaml:6:5 speaker.bestpath.max_paths: expected a number of paths 1..64, got 65'],
  },
  {
    name: 'out of range: add_path.send of no path',
    text: `${PEER.replace('peers:', `${SPEAKER}peers:`)}    add_path: { send: 0 }\n`,
    want: ['config.yaml:9:17 peers[0].add_path.send: expected a path count 1..255, got 0'],
  },
  {
    name: 'unknown keyword: add_path.send names no selection',
    text: `${PEER.replace('peers:', `${SPEAKER}peers:`)}    add_path: { send: best }\n`,
    want: ['config.yaml:9:17 peers[0].add_path.send: expected one of all, ecmp, got "best"'],
  },
  // --- types and unknown keys ---
  {
    name: 'wrong type: a quoted number is not a number',
    text: `${SPEAKER}  hold_time: "90"\n`,
    want: ['config.yaml:5:3 speaker.hold_time: expected 0 or a whole number of seconds 3..65535, got "90"'],
  },
  {
    name: 'wrong type: yes is not a boolean in YAML 1.2',
    text: `${PEER.replace('peers:', `${SPEAKER}peers:`)}    passive: yes\n`,
    want: ['config.yaml:9:5 peers[0].passive: expected true or false, got "yes"'],
  },
  {
    name: 'wrong type: a mapping where a list belongs',
    text: `${SPEAKER}peers:\n  name: tor-a\n`,
    want: ['config.yaml:5:1 peers: expected a list of peers, got a mapping'],
  },
  {
    name: 'unknown top-level key, close to a known one',
    text: `${SPEAKER}peer: []\n`,
    want: ['config.yaml:5:1 peer: unknown key (did you mean peers?)'],
  },
  {
    name: 'unknown key, camelCase of a known one',
    text: `${PEER.replace('peers:', `${SPEAKER}peers:`)}    holdTime: 9\n`,
    want: ['config.yaml:9:5 peers[0].holdTime: unknown key (did you mean hold_time?)'],
  },
  {
    name: 'unknown key far from any known one lists the keys',
    text: `${SPEAKER}  log: { level: info, colour: blue }\n`,
    want: ['config.yaml:5:23 speaker.log.colour: unknown key (expected one of: level)'],
  },
  {
    name: 'an empty value is not a default',
    text: `${SPEAKER}  hold_time:\n`,
    want: [
      'config.yaml:5:3 speaker.hold_time: expected 0 or a whole number of seconds 3..65535, got an empty value',
    ],
  },
  // --- missing fields ---
  {
    name: 'no speaker section',
    text: 'peers: []\n',
    want: ['config.yaml:1:1 speaker: required key is missing'],
  },
  {
    name: 'missing peer fields are reported at the peer, one line each',
    text: `${SPEAKER}peers:\n  - peer_ip: 198.18.1.2\n`,
    want: [
      'config.yaml:6:5 peers[0].name: required key is missing',
      'config.yaml:6:5 peers[0].remote_as: required key is missing',
    ],
  },
  {
    name: 'an empty file',
    text: '# nothing yet\n',
    want: ['config.yaml: (top level): expected a mapping with a speaker section, got an empty value'],
  },
  // --- AS numbers ---
  {
    name: 'AS number: a word',
    text: `${PEER.replace('peers:', `${SPEAKER}peers:`).replace('65001', 'abc')}`,
    want: [
      'config.yaml:8:5 peers[0].remote_as: expected an AS number 1..4294967295, external or internal, got "abc"',
    ],
  },
  {
    name: 'AS number: unquoted asdot reads as a float',
    text: SPEAKER.replace('65000', '1.10'),
    want: [
      'config.yaml:3:3 speaker.local_as: expected an AS number 1..4294967295, got 1.1 (an asdot AS number must be quoted, e.g. "1.10")',
    ],
  },
  {
    name: 'AS number: 0 and beyond 32 bits',
    text: `${SPEAKER.replace('65000', '0')}peers:\n  - { name: a, peer_ip: 198.18.1.2, remote_as: 4294967296 }\n`,
    want: [
      'config.yaml:3:3 speaker.local_as: expected an AS number 1..4294967295, got 0',
      'config.yaml:6:37 peers[0].remote_as: expected an AS number 1..4294967295, external or internal, got 4294967296',
    ],
  },
  {
    name: 'AS number: AS_TRANS',
    text: SPEAKER.replace('65000', '23456'),
    want: [
      'config.yaml:3:3 speaker.local_as: 23456 is AS_TRANS, which only stands in for 4-octet AS numbers (RFC 6793) and cannot be configured',
    ],
  },
  // --- addresses ---
  {
    name: 'router_id must be a dotted quad',
    text: SPEAKER.replace('198.18.0.1', '2001:db8::1'),
    want: [
      'config.yaml:4:3 speaker.router_id: expected a non-zero IPv4 dotted quad (RFC 6286), got "2001:db8::1"',
    ],
  },
  {
    name: 'router_id 0.0.0.0',
    text: SPEAKER.replace('198.18.0.1', '0.0.0.0'),
    want: ['config.yaml:4:3 speaker.router_id: the BGP Identifier must not be 0.0.0.0 (RFC 6286)'],
  },
  {
    name: 'peer_ip: a prefix, a v4-mapped address, a multicast group, leading zeros',
    text: `${SPEAKER}peers:
  - { name: a, peer_ip: 198.18.1.0/24, remote_as: 65001 }
  - { name: b, peer_ip: "::ffff:198.18.1.2", remote_as: 65001 }
  - { name: c, peer_ip: 224.0.0.5, remote_as: 65001 }
  - { name: d, peer_ip: 198.018.1.2, remote_as: 65001 }
`,
    want: [
      'config.yaml:6:16 peers[0].peer_ip: expected an IP address, got "198.18.1.0/24" (a prefix, not an address)',
      'config.yaml:7:16 peers[1].peer_ip: expected an IP address, got "::ffff:198.18.1.2" (write the IPv4 address 198.18.1.2 itself)',
      'config.yaml:8:16 peers[2].peer_ip: expected a unicast address, got "224.0.0.5"',
      'config.yaml:9:16 peers[3].peer_ip: expected an IP address, got "198.018.1.2"',
    ],
  },
  {
    name: 'peer_ip: a v4-mapped address in hex, an IPv6 multicast group',
    text: `${SPEAKER}peers:
  - { name: a, peer_ip: "::ffff:c612:102", remote_as: 65001 }
  - { name: b, peer_ip: "ff02::5", remote_as: 65001 }
`,
    want: [
      'config.yaml:6:16 peers[0].peer_ip: expected an IP address, got "::ffff:c612:102" (write the IPv4 address 198.18.1.2 itself)',
      'config.yaml:7:16 peers[1].peer_ip: expected a unicast address, got "ff02::5"',
    ],
  },
  {
    name: 'local_address of the other version',
    text: `${PEER.replace('peers:', `${SPEAKER}peers:`)}    local_address: 2001:db8::1\n`,
    want: ['config.yaml:9:5 peers[0].local_address: 2001:db8::1 is not IPv4 like peer_ip 198.18.1.2'],
  },
  {
    name: 'duplicate peer names and addresses (compared canonically)',
    text: `${SPEAKER}peers:
  - { name: a, peer_ip: 2001:db8::1, remote_as: 65001 }
  - { name: a, peer_ip: "2001:DB8:0:0::1", remote_as: 65002 }
`,
    want: [
      'config.yaml:7:7 peers[1].name: "a" is already the name of peers[0]',
      'config.yaml:7:16 peers[1].peer_ip: 2001:db8::1 is already the address of peers[0]',
    ],
  },
  {
    name: 'metrics.listen needs ADDRESS:PORT',
    text: `${SPEAKER}  metrics: { listen: "::1:9179" }\n`,
    want: [
      'config.yaml:5:14 speaker.metrics.listen: expected ADDRESS:PORT, an IPv6 address in brackets ("[::1]:9179"), got "::1:9179"',
    ],
  },
  {
    name: 'health: readiness names a peer or a sink the file does not have, a bad keyword, a stall bound out of range',
    text: `${SPEAKER}  health:
    stall_ms: 50
    ready_requires: { peers: [a, b], sinks: [kernel, ovn-table lr0] }
peers:
  - { name: a, peer_ip: 198.18.1.2, remote_as: 65001 }
sinks:
  kernel: {}
`,
    want: [
      'config.yaml:6:5 speaker.health.stall_ms: expected an integer 100..600000, got 50',
      'config.yaml:7:34 speaker.health.ready_requires.peers[1]: no peer is named b',
      'config.yaml:7:54 speaker.health.ready_requires.sinks[1]: no sink ovn-table lr0 (configured: kernel)',
    ],
  },
  {
    name: 'health: ready_requires.peers is a keyword or names',
    text: `${SPEAKER}  health: { ready_requires: { peers: some, sinks: none } }\n`,
    want: [
      'config.yaml:5:31 speaker.health.ready_requires.peers: expected one of none, any, all, or a list of peer names, got "some"',
      'config.yaml:5:44 speaker.health.ready_requires.sinks: expected all, or a list of sink names, got "none"',
    ],
  },
  // --- prefixes and routes ---
  {
    name: 'bad prefixes: host bits, too long, no length',
    text: `${SPEAKER}networks: [198.18.10.1/24, 198.18.10.0/33, 2001:db8::1]\n`,
    want: [
      'config.yaml:5:12 networks[0]: "198.18.10.1/24" has host bits set (the network is 198.18.10.0/24)',
      'config.yaml:5:28 networks[1]: expected a prefix such as 198.18.0.0/15, got "198.18.10.0/33" (IPv4 prefixes are at most /32)',
      'config.yaml:5:44 networks[2]: expected a prefix such as 198.18.0.0/15, got "2001:db8::1" (no length; a host route is 2001:db8::1/128)',
    ],
  },
  {
    name: 'a route announced twice, a next hop of the other version',
    text: `${SPEAKER}routes:
  - prefix: 198.18.10.0/24
    next_hop: 2001:db8::1
  - prefix: 198.18.20.0/24
networks: [198.18.20.0/24]
`,
    want: [
      'config.yaml:7:5 routes[0].next_hop: 2001:db8::1 is not IPv4 like the prefix 198.18.10.0/24',
      'config.yaml:9:12 networks[0]: 198.18.20.0/24 is already announced by routes[1]',
    ],
  },
  {
    name: 'a route outside ip_versions',
    text: `${SPEAKER}  ip_version: 4\nnetworks: [2001:db8::/32]\n`,
    want: ['config.yaml:6:12 networks[0]: 2001:db8::/32 is IPv6, which speaker.ip_versions [4] leaves out'],
  },
  {
    name: 'communities and large communities',
    text: `${SPEAKER}routes:
  - prefix: 198.18.10.0/24
    communities: ["65536:1", no-such-name]
    large_communities: ["1:2", "1:2:4294967296"]
`,
    want: [
      'config.yaml:7:19 routes[0].communities[0]: expected a community "AS:VALUE" (each 0..65535) or a well-known name (graceful-shutdown, blackhole, no-export, no-advertise, no-export-subconfed, local-as, no-peer, internet), got "65536:1"',
      'config.yaml:7:30 routes[0].communities[1]: expected a community "AS:VALUE" (each 0..65535) or a well-known name (graceful-shutdown, blackhole, no-export, no-advertise, no-export-subconfed, local-as, no-peer, internet), got "no-such-name"',
      'config.yaml:8:25 routes[0].large_communities[0]: expected a large community "GLOBAL:LOCAL1:LOCAL2" (each 0..4294967295, RFC 8092), got "1:2"',
      'config.yaml:8:32 routes[0].large_communities[1]: expected a large community "GLOBAL:LOCAL1:LOCAL2" (each 0..4294967295, RFC 8092), got "1:2:4294967296"',
    ],
  },
  // --- versions and families ---
  {
    name: 'ip_version and ip_versions together',
    text: `${SPEAKER}  ip_version: 4\n  ip_versions: [4, 6]\n`,
    want: ['config.yaml:6:3 speaker.ip_versions: give ip_version or ip_versions, not both'],
  },
  {
    name: 'families outside ip_versions, listed or by default',
    text: `${SPEAKER}  ip_versions: [6]
peers:
  - { name: a, peer_ip: 2001:db8::2, remote_as: 65001, families: [ipv6-unicast, ipv4-unicast] }
  - { name: b, peer_ip: 198.18.1.2, remote_as: 65001 }
`,
    want: [
      'config.yaml:7:81 peers[0].families[1]: ipv4-unicast needs 4 in speaker.ip_versions [6]',
      'config.yaml:8:5 peers[1].families: defaults to ipv4-unicast (the family of peer_ip), which speaker.ip_versions [6] leaves out; list the families',
    ],
  },
  {
    name: 'extended next hop (RFC 8950) needs an IPv6 session carrying ipv4-unicast',
    text: `${SPEAKER}  ip_versions: [4, 6]
peers:
  - { name: a, peer_ip: 2001:db8::2, remote_as: 65001, extended_next_hop: true }
  - { name: b, peer_ip: 198.18.1.2, remote_as: 65001, extended_next_hop: true }
  - { name: c, peer_ip: 2001:db8::3, remote_as: 65001, extended_next_hop: ok }
`,
    want: [
      'config.yaml:7:56 peers[0].extended_next_hop: needs ipv4-unicast in families (families is [ipv6-unicast])',
      'config.yaml:8:55 peers[1].extended_next_hop: applies to IPv6 sessions; peer_ip 198.18.1.2 is IPv4',
      'config.yaml:9:56 peers[2].extended_next_hop: expected true or false, got "ok"',
    ],
  },
  // --- timers ---
  {
    name: 'hold time of 1 or 2 seconds (RFC 4271 4.2)',
    text: `${PEER.replace('peers:', `${SPEAKER}peers:`)}    hold_time: 2\n`,
    want: ['config.yaml:9:5 peers[0].hold_time: expected 0 or a whole number of seconds 3..65535, got 2'],
  },
  {
    name: 'keepalive not below hold time; keepalive with hold time 0',
    text: `${SPEAKER}  hold_time: 0\n  keepalive_time: 10\n${PEER}    hold_time: 9\n    keepalive_time: 9\n`,
    want: [
      'config.yaml:6:3 speaker.keepalive_time: must be 0 or left out when hold_time is 0 (no keepalives), got 10',
      'config.yaml:12:5 peers[0].keepalive_time: expected 1..8 (less than hold_time 9), got 9',
    ],
  },
  // --- authentication ---
  {
    name: 'md5 without a password',
    text: `${PEER.replace('peers:', `${SPEAKER}peers:`)}    auth_type: md5\n`,
    want: ['config.yaml:6:5 peers[0].password: auth_type is md5: give password or password_file'],
  },
  {
    name: 'md5 with both password and password_file',
    text: `${PEER.replace('peers:', `${SPEAKER}peers:`)}    auth_type: md5\n    password: hunter2\n    password_file: /etc/p\n`,
    want: ['config.yaml:11:5 peers[0].password_file: give password or password_file, not both'],
    files: { '/etc/p': 'hunter2\n' },
  },
  {
    name: 'a password with auth_type none (the default)',
    text: `${PEER.replace('peers:', `${SPEAKER}peers:`)}    password: hunter2\n`,
    want: ['config.yaml:9:5 peers[0].password: is set but auth_type is none; add auth_type: md5'],
  },
  {
    name: 'a password the kernel would refuse, and a password of the wrong type, never shown',
    text: `${SPEAKER}peers:
  - { name: a, peer_ip: 198.18.1.2, remote_as: 65001, auth_type: md5, password: ${'x'.repeat(81)} }
  - { name: b, peer_ip: 198.18.1.3, remote_as: 65001, auth_type: md5, password: 12345 }
`,
    want: [
      'config.yaml:6:71 peers[0].password: the password is 81 bytes; Linux takes TCP-MD5 keys of at most 80',
      'config.yaml:7:71 peers[1].password: expected a non-empty string, got a number (quote it to make it text)',
    ],
  },
  {
    name: 'a password_file that cannot be read, or is empty',
    text: `${SPEAKER}peers:
  - { name: a, peer_ip: 198.18.1.2, remote_as: 65001, auth_type: md5, password_file: /etc/missing }
  - { name: b, peer_ip: 198.18.1.3, remote_as: 65001, auth_type: md5, password_file: /etc/empty }
`,
    files: { '/etc/empty': '\n' },
    want: [
      'config.yaml:6:71 peers[0].password_file: cannot read /etc/missing: no such file',
      'config.yaml:7:71 peers[1].password_file: /etc/empty is empty',
    ],
  },
  // --- peer kinds ---
  {
    name: 'type contradicting remote_as',
    text: `${PEER.replace('peers:', `${SPEAKER}peers:`)}    type: ibgp\n`,
    want: ['config.yaml:9:5 peers[0].type: is ibgp, but remote_as 65001 differs from speaker.local_as 65000'],
  },
  {
    name: 'type contradicting remote_as external',
    text: `${SPEAKER}peers:\n  - { name: a, peer_ip: 198.18.1.2, remote_as: external, type: ibgp }\n`,
    want: ['config.yaml:6:58 peers[0].type: is ibgp, but remote_as external makes it ebgp'],
  },
  {
    name: 'iBGP-only settings on a remote_as external peer',
    text: `${SPEAKER}peers:\n  - { name: a, peer_ip: 198.18.1.2, remote_as: external, route_reflector_client: true }\n`,
    want: [
      'config.yaml:6:58 peers[0].route_reflector_client: route reflection (RFC 4456) is for iBGP peers; this peer is eBGP',
    ],
  },
  {
    name: 'eBGP-only and iBGP-only settings on the wrong kind of peer',
    text: `${SPEAKER}peers:
  - { name: a, peer_ip: 198.18.1.2, remote_as: 65000, ebgp_multihop: 2 }
  - { name: b, peer_ip: 198.18.1.3, remote_as: 65001, route_reflector_client: true, ebgp_multihop: 2, ttl_security: 1 }
`,
    want: [
      'config.yaml:6:55 peers[0].ebgp_multihop: applies to eBGP peers only; this peer is iBGP',
      'config.yaml:7:55 peers[1].route_reflector_client: route reflection (RFC 4456) is for iBGP peers; this peer is eBGP',
      'config.yaml:7:103 peers[1].ttl_security: cannot be combined with ebgp_multihop',
    ],
  },
  {
    name: "next_hop_self and next_hop_unchanged together: our address or the route's own, not both",
    text: `${SPEAKER}peers:
  - { name: a, peer_ip: 198.18.1.2, remote_as: 65001, next_hop_self: true, next_hop_unchanged: true }
  - { name: b, peer_ip: 198.18.1.3, remote_as: 65001, next_hop_self: true, next_hop_unchanged: false }
`,
    want: [
      "config.yaml:6:76 peers[0].next_hop_unchanged: contradicts next_hop_self: true (our address, or the route's own next hop; choose one)",
    ],
  },
  {
    name: 'max_prefixes of 0, and a bad threshold',
    text: `${SPEAKER}peers:
  - { name: a, peer_ip: 198.18.1.2, remote_as: 65001, max_prefixes: 0 }
  - { name: b, peer_ip: 198.18.1.3, remote_as: 65001, max_prefixes: { limit: 10, warning_threshold: 120 } }
`,
    want: [
      'config.yaml:6:55 peers[0].max_prefixes: expected an integer 1..4294967295, got 0',
      'config.yaml:7:82 peers[1].max_prefixes.warning_threshold: expected an integer 1..100, got 120',
    ],
  },
  // --- policies ---
  {
    name: 'a policy name referenced but not defined',
    text: `${PEER.replace('peers:', `${SPEAKER}peers:`)}    import: [from-tor]\n    export: [to-tor, to-tor]\n`,
    want: [
      'config.yaml:9:14 peers[0].import[0]: no policy named "from-tor" (no policies are defined; built in: accept-all, reject-all)',
      'config.yaml:10:22 peers[0].export[1]: repeats item 0 (to-tor)',
      'config.yaml:10:14 peers[0].export[0]: no policy named "to-tor" (no policies are defined; built in: accept-all, reject-all)',
    ].sort(byLineColumn),
  },
  {
    name: 'lists a statement refers to must exist',
    text: `${SPEAKER}community_lists:
  cl: [{ action: permit, communities: [no-export] }]
policies:
  p:
    statements:
      - match: { prefix_list: pl, community_list: cl, large_community_list: lcl, as_path: ap, next_hop: nh }
        set: { communities: { delete_list: gone } }
        action: accept
`,
    want: [
      'config.yaml:10:18 policies.p.statements[0].match.prefix_list: no prefix list named "pl" (prefix_lists is empty)',
      'config.yaml:10:55 policies.p.statements[0].match.large_community_list: no large community list named "lcl" (large_community_lists is empty)',
      'config.yaml:10:82 policies.p.statements[0].match.as_path: no AS-path list named "ap" (as_path_lists is empty)',
      'config.yaml:10:95 policies.p.statements[0].match.next_hop: no prefix list named "nh" (prefix_lists is empty)',
      'config.yaml:11:31 policies.p.statements[0].set.communities.delete_list: no community list named "gone" (defined: cl)',
    ],
  },
  {
    name: 'extended communities: the value and why it is refused, and lists named',
    text: `${SPEAKER}extended_community_lists:
  el: [{ action: permit, communities: ["rt:65000:1", "rt:198.18.0.1:70000", "color:1"] }]
policies:
  p:
    statements:
      - match: { extended_community_list: nope }
        set: { extended_communities: { add: ["rt:65000:*"], delete_list: gone } }
        action: accept
`,
    want: [
      'config.yaml:6:54 extended_community_lists.el[0].communities[1]: "rt:198.18.0.1:70000": local administrator 70000 is more than 65535 with an IPv4 address',
      'config.yaml:6:77 extended_community_lists.el[0].communities[2]: "color:1": expected an extended community: rt:ASN:N, rt:IPV4:N, soo:ASN:N, soo:IPV4:N ("rt 65000:1" too), or 0xTTSS:VVVVVVVVVVVV (type, sub-type and 6 value octets in hex)',
      'config.yaml:10:18 policies.p.statements[0].match.extended_community_list: no extended community list named "nope" (defined: el)',
      'config.yaml:11:46 policies.p.statements[0].set.extended_communities.add[0]: a wildcard cannot be set: rt:65000:*',
      'config.yaml:11:61 policies.p.statements[0].set.extended_communities.delete_list: no extended community list named "gone" (defined: el)',
    ],
  },
  {
    name: 'a policy may not take a built-in name, and peers may name the built-ins',
    text: `${PEER.replace('peers:', `${SPEAKER}peers:`)}    import: [accept-all]
    export: [reject-all]
policies:
  accept-all:
    statements: [{ action: reject }]
`,
    want: [
      'config.yaml:12:3 policies.accept-all: accept-all is a built-in policy and cannot be redefined; use another name',
    ],
  },
  {
    name: 'prefix list ranges and families (FRR: len <= ge <= le <= bits)',
    text: `${SPEAKER}prefix_lists:
  pl:
    - { seq: 5, action: permit, prefix: 198.18.0.0/16, ge: 8 }
    - { seq: 5, action: permit, prefix: 198.18.0.0/16, ge: 24, le: 20 }
    - { action: permit, prefix: 198.18.0.0/16, le: 33 }
    - { action: permit, prefix: 2001:db8::/32 }
`,
    want: [
      'config.yaml:7:56 prefix_lists.pl[0].ge: ge 8 is shorter than the prefix length 16',
      'config.yaml:8:9 prefix_lists.pl[1].seq: seq 5 is already used by entry 0',
      'config.yaml:8:64 prefix_lists.pl[1].le: le 20 is less than ge 24',
      'config.yaml:9:48 prefix_lists.pl[2].le: le 33 is longer than /32',
      'config.yaml:10:25 prefix_lists.pl[3].prefix: 2001:db8::/32 is ipv6, but this list is ipv4; a prefix list holds one family',
    ],
  },
  {
    name: 'prefix lists of "any": no ranges, and a family must be given',
    text: `${SPEAKER}prefix_lists:
  only-any: [{ action: deny, prefix: any }]
  ranged-any: [{ action: permit, prefix: 198.18.0.0/15 }, { action: deny, prefix: any, le: 32 }]
  v6: { family: ipv6, entries: [{ action: permit, prefix: 198.18.0.0/15 }] }
`,
    want: [
      'config.yaml:6:3 prefix_lists.only-any: a list of only "any" needs its family: { family: ipv4, entries: [...] }',
      'config.yaml:7:88 prefix_lists.ranged-any[1].le: "any" takes no ge or le',
      "config.yaml:8:51 prefix_lists.v6.entries[0].prefix: 198.18.0.0/15 is ipv4, but the list's family is ipv6; a prefix list holds one family",
    ],
  },
  {
    name: 'an AS-path regex that does not compile, a bad range, a community pattern',
    text: `${SPEAKER}as_path_lists:
  ap:
    - { action: permit, regex: "^(65001" }
    - { action: permit, min_length: 5, max_length: 2 }
community_lists:
  cl: [{ action: permit, communities: ["65000:**"] }]
`,
    want: [
      'config.yaml:7:25 as_path_lists.ap[0].regex: "^(65001" is not a valid regular expression: Invalid regular expression: /^(65001/: Unterminated group',
      'config.yaml:8:40 as_path_lists.ap[1].max_length: 2 is less than min_length 5',
      'config.yaml:10:40 community_lists.cl[0].communities[0]: expected a community "AS:VALUE" (each 0..65535) or a well-known name (graceful-shutdown, blackhole, no-export, no-advertise, no-export-subconfed, local-as, no-peer, internet), either half may be *, got "65000:**"',
    ],
  },
  {
    name: 'a statement action spelled as a list action, and a bad policy name',
    text: `${SPEAKER}policies:
  "bad name":
    statements: [{ action: accept }]
  p:
    statements: [{ action: permit }]
`,
    want: [
      `config.yaml:6:3 policies["bad name"]: expected a name (letters, digits, '.', '_' and '-', starting with a letter or digit, at most 64), got "bad name"`,
      'config.yaml:9:20 policies.p.statements[0].action: expected one of accept, reject, next, got "permit"',
    ],
  },
  // --- OVN ---
  {
    name: 'OVSDB connection strings',
    text: `${SPEAKER}ovn:
  nb: "tcp:198.18.0.10:6641,tcp:2001:db8::1:6641"
  sb: "udp:198.18.0.10:6642"
`,
    want: [
      'config.yaml:6:3 ovn.nb: "tcp:2001:db8::1:6641" is not an OVSDB remote: an IPv6 host goes in brackets, e.g. tcp:[2001:db8::1]:6641',
      'config.yaml:7:3 ovn.sb: "udp:198.18.0.10:6642" is not an OVSDB remote: the method is unix:, tcp: or ssl:',
    ],
  },
  {
    name: 'ssl: remotes need the ssl files',
    text: `${SPEAKER}ovn: { nb: "ssl:198.18.0.10:6641", sb: "unix:/run/ovn/ovnsb_db.sock" }\n`,
    want: ['config.yaml:5:1 ovn.ssl: ssl: remotes need ssl.private_key, ssl.certificate and ssl.ca_cert'],
  },
  {
    name: 'ovn: the local Open_vSwitch database is a connection string',
    text: `${SPEAKER}ovn: { nb: "unix:/run/ovn/ovnnb_db.sock", sb: "unix:/run/ovn/ovnsb_db.sock", mode: local, ovs: "db.sock" }\n`,
    want: ['config.yaml:5:91 ovn.ovs: "db.sock" is not an OVSDB remote: the method is unix:, tcp: or ssl:'],
  },
  {
    name: 'ovn: an unknown route kind, a bad next hop and a select with both keys',
    text: `${SPEAKER}ovn:
  nb: "unix:/run/ovn/ovnnb_db.sock"
  sb: "unix:/run/ovn/ovnsb_db.sock"
  chassis_next_hops: { gw1: { ipv4: "2001:db8::1" } }
  routes: { floating_ip: {}, tenant_networks: { select: { marker: x, prefixes: [] } } }
`,
    want: [
      'config.yaml:8:31 ovn.chassis_next_hops.gw1.ipv4: expected an IPv4 address, got "2001:db8::1"',
      'config.yaml:9:13 ovn.routes.floating_ip: unknown key (did you mean floating_ips?)',
      'config.yaml:9:49 ovn.routes.tenant_networks.select: needs exactly one of prefixes and marker',
    ],
  },
  {
    name: 'sinks: ovn_nb without an ovn section, an unknown install policy, a zebra instance of 0',
    text: `${SPEAKER}sinks:
  ovn_nb: { router: r1 }
  kernel: { install: [nope] }
  zebra: { instance: 0 }
`,
    want: [
      'config.yaml:6:3 sinks.ovn_nb: needs the ovn section (its nb connection)',
      'config.yaml:7:23 sinks.kernel.install[0]: no policy named "nope"',
      'config.yaml:8:12 sinks.zebra.instance: expected an integer 1..65535, got 0',
    ],
  },
  {
    name: 'ovn_route_tables: a router without sb, an entry with both router and table, one listed twice, an unknown learn policy, a bad preference',
    text: `${SPEAKER}ovn_route_tables:
  tables:
    - { router: lr0, learn: [nope] }
    - { router: lr1, table: 7 }
    - { table: 7 }
    - { table: 7 }
  preference: closest
`,
    want: [
      'config.yaml:7:9 ovn_route_tables.tables[0].router: needs ovn_route_tables.sb to find the router’s table',
      'config.yaml:7:30 ovn_route_tables.tables[0].learn[0]: no policy named "nope"',
      'config.yaml:8:7 ovn_route_tables.tables[1]: needs exactly one of router and table',
      'config.yaml:10:7 ovn_route_tables.tables[3]: table 7 is listed twice',
      'config.yaml:11:3 ovn_route_tables.preference: expected one of med, prepend, local-only, got "closest"',
    ],
  },
  // --- YAML itself ---
  {
    name: 'a duplicate key is a syntax error (which value was meant?)',
    text: `${SPEAKER}  local_as: 65001\n`,
    want: ['config.yaml:5:3 Map keys must be unique'],
  },
  {
    name: 'an unclosed flow sequence',
    text: `${SPEAKER}networks: [198.18.10.0/24\n`,
    want: [
      'config.yaml:6:1 Flow sequence in block collection must be sufficiently indented and end with a ]',
    ],
  },
];

function byLineColumn(a: string, b: string): number {
  const pos = (s: string) => s.split(' ')[0].split(':').slice(1).map(Number);
  const [la, ca] = pos(a);
  const [lb, cb] = pos(b);
  return la - lb || ca - cb;
}

describe('bad configurations: one clear problem per mistake', () => {
  it.each(cases)('$name', ({ text, want, files }) => {
    expect(problemLines(text, files)).toEqual(want);
  });

  it('a problem carries the path, the bad value and its position as data', () => {
    const e = configError(`${PEER.replace('peers:', `${SPEAKER}peers:`).replace('65001', 'abc')}`);
    expect(e.kind).toBe('invalid');
    expect(e.problems).toEqual([
      {
        path: 'peers[0].remote_as',
        segments: ['peers', 0, 'remote_as'],
        value: 'abc',
        message: 'expected an AS number 1..4294967295, external or internal, got "abc"',
        line: 8,
        column: 5,
      },
    ]);
    expect(e.message).toBe(
      'config.yaml: 1 problem\nconfig.yaml:8:5 peers[0].remote_as: expected an AS number 1..4294967295, external or internal, got "abc"',
    );
  });

  it('secrets never appear in problems or in the error message', () => {
    const secret = 'x'.repeat(81);
    const e = configError(
      `${SPEAKER}peers:\n  - { name: a, peer_ip: 198.18.1.2, remote_as: 65001, auth_type: md5, password: ${secret} }\n`,
    );
    expect(e.message).not.toContain(secret);
    expect(JSON.stringify(e.problems)).not.toContain(secret);
    const typed = configError(
      `${SPEAKER}peers:\n  - { name: a, peer_ip: 198.18.1.2, remote_as: 65001, auth_type: md5, password: [hunter2] }\n`,
    );
    expect(JSON.stringify(typed.problems)).not.toContain('hunter2');
    expect(typed.problems[0].value).toBe('(hidden)');
    const numeric = configError(
      `${SPEAKER}peers:\n  - { name: a, peer_ip: 198.18.1.2, remote_as: 65001, auth_type: md5, password: 8675309 }\n`,
    );
    expect(numeric.message).toContain('got a number (quote it to make it text)');
    expect(JSON.stringify(numeric.problems) + numeric.message).not.toContain('8675309');
  });

  it('syntax errors are kind "syntax" and stop before validation', () => {
    const e = configError(`${SPEAKER}  local_as: 65001\n  bogus_key: 1\n`);
    expect(e.kind).toBe('syntax');
    expect(e.problems).toHaveLength(1);
  });

  it('an alias bomb is refused, not expanded', () => {
    const bomb = [
      'a: &a [x, x, x, x, x, x, x, x, x, x]',
      'b: &b [*a, *a, *a, *a, *a, *a, *a, *a, *a, *a]',
      'c: &c [*b, *b, *b, *b, *b, *b, *b, *b, *b, *b]',
      'd: [*c, *c, *c, *c, *c, *c, *c, *c, *c, *c]',
    ].join('\n');
    const e = configError(bomb);
    expect(e.kind).toBe('syntax');
    expect(e.message).toMatch(/alias/i);
  });
});
