/**
 * The table reader's pure half: per-prefix metric sets, what a burst reports, what a dump
 * after lost notifications reports, and how each notification is read. A property test runs
 * random kernel histories (add, replace, delete at (prefix, metric) keys, any protocol) and
 * checks that a consumer applying the reports always holds exactly the table's routes of the
 * protocols read, and was never told of a prefix that had not changed.
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import {
  applyTableEvent,
  type KernelRoute,
  KeyShare,
  NlmFlag,
  ProtocolSet,
  type RouteEvent,
  RtmFlag,
  Rtn,
  type TableChange,
  TableRoutes,
} from '../../../src/fib/kernel/index.js';
import { parsePrefix } from '../../../src/rib/index.js';

const OVN = 84;
const BGP = 186;
const ovnOnly = new ProtocolSet([OVN]);

function route(prefix: string, metric: number, protocol = OVN, flags = 0): KernelRoute {
  return {
    prefix: parsePrefix(prefix),
    table: 7,
    protocol,
    scope: 0,
    type: Rtn.BLACKHOLE,
    flags,
    priority: metric,
    nexthops: [],
  };
}
const added = (r: KernelRoute, flags = 0): RouteEvent => ({ kind: 'new', route: r, flags, pid: 77 });
const deleted = (r: KernelRoute): RouteEvent => ({ kind: 'del', route: r, flags: 0, pid: 77 });

/** Changes as "kind prefix before -> after" lines, sorted. */
function lines(changes: readonly TableChange[]): string[] {
  return changes
    .map((c) => `${c.kind} ${c.prefix} [${c.before.join(',')}] -> [${c.metrics.join(',')}]`)
    .sort();
}

