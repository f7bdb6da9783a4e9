import { describe, expect, it } from 'vitest';
import { sessionPeerInit } from '../../src/speaker/index.js';
import { sampleConfig } from './support.js';

// The translation the speaker makes from a configured peer to the session layer's settings.

const config = sampleConfig();

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
