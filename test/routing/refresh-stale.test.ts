import { describe, expect, it } from 'vitest';
import { addressBytes, parseIpv4 } from '../../src/address/index.js';
import { makeAttributes, type PathAttributes } from '../../src/bgp/wire/attributes/types.js';
import { Afi, type AfiCode, AsPathSegmentType, Origin } from '../../src/bgp/wire/constants.js';
import type { GracefulRestartNegotiated } from '../../src/bgp/wire/negotiate.js';
import { PrefixList } from '../../src/bgp/wire/prefix-list.js';
import type { UpdateMessage } from '../../src/bgp/wire/update.js';
import { type Scheduler, silentLogger } from '../../src/components/index.js';
import { AcceptAll, compileLists, compilePolicy, type RouteFilter } from '../../src/policy/index.js';
import { type ChangeBatch, parsePrefix, Rib } from '../../src/rib/index.js';
import { Importer, RefreshStale, RouteFlow, StaleRoutes } from '../../src/routing/index.js';
import { FakeScheduler } from '../bgp/session/support.js';

// RFC 7313 section 4, the receiving side, for one session on a fake clock: what a BoRR, the
// routes sent again and the EoRR (or its absence) do to the RIB and to what our other peers
// and the sinks are told (the route flow's change batches).

const P = ['198.18.10.0/24', '198.18.11.0/24', '198.18.12.0/24', '198.18.13.0/24'] as const;
const P6 = ['2001:db8:10::/48', '2001:db8:11::/48'] as const;
const STALE_TIME = 360;

const path = (asns: number[]) => [{ type: AsPathSegmentType.AS_SEQUENCE, asns }];
const A4 = makeAttributes({ origin: Origin.IGP, asPath: path([65001]), nextHop: parseIpv4('198.18.1.2') });
const A4_LONGER = makeAttributes({
  origin: Origin.IGP,
  asPath: path([65001, 65001]),
  nextHop: parseIpv4('198.18.1.2'),
});
const A6 = makeAttributes({
  origin: Origin.IGP,
  asPath: path([65001]),
  mpReach: { afi: Afi.IPV6, safi: 1, nextHop: addressBytes('2001:db8:1::2'), reserved: 0 },
});
/** b's path to a prefix: longer than a's, so a's wins while it is not a restart's stale path. */
const B4 = makeAttributes({
  origin: Origin.IGP,
  asPath: path([65002, 65100]),
  nextHop: parseIpv4('198.18.1.3'),
});

function list(prefixes: readonly string[]): PrefixList {
  const l = new PrefixList(prefixes[0]?.includes(':') ? Afi.IPV6 : Afi.IPV4);
  for (const p of prefixes) {
    const [a, n] = p.split('/');
    l.add(a!, Number(n));
  }
  return l;
}

const announce = (prefixes: readonly string[], attrs: PathAttributes = A4): UpdateMessage => {
  const six = prefixes[0]?.includes(':');
  return {
    type: 'update',
    withdrawn: list([]),
    attrs: six ? A6 : attrs,
    nlri: list(six ? [] : prefixes),
    mpNlri: six ? list(prefixes) : null,
    mpUnreach: null,
    action: 'ok',
    issues: [],
  };
};

const dropEleven = compilePolicy(
  {
    name: 'drop-11',
    statements: [{ match: { prefixList: 'eleven' }, action: 'reject' }],
    defaultAction: 'accept',
  },
  compileLists({ prefixLists: [{ name: 'eleven', entries: [{ action: 'permit', prefix: P[1] }] }] }),
);

/** More prefixes than one turn's slice of a purge (RoutingDefaults.CLEAR_SLICE_ROUTES). */
const manyPrefixes = () => Array.from({ length: 40_000 }, (_, i) => `198.${18 + (i >> 8)}.${i & 0xff}.0/24`);

