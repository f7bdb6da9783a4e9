import { describe, expect, it } from 'vitest';
import { Afi, type AfiCode } from '../../src/bgp/wire/constants.js';
import type { GracefulRestartNegotiated } from '../../src/bgp/wire/negotiate.js';
import { type Scheduler, silentLogger } from '../../src/components/index.js';
import { type ChangeBatch, parsePrefix, Rib, type RibPeer, WellKnownCommunity } from '../../src/rib/index.js';
import { type LongLivedNegotiated, RouteFlow, StaleRoutes } from '../../src/routing/index.js';
import { FakeScheduler } from '../bgp/session/support.js';
import { attrs, attrs6, EBGP_A, EBGP_B, LOCAL_AS, ROUTER_ID, v4, v6 } from '../rib/routes.js';

// The receiving speaker of RFC 4724 section 4.2 for one peer, on a fake clock: a sink's view
// (what a forwarding plane holds) must not lose a route the peer keeps forwarding for.

const P1 = '198.18.10.0/24';
const P2 = '198.18.11.0/24';
const P6 = '2001:db8:10::/48';
const RESTART_TIME = 120;
const STALE_TIME = 360;

const gr = (
  families: [afi: number, forwarding: boolean][],
  restartTime = RESTART_TIME,
): GracefulRestartNegotiated => ({
  restartState: false,
  notification: true,
  notificationExchanged: true,
  restartTime,
  families: families.map(([afi, forwardingState]) => ({ afi, safi: 1, forwardingState })),
});

function setup() {
  const rib = new Rib({ localAs: LOCAL_AS, routerId: ROUTER_ID });
  const queue: (() => void)[] = [];
  const defer = (fn: () => void) => queue.push(fn);
  /** Runs deferred work (flushes, sweep slices) until nothing is left. */
  const settle = () => {
    for (let n = 0; queue.length > 0 && n < 10_000; n++) queue.shift()!();
  };
  const flow = new RouteFlow(rib, defer);
  // A forwarding plane: prefix -> peer of the installed path; every change it was given.
  const installed = new Map<string, string>();
  const changes: string[] = [];
  flow.addConsumer({
    name: 'sink',
    accept: (b: ChangeBatch) => {
      for (const c of b.toArray()) {
        const key = c.prefix.toString();
        changes.push(`${c.kind === 'add' ? '+' : '-'}${key}`);
        if (c.kind === 'add') installed.set(key, c.source.id);
        else installed.delete(key);
      }
    },
  });
  const clock = new FakeScheduler();
  // The fake clock's timers; deferred work waits in the queue `settle` runs.
  const scheduler: Scheduler = {
    now: () => clock.now(),
    setTimeout: (fn, ms) => clock.setTimeout(fn, ms),
    clearTimeout: (h) => clock.clearTimeout(h),
    defer,
  };
  const components = { rib, flow, log: silentLogger, clock: scheduler };
  const keep = (
    peer: RibPeer,
    g: GracefulRestartNegotiated,
    negotiated: readonly AfiCode[] = [Afi.IPV4, Afi.IPV6],
    llgr: LongLivedNegotiated = null,
    longLivedMax = 0,
  ) => new StaleRoutes(peer, { gr: g, llgr, negotiated }, components, longLivedMax);
  return { rib, flow, settle, installed, changes, clock, keep };
}

function learned(rib: Rib) {
  const a = rib.addPeer({ ...EBGP_A, address: '2001:db8::2' });
  const four = attrs([65001]);
  const six = attrs6([65001]);
  rib.announce(a, v4(P1, P2), four);
  rib.announce(a, v6(P6), six);
  return { a, four, six };
}

