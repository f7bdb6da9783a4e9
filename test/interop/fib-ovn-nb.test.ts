/**
 * OvnNbTarget against a real OVN_Northbound (ovsdb-server 3.1, OVN 23.03 schema): our routes
 * as `ovn-nbctl lr-route-list` shows them (ECMP included), withdrawals, hand-made and another
 * speaker's routes surviving reconcile, a router that appears late; then an ovsdb-server
 * killed and restarted in the middle of a stream of applies, and a 3-member RAFT cluster
 * losing its leader with a transaction out. After each: exactly the wanted rows, none twice.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { FibChange, FibRoute } from '../../src/fib/index.js';
import { OvnNbError, OvnNbTarget } from '../../src/fib/ovn-nb/index.js';
import { route } from '../fib/ovn-nb/support.js';
import {
  duplicates,
  expectedRows,
  labRoutes,
  lrRouteList,
  markedRows,
  untilApplied,
} from '../support/ovn-nb-sink.js';
import {
  type ClusterHandle,
  isAlive,
  NB_SCHEMA,
  nbctl,
  OvsdbLab,
  run,
  type ServerHandle,
  sleep,
  waitFor,
} from '../support/ovsdb-lab.js';

const NB_DB = 'OVN_Northbound';
const KEY = 'ovn-bgp-speaker';
const ME = 'fo-speaker-a';
const OTHER = 'fo-speaker-b';
const ROUTER = 'fo-r1';

const logs: string[] = [];
const logger = {
  debug() {},
  info: (_o: unknown, m?: string) => void logs.push(`info ${m}`),
  warn: (o: unknown, m?: string) => void logs.push(`warn ${m} ${JSON.stringify(o)}`),
  error: (o: unknown, m?: string) => void logs.push(`error ${m} ${JSON.stringify(o)}`),
};

const adds = (routes: readonly FibRoute[]): FibChange[] => routes.map((r) => ({ kind: 'add', route: r }));

/** Our rows must be exactly `want`, each once. A follower (`member`) is given time to catch up. */
async function expectExactly(db: string, want: readonly FibRoute[], member = false): Promise<void> {
  const read = () => markedRows(db, ROUTER, KEY, ME, member);
  if (member)
    await waitFor(
      'the member to catch up',
      async () => (await read()).length === expectedRows(want).length,
      10_000,
    );
  const rows = await read();
  expect(duplicates(rows)).toEqual([]);
  const wanted = expectedRows(want);
  const have = new Set(rows);
  const need = new Set(wanted);
  // The difference first: thousands of rows make a useless diff.
  expect({ missing: wanted.filter((r) => !have.has(r)), extra: rows.filter((r) => !need.has(r)) }).toEqual({
    missing: [],
    extra: [],
  });
  expect(rows).toEqual(wanted);
}

