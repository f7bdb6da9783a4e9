import { describe, expect, it } from 'vitest';
import { parseIpv4 } from '../../src/address/index.js';
import { Afi } from '../../src/bgp/wire/constants.js';
import { BestPathReason, parsePrefix, Rib } from '../../src/rib/index.js';
import { attrs, attrs6, EBGP_A, EBGP_B, LOCAL_AS, ROUTER_ID, summary, v4, v6 } from './routes.js';

// RFC 4724 section 4.2 in the RIB: a peer's paths kept stale across its restart, fresh again
// when announced again, swept when not.

const P1 = '198.18.10.0/24';
const P2 = '198.18.11.0/24';
const P3 = '198.18.12.0/24';
const P6 = '2001:db8:10::/48';
const newRib = () => new Rib({ localAs: LOCAL_AS, routerId: ROUTER_ID });

describe('stale paths', () => {
  it('marking stale changes nothing for a prefix the peer alone has: no change reported', () => {
    const rib = newRib();
    const a = rib.addPeer(EBGP_A);
    rib.announce(a, v4(P1, P2), attrs([65001]));
    rib.flush();
    expect(rib.markStale(a, Afi.IPV4)).toBe(2);
    expect(rib.flush()).toEqual([]);
    expect(rib.staleCount(a, Afi.IPV4)).toBe(2);
    expect(rib.best(parsePrefix(P1))?.source.id).toBe('a');
    expect(rib.lookup(parsePrefix(P1))!.paths.map((p) => p.stale)).toEqual([true]);
    expect(rib.markStale(a, Afi.IPV4)).toBe(0);
  });

  it('a stale path loses to a fresh one it used to beat, and wins back when announced again', () => {
    const rib = newRib();
    const a = rib.addPeer(EBGP_A);
    const b = rib.addPeer(EBGP_B);
    const short = attrs([65001]);
    rib.announce(a, v4(P1), short);
    rib.announce(b, v4(P1), attrs([65002, 65100, 65200], {}, '198.18.0.3'));
    expect(summary(rib.flush())).toEqual([`+${P1} a`]);
    rib.markStale(a, Afi.IPV4);
    const [c] = rib.flush();
    expect(summary([c!])).toEqual([`+${P1} b`]);
    expect(c!.kind === 'add' && c!.reason).toBe(BestPathReason.STALE);
    // The same attributes again: not a duplicate any more, the path is fresh.
    rib.announce(a, v4(P1), short);
    expect(summary(rib.flush())).toEqual([`+${P1} a`]);
    expect(rib.staleCount(a, Afi.IPV4)).toBe(0);
  });

  it('sweeping removes only what was not announced again, and only in that family', () => {
    const rib = newRib();
    const a = rib.addPeer({ ...EBGP_A, address: '2001:db8::2' });
    const at = attrs([65001]);
    rib.announce(a, v4(P1, P2, P3), at);
    rib.announce(a, v6(P6), attrs6([65001]));
    rib.flush();
    rib.markStale(a, Afi.IPV4);
    rib.markStale(a, Afi.IPV6);
    rib.announce(a, v4(P2), at);
    rib.withdraw(a, v4(P3));
    expect(summary(rib.flush())).toEqual([`-${P3} a`]);
    expect(rib.staleCount(a, Afi.IPV4)).toBe(1);
    expect(rib.sweepStale(a, Afi.IPV4)).toBe(0);
    expect(summary(rib.flush())).toEqual([`-${P1} a`]);
    expect(rib.counts(a, Afi.IPV4).received).toBe(1);
    expect(rib.staleCount(a, Afi.IPV6)).toBe(1);
    expect(rib.best(parsePrefix(P6))?.source.id).toBe('a');
  });

  it('sweeps a large table in chunks, going on where it stopped', () => {
    const rib = newRib();
    const a = rib.addPeer(EBGP_A);
    const prefixes = Array.from({ length: 1000 }, (_, i) => `198.19.${i >> 8}.${i & 0xff}/32`);
    const at = attrs([65001]);
    rib.announce(a, v4(...prefixes), at);
    rib.flush();
    rib.markStale(a, Afi.IPV4);
    // Every other prefix announced again.
    rib.announce(a, v4(...prefixes.filter((_, i) => i % 2 === 0)), at);
    let left = rib.staleCount(a, Afi.IPV4);
    expect(left).toBe(500);
    let rounds = 0;
    while (left > 0 && rounds < 100) {
      left = rib.sweepStale(a, Afi.IPV4, 64);
      rounds++;
    }
    expect(rounds).toBe(Math.ceil(500 / 64));
    const changes = rib.flush();
    expect(changes.filter((c) => c.kind === 'withdraw')).toHaveLength(500);
    expect(rib.counts(a, Afi.IPV4).received).toBe(500);
  });

  it('a peer renewed with a new router id keeps its paths, and they are decided again', () => {
    const rib = newRib();
    const a = rib.addPeer(EBGP_A);
    const b = rib.addPeer(EBGP_B);
    rib.announce(a, v4(P1), attrs([65001]));
    rib.announce(b, v4(P1), attrs([65002], {}, '198.18.0.3'));
    expect(summary(rib.flush())).toEqual([`+${P1} a`]);
    expect(rib.renewPeer(a, EBGP_A)).toBe(a);
    const renewed = rib.renewPeer(a, { ...EBGP_A, routerId: parseIpv4('198.18.1.9') });
    expect(renewed).not.toBe(a);
    expect(renewed.index).toBe(a.index);
    expect(rib.peer('a')).toBe(renewed);
    // 198.18.1.9 is above b's 198.18.1.2: b wins the router id step now.
    expect(summary(rib.flush())).toEqual([`+${P1} b`]);
    expect(rib.counts(renewed, Afi.IPV4).received).toBe(1);
    expect(() => rib.markStale(a, Afi.IPV4)).toThrow(/not in the RIB/);
  });
});

describe('stale marks cost nothing until used', () => {
  it('a RIB whose peers never restart nor refresh holds no stale column; the first mark makes one', () => {
    const rib = newRib();
    const a = rib.addPeer(EBGP_A);
    const b = rib.addPeer(EBGP_B);
    const prefixes = Array.from({ length: 300 }, (_, i) => `198.18.${i >> 8}.${i & 255}/32`);
    rib.announce(a, v4(...prefixes), attrs([65001]));
    rib.announce(b, v4(P1), attrs([65002]));
    rib.flush();
    const unmarked = rib.byteLength;
    rib.markRefreshStale(b, Afi.IPV4);
    const oneColumn = rib.byteLength - unmarked;
    // One byte per path of the pool (room for 301 paths: 512).
    expect(oneColumn).toBe(512);
    rib.markStale(b, Afi.IPV4);
    expect(rib.byteLength - unmarked).toBe(2 * oneColumn);
    // The marks read as before: b's path is stale and refresh-stale, a's are neither.
    expect(rib.staleCount(b, Afi.IPV4)).toBe(1);
    expect(rib.staleCount(a, Afi.IPV4)).toBe(0);
    expect(rib.refreshStaleCount(b, Afi.IPV4)).toBe(1);
    rib.announce(b, v4(P1), attrs([65002]));
    expect(rib.staleCount(b, Afi.IPV4)).toBe(0);
    expect(rib.refreshStaleCount(b, Afi.IPV4)).toBe(0);
  });
});
