import { describe, expect, it } from 'vitest';
import { parseIpv4 } from '../../src/address/index.js';
import { Afi } from '../../src/bgp/wire/constants.js';
import { BestPathReason, MAX_PEERS, parsePrefix, Rib, type RibInit } from '../../src/rib/index.js';
import {
  attrs,
  attrs6,
  CLIENT,
  EBGP_A,
  EBGP_A2,
  EBGP_B,
  LOCAL_AS,
  NONCLIENT,
  ROUTER_ID,
  summary,
  v4,
  v6,
  wireUpdate,
  withPathIds,
} from './routes.js';

const P1 = '198.18.10.0/24';
const P2 = '198.18.11.0/24';
const newRib = (o: Partial<RibInit> = {}) => new Rib({ localAs: LOCAL_AS, routerId: ROUTER_ID, ...o });

describe('Rib: Adj-RIB-In and Loc-RIB', () => {
  it('announces a route and reports it once, with its source and reason', () => {
    const rib = newRib();
    const a = rib.addPeer(EBGP_A);
    const at = attrs([65001, 65100]);
    rib.announce(a, v4(P1, P2), at);
    expect(rib.pending).toBe(2);
    const changes = rib.flush();
    expect(summary(changes)).toEqual([`+${P1} a`, `+${P2} a`]);
    const c = changes[0];
    expect(c.kind === 'add' && c.attrs).toBe(at);
    expect(c.kind === 'add' && c.reason).toBe(BestPathReason.FIRST);
    expect(c.source).toBe(a.source);
    expect(rib.flush()).toEqual([]);
    expect(rib.best(parsePrefix(P1))?.source.id).toBe('a');
    expect(rib.counts(a, Afi.IPV4)).toEqual({ received: 2, accepted: 2 });
  });

  it('suppresses duplicates and reports an implicit withdraw as a replacement', () => {
    const rib = newRib();
    const a = rib.addPeer(EBGP_A);
    const at = attrs([65001]);
    rib.announce(a, v4(P1), at);
    rib.flush();
    rib.announce(a, v4(P1), at);
    expect(rib.flush()).toEqual([]);
    const at2 = attrs([65001, 65200]);
    rib.announce(a, v4(P1), at2);
    const [c] = rib.flush();
    expect(c.kind === 'add' && c.attrs).toBe(at2);
    expect(rib.counts(a, Afi.IPV4).received).toBe(1);
  });

  it('withdraws: the prefix goes when its only path goes, unknown prefixes are ignored', () => {
    const rib = newRib();
    const a = rib.addPeer(EBGP_A);
    rib.announce(a, v4(P1), attrs([65001]));
    rib.flush();
    rib.withdraw(a, v4(P1, '198.18.99.0/24'));
    expect(summary(rib.flush())).toEqual([`-${P1} a`]);
    expect(rib.best(parsePrefix(P1))).toBeUndefined();
    expect(rib.lookup(parsePrefix(P1))).toBeUndefined();
    expect(rib.locRib(Afi.IPV4).table.size).toBe(0);
    expect(rib.attrs.size).toBe(0);
  });

  it('an add and a withdraw of one prefix within a batch report nothing', () => {
    const rib = newRib();
    const a = rib.addPeer(EBGP_A);
    rib.announce(a, v4(P1), attrs([65001]));
    rib.withdraw(a, v4(P1));
    expect(rib.flush()).toEqual([]);
    expect(rib.attrs.size).toBe(0);
  });

  it('moves to a better path, ignores a worse one, falls back when the best goes', () => {
    const rib = newRib();
    const a = rib.addPeer(EBGP_A);
    const b = rib.addPeer(EBGP_B);
    rib.announce(a, v4(P1), attrs([65001, 65100, 65200]));
    rib.flush();
    rib.announce(b, v4(P1), attrs([65002, 65200], {}, '198.18.0.3'));
    const [c] = rib.flush();
    expect(summary([c])).toEqual([`+${P1} b`]);
    expect(c.kind === 'add' && c.reason).toBe(BestPathReason.AS_PATH);
    rib.announce(a, v4(P1), attrs([65001, 65100, 65300]));
    expect(rib.flush()).toEqual([]);
    rib.withdraw(b, v4(P1));
    expect(summary(rib.flush())).toEqual([`+${P1} a`]);
  });

  it('explains every path of a prefix for show', () => {
    const rib = newRib();
    const a = rib.addPeer(EBGP_A);
    const b = rib.addPeer(EBGP_B);
    rib.announce(a, v4(P1), attrs([65001], { med: 5 }));
    rib.announce(b, v4(P1), attrs([65002], {}, '198.18.0.3'));
    rib.flush();
    const view = rib.lookup(parsePrefix(P1))!;
    expect(view.prefix.toString()).toBe(P1);
    expect(view.reason).toBe(BestPathReason.ROUTER_ID);
    expect(view.paths.map((p) => [p.source.id, p.best, p.eligible])).toEqual([
      ['a', true, true],
      ['b', false, true],
    ]);
  });

  it('applies decoded UPDATEs, RFC 7606 treat-as-withdraw included', () => {
    const rib = newRib();
    const a = rib.addPeer(EBGP_A);
    rib.applyUpdate(a, wireUpdate({ attrs: attrs([65001]), nlri: v4(P1, P2) }));
    expect(summary(rib.flush())).toEqual([`+${P1} a`, `+${P2} a`]);
    // An ORIGIN of 7 is malformed: the UPDATE withdraws what it announces (RFC 7606 section 7.1).
    const bad = wireUpdate({ attrs: attrs([65001], { origin: 7 }), nlri: v4(P1) });
    expect(bad.action).toBe('treat-as-withdraw');
    rib.applyUpdate(a, bad);
    expect(summary(rib.flush())).toEqual([`-${P1} a`]);
    rib.applyUpdate(a, wireUpdate({ withdrawn: v4(P2) }));
    expect(summary(rib.flush())).toEqual([`-${P2} a`]);
  });

  it('handles IPv6 through MP_REACH_NLRI / MP_UNREACH_NLRI', () => {
    const rib = newRib();
    const a = rib.addPeer({ ...EBGP_A, address: '2001:db8::2' });
    const p = '2001:db8:100::/48';
    rib.applyUpdate(a, wireUpdate({ attrs: attrs6([65001]), mpNlri: v6(p) }));
    const [c] = rib.flush();
    expect(summary([c])).toEqual([`+${p} a`]);
    expect(c.prefix.afi).toBe(Afi.IPV6);
    expect(rib.counts(a, Afi.IPV6)).toEqual({ received: 1, accepted: 1 });
    rib.applyUpdate(a, wireUpdate({ mpUnreach: { afi: Afi.IPV6, safi: 1, withdrawn: v6(p) } }));
    expect(summary(rib.flush())).toEqual([`-${p} a`]);
  });

  it('keeps paths of one peer apart by RFC 7911 path id', () => {
    const rib = newRib();
    const a = rib.addPeer(EBGP_A);
    rib.announce(
      a,
      withPathIds(Afi.IPV4, [
        [P1, 2],
        [P1, 1],
      ]),
      attrs([65001]),
    );
    const [c] = rib.flush();
    expect(c.kind === 'add' && [c.best.pathId, c.reason]).toEqual([1, BestPathReason.NOTHING_LEFT]);
    expect(
      rib
        .adjRibIn(a)
        .lookup(parsePrefix(P1))
        .map((r) => r.pathId)
        .sort(),
    ).toEqual([1, 2]);
    rib.withdraw(a, withPathIds(Afi.IPV4, [[P1, 1]]));
    const [d] = rib.flush();
    expect(d.kind === 'add' && d.best.pathId).toBe(2);
  });
});