describe('OVN NB sink, standalone ovsdb-server', () => {
  let lab: OvsdbLab;
  let nb: ServerHandle;
  let target: OvnNbTarget;
  let hand: string;
  let other: string;

  beforeAll(async () => {
    lab = OvsdbLab.create('fo-nb-');
    nb = await lab.startServer('nb', await lab.createDb('nb', NB_SCHEMA));
    await nbctl(nb.unix, 'init');
    await nbctl(
      nb.unix,
      'lr-add',
      ROUTER,
      '--',
      'lrp-add',
      ROUTER,
      'lrp-fo',
      '00:00:00:fb:00:01',
      '198.18.0.254/24',
    );
    // A route by hand (no mark) and one of another speaker, on prefixes we will also use.
    await nbctl(nb.unix, 'lr-route-add', ROUTER, '198.18.10.0/24', '198.18.0.9');
    hand = (
      await nbctl(
        nb.unix,
        '--bare',
        '--columns=_uuid',
        'find',
        'Logical_Router_Static_Route',
        'nexthop=198.18.0.9',
      )
    ).trim();
    await nbctl(nb.unix, '--ecmp', 'lr-route-add', ROUTER, '198.18.11.0/24', '198.18.0.8');
    other = (
      await nbctl(
        nb.unix,
        '--bare',
        '--columns=_uuid',
        'find',
        'Logical_Router_Static_Route',
        'nexthop=198.18.0.8',
      )
    ).trim();
    await nbctl(nb.unix, 'set', 'Logical_Router_Static_Route', other, `external_ids:${KEY}=${OTHER}`);
    target = new OvnNbTarget({ remotes: [nb.unix], router: ROUTER, mark: { value: ME } }, { logger });
    target.start();
  });

  afterAll(async () => {
    await target?.close();
    await lab?.close();
  });

  it('applies show in lr-route-list with their next hops, ECMP as one row per hop', async () => {
    await target.reconcile([]);
    await target.apply(
      adds([
        route('198.18.10.0/24', '198.18.0.1', '198.18.0.2'),
        route('198.18.12.7/32', '198.18.0.3'),
        route('2001:db8:10::/48', '2001:db8::1', '2001:db8::2'),
        route('2001:db8:12::7/128', '2001:db8::3'),
      ]),
    );
    const listed = await lrRouteList(nb.unix, ROUTER);
    const line = (p: string, h: string) => listed.find((l) => l.prefix === p && l.nexthop === h);
    expect(line('198.18.10.0/24', '198.18.0.1')).toMatchObject({
      table: '<main>',
      policy: 'dst-ip',
      ecmp: true,
    });
    expect(line('198.18.10.0/24', '198.18.0.2')).toMatchObject({ ecmp: true });
    expect(line('198.18.12.7', '198.18.0.3')).toMatchObject({ ecmp: false });
    expect(line('2001:db8:10::/48', '2001:db8::1')).toMatchObject({ ecmp: true });
    expect(line('2001:db8:10::/48', '2001:db8::2')).toMatchObject({ ecmp: true });
    expect(line('2001:db8:12::7', '2001:db8::3')).toMatchObject({ ecmp: false });
    // The hand-made route on the same prefix joins the ECMP group; it is not ours and stays.
    expect(line('198.18.10.0/24', '198.18.0.9')).toMatchObject({ ecmp: true });
    expect(await markedRows(nb.unix, ROUTER, KEY, ME)).toHaveLength(6);
  });

  it('replaces next hops and withdraws prefixes', async () => {
    await target.apply([
      { kind: 'add', route: route('198.18.10.0/24', '198.18.0.2') },
      { kind: 'withdraw', prefix: route('198.18.12.7/32').prefix },
      { kind: 'add', route: route('2001:db8:10::/48', '2001:db8::2', '2001:db8::4') },
    ]);
    await expectExactly(nb.unix, [
      route('198.18.10.0/24', '198.18.0.2'),
      route('2001:db8:10::/48', '2001:db8::2', '2001:db8::4'),
      route('2001:db8:12::7/128', '2001:db8::3'),
    ]);
    const listed = await lrRouteList(nb.unix, ROUTER);
    expect(listed.some((l) => l.prefix === '198.18.12.7')).toBe(false);
    expect(listed.some((l) => l.prefix === '198.18.10.0/24' && l.nexthop === '198.18.0.1')).toBe(false);
  });

  it("reconcile drops stale rows of ours and keeps the hand-made and the other speaker's", async () => {
    // A stale row of ours and a duplicate, as a crashed earlier run might have left them.
    for (const [p, h] of [
      ['198.18.13.0/24', '198.18.0.1'],
      ['2001:db8:12::7', '2001:db8::3'],
    ])
      await nbctl(
        nb.unix,
        '--',
        '--id=@r',
        'create',
        'Logical_Router_Static_Route',
        `ip_prefix="${p}"`,
        `nexthop="${h}"`,
        `external_ids:${KEY}=${ME}`,
        '--',
        'add',
        'Logical_Router',
        ROUTER,
        'static_routes',
        '@r',
      );
    const want = [
      route('198.18.10.0/24', '198.18.0.2'),
      route('2001:db8:12::7/128', '2001:db8::3'),
      route('198.18.11.0/24', '198.18.0.1'),
    ];
    await target.reconcile(want);
    await expectExactly(nb.unix, want);
    const uuids = (
      await nbctl(nb.unix, '--bare', '--columns=static_routes', 'list', 'Logical_Router', ROUTER)
    )
      .trim()
      .split(/\s+/);
    expect(uuids).toEqual(expect.arrayContaining([hand, other]));
    const listed = await lrRouteList(nb.unix, ROUTER);
    expect(listed.find((l) => l.nexthop === '198.18.0.8')).toMatchObject({
      prefix: '198.18.11.0/24',
      ecmp: true,
    });
    // Nothing of ours: only theirs and the hand-made one remain.
    await target.reconcile([]);
    await expectExactly(nb.unix, []);
    expect((await lrRouteList(nb.unix, ROUTER)).map((l) => l.nexthop).sort()).toEqual([
      '198.18.0.8',
      '198.18.0.9',
    ]);
  });

  it('a router that does not exist yet: a clear error, then success once it appears', async () => {
    const late = new OvnNbTarget({ remotes: [nb.unix], router: 'fo-later', mark: { value: ME } }, { logger });
    try {
      const want = [route('198.18.20.0/24', '198.18.0.1')];
      const err = await late.reconcile(want).then(
        () => undefined,
        (e: unknown) => e,
      );
      expect(err).toBeInstanceOf(OvnNbError);
      expect((err as OvnNbError).kind).toBe('no-router');
      expect((err as Error).message).toContain('no Logical_Router named "fo-later"');
      await nbctl(nb.unix, 'lr-add', 'fo-later');
      await untilApplied(() => late.reconcile(want), 20_000);
      expect((await lrRouteList(nb.unix, 'fo-later')).map((l) => `${l.prefix} ${l.nexthop}`)).toEqual([
        '198.18.20.0/24 198.18.0.1',
      ]);
    } finally {
      await late.close();
    }
  });

  it('ovsdb-server killed and restarted in the middle of a stream of applies: the exact set, no duplicates', async () => {
    await target.reconcile([]);
    const batches = Array.from({ length: 12 }, (_, i) => labRoutes(250, { offset: i * 250, ecmpEvery: 5 }));
    const errors: Error[] = [];
    for (let i = 0; i < batches.length; i++) {
      const applying = untilApplied(() => target.apply(adds(batches[i])), 60_000);
      if (i === 4 || i === 9) {
        // The transaction of this batch is on its way (or just committed): kill the server under it.
        await sleep(i === 4 ? 2 : 15);
        await lab.stop(nb, 'SIGKILL');
        await sleep(300);
        await lab.restart(nb);
      }
      errors.push(...(await applying));
    }
    // Withdraw a third of them too, after all that.
    const gone = batches.flat().filter((_, i) => i % 3 === 0);
    await untilApplied(() => target.apply(gone.map((r) => ({ kind: 'withdraw', prefix: r.prefix }))), 60_000);
    const want = batches.flat().filter((_, i) => i % 3 !== 0);
    await expectExactly(nb.unix, want);
    // Where a kill lands depends on the machine's speed (in a transaction, or between two): the
    // outcome must be the same either way, and any failure the driver saw a typed one.
    expect(errors.every((e) => e instanceof OvnNbError)).toBe(true);
    expect(target.status()).toMatchObject({
      connected: true,
      routes: want.length,
      rows: expectedRows(want).length,
    });
    // The hand-made and the other speaker's routes lived through it all.
    const listed = await lrRouteList(nb.unix, ROUTER);
    expect(listed.map((l) => l.nexthop)).toEqual(expect.arrayContaining(['198.18.0.8', '198.18.0.9']));
    // Our mark on another router is not this target's to manage: every reconcile left it.
    expect((await lrRouteList(nb.unix, 'fo-later')).map((l) => `${l.prefix} ${l.nexthop}`)).toEqual([
      '198.18.20.0/24 198.18.0.1',
    ]);
  });
});