describe('TableRoutes', () => {
  it('holds each prefix with its metrics lowest first, and counts (prefix, metric) entries', () => {
    const t = new TableRoutes();
    t.add(parsePrefix('198.18.1.0/24'), 1000);
    t.add(parsePrefix('198.18.1.0/24'), 100);
    t.add(parsePrefix('198.18.1.0/24'), 100);
    t.add(parsePrefix('2001:db8:1::/64'), 100);
    expect(t.get(parsePrefix('198.18.1.0/24'))?.metrics).toEqual([100, 1000]);
    expect(t.size).toBe(2);
    expect(t.entries).toBe(3);
    t.remove(parsePrefix('198.18.1.0/24'), 100);
    t.remove(parsePrefix('198.18.1.0/24'), 5); // not there: nothing
    expect(t.get(parsePrefix('198.18.1.0/24'))?.metrics).toEqual([1000]);
    expect(t.entries).toBe(2);
  });

  it('reports a burst by what each prefix ends as: add, replace, remove, or nothing', () => {
    const t = new TableRoutes();
    t.add(parsePrefix('198.18.1.0/24'), 100);
    t.add(parsePrefix('198.18.2.0/24'), 100);
    t.add(parsePrefix('198.18.3.0/24'), 100);
    t.add(parsePrefix('198.18.4.0/24'), 100);
    expect(lines(t.takeChanges())).toHaveLength(4);

    // ovn-controller moves a metric by a delete and then an add: one replace, never a remove.
    t.remove(parsePrefix('198.18.1.0/24'), 100);
    t.add(parsePrefix('198.18.1.0/24'), 1000);
    // Briefly at two metrics: the set changes, the best does not.
    t.add(parsePrefix('198.18.2.0/24'), 1000);
    // Gone and back within the burst: not reported.
    t.remove(parsePrefix('198.18.3.0/24'), 100);
    t.add(parsePrefix('198.18.3.0/24'), 100);
    t.remove(parsePrefix('198.18.4.0/24'), 100);
    // Came and went within the burst: not reported.
    t.add(parsePrefix('198.18.5.0/24'), 100);
    t.remove(parsePrefix('198.18.5.0/24'), 100);
    t.add(parsePrefix('2001:db8:6::/64'), 100);
    expect(t.touched).toBe(6);
    expect(lines(t.takeChanges())).toEqual([
      'add 2001:db8:6::/64 [] -> [100]',
      'remove 198.18.4.0/24 [100] -> []',
      'replace 198.18.1.0/24 [100] -> [1000]',
      'replace 198.18.2.0/24 [100] -> [100,1000]',
    ]);
    expect(t.takeChanges()).toEqual([]);
    expect(t.touched).toBe(0);
  });

  it('shares one array per single metric, so ten thousand routes at 100 cost one', () => {
    const t = new TableRoutes();
    t.add(parsePrefix('198.18.1.0/24'), 100);
    t.add(parsePrefix('198.18.2.0/24'), 100);
    expect(t.get(parsePrefix('198.18.1.0/24'))?.metrics).toBe(t.get(parsePrefix('198.18.2.0/24'))?.metrics);
    // What was reported stays true for its holder: entries are replaced, never changed.
    const [reported] = t.takeChanges().filter((c) => c.prefix.toString() === '198.18.1.0/24');
    t.add(parsePrefix('198.18.1.0/24'), 1000);
    expect(reported.metrics).toEqual([100]);
  });

  it('adopts a dump reporting only the prefixes that differ, keeping the others as they were', () => {
    const t = new TableRoutes();
    for (let i = 0; i < 100; i++) t.add(parsePrefix(`198.18.${i}.0/24`), 100);
    t.add(parsePrefix('198.18.0.0/24'), 1000);
    t.markReported();
    const kept = t.get(parsePrefix('198.18.50.0/24'));

    const dump = new TableRoutes({ track: false });
    for (let i = 0; i < 100; i++)
      if (i !== 7) dump.add(parsePrefix(`198.18.${i}.0/24`), i === 9 ? 1000 : 100);
    dump.add(parsePrefix('198.18.200.0/24'), 100);
    t.adopt(dump);

    expect(lines(t.takeChanges())).toEqual([
      'add 198.18.200.0/24 [] -> [100]',
      'remove 198.18.7.0/24 [100] -> []',
      'replace 198.18.0.0/24 [100,1000] -> [100]',
      'replace 198.18.9.0/24 [100] -> [1000]',
    ]);
    expect(t.get(parsePrefix('198.18.50.0/24'))).toBe(kept);
    expect(t.size).toBe(100);
    expect(t.entries).toBe(100);
    expect(dump.size).toBe(0);
  });

  it('a dump that finds a burst undone reports what the burst left against the last report', () => {
    const t = new TableRoutes();
    t.add(parsePrefix('198.18.1.0/24'), 100);
    t.markReported();
    // Notifications seen, then some lost: the dump says the route is back at 100.
    t.remove(parsePrefix('198.18.1.0/24'), 100);
    t.add(parsePrefix('198.18.2.0/24'), 100);
    const dump = new TableRoutes({ track: false });
    dump.add(parsePrefix('198.18.1.0/24'), 100);
    t.adopt(dump);
    expect(lines(t.takeChanges())).toEqual([]);
  });
});

