/*
 * After any sequence of applies and reconciles, our rows on the router are exactly the wanted
 * set (one row per prefix and next hop, no duplicates), whatever went wrong in between: sessions
 * lost before or after a commit, late notifications, the server re-running a committed
 * transaction, other writers adding rows. Rows without our mark are never touched.
 *
 * The planner alone, too: from any rows at all, one plan reaches the wanted set, and planning
 * again finds nothing to do.
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import type { FibChange, FibRoute } from '../../../src/fib/index.js';
import {
  OvnNbTarget,
  type OwnedRow,
  ownedRow,
  planRoutes,
  routeKey,
  type WantedRoute,
  wantedRoute,
} from '../../../src/fib/ovn-nb/index.js';
import type { Row } from '../../../src/ovsdb/index.js';
import { FakeNb, type RouteFields } from './fake-nb.js';
import { lrsr, MARK_KEY, ME, ours, route, SETTINGS, theirs } from './support.js';

const PREFIXES = ['198.18.1.0/24', '198.18.2.7/32', '198.19.0.0/16', '2001:db8:1::/48', '2001:db8::7/128'];
const HOPS4 = ['198.18.0.1', '198.18.0.2', '198.18.0.3'];
const HOPS6 = ['2001:db8::1', '2001:db8::2', '2001:db8::3'];

/** A route for one of PREFIXES over some hops of its family, sometimes one of the other family too. */
const routeArb: fc.Arbitrary<FibRoute> = fc
  .record({
    prefix: fc.constantFrom(...PREFIXES),
    hops: fc.subarray([0, 1, 2], { minLength: 1 }),
    cross: fc.boolean(),
  })
  .map(({ prefix, hops, cross }) => {
    const v6 = prefix.includes(':');
    const own = hops.map((i) => (v6 ? HOPS6 : HOPS4)[i]);
    return route(prefix, ...own, ...(cross ? [(v6 ? HOPS4 : HOPS6)[0]] : []));
  });

const changeArb: fc.Arbitrary<FibChange> = fc.oneof(
  routeArb.map((r): FibChange => ({ kind: 'add', route: r })),
  fc.constantFrom(...PREFIXES).map((p): FibChange => ({ kind: 'withdraw', prefix: route(p).prefix })),
);

type Step =
  | { readonly kind: 'apply'; readonly changes: readonly FibChange[] }
  | { readonly kind: 'reconcile'; readonly routes: readonly FibRoute[] }
  | { readonly kind: 'fault'; readonly fault: FakeNb['nextFault'] }
  | { readonly kind: 'lag'; readonly on: boolean }
  /** The session moves to another RAFT member (its own _version values), resuming. */
  | { readonly kind: 'failover' }
  | { readonly kind: 'foreign'; readonly fields: RouteFields };

const stepArb: fc.Arbitrary<Step> = fc.oneof(
  {
    weight: 5,
    arbitrary: fc
      .array(changeArb, { minLength: 1, maxLength: 6 })
      .map((changes) => ({ kind: 'apply' as const, changes })),
  },
  {
    weight: 1,
    arbitrary: fc.array(routeArb, { maxLength: 5 }).map((routes) => ({ kind: 'reconcile' as const, routes })),
  },
  {
    weight: 2,
    arbitrary: fc
      .constantFrom('lose-before-commit', 'lose-after-commit', 'rerun-after-commit')
      .map((fault) => ({ kind: 'fault' as const, fault: fault as FakeNb['nextFault'] })),
  },
  { weight: 1, arbitrary: fc.boolean().map((on) => ({ kind: 'lag' as const, on })) },
  { weight: 1, arbitrary: fc.constant({ kind: 'failover' as const }) },
  {
    weight: 1,
    arbitrary: fc
      .record({ p: fc.constantFrom(...PREFIXES), mark: fc.constantFrom({}, theirs) })
      .map(({ p, mark }) => ({
        kind: 'foreign' as const,
        fields: { ip_prefix: p, nexthop: p.includes(':') ? '2001:db8::9' : '198.18.0.9', external_ids: mark },
      })),
  },
);

/** What lr-route-list would list of ours, and what the model says it must be. */
function ourRows(nb: FakeNb, router: string): string[] {
  return nb
    .routesOf(router)
    .filter((r) => (r.external_ids as Map<string, string>).get(MARK_KEY) === ME)
    .map((r) => `${r.ip_prefix} via ${r.nexthop}`)
    .sort();
}

function expected(desired: ReadonlyMap<string, WantedRoute>): string[] {
  return [...desired.values()].flatMap((w) => w.nexthops.map((h) => `${w.ipPrefix} via ${h}`)).sort();
}

const same = (a: readonly string[], b: readonly string[]) => a.join('|') === b.join('|');

/** Delivers late notifications and lets what they start run, until `check` holds (bounded). */
async function eventually(nb: FakeNb, check: () => boolean): Promise<void> {
  for (let i = 0; i < 100 && !check(); i++) {
    nb.flush();
    await new Promise((r) => setTimeout(r, 5));
  }
}