describe('Rib: prefer the oldest external path (RFC 5004)', () => {
  const viewOrder = (rib: Rib) => rib.lookup(parsePrefix(P1))!.paths.map((p) => p.source.id);

  it('a path is as old as its route: the same route again keeps its age, a changed one is young', () => {
    const rib = newRib({ decision: { preferOldestExternal: true } });
    const a = rib.addPeer(EBGP_A);
    const b = rib.addPeer(EBGP_B);
    const a2 = rib.addPeer(EBGP_A2);
    const fromB = attrs([65002], {}, '198.18.0.3');
    rib.announce(b, v4(P1), fromB);
    rib.announce(a2, v4(P1), attrs([65001], {}, '198.18.0.4'));
    rib.announce(a, v4(P1), attrs([65001]));
    const [first] = rib.flush();
    // b has the highest router id of the three but came first.
    expect(summary([first])).toEqual([`+${P1} b`]);
    expect(first.kind === 'add' && first.reason).toBe(BestPathReason.OLDER);
    expect(viewOrder(rib)).toEqual(['b', 'a2', 'a']);
    rib.announce(b, v4(P1), fromB);
    expect(rib.flush()).toEqual([]);
    expect(viewOrder(rib)).toEqual(['b', 'a2', 'a']);
    // An implicit withdraw and a new route (RFC 4271 section 3.1): b is now the youngest.
    rib.announce(b, v4(P1), attrs([65002], { med: 1 }, '198.18.0.3'));
    expect(summary(rib.flush())).toEqual([`+${P1} a2`]);
    expect(viewOrder(rib)).toEqual(['a2', 'a', 'b']);
    rib.withdraw(a2, v4(P1));
    expect(summary(rib.flush())).toEqual([`+${P1} a`]);
    expect(viewOrder(rib)).toEqual(['a', 'b']);
  });

  it('off, the router id decides whatever the order', () => {
    const rib = newRib();
    const a = rib.addPeer(EBGP_A);
    const b = rib.addPeer(EBGP_B);
    rib.announce(b, v4(P1), attrs([65002], {}, '198.18.0.3'));
    rib.announce(a, v4(P1), attrs([65001]));
    const [c] = rib.flush();
    expect(summary([c])).toEqual([`+${P1} a`]);
    expect(c.kind === 'add' && c.reason).toBe(BestPathReason.ROUTER_ID);
  });
});