describe('applyTableEvent', () => {
  it('reads NEWROUTE and DELROUTE of the protocols asked for only', () => {
    const t = new TableRoutes();
    applyTableEvent(t, added(route('198.18.1.0/24', 100)), ovnOnly);
    applyTableEvent(t, added(route('198.18.2.0/24', 100, BGP)), ovnOnly);
    applyTableEvent(t, added(route('198.18.1.0/24', 200, BGP)), ovnOnly);
    expect(lines(t.takeChanges())).toEqual(['add 198.18.1.0/24 [] -> [100]']);
    // A delete of another protocol's route at another metric leaves ours.
    applyTableEvent(t, deleted(route('198.18.1.0/24', 200, BGP)), ovnOnly);
    expect(t.takeChanges()).toEqual([]);
    applyTableEvent(t, deleted(route('198.18.1.0/24', 100)), ovnOnly);
    expect(lines(t.takeChanges())).toEqual(['remove 198.18.1.0/24 [100] -> []']);
  });

  it('a replace by another protocol at a key of ours needs a dump to tell whose route it replaced', () => {
    const t = new TableRoutes();
    applyTableEvent(t, added(route('198.18.1.0/24', 100)), ovnOnly);
    t.markReported();
    // The kernel replaced the first route at the key and sends no DELROUTE for it: ours, unless
    // another protocol's route (which we do not follow) sat there first.
    expect(applyTableEvent(t, added(route('198.18.1.0/24', 100, BGP), NlmFlag.REPLACE), ovnOnly)).toBe(false);
    expect(t.takeChanges()).toEqual([]);
    // At a key we do not hold it changes nothing of ours.
    expect(applyTableEvent(t, added(route('198.18.2.0/24', 100, BGP), NlmFlag.REPLACE), ovnOnly)).toBe(true);
    // A replace by one of ours at the key (another next hop, another type) keeps it there.
    expect(applyTableEvent(t, added(route('198.18.1.0/24', 100), NlmFlag.REPLACE), ovnOnly)).toBe(true);
    expect(t.takeChanges()).toEqual([]);
  });

  it('a delete at a key seen holding two routes of ours, or a multipath one, needs a dump', () => {
    const t = new TableRoutes();
    // One route per key, as ovn-controller writes them: a delete is exact.
    applyTableEvent(t, added(route('198.18.1.0/24', 100)), ovnOnly);
    expect(applyTableEvent(t, deleted(route('198.18.1.0/24', 100)), ovnOnly)).toBe(true);
    expect(t.size).toBe(0);
    // ip route append: a second route at the key; deleting one leaves the other.
    applyTableEvent(t, added(route('198.18.2.0/24', 100)), ovnOnly);
    applyTableEvent(t, added(route('198.18.2.0/24', 100)), ovnOnly);
    expect(applyTableEvent(t, deleted(route('198.18.2.0/24', 100)), ovnOnly)).toBe(false);
    expect(t.holds(parsePrefix('198.18.2.0/24'), 100)).toBe(true);
    // IPv6 ECMP: a DELROUTE per next hop.
    const ecmp: KernelRoute = {
      ...route('2001:db8:3::/64', 100),
      nexthops: [
        { gateway: '2001:db8:40::2', ifindex: 3, weight: 1, flags: 0 },
        { gateway: '2001:db8:40::3', ifindex: 3, weight: 1, flags: 0 },
      ],
    };
    applyTableEvent(t, added(ecmp), ovnOnly);
    expect(applyTableEvent(t, deleted(route('2001:db8:3::/64', 100)), ovnOnly)).toBe(false);
    // Another metric of the prefix is its own key.
    applyTableEvent(t, added(route('2001:db8:3::/64', 1000)), ovnOnly);
    expect(applyTableEvent(t, deleted(route('2001:db8:3::/64', 1000)), ovnOnly)).toBe(true);

    // A dump says what the keys hold; one route left at a key makes its delete exact again.
    const dump = new TableRoutes({ track: false });
    dump.add(parsePrefix('198.18.2.0/24'), 100, KeyShare.BESIDE);
    dump.add(parsePrefix('2001:db8:3::/64'), 100, KeyShare.BESIDE);
    t.adopt(dump);
    expect(applyTableEvent(t, deleted(route('198.18.2.0/24', 100)), ovnOnly)).toBe(true);
    expect(applyTableEvent(t, deleted(route('2001:db8:3::/64', 100)), ovnOnly)).toBe(true);
    expect(t.size).toBe(0);
    // Two entries at a key in a dump, or a multipath one, make it shared.
    const two = new TableRoutes({ track: false });
    two.add(parsePrefix('198.18.4.0/24'), 100, KeyShare.BESIDE);
    two.add(parsePrefix('198.18.4.0/24'), 100, KeyShare.BESIDE);
    two.add(parsePrefix('2001:db8:5::/64'), 100, KeyShare.BESIDE | KeyShare.MULTIPATH);
    t.adopt(two);
    expect(applyTableEvent(t, deleted(route('198.18.4.0/24', 100)), ovnOnly)).toBe(false);
    expect(applyTableEvent(t, deleted(route('2001:db8:5::/64', 100)), ovnOnly)).toBe(false);
  });

  it('ignores cached clones (IPv6 exceptions), which are not routes of the table', () => {
    const t = new TableRoutes();
    applyTableEvent(t, added(route('2001:db8:1::5/128', 100, OVN, RtmFlag.CLONED)), ovnOnly);
    expect(t.size).toBe(0);
  });

  it('reads several protocols when asked', () => {
    const t = new TableRoutes();
    const both = new ProtocolSet([BGP, OVN, OVN]);
    expect(both.list).toEqual([OVN, BGP]);
    applyTableEvent(t, added(route('198.18.1.0/24', 100)), both);
    applyTableEvent(t, added(route('198.18.1.0/24', 20, BGP)), both);
    expect(t.get(parsePrefix('198.18.1.0/24'))?.metrics).toEqual([20, 100]);
  });
});