/** Calls as the SinkDriver would: on failure, the session comes back and the same work is retried. */
async function driven(nb: FakeNb, work: () => Promise<void>): Promise<void> {
  for (let attempt = 0; ; attempt++) {
    try {
      await work();
      return;
    } catch (err) {
      if (attempt >= 5) throw err;
      nb.flush();
      if (!nb.synced) nb.reconnect();
    }
  }
}

describe('OvnNbTarget converges through faults', () => {
  it('our rows equal the wanted set after every step; foreign rows stay', async () => {
    await fc.assert(
      fc.asyncProperty(fc.array(stepArb, { minLength: 1, maxLength: 25 }), async (steps) => {
        const nb = new FakeNb();
        const router = nb.addRouter('fo-r1');
        const target = new OvnNbTarget(
          { client: nb, router: 'fo-r1', mark: { value: ME }, readyTimeoutMs: 50, settleTimeoutMs: 5 },
          {},
        );
        const desired = new Map<string, WantedRoute>();
        const foreign = new Set<string>();
        const flusher = setInterval(() => nb.flush(), 1);
        try {
          for (const step of steps) {
            switch (step.kind) {
              case 'apply':
                for (const c of step.changes) {
                  const key = routeKey(c.kind === 'add' ? c.route.prefix : c.prefix);
                  const w = c.kind === 'add' ? wantedRoute(c.route).route : null;
                  if (w) desired.set(key, w);
                  else desired.delete(key);
                }
                await driven(nb, () => target.apply(step.changes));
                break;
              case 'reconcile':
                desired.clear();
                for (const r of step.routes) {
                  const w = wantedRoute(r).route;
                  if (w) desired.set(w.key, w);
                  else desired.delete(routeKey(r.prefix));
                }
                await driven(nb, () => target.reconcile(step.routes));
                break;
              case 'fault':
                nb.nextFault = step.fault;
                continue;
              case 'lag':
                nb.lag = step.on;
                continue;
              case 'failover':
                nb.flush();
                nb.failover();
                continue;
              case 'foreign':
                if (nb.synced) foreign.add(nb.addRoute(router, step.fields));
                continue;
            }
            // Notifications may come after the settle bound: what they start must end in the set.
            await eventually(nb, () => same(ourRows(nb, router), expected(desired)));
            expect(ourRows(nb, router)).toEqual(expected(desired));
            const present = new Set(nb.routesOf(router).map((r) => r._uuid));
            for (const u of foreign) expect(present.has(u)).toBe(true);
          }
        } finally {
          clearInterval(flusher);
          await target.close();
        }
      }),
      { numRuns: 150 },
    );
  });
});

describe('planRoutes from any rows', () => {
  const rowArb: fc.Arbitrary<RouteFields> = fc.record({
    ip_prefix: fc.constantFrom(...PREFIXES, '198.18.2.7', '2001:db8::7', 'junk'),
    nexthop: fc.constantFrom(...HOPS4, ...HOPS6),
    external_ids: fc.constantFrom(ours, theirs, {}),
    route_table: fc.constantFrom('', '', '', 'rtb-fo'),
    policy: fc.constantFrom(null, null, 'dst-ip', 'src-ip'),
  });

  it('one plan makes our rows exactly the wanted set; a second finds nothing to do', () => {
    fc.assert(
      fc.property(
        fc.array(rowArb, { maxLength: 12 }),
        fc.array(routeArb, { maxLength: 5 }),
        (fields, want) => {
          let rows: Row[] = fields.map((f, i) =>
            lrsr(`00000000-0000-4000-8000-${String(i).padStart(12, '0')}`, f),
          );
          const desired = new Map<string, WantedRoute>();
          for (const r of want) {
            const w = wantedRoute(r).route;
            if (w) desired.set(w.key, w);
            else desired.delete(routeKey(r.prefix));
          }
          const plan1 = planOnce(rows, desired);
          const before = rows.filter((r) => !ownedRow(r, SETTINGS));
          rows = [
            ...rows.filter((r) => !plan1.deletes.includes(r._uuid)),
            ...plan1.inserts.map((n, i) =>
              lrsr(`11111111-0000-4000-8000-${String(i).padStart(12, '0')}`, {
                ip_prefix: n.ipPrefix,
                nexthop: n.nexthop,
                external_ids: ours,
              }),
            ),
          ];
          const mine = rows
            .filter((r) => ownedRow(r, SETTINGS))
            .map((r) => `${r.ip_prefix} via ${r.nexthop}`);
          expect(mine.sort()).toEqual(expected(desired));
          expect(rows.filter((r) => !ownedRow(r, SETTINGS))).toEqual(before);
          const plan2 = planOnce(rows, desired);
          expect(plan2).toEqual({ inserts: [], deletes: [] });
        },
      ),
      { numRuns: 500 },
    );
  });
});

function planOnce(rows: readonly Row[], desired: ReadonlyMap<string, WantedRoute>) {
  const owned = rows.map((r) => ownedRow(r, SETTINGS)).filter((o): o is OwnedRow => o !== null);
  const keys = new Set([...desired.keys(), ...owned.map((o) => o.key)]);
  return planRoutes(keys, desired, (k) => owned.filter((o) => o.key === k));
}
