import { describe, expect, it } from 'vitest';
import { nextHopText, parsePrefix, Rib } from '../../src/rib/index.js';
import { LocalOrigin, RouteFlow } from '../../src/routing/index.js';
import { attrs, LOCAL_AS, ROUTER_ID, summary } from '../rib/routes.js';

function setup() {
  const rib = new Rib({ localAs: LOCAL_AS, routerId: ROUTER_ID });
  const flow = new RouteFlow(rib, () => {});
  const ovn = new LocalOrigin(rib, rib.origin('ovn'), flow);
  return { rib, flow, ovn, flush: () => summary(flow.flush().toArray()) };
}

describe('LocalOrigin', () => {
  it('a new next hop replaces the path in place: one add, no withdrawal', () => {
    const { rib, ovn, flush } = setup();
    ovn.announce({ prefix: '198.18.64.100/32', nextHop: '198.18.1.12', communities: [65000 * 65536 + 101] });
    expect(flush()).toEqual(['+198.18.64.100/32 ovn']);
    ovn.announce({ prefix: '198.18.64.100/32', nextHop: '198.18.1.12', communities: [65000 * 65536 + 101] });
    expect(flush()).toEqual([]);
    ovn.announce({ prefix: '198.18.64.100/32', nextHop: '198.18.1.13', communities: [65000 * 65536 + 101] });
    expect(flush()).toEqual(['+198.18.64.100/32 ovn']);
    const best = rib.best(parsePrefix('198.18.64.100/32'))!;
    expect(nextHopText(best.attrs, best.prefix.afi)).toBe('198.18.1.13');
    expect(best.attrs.communities).toEqual([65000 * 65536 + 101]);
    expect(rib.lookup(parsePrefix('198.18.64.100/32'))!.paths).toHaveLength(1);
  });

  it('IPv6 routes carry their next hop in MP_REACH_NLRI; a next hop of the other family is refused', () => {
    const { rib, ovn, flush } = setup();
    ovn.announce({ prefix: '2001:db8:64::100/128', nextHop: '2001:db8:1::12' });
    expect(flush()).toEqual(['+2001:db8:64::100/128 ovn']);
    const best = rib.best(parsePrefix('2001:db8:64::100/128'))!;
    expect(nextHopText(best.attrs, best.prefix.afi)).toBe('2001:db8:1::12');
    expect(() => ovn.announce({ prefix: '198.18.64.1/32', nextHop: '2001:db8:1::12' })).toThrow(/family/);
  });

  it('next hop self is left out of the attributes, so export puts our address on each session', () => {
    const { rib, ovn, flush } = setup();
    ovn.announce({ prefix: '198.18.64.100/32', nextHop: 'self' });
    ovn.announce({ prefix: '2001:db8:64::100/128', nextHop: 'self' });
    expect(flush()).toEqual(['+198.18.64.100/32 ovn', '+2001:db8:64::100/128 ovn']);
    for (const p of ['198.18.64.100/32', '2001:db8:64::100/128']) {
      const best = rib.best(parsePrefix(p))!;
      expect(best.attrs.nextHop).toBeUndefined();
      expect(best.attrs.mpReach).toBeUndefined();
    }
  });

  it('replaceAll withdraws what is gone and leaves the unchanged alone', () => {
    const { ovn, flush } = setup();
    ovn.replaceAll([
      { prefix: '198.18.64.100/32', nextHop: '198.18.1.12' },
      { prefix: '198.18.64.101/32', nextHop: '198.18.1.11' },
    ]);
    expect(flush()).toHaveLength(2);
    ovn.replaceAll([
      { prefix: '198.18.64.100/32', nextHop: '198.18.1.12' },
      { prefix: '198.18.64.102/32', nextHop: '198.18.1.11' },
    ]);
    expect(flush()).toEqual(['-198.18.64.101/32 ovn', '+198.18.64.102/32 ovn']);
    expect([...ovn.prefixes()]).toEqual(['198.18.64.100/32', '198.18.64.102/32']);
    ovn.withdrawAll();
    expect(flush()).toHaveLength(2);
    expect(ovn.size).toBe(0);
  });

  it('routes with one next hop share one attribute set', () => {
    const { rib, ovn, flush } = setup();
    for (let i = 0; i < 50; i++) ovn.announce({ prefix: `198.18.65.${i}/32`, nextHop: '198.18.1.12' });
    flush();
    const sets = new Set(
      Array.from({ length: 50 }, (_, i) => rib.best(parsePrefix(`198.18.65.${i}/32`))!.attrs),
    );
    expect(sets.size).toBe(1);
  });

  it('an OVN route and a static route for one prefix are two paths; the static one wins', () => {
    const { rib, ovn, flush } = setup();
    ovn.announce({ prefix: '198.18.64.100/32', nextHop: '198.18.1.12' });
    rib.originate(parsePrefix('198.18.64.100/32'), attrs([], {}, '198.18.1.50'));
    expect(flush()).toEqual(['+198.18.64.100/32 static']);
    expect(rib.lookup(parsePrefix('198.18.64.100/32'))!.paths.map((p) => p.source.id)).toEqual([
      'ovn',
      'static',
    ]);
  });
});
