/* Planning: the inserts and deletes that make our rows of each prefix exactly the wanted next hops. */
import { describe, expect, it } from 'vitest';
import {
  type NewRow,
  type OwnedRow,
  ownedRow,
  planOperations,
  planRoutes,
  type RouteSettings,
  rowOf,
  type WantedRoute,
  wantedRoute,
} from '../../../src/fib/ovn-nb/index.js';
import type { FibRoute } from '../../../src/fib/route.js';
import type { NamedUuid } from '../../../src/ovsdb/index.js';
import { encodeTransact } from '../../../src/ovsdb/operations.js';
import type { RouteFields } from './fake-nb.js';
import { NB_SCHEMA } from './fake-nb.js';
import { lrsr, ME, OTHER, ours, route, SETTINGS, theirs } from './support.js';

interface Case {
  readonly name: string;
  /** What the speaker wants (the desired set after the applies so far). */
  readonly want: readonly FibRoute[];
  /** Rows on the router, by label; only ours count. */
  readonly rows?: Readonly<Record<string, RouteFields>>;
  /** Prefixes planned; every one wanted or held when absent (a reconcile). */
  readonly keys?: readonly string[];
  readonly settings?: Partial<RouteSettings>;
  /** "ip_prefix via nexthop" */
  readonly inserts: readonly string[];
  /** Row labels. */
  readonly deletes: readonly string[];
}

const r = (ip_prefix: string, nexthop: string, extra: Partial<RouteFields> = {}): RouteFields => ({
  ip_prefix,
  nexthop,
  external_ids: ours,
  ...extra,
});

const CASES: readonly Case[] = [
  {
    name: 'add to an empty router',
    want: [route('198.18.1.0/24', '198.18.0.1')],
    inserts: ['198.18.1.0/24 via 198.18.0.1'],
    deletes: [],
  },
  {
    name: 'ECMP: one row per next hop, same prefix',
    want: [route('198.18.1.0/24', '198.18.0.1', '198.18.0.2', '198.18.0.3')],
    inserts: ['198.18.1.0/24 via 198.18.0.1', '198.18.1.0/24 via 198.18.0.2', '198.18.1.0/24 via 198.18.0.3'],
    deletes: [],
  },
  {
    name: 'host routes are written as ovn-nbctl writes them',
    want: [route('198.18.1.7/32', '198.18.0.1'), route('2001:db8::7/128', '2001:db8::1')],
    inserts: ['198.18.1.7 via 198.18.0.1', '2001:db8::7 via 2001:db8::1'],
    deletes: [],
  },
  {
    name: 'already there: nothing to do',
    want: [route('198.18.1.0/24', '198.18.0.1', '198.18.0.2')],
    rows: { a: r('198.18.1.0/24', '198.18.0.1'), b: r('198.18.1.0/24', '198.18.0.2') },
    inserts: [],
    deletes: [],
  },
  {
    name: 'replace: the kept next hop stays, the old goes, the new comes',
    want: [route('198.18.1.0/24', '198.18.0.2', '198.18.0.3')],
    rows: { a: r('198.18.1.0/24', '198.18.0.1'), b: r('198.18.1.0/24', '198.18.0.2') },
    inserts: ['198.18.1.0/24 via 198.18.0.3'],
    deletes: ['a'],
  },
  {
    name: 'ECMP shrinks to one next hop',
    want: [route('198.18.1.0/24', '198.18.0.2')],
    rows: { a: r('198.18.1.0/24', '198.18.0.1'), b: r('198.18.1.0/24', '198.18.0.2') },
    inserts: [],
    deletes: ['a'],
  },
  {
    name: 'withdraw: every row of ours for the prefix goes, nothing else',
    want: [],
    keys: ['198.18.1.0/24'],
    rows: {
      a: r('198.18.1.0/24', '198.18.0.1'),
      b: r('198.18.1.0/24', '198.18.0.2'),
      hand: r('198.18.1.0/24', '198.18.0.9', { external_ids: {} }),
      other: r('198.18.1.0/24', '198.18.0.8', { external_ids: theirs }),
      elsewhere: r('198.18.2.0/24', '198.18.0.1'),
    },
    inserts: [],
    deletes: ['a', 'b'],
  },
  {
    name: 'a withdraw of a prefix we do not hold is a no-op',
    want: [],
    keys: ['198.18.9.0/24'],
    rows: { hand: r('198.18.9.0/24', '198.18.0.9', { external_ids: {} }) },
    inserts: [],
    deletes: [],
  },
  {
    name: 'apply plans only the prefixes it changes',
    want: [route('198.18.1.0/24', '198.18.0.1'), route('198.18.2.0/24', '198.18.0.1')],
    keys: ['198.18.1.0/24'],
    rows: { stale: r('198.18.3.0/24', '198.18.0.1') },
    inserts: ['198.18.1.0/24 via 198.18.0.1'],
    deletes: [],
  },
  {
    name: 'reconcile: missing added, stale deleted, hand-made and foreign rows kept',
    want: [route('198.18.1.0/24', '198.18.0.1'), route('2001:db8:1::/48', '2001:db8::1', '2001:db8::2')],
    rows: {
      keep: r('198.18.1.0/24', '198.18.0.1'),
      stale: r('198.18.3.0/24', '198.18.0.1'),
      staleHop: r('2001:db8:1::/48', '2001:db8::3'),
      hand: r('198.18.4.0/24', '198.18.0.1', { external_ids: {} }),
      other: r('198.18.3.0/24', '198.18.0.1', { external_ids: theirs }),
    },
    inserts: ['2001:db8:1::/48 via 2001:db8::1', '2001:db8:1::/48 via 2001:db8::2'],
    deletes: ['stale', 'staleHop'],
  },
  {
    name: 'duplicates of ours: one kept, the rest deleted',
    want: [route('198.18.1.0/24', '198.18.0.1')],
    rows: {
      a: r('198.18.1.0/24', '198.18.0.1'),
      b: r('198.18.1.0/24', '198.18.0.1'),
      c: r('198.18.1.0/24', '198.18.0.1'),
    },
    inserts: [],
    deletes: ['b', 'c'],
  },
  {
    name: 'a row of ours that differs from the settings is replaced',
    want: [route('198.18.1.0/24', '198.18.0.1')],
    settings: { routeTable: 'rtb-fo' },
    rows: { old: r('198.18.1.0/24', '198.18.0.1') },
    inserts: ['198.18.1.0/24 via 198.18.0.1'],
    deletes: ['old'],
  },
  {
    name: 'a row of ours with an ip_prefix that is no prefix goes on reconcile',
    want: [],
    rows: { bogus: r('not-a-prefix', '198.18.0.1') },
    inserts: [],
    deletes: ['bogus'],
  },
];