/*
 * A kernel table as Linux keys it: (prefix, metric) keys, each holding routes of any
 * protocol in order (a second one by `ip route append`), a route with one or two next hops.
 * A replace takes the first route at a key, a delete the first of its protocol; a next hop of a
 * multipath route can be deleted alone (IPv6). Ops produce the notifications the kernel sends;
 * a consumer applies the reports it gets.
 */
type Op =
  | {
      readonly op: 'add' | 'append' | 'replace';
      readonly p: number;
      readonly metric: number;
      readonly protocol: number;
      readonly paths: number;
    }
  | { readonly op: 'del' | 'delhop'; readonly p: number; readonly metric: number; readonly protocol: number }
  | { readonly op: 'report' }
  /** Notifications from here on are lost until the next resync, which dumps the table. */
  | { readonly op: 'lose' }
  | { readonly op: 'resync' };

// Few keys, so that histories pile routes onto the same ones.
const PREFIXES = ['198.18.1.0/24', '198.18.1.0/25', '2001:db8:1::/64'];
const key = { p: fc.nat(PREFIXES.length - 1), metric: fc.constantFrom(100, 1000) };
const op: fc.Arbitrary<Op> = fc.oneof(
  {
    arbitrary: fc.record({
      op: fc.constantFrom('add' as const, 'add' as const, 'replace' as const, 'append' as const),
      ...key,
      protocol: fc.constantFrom(OVN, OVN, BGP),
      paths: fc.constantFrom(1, 1, 2),
    }),
    weight: 6,
  },
  {
    arbitrary: fc.record({
      op: fc.constantFrom('del' as const, 'del' as const, 'delhop' as const),
      ...key,
      protocol: fc.constantFrom(OVN, OVN, BGP),
    }),
    weight: 4,
  },
  { arbitrary: fc.constant<Op>({ op: 'report' }), weight: 2 },
  { arbitrary: fc.constant<Op>({ op: 'lose' }), weight: 1 },
  { arbitrary: fc.constant<Op>({ op: 'resync' }), weight: 1 },
);

function withPaths(r: KernelRoute, paths: number): KernelRoute {
  const hops = ['198.18.40.2', '198.18.40.3'].slice(0, paths);
  return { ...r, nexthops: hops.map((gateway) => ({ gateway, ifindex: 3, weight: 1, flags: 0 })) };
}

function truthOf(kernel: Map<string, KernelRoute[]>, protocols: ProtocolSet): Map<string, number[]> {
  const out = new Map<string, number[]>();
  for (const routes of kernel.values()) {
    const r = routes.find((x) => protocols.has(x.protocol));
    if (!r) continue;
    const p = r.prefix.toString();
    out.set(
      p,
      [...(out.get(p) ?? []), r.priority].sort((a, b) => a - b),
    );
  }
  return out;
}

/**
 * Runs a kernel history and checks the consumer of the reports against the kernel: after every
 * report when nothing was lost since the last dump, and at the end after a dump.
 */