describe('OVN NB sink, 3-member RAFT cluster', () => {
  let lab: OvsdbLab;
  let cluster: ClusterHandle;
  let target: OvnNbTarget;
  const first = labRoutes(500, { ecmpEvery: 4 });
  const more = labRoutes(2000, { offset: 500, ecmpEvery: 4 });

  const alive = () => cluster.members.filter((m) => isAlive(m.pid));
  const db = () =>
    alive()
      .map((m) => m.tcp)
      .join(',');
  const inUse = () => cluster.members.find((m) => m.tcp === target.status().remote) as ServerHandle;
  /** Restarts the members that are down and waits until each is back in the cluster. */
  const rejoin = async () => {
    for (const m of cluster.members.filter((x) => !isAlive(x.pid))) {
      await lab.restart(m);
      await run('ovsdb-client', ['wait', m.unix, NB_DB, 'connected'], 30_000);
    }
  };

  beforeAll(async () => {
    lab = OvsdbLab.create('fo-raft-');
    cluster = await lab.startCluster('nb', NB_SCHEMA, NB_DB, 3);
    await nbctl(cluster.remotes, 'init');
    await nbctl(cluster.remotes, 'lr-add', ROUTER);
    await nbctl(cluster.remotes, 'lr-route-add', ROUTER, '198.18.10.0/24', '198.18.0.9');
    target = new OvnNbTarget(
      { remotes: cluster.members.map((m) => m.tcp as string), router: ROUTER, mark: { value: ME } },
      { logger },
    );
    target.start();
    await untilApplied(() => target.reconcile(first), 30_000);
  });

  afterAll(async () => {
    await target?.close();
    await lab?.close();
  });

  it('the leader killed with a transaction out: the new leader holds the exact set, no duplicates', async () => {
    await expectExactly(db(), first);
    const leader = inUse();
    expect(await lab.clusterRole(leader, NB_DB)).toBe('leader');
    const applying = untilApplied(() => target.apply(adds(more)), 60_000);
    await sleep(5);
    await lab.stop(leader, 'SIGKILL');
    const errors = await applying;
    const want = [...first, ...more];
    await expectExactly(db(), want);
    expect(errors.every((e) => e instanceof OvnNbError)).toBe(true);
    expect(inUse()).not.toBe(leader);
    expect(await lab.clusterRole(inUse(), NB_DB)).toBe('leader');
    expect(target.status()).toMatchObject({ connected: true, rows: expectedRows(want).length });
    // The hand-made route is still there.
    expect((await lrRouteList(db(), ROUTER)).some((l) => l.nexthop === '198.18.0.9')).toBe(true);
    // The killed member comes back as a follower, with the same rows.
    await rejoin();
    await expectExactly(leader.unix, want, true);
  });

  it('a leadership transfer (SIGTERM) under a stream of withdrawals', async () => {
    const leader = inUse();
    const all = [...first, ...more];
    const gone = all.filter((_, i) => i % 2 === 0);
    const chunks = Array.from({ length: 5 }, (_, i) => gone.slice(i * 250, (i + 1) * 250));
    for (let i = 0; i < chunks.length; i++) {
      const applying = untilApplied(
        () => target.apply(chunks[i].map((r) => ({ kind: 'withdraw', prefix: r.prefix }))),
        60_000,
      );
      if (i === 2) await lab.stop(leader, 'SIGTERM');
      await applying;
    }
    const want = all.filter((_, i) => i % 2 !== 0);
    await expectExactly(db(), want);
    expect(inUse()).not.toBe(leader);
    await rejoin();
    // A reconcile through the new leader finds nothing to change.
    const before = target.status().transactions;
    await target.reconcile(want);
    expect(target.status().transactions).toBe(before);
    await expectExactly(leader.unix, want, true);
  });
});