const labels = new Map<string, number>();
function uuidOf(label: string): string {
  if (!labels.has(label)) labels.set(label, labels.size + 1);
  return `00000000-0000-4000-8000-${String(labels.get(label)).padStart(12, '0')}`;
}

function desiredOf(want: readonly FibRoute[]): Map<string, WantedRoute> {
  const out = new Map<string, WantedRoute>();
  for (const w of want) {
    const { route: wanted } = wantedRoute(w);
    if (wanted) out.set(wanted.key, wanted);
  }
  return out;
}

const text = (rows: readonly NewRow[]) => rows.map((x) => `${x.ipPrefix} via ${x.nexthop}`).sort();

describe('planRoutes', () => {
  it.each(CASES)('$name', (c) => {
    const settings = { ...SETTINGS, ...c.settings };
    const owned: OwnedRow[] = Object.entries(c.rows ?? {})
      .map(([label, f]) => ownedRow(lrsr(uuidOf(label), f), settings))
      .filter((o): o is OwnedRow => o !== null);
    const desired = desiredOf(c.want);
    const keys = c.keys ?? new Set([...desired.keys(), ...owned.map((o) => o.key)]);
    const plan = planRoutes(keys, desired, (k) => owned.filter((o) => o.key === k));
    expect(text(plan.inserts)).toEqual([...c.inserts].sort());
    expect([...plan.deletes].sort()).toEqual(c.deletes.map(uuidOf).sort());
  });
});

describe('wantedRoute', () => {
  it('drops next hops of the other family (northd ignores such routes) and says why', () => {
    const w = wantedRoute(route('198.18.1.0/24', '198.18.0.1', '2001:db8::1'));
    expect(w.route).toEqual({ key: '198.18.1.0/24', ipPrefix: '198.18.1.0/24', nexthops: ['198.18.0.1'] });
    expect(w.skipped).toEqual([expect.stringContaining('2001:db8::1')]);
  });

  it('a route left with no next hop is no route (the prefix is withdrawn)', () => {
    expect(wantedRoute(route('198.18.1.0/24', '2001:db8::1')).route).toBeNull();
    expect(wantedRoute(route('2001:db8:1::/48', '198.18.0.1')).route).toBeNull();
  });
});

