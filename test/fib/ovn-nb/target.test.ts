/*
 * OvnNbTarget over an NB in memory: what lands on the router, what is never touched, and the
 * failures: a missing router, a session lost before or after the commit, notifications late,
 * the server re-running a committed transaction. The rows must always end exactly as wanted.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { OvnNbError, OvnNbTarget, type OvnNbTargetInit } from '../../../src/fib/ovn-nb/index.js';
import type { Operation } from '../../../src/ovsdb/index.js';
import { FakeNb } from './fake-nb.js';
import { add, MARK_KEY, ME, ours, route, shown, theirs, withdraw } from './support.js';

const ROUTER = 'fo-r1';
const open: OvnNbTarget[] = [];

function setup(init: Partial<OvnNbTargetInit> = {}, logs: string[] = []) {
  const nb = new FakeNb();
  const routerUuid = nb.addRouter(ROUTER);
  const log = (level: string) => (_o: unknown, m?: string) => void logs.push(`${level} ${m}`);
  const target = new OvnNbTarget(
    { client: nb, router: ROUTER, mark: { value: ME }, readyTimeoutMs: 200, settleTimeoutMs: 200, ...init },
    { logger: { debug: () => {}, info: log('info'), warn: log('warn'), error: log('error') } },
  );
  open.push(target);
  const mine = () =>
    nb.routesOf(routerUuid).filter((r) => (r.external_ids as Map<string, string>).get(MARK_KEY) === ME);
  return { nb, target, routerUuid, mine, all: () => nb.routesOf(routerUuid) };
}

async function rejection(p: Promise<unknown>): Promise<OvnNbError> {
  const err = await p.then(
    () => undefined,
    (e: unknown) => e,
  );
  expect(err).toBeInstanceOf(OvnNbError);
  return err as OvnNbError;
}

/** The wait op that opened the last transaction sent. */
function precondition(nb: FakeNb): Extract<Operation, { op: 'wait' }> {
  const op = nb.sent.at(-1)![0];
  if (op.op !== 'wait') throw new Error(`first op is ${op.op}`);
  return op;
}

async function until(what: string, check: () => boolean, ms = 2000): Promise<void> {
  const end = Date.now() + ms;
  while (!check()) {
    if (Date.now() > end) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 5));
  }
}

afterEach(async () => {
  for (const t of open.splice(0)) await t.close();
});

