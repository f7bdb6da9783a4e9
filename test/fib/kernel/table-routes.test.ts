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

  it('a replace by another protocol at our key takes the route away (the kernel sends no DELROUTE for it)', () => {
    const t = new TableRoutes();
    applyTableEvent(t, added(route('198.18.1.0/24', 100)), ovnOnly);
    t.markReported();
    applyTableEvent(t, added(route('198.18.1.0/24', 100, BGP), NlmFlag.REPLACE), ovnOnly);
    expect(lines(t.takeChanges())).toEqual(['remove 198.18.1.0/24 [100] -> []']);
    // A replace by one of ours at the key (another next hop, another type) keeps it there.
    applyTableEvent(t, added(route('198.18.1.0/24', 100)), ovnOnly);
    applyTableEvent(t, added(route('198.18.1.0/24', 100), NlmFlag.REPLACE), ovnOnly);
    expect(lines(t.takeChanges())).toEqual(['add 198.18.1.0/24 [] -> [100]']);
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
 * A kernel table as Linux keys it: one route per (prefix, metric), each with a protocol. Ops
 * produce the notifications the kernel sends; a consumer applies the reports it gets.
 */
type Op =
  | { readonly op: 'add' | 'replace'; readonly p: number; readonly metric: number; readonly protocol: number }
  | { readonly op: 'del'; readonly p: number; readonly metric: number }
  | { readonly op: 'report' }
  /** Notifications from here on are lost until the next resync, which dumps the table. */
  | { readonly op: 'lose' }
  | { readonly op: 'resync' };

const PREFIXES = ['198.18.1.0/24', '198.18.2.0/24', '198.18.1.0/25', '2001:db8:1::/64', '2001:db8:2::/64'];
const op: fc.Arbitrary<Op> = fc.oneof(
  {
    arbitrary: fc.record({
      op: fc.constantFrom('add' as const, 'replace' as const),
      p: fc.nat(PREFIXES.length - 1),
      metric: fc.constantFrom(100, 1000, 20),
      protocol: fc.constantFrom(OVN, OVN, BGP),
    }),
    weight: 6,
  },
  {
    arbitrary: fc.record({
      op: fc.constant('del' as const),
      p: fc.nat(PREFIXES.length - 1),
      metric: fc.constantFrom(100, 1000, 20),
    }),
    weight: 4,
  },
  { arbitrary: fc.constant<Op>({ op: 'report' }), weight: 2 },
  { arbitrary: fc.constant<Op>({ op: 'lose' }), weight: 1 },
  { arbitrary: fc.constant<Op>({ op: 'resync' }), weight: 1 },
);

function truthOf(kernel: Map<string, KernelRoute>, protocols: ProtocolSet): Map<string, number[]> {
  const out = new Map<string, number[]>();
  for (const r of kernel.values()) {
    if (!protocols.has(r.protocol)) continue;
    const p = r.prefix.toString();
    out.set(
      p,
      [...(out.get(p) ?? []), r.priority].sort((a, b) => a - b),
    );
  }
  return out;
}

describe('TableRoutes with a kernel history', () => {
  it('a consumer of the reports holds the table exactly, and hears only of prefixes that changed', () => {
    // After every report when nothing was lost, and after a dump when something was.
    fc.assert(
      fc.property(fc.array(op, { maxLength: 80 }), (ops) => {
        const kernel = new Map<string, KernelRoute>();
        const t = new TableRoutes();
        const consumer = new Map<string, readonly number[]>();
        let losing = false;
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
        const notify = (e: RouteEvent) => {
          if (!losing) applyTableEvent(t, e, ovnOnly);
        };
        const exact = () => {
          const truth = truthOf(kernel, ovnOnly);
          expect(Object.fromEntries(consumer)).toEqual(Object.fromEntries(truth));
          return truth;
        };
        for (const o of ops) {
          if (o.op === 'report') {
            report();
            // Nothing lost since the last dump: the notifications alone keep the consumer exact.
            if (!losing) exact();
          } else if (o.op === 'lose') losing = true;
          else if (o.op === 'resync') {
            losing = false;
            const dump = new TableRoutes({ track: false });
            for (const r of kernel.values()) if (ovnOnly.has(r.protocol)) dump.add(r.prefix, r.priority);
            t.adopt(dump);
          } else {
            const key = `${PREFIXES[o.p]}|${o.metric}`;
            const had = kernel.get(key);
            if (o.op === 'del') {
              if (!had) continue;
              kernel.delete(key);
              notify(deleted(had));
            } else {
              if (o.op === 'add' && had) continue; // EEXIST
              const r = route(PREFIXES[o.p], o.metric, o.protocol);
              kernel.set(key, r);
              notify(added(r, had ? NlmFlag.REPLACE : 0));
            }
          }
        }
        // Make good what was lost, then the last report.
        const dump = new TableRoutes({ track: false });
        for (const r of kernel.values()) if (ovnOnly.has(r.protocol)) dump.add(r.prefix, r.priority);
        t.adopt(dump);
        report();
        const truth = exact();
        expect(t.size).toBe(truth.size);
        expect(t.entries).toBe([...truth.values()].reduce((n, ms) => n + ms.length, 0));
      }),
      { numRuns: 500 },
    );
  });
});
