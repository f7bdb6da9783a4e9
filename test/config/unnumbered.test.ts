import { describe, expect, it } from 'vitest';
import { parse, problemLines, SPEAKER } from './support.js';

// A peer found on its link (BGP unnumbered): `interface` instead of `peer_ip`.

const peer = (extra: string) => `${SPEAKER}peers:\n  - { name: leaf, remote_as: 65001${extra} }\n`;

describe('interface peers', () => {
  it('carry both families and RFC 8950 next hops by default, and go by the interface name', () => {
    const p = parse(peer(', interface: eth1')).config.peers[0];
    expect(p.interface).toBe('eth1');
    expect(p.peerIp).toBe('eth1');
    expect(p.families).toEqual(['ipv4-unicast', 'ipv6-unicast']);
    expect(p.extendedNextHop).toBe(true);
  });

  it('keep what is written: IPv6 only has no RFC 8950, and extended_next_hop: false stays off', () => {
    const v6 = parse(peer(', interface: eth1, families: [ipv6-unicast]')).config.peers[0];
    expect(v6.extendedNextHop).toBe(false);
    const off = parse(peer(', interface: eth1, extended_next_hop: false')).config.peers[0];
    expect(off.extendedNextHop).toBe(false);
  });

  it("take remote_as external or internal, as FRR's `neighbor eth1 interface remote-as external`", () => {
    const external = parse(`${SPEAKER}peers:\n  - { name: leaf, remote_as: external, interface: eth1 }\n`);
    expect(external.config.peers[0]).toMatchObject({ remoteAs: 'external', type: 'ebgp' });
    const internal = parse(`${SPEAKER}peers:\n  - { name: leaf, remote_as: internal, interface: eth1 }\n`);
    expect(internal.config.peers[0]).toMatchObject({ remoteAs: 'internal', type: 'ibgp' });
  });

  it('take the families speaker.ip_versions allows', () => {
    const text = `${SPEAKER}  ip_versions: [6]\npeers:\n  - { name: leaf, remote_as: 65001, interface: eth1 }\n`;
    expect(parse(text).config.peers[0].families).toEqual(['ipv6-unicast']);
  });

  it.each([
    [
      'both peer_ip and interface',
      ', peer_ip: "fe80::1", interface: eth1',
      'config.yaml:6:57 peers[0].interface: cannot be combined with peer_ip fe80::1: a peer is found by its address or on its link',
    ],
    [
      'neither',
      '',
      'config.yaml:6:5 peers[0].peer_ip: is required (or interface, for a peer found on its link)',
    ],
    [
      'a local address',
      ', interface: eth1, local_address: "2001:db8::1"',
      'config.yaml:6:54 peers[0].local_address: 2001:db8::1 cannot be set for a peer on interface eth1: the session runs between link-local addresses',
    ],
    [
      'a name with a slash',
      ', interface: a/b',
      `config.yaml:6:37 peers[0].interface: expected an interface name: 1 to 15 characters, no '/', '%' or white space, got "a/b"`,
    ],
    [
      'a name of 16 characters',
      ', interface: abcdefghijklmnop',
      `config.yaml:6:37 peers[0].interface: expected an interface name: 1 to 15 characters, no '/', '%' or white space, got "abcdefghijklmnop"`,
    ],
  ])('refuse %s, naming the field and the value', (_name, extra, line) => {
    expect(problemLines(peer(extra))).toEqual([line]);
  });

  it('are one per interface', () => {
    const text = `${SPEAKER}peers:
  - { name: a, remote_as: 65001, interface: eth1 }
  - { name: b, remote_as: 65001, interface: eth1 }
`;
    expect(problemLines(text)).toEqual([
      'config.yaml:7:34 peers[1].interface: eth1 is already the interface of peers[0]',
    ]);
  });
});