describe('OvnNbTarget: rows on the router', () => {
  it('adds, replaces and withdraws, one transaction per apply, ECMP as one row per next hop', async () => {
    const { nb, target, mine } = setup();
    await target.apply([
      add('198.18.1.0/24', '198.18.0.1', '198.18.0.2'),
      add('198.18.2.7/32', '198.18.0.1'),
      add('2001:db8:1::/48', '2001:db8::1'),
    ]);
    expect(nb.transactions).toBe(1);
    expect(shown(mine())).toEqual([
      '198.18.1.0/24 via 198.18.0.1',
      '198.18.1.0/24 via 198.18.0.2',
      '198.18.2.7 via 198.18.0.1',
      '2001:db8:1::/48 via 2001:db8::1',
    ]);
    const kept = mine().find((r) => r.nexthop === '198.18.0.2' && r.ip_prefix === '198.18.1.0/24')!._uuid;
    await target.apply([add('198.18.1.0/24', '198.18.0.2', '198.18.0.3'), withdraw('198.18.2.7/32')]);
    expect(nb.transactions).toBe(2);
    expect(shown(mine())).toEqual([
      '198.18.1.0/24 via 198.18.0.2',
      '198.18.1.0/24 via 198.18.0.3',
      '2001:db8:1::/48 via 2001:db8::1',
    ]);
    expect(mine().some((r) => r._uuid === kept)).toBe(true); // the unchanged next hop's row stayed
    // Nothing to change: no transaction at all.
    await target.apply([add('198.18.1.0/24', '198.18.0.3', '198.18.0.2'), withdraw('198.18.9.0/24')]);
    expect(nb.transactions).toBe(2);
    expect(target.status()).toMatchObject({
      connected: true,
      routes: 2,
      rows: 3,
      transactions: 2,
      router: ROUTER,
    });
  });

  it("reconcile leaves hand-made rows and another speaker's rows alone", async () => {
    const { nb, target, routerUuid, mine, all } = setup();
    const hand = nb.addRoute(routerUuid, { ip_prefix: '198.18.1.0/24', nexthop: '198.18.0.9' });
    const other = nb.addRoute(routerUuid, {
      ip_prefix: '198.18.1.0/24',
      nexthop: '198.18.0.8',
      external_ids: theirs,
    });
    nb.addRoute(routerUuid, { ip_prefix: '198.18.3.0/24', nexthop: '198.18.0.1', external_ids: ours });
    nb.addRoute(routerUuid, { ip_prefix: '198.18.1.0/24', nexthop: '198.18.0.1', external_ids: ours });
    nb.addRoute(routerUuid, { ip_prefix: '198.18.1.0/24', nexthop: '198.18.0.1', external_ids: ours });
    await target.reconcile([route('198.18.1.0/24', '198.18.0.1'), route('2001:db8:1::/48', '2001:db8::1')]);
    expect(shown(mine())).toEqual(['198.18.1.0/24 via 198.18.0.1', '2001:db8:1::/48 via 2001:db8::1']);
    expect(all().map((r) => r._uuid)).toEqual(expect.arrayContaining([hand, other]));
    await target.reconcile([]);
    expect(mine()).toEqual([]);
    expect(
      all()
        .map((r) => r._uuid)
        .sort(),
    ).toEqual([hand, other].sort());
  });

  it('writes output_port and route_table, and replaces rows written with other settings', async () => {
    const { nb, target, routerUuid, mine } = setup({ outputPort: 'lrp-fo', routeTable: 'rtb-fo' });
    nb.addRoute(routerUuid, { ip_prefix: '198.18.1.0/24', nexthop: '198.18.0.1', external_ids: ours });
    await target.reconcile([route('198.18.1.0/24', '198.18.0.1')]);
    expect(mine()).toEqual([
      expect.objectContaining({ ip_prefix: '198.18.1.0/24', output_port: 'lrp-fo', route_table: 'rtb-fo' }),
    ]);
  });

  it('keeps next hops it cannot write out of NB and lists them in status', async () => {
    const { target, mine } = setup();
    await target.apply([
      add('198.18.1.0/24', '198.18.0.1', '2001:db8::1'),
      add('198.18.2.0/24', '2001:db8::2'),
    ]);
    expect(shown(mine())).toEqual(['198.18.1.0/24 via 198.18.0.1']);
    expect(
      target
        .status()
        .skipped.map((s) => s.prefix)
        .sort(),
    ).toEqual(['198.18.1.0/24', '198.18.2.0/24']);
    await target.apply([add('198.18.2.0/24', '198.18.0.2')]);
    expect(target.status().skipped.map((s) => s.prefix)).toEqual(['198.18.1.0/24']);
  });
});

describe('OvnNbTarget: the router', () => {
  it('fails clearly while the router is missing, and installs on its own once it appears', async () => {
    const logs: string[] = [];
    const { nb, target, routerUuid } = setup({}, logs);
    nb.deleteRouter(routerUuid);
    const err = await rejection(target.reconcile([route('198.18.1.0/24', '198.18.0.1')]));
    expect(err.kind).toBe('no-router');
    expect(err.message).toContain(`no Logical_Router named "${ROUTER}"`);
    expect(target.status().lastError).toContain('no-router');
    const again = nb.addRouter(ROUTER);
    await until('the repair', () => nb.routesOf(again).length === 1);
    expect(shown(nb.routesOf(again))).toEqual(['198.18.1.0/24 via 198.18.0.1']);
    expect(logs).toContain('info ovn-nb: the logical router appeared');
    // The driver's retry then finds nothing to do.
    const before = nb.transactions;
    await target.reconcile([route('198.18.1.0/24', '198.18.0.1')]);
    expect(nb.transactions).toBe(before);
  });

  it('refuses to pick one of two routers of the same name', async () => {
    const { nb, target } = setup();
    nb.addRouter(ROUTER);
    expect((await rejection(target.apply([add('198.18.1.0/24', '198.18.0.1')]))).kind).toBe(
      'ambiguous-router',
    );
    expect(nb.transactions).toBe(0);
  });

  it('re-plans when the router changed under it (precondition failed), never duplicating', async () => {
    const { nb, target, routerUuid, mine } = setup();
    await target.apply([add('198.18.1.0/24', '198.18.0.1')]);
    // A change the replica has not seen yet: our next plan is made against a stale router.
    nb.lag = true;
    nb.addRoute(routerUuid, { ip_prefix: '198.18.5.0/24', nexthop: '198.18.0.5' });
    const flusher = setInterval(() => nb.flush(), 20);
    try {
      await target.apply([add('198.18.2.0/24', '198.18.0.1')]);
    } finally {
      clearInterval(flusher);
    }
    expect(target.status().conflicts).toBeGreaterThanOrEqual(1);
    expect(shown(mine())).toEqual(['198.18.1.0/24 via 198.18.0.1', '198.18.2.0/24 via 198.18.0.1']);
  });
});

