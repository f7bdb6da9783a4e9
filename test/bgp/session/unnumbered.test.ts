import { describe, expect, it } from 'vitest';
import { resolvePeerConfig, Sessions } from '../../../src/bgp/session/index.js';
import { type ConnectInit, TransportError } from '../../../src/bgp/transport/index.js';
import { FakeScheduler, TEST_TIMERS, until } from './support.js';

// A peer known by its interface (BGP unnumbered): nothing is dialled until neighbour discovery
// names the link-local address, which is then dialled at once with the interface as zone.

const BASE = { remoteAs: 65002, localAs: 65001, routerId: '198.18.0.1' };

describe('interface peer configuration', () => {
  it('is known by the interface name and runs over IPv6', () => {
    const c = resolvePeerConfig({ ...BASE, interface: 'eth1' });
    expect(c.address).toBe('eth1');
    expect(c.interface).toBe('eth1');
    expect(c.name).toBe('eth1');
    expect(c.families).toEqual(['ipv6-unicast']);
  });

  it.each([
    [
      { interface: 'eth1', address: 'fe80::1' },
      'address',
      /left out for a peer on interface eth1, got fe80::1/,
    ],
    [{ interface: 'eth1', localAddress: '2001:db8::1' }, 'localAddress', /got 2001:db8::1/],
    [{ interface: 'a/b' }, 'interface', /"a\/b"/],
    [{ interface: 'sixteen-bytes-xx' }, 'interface', /"sixteen-bytes-xx"/],
    [{ interface: '' }, 'interface', /""/],
  ])('refuses %j naming %s and the value', (extra, field, text) => {
    try {
      resolvePeerConfig({ ...BASE, ...extra });
      expect.unreachable();
    } catch (error) {
      expect((error as { field: string }).field).toBe(field);
      expect((error as Error).message).toMatch(text);
    }
  });
});

describe('interface peer sessions', () => {
  async function setup() {
    const scheduler = new FakeScheduler();
    const dials: ConnectInit[] = [];
    const sessions = await Sessions.create(
      { localAs: 65001, routerId: '198.18.0.1', listen: false },
      {
        scheduler,
        random: () => 1,
        connect: (init) => {
          dials.push(init);
          return Promise.reject(new TransportError('connect-failed', 'no such peer here'));
        },
      },
    );
    const peer = sessions.addPeer({ ...BASE, interface: 'eth1', ...TEST_TIMERS, enabled: false });
    return { scheduler, dials, sessions, peer };
  }

  it('dials nobody before the neighbour is found, then its link-local address on the link at once', async () => {
    const { scheduler, dials, sessions, peer } = await setup();
    peer.start();
    scheduler.advance(TEST_TIMERS.connectRetryTime * 3000);
    await new Promise((r) => setImmediate(r));
    expect(peer.state).toBe('Connect');
    expect(dials).toEqual([]);
    expect(sessions.peer('eth1')).toBe(peer);

    sessions.setNeighbor('eth1', 'fe80::2');
    await until(() => dials.length === 1, 'a dial without waiting for the connect retry timer');
    expect(dials[0].host).toBe('fe80::2%eth1');
    expect(peer.neighbor).toBe('fe80::2');

    // The same address again changes nothing; a new one is dialled next.
    sessions.setNeighbor('eth1', 'fe80::2');
    await until(() => peer.state === 'Idle', 'the dial to fail');
    expect(dials).toHaveLength(1);
    sessions.setNeighbor('eth1', 'fe80::3');
    scheduler.advance(TEST_TIMERS.idleHoldTime * 1000);
    await until(() => dials.length === 2, 'the new neighbour to be dialled');
    expect(dials[1].host).toBe('fe80::3%eth1');
    await sessions.close();
  });

  it('a passive interface peer waits for the neighbour to connect', async () => {
    const { scheduler, dials, sessions, peer } = await setup();
    await sessions.removePeer('eth1');
    const passive = sessions.addPeer({ ...BASE, interface: 'eth1', ...TEST_TIMERS, passive: true });
    sessions.setNeighbor('eth1', 'fe80::2');
    scheduler.advance(TEST_TIMERS.connectRetryTime * 3000);
    expect(dials).toEqual([]);
    expect(passive.state).toBe('Active');
    expect(peer).not.toBe(passive);
    await sessions.close();
  });

  it('setNeighbor names an interface peer only', async () => {
    const { sessions } = await setup();
    expect(() => sessions.setNeighbor('eth2', 'fe80::2')).toThrow(/no peer on interface eth2/);
    await sessions.close();
  });
});