describe('Rib: eligibility', () => {
  it('denies paths with our AS in AS_PATH, tolerating allowas-in occurrences', () => {
    const rib = newRib();
    const a = rib.addPeer(EBGP_A);
    const b = rib.addPeer({ ...EBGP_B, allowasIn: 1 });
    rib.announce(a, v4(P1), attrs([65001, LOCAL_AS]));
    rib.announce(b, v4(P2), attrs([65002, LOCAL_AS]));
    rib.announce(b, v4('198.18.12.0/24'), attrs([65002, LOCAL_AS, 65005, LOCAL_AS]));
    expect(summary(rib.flush())).toEqual([`+${P2} b`]);
    expect(rib.counts(a, Afi.IPV4)).toEqual({ received: 1, accepted: 0 });
    expect(rib.counts(b, Afi.IPV4)).toEqual({ received: 2, accepted: 1 });
    expect(rib.denyReason(a, rib.attrs.intern(attrs([65001, LOCAL_AS])))).toBe('as-path-loop');
  });

  it('keeps loop marks only once a path is denied, through the pool growing and a clean replacement', () => {
    const prefixes = Array.from({ length: 300 }, (_, i) => `198.18.${20 + (i >> 8)}.${i & 255}/32`);
    const load = (looped: boolean) => {
      const rib = newRib();
      const a = rib.addPeer(EBGP_A);
      rib.announce(a, v4(prefixes[0]), attrs(looped ? [65001, LOCAL_AS] : [65001]));
      rib.announce(a, v4(...prefixes.slice(1)), attrs([65001]));
      rib.flush();
      return { rib, a };
    };
    const clean = load(false);
    const looped = load(true);
    expect(looped.rib.counts(looped.a, Afi.IPV4)).toEqual({ received: 300, accepted: 299 });
    expect(looped.rib.best(parsePrefix(prefixes[0]))).toBeUndefined();
    // A byte per path, made on the first mark.
    const bytes = (x: { rib: Rib }) => x.rib.locRib(Afi.IPV4).byteLength;
    expect(bytes(looped) - bytes(clean)).toBeGreaterThanOrEqual(300);
    looped.rib.announce(looped.a, v4(prefixes[0]), attrs([65001]));
    expect(summary(looped.rib.flush())).toEqual([`+${prefixes[0]} a`]);
    expect(looped.rib.counts(looped.a, Afi.IPV4)).toEqual({ received: 300, accepted: 300 });
  });

  it('a looped replacement withdraws the accepted path', () => {
    const rib = newRib();
    const a = rib.addPeer(EBGP_A);
    rib.announce(a, v4(P1), attrs([65001]));
    rib.flush();
    rib.announce(a, v4(P1), attrs([65001, LOCAL_AS]));
    expect(summary(rib.flush())).toEqual([`-${P1} a`]);
    expect(rib.counts(a, Afi.IPV4)).toEqual({ received: 1, accepted: 0 });
  });

  it('denies reflected routes that carry our router id or cluster id (RFC 4456 section 8)', () => {
    const clusterId = parseIpv4('198.18.255.1');
    const rib = newRib({ clusterId });
    const c = rib.addPeer(CLIENT);
    const n = rib.addPeer(NONCLIENT);
    rib.announce(c, v4(P1), attrs([], { localPref: 100, originatorId: ROUTER_ID }));
    rib.announce(n, v4(P2), attrs([], { localPref: 100, originatorId: 7, clusterList: [9, clusterId] }));
    rib.announce(
      n,
      v4('198.18.12.0/24'),
      attrs([], { localPref: 100, originatorId: 7, clusterList: [ROUTER_ID] }),
    );
    expect(summary(rib.flush())).toEqual(['+198.18.12.0/24 n']);
    expect(rib.counts(c, Afi.IPV4).accepted).toBe(0);
  });

  it('skips paths whose next hop is unusable, and decides again when told', () => {
    let down = new Set(['198.18.0.2']);
    const rib = newRib({ nextHopUsable: (nh) => !down.has(nh) });
    const a = rib.addPeer(EBGP_A);
    const b = rib.addPeer(EBGP_B);
    rib.announce(a, v4(P1), attrs([65001]));
    rib.announce(b, v4(P1), attrs([65002, 65100], {}, '198.18.0.3'));
    expect(summary(rib.flush())).toEqual([`+${P1} b`]);
    expect(rib.lookup(parsePrefix(P1))!.paths.find((p) => p.source.id === 'a')?.eligible).toBe(false);
    down = new Set();
    rib.nextHopsChanged();
    expect(summary(rib.flush())).toEqual([`+${P1} a`]);
    down = new Set(['198.18.0.2', '198.18.0.3']);
    rib.nextHopsChanged();
    expect(summary(rib.flush())).toEqual([`-${P1} a`]);
  });

  it('uses the configured default LOCAL_PREF and missing-MED rule', () => {
    const setup = (o: Partial<RibInit>) => {
      const rib = newRib(o);
      const a = rib.addPeer(EBGP_A);
      const n = rib.addPeer(NONCLIENT);
      rib.announce(a, v4(P1), attrs([65001]));
      rib.announce(n, v4(P1), attrs([65001], { localPref: 90 }, '198.18.0.6'));
      return rib.flush();
    };
    expect(summary(setup({}))).toEqual([`+${P1} a`]);
    expect(summary(setup({ defaultLocalPref: 80 }))).toEqual([`+${P1} n`]);

    const med = (o: Partial<RibInit>) => {
      const rib = newRib(o);
      const a = rib.addPeer(EBGP_A);
      const a2 = rib.addPeer(EBGP_A2);
      rib.announce(a, v4(P1), attrs([65001], { med: 10 }));
      rib.announce(a2, v4(P1), attrs([65001], {}, '198.18.0.4'));
      return rib.flush();
    };
    expect(summary(med({}))).toEqual([`+${P1} a2`]);
    expect(summary(med({ medMissingAsWorst: true }))).toEqual([`+${P1} a`]);
  });
});