describe('OvnNbTarget: a replica slower than the settle bound', () => {
  it('a row committed but not yet shown is withdrawn once the replica shows it', async () => {
    const { nb, target, mine } = setup({ settleTimeoutMs: 20 });
    nb.lag = true;
    await target.apply([add('198.18.2.7/32', '198.18.0.3')]);
    // The replica still lacks the row: this withdrawal finds nothing of ours to delete.
    await target.apply([withdraw('198.18.2.7/32')]);
    expect(shown(mine())).toEqual(['198.18.2.7 via 198.18.0.3']);
    nb.lag = false;
    nb.flush();
    await until('the withdrawal planned again', () => mine().length === 0);
  });

  it('a row withdrawn but still shown is not added twice when wanted again', async () => {
    const { nb, target, mine } = setup({ settleTimeoutMs: 20 });
    await target.apply([add('198.18.2.7/32', '198.18.0.3')]);
    nb.lag = true;
    await target.apply([withdraw('198.18.2.7/32')]);
    await target.apply([add('198.18.2.7/32', '198.18.0.3')]);
    nb.lag = false;
    nb.flush();
    await until('the replica settled', () => target.status().connected && mine().length === 1);
    await new Promise((r) => setTimeout(r, 50));
    expect(shown(mine())).toEqual(['198.18.2.7 via 198.18.0.3']);
  });
});