describe('planOperations: one transaction', () => {
  const router = { uuid: uuidOf('router'), version: uuidOf('version'), routes: [] };

  it('precondition first, the inserts marked, one mutate of static_routes, a comment', () => {
    const plan = {
      inserts: [
        { key: '198.18.1.0/24', ipPrefix: '198.18.1.0/24', nexthop: '198.18.0.1' },
        { key: '198.18.1.0/24', ipPrefix: '198.18.1.0/24', nexthop: '198.18.0.2' },
      ],
      deletes: [uuidOf('old')],
    };
    const ops = planOperations(plan, router, SETTINGS);
    expect(ops.map((o) => o.op)).toEqual(['wait', 'insert', 'insert', 'mutate', 'comment']);
    expect(ops[0]).toEqual({
      op: 'wait',
      table: 'Logical_Router',
      where: [['_uuid', '==', router.uuid]],
      columns: ['_version'],
      until: '==',
      rows: [{ _version: router.version }],
      timeout: 0,
    });
    expect(ops[1]).toMatchObject({
      op: 'insert',
      table: 'Logical_Router_Static_Route',
      uuidName: 'r0',
      row: { ip_prefix: '198.18.1.0/24', nexthop: '198.18.0.1', external_ids: { 'ovn-bgp-speaker': ME } },
    });
    const mutate = ops[3] as Extract<(typeof ops)[number], { op: 'mutate' }>;
    expect(mutate.where).toEqual([['_uuid', '==', router.uuid]]);
    expect(mutate.mutations[0]).toEqual(['static_routes', 'delete', [uuidOf('old')]]);
    expect(mutate.mutations[1][1]).toBe('insert');
    expect((mutate.mutations[1][2] as NamedUuid[]).map((n) => n.name)).toEqual(['r0', 'r1']);
    expect(ops[4]).toEqual({ op: 'comment', comment: `ovn-bgp-speaker ${ME}: +2 -1 static routes` });
    // Encodes against the OVN 23.03 NB schema (what the client checks before sending).
    const wire = JSON.stringify(encodeTransact(NB_SCHEMA, ops));
    expect(wire).toContain('["named-uuid","r1"]');
    expect(wire).toContain(`["map",[["ovn-bgp-speaker","${ME}"]]]`);
  });

  it("checks the whole static_routes set when the replica's _version is another member's", () => {
    const held = { ...router, routes: [uuidOf('a'), uuidOf('b')] };
    const [wait] = planOperations({ inserts: [], deletes: [uuidOf('a')] }, held, SETTINGS, 'static-routes');
    expect(wait).toMatchObject({ op: 'wait', columns: ['static_routes'], until: '==', timeout: 0 });
    expect((wait as Extract<typeof wait, { op: 'wait' }>).rows).toEqual([
      { static_routes: [uuidOf('a'), uuidOf('b')] },
    ]);
    expect(JSON.stringify(encodeTransact(NB_SCHEMA, [wait]))).toContain(`["set",[["uuid","${uuidOf('a')}"]`);
  });

  it('a delete-only plan has no insert mutation', () => {
    const ops = planOperations({ inserts: [], deletes: [uuidOf('a')] }, router, SETTINGS);
    expect(ops.map((o) => o.op)).toEqual(['wait', 'mutate', 'comment']);
    expect((ops[1] as Extract<(typeof ops)[number], { op: 'mutate' }>).mutations).toHaveLength(1);
  });

  it('writes output_port and route_table only when configured', () => {
    const row = { key: '198.18.1.0/24', ipPrefix: '198.18.1.0/24', nexthop: '198.18.0.1' };
    expect(Object.keys(rowOf(row, SETTINGS)).sort()).toEqual(['external_ids', 'ip_prefix', 'nexthop']);
    expect(rowOf(row, { ...SETTINGS, outputPort: 'lrp-fo', routeTable: 'rtb-fo', markValue: OTHER })).toEqual(
      {
        ip_prefix: '198.18.1.0/24',
        nexthop: '198.18.0.1',
        output_port: 'lrp-fo',
        route_table: 'rtb-fo',
        external_ids: { 'ovn-bgp-speaker': OTHER },
      },
    );
  });
});