function checkHistory(ops: readonly Op[]): void {
  const kernel = new Map<string, KernelRoute[]>();
  const t = new TableRoutes();
  const consumer = new Map<string, readonly number[]>();
  let losing = false;
  /** A notification could not be applied for sure: the reader dumps before long. */
  let verify = false;
  const dump = () => {
    const d = new TableRoutes({ track: false });
    for (const routes of kernel.values())
      for (const r of routes)
        if (ovnOnly.has(r.protocol))
          d.add(r.prefix, r.priority, KeyShare.BESIDE | (r.nexthops.length > 1 ? KeyShare.MULTIPATH : 0));
    t.adopt(d);
    verify = false;
  };
  const report = () => {
    for (const c of t.takeChanges()) {
      const p = c.prefix.toString();
      // Never told of a prefix whose metrics are what it was last told.
      expect(c.before).toEqual(consumer.get(p) ?? []);
      expect(c.metrics).not.toEqual(c.before);
      if (c.metrics.length === 0) consumer.delete(p);
      else consumer.set(p, c.metrics);
    }
  };
  const exact = () => {
    const truth = truthOf(kernel, ovnOnly);
    expect(Object.fromEntries(consumer)).toEqual(Object.fromEntries(truth));
    return truth;
  };
  const notify = (e: RouteEvent) => {
    if (!losing && !applyTableEvent(t, e, ovnOnly)) verify = true;
  };
  for (const o of ops) {
    if (o.op === 'report') {
      if (verify && !losing) dump();
      report();
      // Nothing lost since the last dump: the notifications (and verify dumps) keep it exact.
      if (!losing) exact();
    } else if (o.op === 'lose') losing = true;
    else if (o.op === 'resync') {
      losing = false;
      dump();
    } else {
      const k = `${PREFIXES[o.p]}|${o.metric}`;
      const at = kernel.get(k) ?? [];
      if (o.op === 'del' || o.op === 'delhop') {
        const i = at.findIndex((r) => r.protocol === o.protocol);
        if (i < 0) continue;
        const had = at[i];
        if (o.op === 'delhop') {
          if (had.nexthops.length < 2) continue;
          // IPv6 takes one next hop out; the route stays with the other.
          at[i] = { ...had, nexthops: had.nexthops.slice(1) };
          notify(deleted({ ...had, nexthops: had.nexthops.slice(0, 1) }));
          continue;
        }
        at.splice(i, 1);
        if (at.length === 0) kernel.delete(k);
        notify(deleted(had));
        continue;
      }
      const paths = 'paths' in o ? o.paths : 1;
      const r = withPaths(route(PREFIXES[o.p], o.metric, o.protocol), paths);
      if (o.op === 'add' && at.length > 0) continue; // EEXIST
      if (o.op === 'replace' && at.length > 0) {
        at[0] = r;
        notify(added(r, NlmFlag.REPLACE));
        continue;
      }
      kernel.set(k, [...at, r]);
      notify(added(r));
    }
  }
  // Make good what was lost, then the last report.
  dump();
  report();
  const truth = exact();
  expect(t.size).toBe(truth.size);
  expect(t.entries).toBe([...truth.values()].reduce((n, ms) => n + ms.length, 0));
}

describe('TableRoutes with a kernel history', () => {
  it('a consumer of the reports holds the table exactly, and hears only of prefixes that changed', () => {
    fc.assert(fc.property(fc.array(op, { maxLength: 60, size: 'max' }), checkHistory), { numRuns: 1000 });
  });

  // Histories that broke it once.
  it("a replace by one of ours that took another protocol's route leaves two of ours at the key", () => {
    checkHistory([
      { op: 'add', p: 1, metric: 100, protocol: BGP, paths: 1 },
      { op: 'append', p: 1, metric: 100, protocol: OVN, paths: 1 },
      { op: 'replace', p: 1, metric: 100, protocol: OVN, paths: 1 },
      { op: 'del', p: 1, metric: 100, protocol: OVN },
      { op: 'report' },
    ]);
  });
});