describe('OvnNbTarget: lost sessions', () => {
  it('a commit whose reply was lost is read back after the reconnect, never sent again', async () => {
    const logs: string[] = [];
    const { nb, target, mine } = setup({}, logs);
    await target.reconcile([]);
    nb.nextFault = 'lose-after-commit';
    const err = await rejection(target.apply([add('198.18.1.0/24', '198.18.0.1', '198.18.0.2')]));
    expect(err.kind).toBe('outcome-unknown');
    expect(target.status().unknownOutcomes).toBe(1);
    const sent = nb.sent.length;
    nb.reconnect();
    // The target reconciles on its own after the reconnect, and finds the rows there.
    await until('the repair', () => target.status().repairs === 1);
    await target.apply([add('198.18.1.0/24', '198.18.0.1', '198.18.0.2')]); // the driver's retry
    expect(nb.sent.length).toBe(sent);
    expect(shown(mine())).toEqual(['198.18.1.0/24 via 198.18.0.1', '198.18.1.0/24 via 198.18.0.2']);
    expect(logs).toContain('info ovn-nb: NB session back; reconciling our rows against the fresh replica');
  });

  it('a transaction lost before it committed is planned again and lands once', async () => {
    const { nb, target, mine } = setup();
    nb.nextFault = 'lose-before-commit';
    expect((await rejection(target.apply([add('198.18.1.0/24', '198.18.0.1')]))).kind).toBe(
      'outcome-unknown',
    );
    expect(mine()).toEqual([]);
    expect((await rejection(target.apply([add('198.18.1.0/24', '198.18.0.1')]))).kind).toBe('not-connected');
    nb.reconnect();
    await target.apply([add('198.18.1.0/24', '198.18.0.1')]);
    expect(shown(mine())).toEqual(['198.18.1.0/24 via 198.18.0.1']);
  });

  it('the server re-running a committed transaction fails its precondition instead of duplicating', async () => {
    const { nb, target, mine } = setup();
    nb.nextFault = 'rerun-after-commit';
    await target.apply([add('198.18.1.0/24', '198.18.0.1', '198.18.0.2')]);
    expect(target.status().conflicts).toBe(1);
    expect(shown(mine())).toEqual(['198.18.1.0/24 via 198.18.0.1', '198.18.1.0/24 via 198.18.0.2']);
  });

  it("after a failover that resumed, checks the router by its routes, not by the old member's _version", async () => {
    const { nb, target, routerUuid, mine } = setup();
    await target.reconcile([route('198.18.1.0/24', '198.18.0.1')]);
    nb.failover();
    await target.apply([add('198.18.2.0/24', '198.18.0.2')]);
    const first = precondition(nb);
    expect(first.columns).toEqual(['static_routes']);
    expect(first.rows[0].static_routes).toHaveLength(1);
    // That commit brought this member's _version: the cheap check is back.
    await target.apply([add('198.18.3.0/24', '198.18.0.3')]);
    expect(precondition(nb).columns).toEqual(['_version']);
    expect(target.status().conflicts).toBe(0);
    expect(shown(mine())).toEqual([
      '198.18.1.0/24 via 198.18.0.1',
      '198.18.2.0/24 via 198.18.0.2',
      '198.18.3.0/24 via 198.18.0.3',
    ]);
    // A change missed during the failover arrives in the resume, with the new member's _version.
    nb.failover(() => void nb.addRoute(routerUuid, { ip_prefix: '198.18.9.0/24', nexthop: '198.18.0.9' }));
    await target.apply([withdraw('198.18.3.0/24')]);
    expect(precondition(nb).columns).toEqual(['_version']);
    expect(target.status().conflicts).toBe(0);
  });

  it('after a reconnect, puts back rows of ours deleted while it was away, and drops stale ones', async () => {
    const { nb, target, routerUuid, mine } = setup();
    await target.reconcile([route('198.18.1.0/24', '198.18.0.1'), route('198.18.2.0/24', '198.18.0.2')]);
    nb.disconnect();
    nb.removeRoute(mine().find((r) => r.ip_prefix === '198.18.1.0/24')!._uuid);
    nb.addRoute(routerUuid, { ip_prefix: '198.18.3.0/24', nexthop: '198.18.0.3', external_ids: ours });
    nb.reconnect();
    await until('the repair', () => target.status().repairs === 1);
    expect(shown(mine())).toEqual(['198.18.1.0/24 via 198.18.0.1', '198.18.2.0/24 via 198.18.0.2']);
  });

  it('before any reconcile it never deletes on its own (it does not know the whole set yet)', async () => {
    const { nb, target, routerUuid, mine } = setup();
    const prior = nb.addRoute(routerUuid, {
      ip_prefix: '198.18.3.0/24',
      nexthop: '198.18.0.3',
      external_ids: ours,
    });
    await target.apply([add('198.18.1.0/24', '198.18.0.1')]);
    nb.disconnect();
    nb.reconnect();
    await new Promise((r) => setTimeout(r, 30));
    expect(target.status().repairs).toBe(0);
    expect(mine().map((r) => r._uuid)).toContain(prior);
  });

  it('waits a bounded time for a session, then fails with not-connected', async () => {
    const { nb, target } = setup({ readyTimeoutMs: 30 });
    nb.disconnect();
    const err = await rejection(target.apply([add('198.18.1.0/24', '198.18.0.1')]));
    expect(err.kind).toBe('not-connected');
    expect(err.message).toContain('not synced within 30 ms');
    expect(target.status()).toMatchObject({ connected: false, routes: 1 });
  });

  it('is closed for good after close()', async () => {
    const { target } = setup();
    await target.close();
    expect((await rejection(target.apply([add('198.18.1.0/24', '198.18.0.1')]))).kind).toBe('closed');
  });
});