function setup(opts: { filter?: RouteFilter; gracefulRestart?: boolean; withB?: boolean } = {}) {
  const rib = new Rib({ localAs: 65000, routerId: parseIpv4('198.18.0.1') });
  const a = rib.addPeer({ id: 'a', kind: 'ebgp', asn: 65001, routerId: 2, address: '198.18.1.2' });
  const b = rib.addPeer({ id: 'b', kind: 'ebgp', asn: 65002, routerId: 3, address: '198.18.1.3' });
  const queue: (() => void)[] = [];
  const defer = (fn: () => void) => queue.push(fn);
  const settle = () => {
    for (let n = 0; queue.length > 0 && n < 10_000; n++) queue.shift()!();
  };
  const flow = new RouteFlow(rib, defer);
  // What our other peers and the sinks are told: every change, and prefix -> best path's peer.
  const changes: string[] = [];
  const installed = new Map<string, string>();
  flow.addConsumer({
    name: 'downstream',
    accept: (batch: ChangeBatch) => {
      for (const c of batch.toArray()) {
        const key = c.prefix.toString();
        changes.push(`${c.kind === 'add' ? '+' : '-'}${key} ${c.source.id}`);
        if (c.kind === 'add') installed.set(key, c.source.id);
        else installed.delete(key);
      }
    },
  });
  const clock = new FakeScheduler();
  const scheduler: Scheduler = {
    now: () => clock.now(),
    setTimeout: (fn, ms) => clock.setTimeout(fn, ms),
    clearTimeout: (h) => clock.clearTimeout(h),
    defer,
  };
  const components = { rib, flow, log: silentLogger, clock: scheduler };
  const importer = new Importer(rib, a, opts.filter ?? new AcceptAll('all'), [false, false]);
  const refresh = new RefreshStale(
    { peer: a, store: importer, gracefulRestart: opts.gracefulRestart ?? false, staleTime: STALE_TIME },
    components,
  );
  /** a sends routes through its import policy. */
  const send = (prefixes: readonly string[], attrs?: PathAttributes) => {
    importer.apply(announce(prefixes, attrs));
    flow.schedule();
  };
  const fromA = (afi: AfiCode) => rib.counts(a, afi).received;
  /** a's full table, b's P0 beside a's; everything decided and told, the log cleared. */
  const learned = () => {
    send(P);
    send(P6);
    if (opts.withB) rib.announce(b, list([P[0]]), B4);
    flow.schedule();
    settle();
    changes.length = 0;
  };
  return {
    rib,
    a,
    b,
    flow,
    settle,
    changes,
    installed,
    clock,
    components,
    importer,
    refresh,
    send,
    fromA,
    learned,
  };
}

