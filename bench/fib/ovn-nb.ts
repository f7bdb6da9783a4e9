/**
 * OvnNbTarget against a real OVN_Northbound: 10,000 learned routes in one apply (one
 * transaction), timed until our transact returns, until apply() resolves (the replica shows
 * the commit), and until `ovn-nbctl lr-route-list` lists them all; then 100 changes on the
 * loaded router, and reconcile([]) until the router is empty again. On a standalone
 * ovsdb-server and on a 3-member RAFT cluster, each run on a fresh database.
 *
 *   npx tsx bench/fib/ovn-nb.ts [--routes 10000] [--runs 3] [--ecmp-every 4]
 *
 * Starts its own ovsdb-servers (OvsdbLab, dirs fo-bench-*) and stops them by PID.
 */
import { loadavg } from 'node:os';
import { performance } from 'node:perf_hooks';
import type { FibChange } from '../../src/fib/index.js';
import {
  OvnNbTarget,
  planOperations,
  planRoutes,
  type WantedRoute,
  wantedRoute,
} from '../../src/fib/ovn-nb/index.js';
import { OvsdbSession } from '../../src/ovsdb/index.js';
import { encodeTransact } from '../../src/ovsdb/operations.js';
import { expectedRows, labRoutes, lrRouteList, untilApplied } from '../../test/support/ovn-nb-sink.js';
import { loadSchema, NB_SCHEMA, nbctl, OvsdbLab, run, sleep } from '../../test/support/ovsdb-lab.js';
import { machineLine, rate, table } from '../support/report.js';

function arg(name: string, fallback: number): number {
  const i = process.argv.indexOf(`--${name}`);
  return i > 0 ? Number(process.argv[i + 1]) : fallback;
}
const ROUTES = arg('routes', 10_000);
const RUNS = arg('runs', 3);
const ECMP_EVERY = arg('ecmp-every', 4);
const SMALL = 100;
const WAIT_MS = 120_000;
const POLL_MS = 250;
const ROUTER = 'fo-bench-r1';
const MARK = { value: 'fo-bench' };
const SETTINGS = { markKey: 'ovn-bgp-speaker', markValue: MARK.value, outputPort: null, routeTable: '' };

type Step = 'plan' | 'raw' | 'transact' | 'apply' | 'listed' | 'list1' | 'small' | 'clear' | 'cleared';
type Times = Record<Step, number>;

const median = (xs: readonly number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];

/**
 * Polls lr-route-list (250 ms apart, so ovn-nbctl's own full read of NB does not slow the
 * commit) until it lists `n` routes; resolves with the time since `t0`. `stop()` ends it.
 */
function listedAfter(db: string, n: number, t0: number): { done: Promise<number>; stop: () => void } {
  let stopped = false;
  const done = (async () => {
    const end = Date.now() + WAIT_MS;
    while (!stopped) {
      // ovn-nbctl is leader-only: during a RAFT election it fails, and the next poll retries.
      const listed = await lrRouteList(db, ROUTER).catch(() => undefined);
      if (listed?.length === n) return performance.now() - t0;
      if (Date.now() > end) throw new Error(`lr-route-list did not reach ${n} routes in ${WAIT_MS} ms`);
      await sleep(POLL_MS);
    }
    return Number.NaN;
  })();
  done.catch(() => {});
  return {
    done,
    stop: () => {
      stopped = true;
    },
  };
}

/** Planning and encoding alone, no server: what our side costs (routes and schema made beforehand). */
function planOnly(): number {
  const schema = loadSchema(NB_SCHEMA);
  const routes = labRoutes(ROUTES, { ecmpEvery: ECMP_EVERY });
  for (const r of routes) void r.prefix.addr;
  const router = {
    uuid: '00000000-0000-4000-8000-000000000001',
    version: '00000000-0000-4000-8000-000000000002',
    routes: [],
  };
  const t = performance.now();
  const desired = new Map<string, WantedRoute>();
  for (const r of routes) {
    const w = wantedRoute(r).route;
    if (w) desired.set(w.key, w);
  }
  const plan = planRoutes(desired.keys(), desired, () => []);
  JSON.stringify(encodeTransact(schema, planOperations(plan, router, SETTINGS)));
  return performance.now() - t;
}

