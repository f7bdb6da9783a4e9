import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { addressBytes } from '../../src/address/index.js';
import { Afi, type PathAttributes } from '../../src/bgp/wire/index.js';
import { fibChangeAt, NextHopMemo, toFibChange } from '../../src/fib/index.js';
import { ChangeBatch, Rib } from '../../src/rib/index.js';
import { attrs, EBGP_A, EBGP_A2, EBGP_B, LOCAL_AS, ROUTER_ID, v4, v6 } from '../rib/routes.js';

const PEERS = [EBGP_A, EBGP_B, EBGP_A2];
const V4 = ['198.18.1.0/24', '198.18.2.0/24', '198.18.3.0/32'];
const V6 = ['2001:db8:1::/48', '2001:db8:2::/64'];

/** Attribute sets a sink can meet: IPv4 next hops, IPv6 ones, RFC 8950, one set for both families, none usable. */
function attributeSets(): PathAttributes[] {
  const mp = (nextHop: string) => ({ afi: Afi.IPV6, safi: 1, nextHop: addressBytes(nextHop), reserved: 0 });
  return [
    attrs([65001], {}, '198.18.0.2'),
    attrs([65001], {}, '198.18.0.3'),
    attrs([65002], { mpReach: mp('2001:db8::2') }, '198.18.0.4'),
    attrs([65003], { mpReach: mp('2001:db8::3') }, '198.18.0.2'),
    { origin: 0, asPath: [{ type: 2, asns: [65004] }], mpReach: mp('fe80::1') },
  ];
}

describe('fibChangeAt', () => {
  it('reads every change of a batch as toFibChange reads its RouteChange, one memo across the batch', () => {
    const sets = attributeSets();
    const step = fc.record({
      peer: fc.nat(PEERS.length - 1),
      v6: fc.boolean(),
      prefix: fc.nat(V4.length - 1),
      set: fc.option(fc.nat(sets.length - 1), { nil: undefined }),
    });
    fc.assert(
      fc.property(fc.array(step, { minLength: 1, maxLength: 40 }), fc.boolean(), (steps, multipath) => {
        const rib = new Rib({
          localAs: LOCAL_AS,
          routerId: ROUTER_ID,
          decision: multipath ? { maxPaths: 3, multipathRelax: true } : {},
        });
        const peers = PEERS.map((p) => rib.addPeer(p));
        const memo = new NextHopMemo();
        const batch = new ChangeBatch();
        for (const s of steps) {
          const prefix = s.v6 ? v6(V6[s.prefix % V6.length]) : v4(V4[s.prefix]);
          if (s.set === undefined) rib.withdraw(peers[s.peer], prefix);
          else rib.announce(peers[s.peer], prefix, sets[s.set]);
          // A flush now and then: batches of one change and of several.
          if (s.prefix === 0) {
            rib.flushInto(batch);
            for (let i = 0; i < batch.count; i++)
              expect(fibChangeAt(batch, i, memo)).toEqual(toFibChange(batch.change(i)));
            batch.reset();
          }
        }
      }),
      { numRuns: 500 },
    );
  });

  it('gives consecutive prefixes with one next hop one shared list, whatever else their attributes say', () => {
    const rib = new Rib({ localAs: LOCAL_AS, routerId: ROUTER_ID });
    const a = rib.addPeer(EBGP_A);
    rib.announce(a, v4(V4[0]), attrs([65001]));
    rib.announce(a, v4(V4[1]), attrs([65001, 65009], { med: 5 }));
    rib.announce(a, v4(V4[2]), attrs([65001]));
    const batch = new ChangeBatch();
    rib.flushInto(batch);
    const memo = new NextHopMemo();
    const lists = new Set(
      Array.from({ length: batch.count }, (_, i) => {
        const c = fibChangeAt(batch, i, memo);
        return c.kind === 'add' ? c.route.nextHops : null;
      }),
    );
    expect(lists.size).toBe(1);
    expect([...lists][0]).toEqual([{ address: '198.18.0.2', afi: Afi.IPV4 }]);
    // Another next hop: another list.
    rib.announce(a, v4(V4[1]), attrs([65001], {}, '198.18.0.3'));
    batch.reset();
    rib.flushInto(batch);
    const c = fibChangeAt(batch, 0, memo);
    expect(c.kind === 'add' && c.route.nextHops).toEqual([{ address: '198.18.0.3', afi: Afi.IPV4 }]);
  });

  it('gives a link-local next hop of an unnumbered peer its interface, and no other next hop', () => {
    const rib = new Rib({ localAs: LOCAL_AS, routerId: ROUTER_ID });
    const link = rib.addPeer({ ...EBGP_A, id: 'eth1', address: 'fe80::2', interface: 'eth1' });
    const mp = (nextHop: string) => ({ afi: Afi.IPV6, safi: 1, nextHop: addressBytes(nextHop), reserved: 0 });
    // RFC 8950: an IPv4 route with the peer's link-local address as next hop.
    rib.announce(link, v4(V4[0]), {
      origin: 0,
      asPath: [{ type: 2, asns: [65001] }],
      mpReach: mp('fe80::2'),
    });
    rib.announce(link, v6(V6[0]), {
      origin: 0,
      asPath: [{ type: 2, asns: [65001] }],
      mpReach: mp('2001:db8::2'),
    });
    const batch = new ChangeBatch();
    rib.flushInto(batch);
    const memo = new NextHopMemo();
    const hops = Array.from({ length: batch.count }, (_, i) => {
      const c = fibChangeAt(batch, i, memo);
      expect(c).toEqual(toFibChange(batch.change(i)));
      return c.kind === 'add' ? c.route.nextHops : [];
    });
    expect(hops).toContainEqual([{ address: 'fe80::2', afi: Afi.IPV6, interface: 'eth1' }]);
    expect(hops).toContainEqual([{ address: '2001:db8::2', afi: Afi.IPV6 }]);
  });
});