describe('StaleRoutes: a peer restarting gracefully', () => {
  it('keeps every route in the sink, marked stale, for the Restart Time, then sweeps them', () => {
    const t = setup();
    const { a } = learned(t.rib);
    t.flow.flush();
    t.changes.length = 0;
    const stale = t.keep(
      a,
      gr([
        [Afi.IPV4, true],
        [Afi.IPV6, true],
      ]),
    );
    t.settle();
    expect(t.changes).toEqual([]);
    expect([...t.installed.keys()].sort()).toEqual([P1, P2, P6].sort());
    expect(stale.status()).toEqual({ phase: 'restarting', stale: { ipv4: 2, ipv6: 1 }, deadline: 120_000 });
    t.clock.advance(RESTART_TIME * 1000 - 1);
    t.settle();
    expect(t.installed.size).toBe(3);
    t.clock.advance(1);
    t.settle();
    expect(t.installed.size).toBe(0);
    expect(stale.active).toBe(false);
    expect(t.rib.counts(a, Afi.IPV4).received).toBe(0);
  });

  it('withdraws at once the families its capability did not list (FRR as a helper only lists none)', () => {
    const t = setup();
    const { a } = learned(t.rib);
    t.flow.flush();
    const stale = t.keep(a, gr([[Afi.IPV6, false]]));
    t.settle();
    expect([...t.installed.keys()]).toEqual([P6]);
    expect(stale.waiting).toEqual([Afi.IPV6]);
    const none = t.keep(a, gr([]));
    t.settle();
    expect(none.active).toBe(false);
    expect(t.installed.size).toBe(0);
  });

  it('back with the F bit: what it announces again stays without churn, the rest goes at End-of-RIB', () => {
    const t = setup();
    const { a, four } = learned(t.rib);
    t.flow.flush();
    const stale = t.keep(
      a,
      gr([
        [Afi.IPV4, true],
        [Afi.IPV6, true],
      ]),
    );
    t.settle();
    t.changes.length = 0;
    // The new OPEN keeps IPv4's forwarding state only: IPv6's stale routes go now.
    stale.established(
      gr([
        [Afi.IPV4, true],
        [Afi.IPV6, false],
      ]),
      null,
      STALE_TIME,
    );
    t.settle();
    expect(t.changes).toEqual([`-${P6}`]);
    expect(stale.status()).toMatchObject({ phase: 'waiting-end-of-rib', stale: { ipv4: 2, ipv6: 0 } });
    // P1 again with the same attributes: fresh, and the sink sees nothing.
    t.rib.announce(a, v4(P1), four);
    t.flow.flush();
    expect(t.changes).toEqual([`-${P6}`]);
    stale.endOfRib(Afi.IPV6);
    stale.endOfRib(Afi.IPV4);
    t.settle();
    expect(t.changes).toEqual([`-${P6}`, `-${P2}`]);
    expect([...t.installed.keys()]).toEqual([P1]);
    expect(stale.active).toBe(false);
    // No timer is left running.
    expect(t.clock.pending()).toEqual([]);
  });

  it('back, but no End-of-RIB: our stale routes time sweeps what was not announced again', () => {
    const t = setup();
    const { a, four } = learned(t.rib);
    t.flow.flush();
    const stale = t.keep(a, gr([[Afi.IPV4, true]]));
    t.clock.advance(30_000);
    stale.established(gr([[Afi.IPV4, true]]), null, STALE_TIME);
    t.rib.announce(a, v4(P2), four);
    t.settle();
    expect(stale.status()?.deadline).toBe(30_000 + STALE_TIME * 1000);
    t.clock.advance(STALE_TIME * 1000);
    t.settle();
    expect([...t.installed.keys()]).toEqual([P2]);
    expect(stale.active).toBe(false);
  });

  it('back without graceful restart: every stale route goes at once', () => {
    const t = setup();
    const { a } = learned(t.rib);
    t.flow.flush();
    const stale = t.keep(
      a,
      gr([
        [Afi.IPV4, true],
        [Afi.IPV6, true],
      ]),
    );
    stale.established(null, null, STALE_TIME);
    t.settle();
    expect(t.installed.size).toBe(0);
    expect(t.clock.pending()).toEqual([]);
  });

  it('a fresh path of another peer wins over the stale one meanwhile, and the sink follows', () => {
    const t = setup();
    const { a } = learned(t.rib);
    const b = t.rib.addPeer(EBGP_B);
    t.rib.announce(b, v4(P1), attrs([65002, 65100, 65200], {}, '198.18.0.3'));
    t.flow.flush();
    expect(t.installed.get(P1)).toBe('a');
    t.keep(a, gr([[Afi.IPV4, true]]));
    t.settle();
    expect(t.installed.get(P1)).toBe('b');
    expect(t.installed.get(P2)).toBe('a');
    expect(t.rib.lookup(parsePrefix(P1))!.paths.map((p) => [p.source.id, p.stale, p.best])).toEqual([
      ['a', true, false],
      ['b', false, true],
    ]);
  });

  it('losing the session again before End-of-RIB marks what came since stale too', () => {
    const t = setup();
    const { a, four } = learned(t.rib);
    t.flow.flush();
    const stale = t.keep(a, gr([[Afi.IPV4, true]]));
    stale.established(gr([[Afi.IPV4, true]]), null, STALE_TIME);
    t.rib.announce(a, v4(P1), four);
    t.settle();
    expect(stale.status()?.stale.ipv4).toBe(1);
    stale.lost(gr([[Afi.IPV4, true]], 60), null, [Afi.IPV4]);
    t.settle();
    expect(stale.status()).toMatchObject({ phase: 'restarting', stale: { ipv4: 2 } });
    t.clock.advance(60_000);
    t.settle();
    expect(t.installed.has(P1)).toBe(false);
    expect(t.installed.has(P2)).toBe(false);
  });

  it('sweeps a full table a slice per turn', () => {
    const t = setup();
    const a = t.rib.addPeer(EBGP_A);
    const prefixes = Array.from({ length: 40_000 }, (_, i) => `198.19.${i >> 8}.${i & 0xff}/32`);
    const four = attrs([65001]);
    t.rib.announce(a, v4(...prefixes), four);
    t.flow.flush();
    const stale = t.keep(a, gr([[Afi.IPV4, true]]), [Afi.IPV4]);
    stale.established(gr([[Afi.IPV4, true]]), null, STALE_TIME);
    stale.endOfRib(Afi.IPV4);
    // One slice (32768 routes) ran at once; the rest waits for the next turn.
    expect(t.rib.staleCount(a, Afi.IPV4)).toBe(40_000 - 32_768);
    expect(stale.active).toBe(true);
    t.settle();
    expect(t.rib.staleCount(a, Afi.IPV4)).toBe(0);
    expect(t.installed.size).toBe(0);
    expect(stale.active).toBe(false);
  });
});