/**
 * The same transaction (one router, same rows, same ops) on a raw session with no monitor on
 * the server: what ovsdb-server alone takes to commit it. On a cluster, sent to the leader.
 */
async function rawCommit(lab: OvsdbLab, remotes: readonly string[]): Promise<number> {
  let leader = remotes[0];
  for (const r of remotes) {
    const ctl = lab.path(`${r.slice(r.lastIndexOf('/') + 1).replace(/\.sock$/, '')}.ctl`);
    const out = await run('ovs-appctl', ['-t', ctl, 'cluster/status', 'OVN_Northbound']).catch(() => '');
    if (/^Role:\s*leader/m.test(out)) leader = r;
  }
  await nbctl(remotes.join(','), 'lr-add', 'fo-bench-raw');
  const session = await OvsdbSession.open(leader);
  try {
    const schema = await session.getSchema('OVN_Northbound');
    const found = await session.transact(schema, [
      { op: 'select', table: 'Logical_Router', where: [['name', '==', 'fo-bench-raw']], columns: ['_uuid'] },
    ]);
    const first = found.results[0];
    if (first.op !== 'select' || first.rows.length !== 1) throw new Error('fo-bench-raw not found');
    const uuid = first.rows[0]._uuid;
    const desired = new Map<string, WantedRoute>();
    for (const r of labRoutes(ROUTES, { ecmpEvery: ECMP_EVERY })) {
      const w = wantedRoute(r).route;
      if (w) desired.set(w.key, w);
    }
    const plan = planRoutes(desired.keys(), desired, () => []);
    const ops = planOperations(plan, { uuid, version: '', routes: [] }, SETTINGS, 'static-routes');
    const t = performance.now();
    await session.transact(schema, ops);
    return performance.now() - t;
  } finally {
    session.close();
    await nbctl(remotes.join(','), 'lr-del', 'fo-bench-raw');
  }
}

interface Run {
  readonly times: Times;
  /** Attempts that failed and were retried, as the SinkDriver would (a RAFT election, mostly). */
  readonly retries: number;
  readonly load: number;
}

async function oneRun(kind: 'standalone' | 'raft'): Promise<Run> {
  const lab = OvsdbLab.create('fo-bench-');
  let target: OvnNbTarget | undefined;
  const pollers: { stop: () => void }[] = [];
  let retries = 0;
  const retried = async (work: () => Promise<void>) => {
    retries += (await untilApplied(work, WAIT_MS, 200)).length;
  };
  try {
    let db: string;
    let remotes: string[];
    if (kind === 'standalone') {
      const nb = await lab.startServer('nb', await lab.createDb('nb', NB_SCHEMA));
      db = nb.unix;
      remotes = [nb.unix];
    } else {
      const cluster = await lab.startCluster('nb', NB_SCHEMA, 'OVN_Northbound', 3);
      db = cluster.remotes;
      remotes = cluster.members.map((m) => m.unix);
    }
    await nbctl(db, 'init');
    const raw = await rawCommit(lab, kind === 'standalone' ? [db] : remotes);
    await nbctl(db, 'lr-add', ROUTER);
    target = new OvnNbTarget({ remotes, router: ROUTER, mark: MARK });
    const t = target;
    await untilApplied(() => t.reconcile([]), WAIT_MS, 200);
    const routes = labRoutes(ROUTES, { ecmpEvery: ECMP_EVERY });
    const rows = expectedRows(routes).length;
    const load = loadavg()[0];
    const times = { plan: planOnly(), raw } as Times;

    const changes = routes.map((route): FibChange => ({ kind: 'add', route }));
    let t0 = performance.now();
    // Polled from the start: the router is empty until the one transaction commits.
    const listed = listedAfter(db, rows, t0);
    pollers.push(listed);
    await retried(() => t.apply(changes));
    times.apply = performance.now() - t0;
    times.transact = t.status().lastTransactMs ?? Number.NaN;
    times.listed = await listed.done;
    const t1 = performance.now();
    await lrRouteList(db, ROUTER);
    times.list1 = performance.now() - t1;

    // 100 changes on the loaded router: half withdrawals, half a second next hop.
    const small: FibChange[] = routes
      .slice(0, SMALL)
      .map((r, i) =>
        i % 2 === 0
          ? { kind: 'withdraw', prefix: r.prefix }
          : { kind: 'add', route: labRoutes(1, { offset: i, hops: 2 })[0] },
      );
    t0 = performance.now();
    await retried(() => t.apply(small));
    times.small = performance.now() - t0;

    t0 = performance.now();
    const cleared = listedAfter(db, 0, t0);
    pollers.push(cleared);
    await retried(() => t.reconcile([]));
    times.clear = performance.now() - t0;
    times.cleared = await cleared.done;
    return { times, retries, load };
  } finally {
    for (const p of pollers) p.stop();
    await target?.close();
    await lab.close();
  }
}