describe('RefreshStale: the peer refreshes its routes (RFC 7313 section 4)', () => {
  it('a refresh that sends everything again changes nothing downstream nor in the RIB', () => {
    const t = setup({ withB: true });
    t.learned();
    const before = [...t.installed].sort();
    t.refresh.begin(Afi.IPV4);
    t.settle();
    expect(t.changes).toEqual([]);
    expect(t.refresh.status()).toEqual({
      refreshing: [Afi.IPV4],
      stale: { ipv4: 4, ipv6: 0 },
      deadline: STALE_TIME * 1000,
    });
    t.send(P);
    t.settle();
    t.refresh.end(Afi.IPV4);
    t.settle();
    expect(t.changes).toEqual([]);
    expect([...t.installed].sort()).toEqual(before);
    expect(t.fromA(Afi.IPV4)).toBe(4);
    expect(t.refresh.status()).toBeNull();
    // Its stale paths kept their preference: a's P0 was best over b's the whole time.
    expect(t.rib.best(parsePrefix(P[0]))?.source.id).toBe('a');
  });

  it('one that sends part purges exactly the rest at the EoRR, not before', () => {
    const t = setup({ withB: true });
    t.learned();
    t.refresh.begin(Afi.IPV4);
    t.send([P[1], P[3]]);
    // Sent again with other attributes: told at once, as any change.
    t.send([P[2]], A4_LONGER);
    t.settle();
    expect(t.changes).toEqual([`+${P[2]} a`]);
    t.changes.length = 0;
    t.clock.advance(STALE_TIME * 1000 - 1);
    t.settle();
    expect(t.changes).toEqual([]);
    t.refresh.end(Afi.IPV4);
    t.settle();
    // P0 goes from a; b's path takes over.
    expect(t.changes).toEqual([`+${P[0]} b`]);
    expect(t.rib.adjRibIn(t.a).lookup(parsePrefix(P[0]))).toEqual([]);
    expect(t.fromA(Afi.IPV4)).toBe(3);
    // The timer was stopped by the EoRR: nothing happens when it would have run out.
    t.changes.length = 0;
    t.clock.advance(10_000);
    t.settle();
    expect(t.changes).toEqual([]);
  });

  it('a BoRR for one family leaves the other alone', () => {
    const t = setup();
    t.learned();
    t.refresh.begin(Afi.IPV6);
    t.send([P6[1]]);
    t.refresh.end(Afi.IPV6);
    t.settle();
    expect(t.changes).toEqual([`-${P6[0]} a`]);
    expect(t.fromA(Afi.IPV4)).toBe(4);
    expect(t.fromA(Afi.IPV6)).toBe(1);
  });

  it('no EoRR within the stale time: what was not sent again is purged then, the session stays', () => {
    const t = setup();
    t.learned();
    t.refresh.begin(Afi.IPV4);
    t.send([P[0], P[1]]);
    t.clock.advance(STALE_TIME * 1000 - 1);
    t.settle();
    expect(t.changes).toEqual([]);
    expect(t.refresh.status()?.stale.ipv4).toBe(2);
    t.clock.advance(1);
    t.settle();
    expect(t.changes.sort()).toEqual([`-${P[2]} a`, `-${P[3]} a`]);
    expect(t.refresh.status()).toBeNull();
    // A late EoRR finds no refresh under way and is ignored.
    t.refresh.end(Afi.IPV4);
    t.settle();
    expect(t.fromA(Afi.IPV4)).toBe(2);
  });

  it('an EoRR without a BoRR is ignored', () => {
    const t = setup();
    t.learned();
    t.refresh.end(Afi.IPV4);
    t.settle();
    expect(t.changes).toEqual([]);
    expect(t.fromA(Afi.IPV4)).toBe(4);
  });

  it('a second BoRR marks everything again and restarts the wait', () => {
    const t = setup();
    t.learned();
    t.refresh.begin(Afi.IPV4);
    t.send([P[0], P[1]]);
    t.clock.advance(100_000);
    t.refresh.begin(Afi.IPV4);
    expect(t.refresh.status()).toMatchObject({ stale: { ipv4: 4 }, deadline: 100_000 + STALE_TIME * 1000 });
    t.send([P[1], P[2]]);
    t.clock.advance(STALE_TIME * 1000 - 1);
    t.settle();
    expect(t.changes).toEqual([]);
    t.refresh.end(Afi.IPV4);
    t.settle();
    expect(t.changes.sort()).toEqual([`-${P[0]} a`, `-${P[3]} a`]);
  });

  it('a route withdrawn during the refresh goes at once, as ever', () => {
    const t = setup();
    t.learned();
    t.refresh.begin(Afi.IPV4);
    t.importer.apply({ ...announce([]), withdrawn: list([P[3]]) });
    t.flow.schedule();
    t.settle();
    expect(t.changes).toEqual([`-${P[3]} a`]);
    t.send([P[0], P[1], P[2]]);
    t.refresh.end(Afi.IPV4);
    t.settle();
    expect(t.changes).toEqual([`-${P[3]} a`]);
  });

  it('with an import policy: a rejected route not sent again leaves what the peer sent (show received)', () => {
    const t = setup({ filter: dropEleven });
    t.learned();
    expect(t.importer.received(Afi.IPV4)).toBe(4);
    expect(t.fromA(Afi.IPV4)).toBe(3);
    t.refresh.begin(Afi.IPV4);
    t.send([P[0], P[2]]);
    t.refresh.end(Afi.IPV4);
    t.settle();
    expect(t.changes).toEqual([`-${P[3]} a`]);
    expect(t.importer.received(Afi.IPV4)).toBe(2);
    expect(t.importer.receivedFor(parsePrefix(P[1]))).toEqual([]);
    // Nothing comes back when the policy is applied again to what is stored.
    t.importer.setFilter(new AcceptAll('all'));
    for (let c = 0; c !== -1; ) c = t.importer.reimport(Afi.IPV4, c, 16);
    t.flow.schedule();
    t.settle();
    expect([...t.installed.keys()].sort()).toEqual([P[0], P[2], ...P6].sort());
  });

  it('a soft reconfiguration in the middle does not keep a route the peer did not send again', () => {
    const t = setup({ filter: dropEleven });
    t.learned();
    t.refresh.begin(Afi.IPV4);
    t.send([P[0]]);
    // The stored routes through the policy again: the RIB paths are renewed, not sent by a.
    for (let c = 0; c !== -1; ) c = t.importer.reimport(Afi.IPV4, c, 16);
    t.refresh.end(Afi.IPV4);
    t.flow.schedule();
    t.settle();
    expect(t.changes.sort()).toEqual([`-${P[2]} a`, `-${P[3]} a`]);
    expect(t.importer.received(Afi.IPV4)).toBe(1);
  });

  it('a large purge goes a slice per turn', () => {
    const t = setup();
    const many = manyPrefixes();
    t.send(many);
    t.settle();
    t.refresh.begin(Afi.IPV4);
    t.refresh.end(Afi.IPV4);
    // The first slice went at once; the rest waits for the next turns.
    expect(t.rib.refreshStaleCount(t.a, Afi.IPV4)).toBeGreaterThan(0);
    expect(t.refresh.status()).not.toBeNull();
    t.settle();
    expect(t.fromA(Afi.IPV4)).toBe(0);
    expect(t.refresh.status()).toBeNull();
  });
});