describe('StaleRoutes: long-lived graceful restart (RFC 9494)', () => {
  const llgr = (families: [afi: number, forwarding: boolean, staleTime: number][]): LongLivedNegotiated => ({
    families: families.map(([afi, forwardingState, staleTime]) => ({
      afi,
      safi: 1,
      forwardingState,
      staleTime,
    })),
  });
  const communitiesOf = (rib: Rib, prefix: string) => rib.best(parsePrefix(prefix))?.attrs.communities ?? [];

  it('past the Restart Time the routes stay, LLGR_STALE added, for the long-lived time (at most ours), then go', () => {
    const t = setup();
    const { a } = learned(t.rib);
    t.flow.flush();
    // The peer offers a day, we allow ten minutes.
    const stale = t.keep(
      a,
      gr([[Afi.IPV4, true]], 30),
      [Afi.IPV4, Afi.IPV6],
      llgr([[Afi.IPV4, true, 86400]]),
      600,
    );
    t.settle();
    expect([...t.installed.keys()].sort()).toEqual([P1, P2]);
    t.changes.length = 0;
    t.clock.advance(30_000);
    t.settle();
    // Still installed (a replace: new attributes, the same next hop), now tagged and least preferred.
    expect([...t.installed.keys()].sort()).toEqual([P1, P2]);
    expect(t.changes.sort()).toEqual([`+${P1}`, `+${P2}`]);
    expect(communitiesOf(t.rib, P1)).toContain(WellKnownCommunity.LLGR_STALE);
    expect(stale.status()).toMatchObject({ phase: 'long-lived', deadline: 30_000 + 600_000 });
    expect(t.rib.lookup(parsePrefix(P1))!.paths[0]).toMatchObject({ stale: true, longLivedStale: true });
    t.clock.advance(600_000 - 1);
    t.settle();
    expect(t.installed.size).toBe(2);
    t.clock.advance(1);
    t.settle();
    expect(t.installed.size).toBe(0);
    expect(stale.active).toBe(false);
  });

  it('routes with NO_LLGR go when the Restart Time is over; with no Restart Time the rest is long-lived at once', () => {
    const t = setup();
    const a = t.rib.addPeer(EBGP_A);
    t.rib.announce(a, v4(P1), attrs([65001]));
    t.rib.announce(a, v4(P2), attrs([65001], { communities: [WellKnownCommunity.NO_LLGR] }));
    t.flow.flush();
    t.keep(a, gr([[Afi.IPV4, true]], 0), [Afi.IPV4], llgr([[Afi.IPV4, true, 3600]]), 3600);
    t.settle();
    expect([...t.installed.keys()]).toEqual([P1]);
    expect(communitiesOf(t.rib, P1)).toEqual([WellKnownCommunity.LLGR_STALE]);
  });

  it('a long-lived stale path loses to a stale one, which loses to a fresh one', () => {
    const t = setup();
    const { a } = learned(t.rib);
    const b = t.rib.addPeer(EBGP_B);
    // b's path is worse on AS_PATH: it wins only because a's is long-lived stale.
    t.rib.announce(b, v4(P1), attrs([65002, 65100, 65200], {}, '198.18.0.3'));
    t.flow.flush();
    const longLived = t.keep(a, gr([[Afi.IPV4, true]], 0), [Afi.IPV4], llgr([[Afi.IPV4, true, 3600]]), 3600);
    t.keep(b, gr([[Afi.IPV4, true]]), [Afi.IPV4]);
    t.settle();
    expect(t.installed.get(P1)).toBe('b');
    expect(t.rib.lookup(parsePrefix(P1))!.reason).toBe('Not stale');
    longLived.established(gr([[Afi.IPV4, true]]), llgr([[Afi.IPV4, true, 3600]]), STALE_TIME);
    t.rib.announce(a, v4(P1), attrs([65001]));
    t.settle();
    expect(t.installed.get(P1)).toBe('a');
  });

  it('back during the long-lived phase: kept until End-of-RIB with the LLGR F bit, gone without it', () => {
    for (const forwarding of [true, false]) {
      const t = setup();
      const { a } = learned(t.rib);
      t.flow.flush();
      const stale = t.keep(a, gr([[Afi.IPV4, true]], 1), [Afi.IPV4], llgr([[Afi.IPV4, true, 3600]]), 3600);
      t.clock.advance(1000);
      t.settle();
      expect(stale.status()?.phase).toBe('long-lived');
      // The GR F bit says nothing for a long-lived family: the LLGR capability's does.
      stale.established(gr([[Afi.IPV4, true]]), llgr([[Afi.IPV4, forwarding, 3600]]), STALE_TIME);
      t.settle();
      const ipv4 = () => [...t.installed.keys()].filter((k) => !k.includes(':'));
      expect(ipv4()).toHaveLength(forwarding ? 2 : 0);
      if (forwarding) {
        stale.endOfRib(Afi.IPV4);
        t.settle();
        expect(ipv4()).toEqual([]);
      }
    }
  });
});