async function main(): Promise<void> {
  const routes = labRoutes(ROUTES, { ecmpEvery: ECMP_EVERY });
  const rowCount = expectedRows(routes).length;
  const version = (await run('ovsdb-server', ['--version'])).split('\n')[0];
  console.log(`machine: ${machineLine()}`);
  console.log(
    `${version}; ${ROUTES} routes (${rowCount} rows, ECMP on 1 in ${ECMP_EVERY}); ${RUNS} runs each, median (min-max)`,
  );
  const rows: string[][] = [['NB', 'step', 'time', 'rows/s']];
  const notes: string[] = [];
  for (const kind of ['standalone', 'raft'] as const) {
    const runs: Run[] = [];
    for (let i = 0; i < RUNS; i++) runs.push(await oneRun(kind));
    const all = runs.map((r) => r.times);
    notes.push(
      `${kind}: load average ${runs.map((r) => r.load.toFixed(1)).join(', ')}; retried attempts ${runs.map((r) => r.retries).join(', ')}`,
    );
    const row = (step: Step, label: string, n: number) => {
      const xs = all.map((t) => t[step]);
      const m = median(xs);
      const span = `${Math.min(...xs).toFixed(0)}-${Math.max(...xs).toFixed(0)}`;
      rows.push([
        kind === 'raft' ? 'RAFT x3' : 'standalone',
        label,
        `${m.toFixed(0)} ms (${span})`,
        n > 0 ? rate((n / m) * 1000) : '',
      ]);
    };
    row('plan', `plan + encode ${ROUTES} routes (no server)`, rowCount);
    row('raw', 'ovsdb-server alone: same commit, raw session, no monitor', rowCount);
    row('transact', 'transact returned (1 transaction)', rowCount);
    row('apply', 'apply() resolved (replica shows the commit)', rowCount);
    row('listed', `lr-route-list lists all (polled every ${POLL_MS} ms)`, rowCount);
    row('list1', '  one lr-route-list of the full router', 0);
    row('small', `apply ${SMALL} changes on the loaded router`, SMALL);
    row('clear', 'reconcile([]) resolved', rowCount);
    row('cleared', `lr-route-list empty (polled every ${POLL_MS} ms)`, rowCount);
  }
  console.log(`\n${table(rows)}`);
  for (const n of notes) console.log(n);
}

for (const signal of ['SIGINT', 'SIGTERM'] as const) process.once(signal, () => process.exit(130));
// The OVSDB client's timers are unref'd (they never hold a process up): this does while we wait.
const alive = setInterval(() => {}, 1000);
main()
  .catch((err) => {
    console.error(err);
    process.exitCode = 1;
  })
  .finally(() => clearInterval(alive));