describe('RefreshStale: the session ends in the middle', () => {
  it('before the EoRR: the marks go, nothing is purged, the routes are left to the end of the session', () => {
    const t = setup();
    t.learned();
    t.refresh.begin(Afi.IPV4);
    t.send([P[0]]);
    t.refresh.close();
    t.clock.advance(STALE_TIME * 1000);
    t.settle();
    expect(t.changes).toEqual([]);
    expect(t.fromA(Afi.IPV4)).toBe(4);
    expect(t.rib.refreshStaleCount(t.a, Afi.IPV4)).toBe(0);
    expect(t.refresh.status()).toBeNull();
    // Later markers of the closed session do nothing.
    t.refresh.begin(Afi.IPV4);
    t.refresh.end(Afi.IPV4);
    t.settle();
    expect(t.fromA(Afi.IPV4)).toBe(4);
  });

  it('ended gracefully before the EoRR: a restart keeps every route, the ones not sent again too', () => {
    const t = setup();
    t.learned();
    t.refresh.begin(Afi.IPV4);
    t.send([P[0]]);
    t.refresh.close();
    const gr: GracefulRestartNegotiated = {
      restartState: false,
      notification: true,
      notificationExchanged: true,
      restartTime: 120,
      families: [{ afi: Afi.IPV4, safi: 1, forwardingState: true }],
    };
    const stale = new StaleRoutes(t.a, { gr, llgr: null, negotiated: [Afi.IPV4] }, t.components);
    t.settle();
    expect(t.changes).toEqual([]);
    expect(stale.status()?.stale.ipv4).toBe(4);
  });

  it('after the EoRR, during the purge: the purge finishes', () => {
    const t = setup();
    const many = manyPrefixes();
    t.send(many);
    t.settle();
    t.refresh.begin(Afi.IPV4);
    t.refresh.end(Afi.IPV4);
    expect(t.rib.refreshStaleCount(t.a, Afi.IPV4)).toBeGreaterThan(0);
    t.refresh.close();
    expect(t.rib.refreshStaleCount(t.a, Afi.IPV4)).toBe(0);
    expect(t.fromA(Afi.IPV4)).toBe(0);
  });
});

describe('RefreshStale with graceful restart', () => {
  it('a BoRR before the End-of-RIB of a peer that advertised graceful restart is ignored', () => {
    const t = setup({ gracefulRestart: true });
    t.learned();
    t.refresh.begin(Afi.IPV4);
    expect(t.refresh.status()).toBeNull();
    t.refresh.end(Afi.IPV4);
    t.settle();
    expect(t.fromA(Afi.IPV4)).toBe(4);
    // After its End-of-RIB for the family, the next one counts; the other family still waits.
    t.refresh.endOfRib(Afi.IPV4);
    t.refresh.begin(Afi.IPV6);
    expect(t.refresh.status()).toBeNull();
    t.refresh.begin(Afi.IPV4);
    t.refresh.end(Afi.IPV4);
    t.settle();
    expect(t.fromA(Afi.IPV4)).toBe(0);
    expect(t.fromA(Afi.IPV6)).toBe(2);
  });

  it('a restarted peer: its End-of-RIB sweeps, its refresh right after purges, each what it must', () => {
    const t = setup({ gracefulRestart: true, withB: true });
    t.learned();
    const gr: GracefulRestartNegotiated = {
      restartState: false,
      notification: true,
      notificationExchanged: true,
      restartTime: 120,
      families: [{ afi: Afi.IPV4, safi: 1, forwardingState: true }],
    };
    // The session ended gracefully: a's routes stale (b's P0 takes over), then a is back.
    const stale = new StaleRoutes(t.a, { gr, llgr: null, negotiated: [Afi.IPV4] }, t.components);
    stale.established(gr, null, STALE_TIME);
    t.settle();
    expect(t.changes).toEqual([`+${P[0]} b`]);
    t.changes.length = 0;
    // Back, a announces P0 and P1 again, then End-of-RIB: P2 and P3 are swept.
    t.send([P[0], P[1]]);
    stale.endOfRib(Afi.IPV4);
    t.refresh.endOfRib(Afi.IPV4);
    // Its BoRR right after: P0 and P1 are marked, then P0 and P3 sent again before its EoRR.
    t.refresh.begin(Afi.IPV4);
    t.send([P[0], P[3]]);
    t.refresh.end(Afi.IPV4);
    t.settle();
    // P0 is a's again; P1 was not sent in the refresh: purged; P2 in neither: gone; P3, swept
    // and sent again before anything was told, is as it was.
    expect(t.changes.sort()).toEqual([`+${P[0]} a`, `-${P[1]} a`, `-${P[2]} a`].sort());
    expect([...t.installed.keys()].filter((k) => !k.includes(':')).sort()).toEqual([P[0], P[3]]);
    expect(stale.active).toBe(false);
    expect(t.rib.staleCount(t.a, Afi.IPV4)).toBe(0);
    expect(t.rib.refreshStaleCount(t.a, Afi.IPV4)).toBe(0);
  });
});
