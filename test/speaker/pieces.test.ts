import { describe, expect, it } from 'vitest';
import { sessionPeerInit } from '../../src/speaker/index.js';
import { configFrom } from './support.js';

// The translation the speaker makes from a configured peer to the session layer's settings.

const config = configFrom({
  speaker: { name: 's', local_as: 65000, router_id: '198.18.0.1' },
  peers: [
    {
      name: 'tor',
      peer_ip: '198.18.1.2',
      remote_as: 65001,
      auth_type: 'md5',
      password: 'secret',
      ttl_security: 1,
      hold_time: 9,
      passive: true,
      add_path: { receive: true },
      families: ['ipv4-unicast', 'ipv6-unicast'],
      max_prefixes: { limit: 10, warning_threshold: 50, restart_after: 30 },
    },
    { name: 'multi', peer_ip: '2001:db8::2', remote_as: 65002, ebgp_multihop: 3, shutdown: true },
  ],
  routes: [
    {
      prefix: '198.18.100.0/24',
      communities: ['65000:100', 'no-export'],
      large_communities: ['65000:1:2'],
      extended_communities: ['rt:65000:1', 'soo 198.18.0.1:7'],
      med: 10,
    },
    { prefix: '2001:db8:100::/48', next_hop: '2001:db8:1::1', origin: 'incomplete', local_pref: 200 },
    { prefix: '198.18.101.0/24', next_hop: '198.18.1.9' },
  ],
  networks: ['2001:db8:10::/48'],
});

describe('sessionPeerInit', () => {
  it('carries what the session layer needs and starts nothing by itself', () => {
    const [tor, multi] = config.peers.map(sessionPeerInit);
    expect(tor).toMatchObject({
      name: 'tor',
      address: '198.18.1.2',
      port: 179,
      remoteAs: 65001,
      password: 'secret',
      ttl: { ttl: 255, minTtl: 255 },
      holdTime: 9,
      keepaliveTime: 3,
      passive: true,
      families: ['ipv4-unicast', 'ipv6-unicast'],
      addPath: { 'ipv4-unicast': 'receive', 'ipv6-unicast': 'receive' },
      enabled: false,
    });
    expect(multi).toMatchObject({ ttl: { ttl: 3 }, password: null, families: ['ipv6-unicast'] });
    expect(multi!.addPath).toBeUndefined();
  });
});