describe('Rib: multipath', () => {
  it('reports the ECMP set and its changes', () => {
    const rib = newRib({ decision: { maxPaths: 4 } });
    const a = rib.addPeer(EBGP_A);
    const a2 = rib.addPeer(EBGP_A2);
    const b = rib.addPeer(EBGP_B);
    rib.announce(a, v4(P1), attrs([65001, 65100]));
    rib.flush();
    rib.announce(a2, v4(P1), attrs([65001, 65100], {}, '198.18.0.4'));
    const [c] = rib.flush();
    expect(summary([c])).toEqual([`+${P1} a,a2`]);
    expect(c.kind === 'add' && c.multipath.map((p) => p.attrs.nextHop)).toEqual([
      parseIpv4('198.18.0.2'),
      parseIpv4('198.18.0.4'),
    ]);
    // Another AS: not in the set without multipath-relax, and the set is unchanged: no report.
    rib.announce(b, v4(P1), attrs([65002, 65100], {}, '198.18.0.3'));
    expect(rib.flush()).toEqual([]);
    rib.withdraw(a2, v4(P1));
    expect(summary(rib.flush())).toEqual([`+${P1} a`]);
  });
});

describe('Rib: local origination and peers', () => {
  it('prefers a locally originated route over any learned one, and falls back', () => {
    const rib = newRib();
    const a = rib.addPeer(EBGP_A);
    rib.announce(a, v4(P1), attrs([65001], { localPref: undefined }));
    rib.flush();
    rib.originate(parsePrefix(P1), attrs([], { origin: 2 }, '198.18.50.7'));
    const [c] = rib.flush();
    expect(summary([c])).toEqual([`+${P1} static`]);
    expect(c.kind === 'add' && c.reason).toBe(BestPathReason.WEIGHT);
    expect(c.source.kind).toBe('local');
    expect(rib.unoriginate(parsePrefix(P1))).toBe(true);
    expect(rib.unoriginate(parsePrefix(P1))).toBe(false);
    expect(summary(rib.flush())).toEqual([`+${P1} a`]);
  });

  it('a static route and a learned route for one prefix are two paths: neither overwrites the other', () => {
    const rib = newRib();
    const a = rib.addPeer(EBGP_A);
    rib.announce(a, v4(P1), attrs([65001]));
    rib.originate(parsePrefix(P1), attrs([], {}, '198.18.50.7'));
    expect(summary(rib.flush())).toEqual([`+${P1} static`]);
    const view = rib.lookup(parsePrefix(P1))!;
    expect(view.paths.map((p) => `${p.source.id}${p.best ? '*' : ''}`).sort()).toEqual(['a', 'static*']);
    expect(rib.counts(a, Afi.IPV4)).toEqual({ received: 1, accepted: 1 });
  });

  it('origins of local routes are paths of their own, chosen by origin preference', () => {
    const rib = newRib();
    const ovn = rib.origin('ovn');
    expect(rib.origin('ovn')).toBe(ovn);
    const p = parsePrefix('198.18.64.100/32');
    rib.originate(p, attrs([], {}, '198.18.1.12'), 0, ovn);
    expect(summary(rib.flush())).toEqual(['+198.18.64.100/32 ovn']);
    rib.originate(p, attrs([], {}, '198.18.1.50'));
    const [c] = rib.flush();
    expect(summary([c])).toEqual(['+198.18.64.100/32 static']);
    expect(c.kind === 'add' && c.reason).toBe(BestPathReason.ORIGIN_PREFERENCE);
    expect(rib.lookup(p)!.paths.map((x) => x.source.id)).toEqual(['ovn', 'static']);
    // Withdrawing the static route leaves OVN's path, which was never overwritten.
    rib.unoriginate(p);
    expect(summary(rib.flush())).toEqual(['+198.18.64.100/32 ovn']);
    expect(rib.unoriginate(p, 0, ovn)).toBe(true);
    expect(summary(rib.flush())).toEqual(['-198.18.64.100/32 ovn']);
    expect(() => rib.originate(p, attrs([]), 0, rib.addPeer(EBGP_A))).toThrow(/not an origin/);
  });

  it('keeps several originations of one prefix apart (one per next hop)', () => {
    const rib = newRib({ decision: { maxPaths: 2 } });
    const p = parsePrefix('198.18.60.10/32');
    rib.originate(p, attrs([], {}, '198.18.50.1'), 1);
    rib.originate(p, attrs([], {}, '198.18.50.2'), 2);
    const [c] = rib.flush();
    expect(c.kind === 'add' && c.multipath.map((x) => x.pathId)).toEqual([1, 2]);
  });

  it('removing a peer withdraws what it sent and frees its routes', () => {
    const rib = newRib();
    const a = rib.addPeer(EBGP_A);
    const b = rib.addPeer(EBGP_B);
    rib.announce(a, v4(P1, P2), attrs([65001]));
    rib.announce(b, v4(P2), attrs([65002, 65100], {}, '198.18.0.3'));
    rib.flush();
    rib.removePeer(a);
    expect(summary(rib.flush()).sort()).toEqual([`+${P2} b`, `-${P1} a`]);
    expect(rib.peer('a')).toBeUndefined();
    expect(() => rib.counts(a, Afi.IPV4)).toThrow(/not in the RIB/);
    const again = rib.addPeer(EBGP_A);
    rib.announce(again, v4(P1), attrs([65001]));
    expect(summary(rib.flush())).toEqual([`+${P1} a`]);
  });

  it('clears a peer in chunks', () => {
    const rib = newRib();
    const a = rib.addPeer(EBGP_A);
    const list = v4(...Array.from({ length: 10 }, (_, i) => `198.18.${i}.0/24`));
    rib.announce(a, list, attrs([65001]));
    rib.flush();
    expect(rib.clearPeer(a, 4)).toBe(6);
    expect(rib.flush().length).toBe(4);
    expect(rib.clearPeer(a, 100)).toBe(0);
    expect(rib.flush().every((c) => c.kind === 'withdraw')).toBe(true);
    expect(rib.attrs.size).toBe(0);
  });

  it('rejects bad peers and bad configuration with clear errors', () => {
    const rib = newRib();
    rib.addPeer(EBGP_A);
    expect(() => rib.addPeer(EBGP_A)).toThrow(/already/);
    expect(() => rib.addPeer({ ...EBGP_B, asn: 0 })).toThrow(/invalid AS/);
    expect(() => rib.addPeer({ ...EBGP_B, address: 'nope' })).toThrow(/IPv4/);
    expect(() => rib.addPeer({ ...EBGP_B, kind: 'ibgp' as never })).toThrow(/unknown kind/);
    expect(() => rib.removePeer(rib.local)).toThrow(/local/);
    expect(() => newRib({ routerId: -1 })).toThrow(/router id/);
  });
});

describe('peer indexes', () => {
  it('holds up to MAX_PEERS peers and origins at once, refuses one more, and reuses a freed index', () => {
    const rib = newRib();
    const peers = [];
    let refused: Error | undefined;
    for (let i = 0; i <= MAX_PEERS && !refused; i++) {
      try {
        peers.push(rib.addPeer({ ...EBGP_A, id: `p${i}` }));
      } catch (e) {
        refused = e as Error;
      }
    }
    // The RIB's own origins hold an index or two as well.
    expect(refused?.message).toMatch(/more than 32767 peers/);
    expect(peers.length).toBeGreaterThan(MAX_PEERS - 4);
    const last = peers[peers.length - 1];
    rib.announce(last, v4('198.18.10.0/24'), attrs([65001]));
    expect(summary(rib.flush())).toEqual([`+198.18.10.0/24 ${last.id}`]);
    rib.removePeer(peers[0]);
    rib.flush();
    expect(rib.addPeer({ ...EBGP_A, id: 'again' }).index).toBe(peers[0].index);
  });
});
