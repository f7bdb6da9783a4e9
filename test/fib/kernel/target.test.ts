import { describe, expect, it } from 'vitest';
import { AF } from '../../../src/bgp/transport/index.js';
import { Afi } from '../../../src/bgp/wire/index.js';
import {
  KernelError,
  type KernelRoute,
  KernelTarget,
  type KernelTargetInit,
  NlmFlag,
  NlmsgType,
  Rta,
} from '../../../src/fib/kernel/index.js';
import type { FibChange, FibRoute } from '../../../src/fib/route.js';
import { parsePrefix } from '../../../src/rib/index.js';
import { FakeClock } from '../../components/fake-clock.js';
import { FakeKernel } from './fake-kernel.js';

function route(prefix: string, ...hops: string[]): FibRoute {
  return {
    prefix: parsePrefix(prefix),
    nextHops: hops.map((address) => ({ address, afi: address.includes(':') ? Afi.IPV6 : Afi.IPV4 })),
  };
}
const add = (r: FibRoute): FibChange => ({ kind: 'add', route: r });
const withdraw = (p: string): FibChange => ({ kind: 'withdraw', prefix: parsePrefix(p) });

function foreign(prefix: string, protocol: number, priority = 20, gateway = '198.18.40.9'): KernelRoute {
  return {
    prefix: parsePrefix(prefix),
    table: 254,
    protocol,
    scope: 0,
    type: 1,
    flags: 0,
    priority,
    nexthops: [{ gateway, ifindex: 3, weight: 1, flags: 0 }],
  };
}

/**
 * An RTM_NEWROUTE from someone else in `table` whose RTA_MULTIPATH holds an rtnexthop of length
 * 2 (malformed); with `rtaTable` the table goes in RTA_TABLE and rtm_table says RT_TABLE_UNSPEC.
 */
function brokenMultipathRoute(table: number, rtaTable = false): Uint8Array {
  const tableAttr = rtaTable ? 8 : 0;
  const len = 16 + 12 + tableAttr + 12;
  const b = new Uint8Array(len);
  const d = new DataView(b.buffer);
  d.setUint32(0, len, true);
  d.setUint16(4, NlmsgType.NEWROUTE, true);
  d.setUint32(12, 4242, true); // nlmsg_pid: not ours
  b.set([AF.INET, 24, 0, 0, rtaTable ? 0 : table, 4, 0, 1], 16);
  if (rtaTable) {
    d.setUint16(28, 8, true);
    d.setUint16(30, Rta.TABLE, true);
    d.setUint32(32, table, true);
  }
  const mp = 28 + tableAttr;
  d.setUint16(mp, 12, true);
  d.setUint16(mp + 2, Rta.MULTIPATH, true);
  d.setUint16(mp + 4, 2, true); // rtnh_len 2: shorter than an rtnexthop
  return b;
}

interface Setup {
  kernel: FakeKernel;
  target: KernelTarget;
  warnings: { obj: object | string; msg?: string }[];
  clock: FakeClock;
  /** Moves the clock in small steps until `probe` holds (2 s of the clock at most). */
  until: (what: string, probe: () => boolean) => Promise<void>;
}

function setup(init: Partial<KernelTargetInit> = {}, kernel = new FakeKernel()): Setup {
  const warnings: Setup['warnings'] = [];
  const clock = new FakeClock();
  const nothing = () => {};
  const target = new KernelTarget(
    {
      table: 254,
      metric: 20,
      protocol: 186,
      onStop: 'flush',
      repairDelayMs: 1,
      verifyIntervalMs: 1,
      ...init,
    },
    {
      logger: {
        debug: nothing,
        info: nothing,
        error: nothing,
        warn: (obj, msg) => warnings.push({ obj, msg }),
      },
      openSocket: kernel.factory,
      clock,
    },
  );
  target.start();
  const until = async (what: string, probe: () => boolean) => {
    for (let i = 0; i < 400; i++) {
      if (probe()) return;
      await clock.advance(5);
    }
    throw new Error(`timed out waiting for ${what}`);
  };
  return { kernel, target, warnings, clock, until };
}

/**
 * 20,000 routes and a write window wide enough to take them all at once: whatever spreads the
 * writes over turns is the target's own slicing. `routeWrites` counts the writes of routes.
 */
function wideWindow() {
  const kernel = new FakeKernel();
  kernel.recvBuffer = 1 << 30;
  const { target } = setup({ batch: 4096, maxInFlight: 1 << 20 }, kernel);
  const routes = Array.from({ length: 20_000 }, (_, i) =>
    route(`198.19.${i >> 8}.${i & 255}/32`, '198.18.40.2'),
  );
  const routeWrites = () => kernel.writes.filter((w) => w.messages > 1).length;
  return { kernel, target, routes, routeWrites };
}

/** What `probe` said at each turn of the event loop while `work` ran: what a timer would see. */
async function everyTurn(probe: () => number, work: () => Promise<void>): Promise<number[]> {
  const seen: number[] = [];
  let done = false;
  const tick = () => {
    seen.push(probe());
    if (!done) setImmediate(tick);
  };
  setImmediate(tick);
  await work();
  done = true;
  return seen;
}

describe('apply', () => {
  it('installs IPv4, IPv6, ECMP and IPv4-over-IPv6 routes, each next hop on its connected device', async () => {
    const { kernel, target } = setup();
    await target.apply([
      add(route('198.19.1.0/24', '198.18.40.2')),
      add(route('198.19.2.0/24', '198.18.40.2', '198.18.40.3')),
      add(route('198.19.3.0/24', '2001:db8:40::2')),
      add(route('2001:db8:100::/48', '2001:db8:40::2', '2001:db8:40::3')),
    ]);
    expect(kernel.show()).toEqual([
      '198.19.1.0/24 metric 20 via 198.18.40.2@3',
      '198.19.2.0/24 metric 20 via 198.18.40.2@3,198.18.40.3@3',
      '198.19.3.0/24 metric 20 via 2001:db8:40::2@3',
      '2001:db8:100::/48 metric 20 via 2001:db8:40::2@3,2001:db8:40::3@3',
    ]);
    expect(target.status()).toMatchObject({ routes: 4, problems: { failed: 0, conflict: 0, displaced: 0 } });
  });

  it('sends `batch` routes per write and asks for an ACK only on the last of each', async () => {
    const { kernel, target } = setup({ batch: 2 });
    kernel.writes.length = 0;
    await target.apply(['1', '2', '3', '4', '5'].map((i) => add(route(`198.19.${i}.0/24`, '198.18.40.2'))));
    expect(
      kernel.writes.filter((w) => w.messages > 1 || w.acked === 1).map((w) => [w.messages, w.acked]),
    ).toEqual([
      [2, 1],
      [2, 1],
      [1, 1],
    ]);
  });

  it('writes a big batch a slice per turn, so timers run while it goes in', async () => {
    const { kernel, target, routes, routeWrites } = wideWindow();
    await target.apply([]); // the first apply's dump of what is ours, out of the way
    const seen = await everyTurn(routeWrites, () => target.apply(routes.map(add)));
    expect(routeWrites()).toBe(5); // 8192, 8192 and 3616: two writes, two, one
    expect(seen.some((n) => n > 0 && n < 5)).toBe(true);
    expect(kernel.show()).toHaveLength(20_000);
  });

  it('replaces on a next-hop change, skips an add that changes nothing, deletes on withdraw', async () => {
    const { kernel, target } = setup();
    await target.apply([add(route('198.19.1.0/24', '198.18.40.2'))]);
    await target.apply([add(route('198.19.1.0/24', '198.18.40.3'))]);
    expect(kernel.show()).toEqual(['198.19.1.0/24 metric 20 via 198.18.40.3@3']);
    const before = kernel.writes.length;
    await target.apply([add(route('198.19.1.0/24', '198.18.40.3'))]);
    expect(kernel.writes.length).toBe(before);
    await target.apply([withdraw('198.19.1.0/24')]);
    expect(kernel.show()).toEqual([]);
  });

  it('a route whose next hop does not resolve is recorded and logged once per cause, not thrown', async () => {
    const { target, warnings } = setup();
    await target.apply([
      add(route('198.19.1.0/24', '198.18.77.1')),
      add(route('198.19.2.0/24', '198.18.77.2')),
    ]);
    expect(target.status().problems.failed).toBe(2);
    expect(target.problemOf(parsePrefix('198.19.2.0/24'))?.reason).toMatch(
      /no route to 198.18.77.2: ENETUNREACH/,
    );
    expect(warnings.filter((w) => String(w.msg).includes('not installed'))).toHaveLength(1);
  });

  it('ECMP with one unresolvable next hop installs over the others', async () => {
    const { kernel, target } = setup();
    await target.apply([add(route('198.19.1.0/24', '198.18.77.1', '198.18.40.2'))]);
    expect(kernel.show()).toEqual(['198.19.1.0/24 metric 20 via 198.18.40.2@3']);
  });

  it('never overwrites another protocol at the same prefix and metric: EEXIST is a conflict', async () => {
    const { kernel, target } = setup();
    kernel.externalAdd(foreign('198.19.1.0/24', 4));
    await target.apply([add(route('198.19.1.0/24', '198.18.40.2'))]);
    expect(kernel.show(254, 4)).toEqual(['198.19.1.0/24 metric 20 via 198.18.40.9@3']);
    expect(target.problemOf(parsePrefix('198.19.1.0/24'))).toMatchObject({ problem: 'conflict' });
  });

  it('the first apply adopts routes of ours a previous run kept (a replace, not EEXIST)', async () => {
    const kernel = new FakeKernel();
    kernel.externalAdd(foreign('198.19.1.0/24', 186, 20, '198.18.40.2'));
    const { target } = setup({}, kernel);
    await target.apply([add(route('198.19.1.0/24', '198.18.40.3'))]);
    expect(kernel.show()).toEqual(['198.19.1.0/24 metric 20 via 198.18.40.3@3']);
    expect(target.status().problems.conflict).toBe(0);
  });

  it('held() names the families of our routes a previous run left, for the F bit; others are not ours', async () => {
    const kernel = new FakeKernel();
    kernel.externalAdd(foreign('198.19.1.0/24', 186, 20, '198.18.40.2'));
    kernel.externalAdd(foreign('198.19.2.0/24', 4));
    const { target } = setup({}, kernel);
    expect(await target.held()).toEqual([Afi.IPV4]);
    // Asking writes nothing: what the last run installed keeps forwarding.
    expect(kernel.show()).toEqual(['198.19.1.0/24 metric 20 via 198.18.40.2@3']);
    expect(kernel.show(254, 4)).toEqual(['198.19.2.0/24 metric 20 via 198.18.40.9@3']);
    expect(await setup({}, new FakeKernel()).target.held()).toEqual([]);
  });

  it('a recursive next hop is installed via the gateway of the route that covers it', async () => {
    const kernel = new FakeKernel();
    kernel.lookupRoutes.push({ prefix: '198.18.99.0/24', gateway: '198.18.40.3', ifindex: 3, protocol: 188 });
    const { target } = setup({}, kernel);
    await target.apply([add(route('198.19.1.0/24', '198.18.99.1'))]);
    expect(kernel.show()).toEqual(['198.19.1.0/24 metric 20 via 198.18.40.3@3']);
    expect(target.status().nextHops).toContainEqual({
      address: '198.18.99.1',
      resolution: 'recursive',
      detail: '198.18.99.0/24: 198.18.40.3@3*1',
    });
  });

  it('does not resolve through a route of ours or the default route', async () => {
    const kernel = new FakeKernel();
    kernel.lookupRoutes.push({ prefix: '198.18.99.0/24', gateway: '198.18.40.3', ifindex: 3, protocol: 186 });
    kernel.lookupRoutes.push({ prefix: '0.0.0.0/0', gateway: '198.18.40.3', ifindex: 3 });
    const { target } = setup({}, kernel);
    await target.apply([
      add(route('198.19.1.0/24', '198.18.99.1')),
      add(route('198.19.2.0/24', '198.18.98.1')),
    ]);
    expect(target.problemOf(parsePrefix('198.19.1.0/24'))?.reason).toMatch(/only through our own route/);
    expect(target.problemOf(parsePrefix('198.19.2.0/24'))?.reason).toMatch(/only through the default route/);
  });

  it('rejects with timeout when the kernel does not answer, and with closed after close()', async () => {
    const { kernel, target, clock } = setup({ requestTimeoutMs: 20 });
    await target.reconcile([]);
    kernel.silent = true;
    const outcome = expect(target.apply([add(route('198.19.1.0/24', '198.18.40.2'))])).rejects.toMatchObject({
      kind: 'timeout',
    });
    await clock.advance(20);
    await outcome;
    kernel.silent = false;
    await target.close();
    await expect(target.apply([])).rejects.toBeInstanceOf(KernelError);
  });
});

describe('reconcile', () => {
  it('plans and writes a big table over many turns, so timers run while it goes in', async () => {
    const { kernel, target, routes, routeWrites } = wideWindow();
    const seen = await everyTurn(routeWrites, () => target.reconcile(routes));
    expect(routeWrites()).toBe(5);
    expect(seen.some((n) => n > 0 && n < 5)).toBe(true);
    expect(kernel.show()).toHaveLength(20_000);
  });

  it('adds missing, replaces different, deletes stale ours; static and other protocols untouched', async () => {
    const kernel = new FakeKernel();
    kernel.externalAdd(foreign('198.19.9.0/24', 4)); // static
    kernel.externalAdd(foreign('198.19.8.0/24', 188)); // ospf
    kernel.externalAdd(foreign('198.19.2.0/24', 186, 20, '198.18.40.2')); // ours, to replace
    kernel.externalAdd(foreign('198.19.3.0/24', 186, 20, '198.18.40.2')); // ours, stale
    kernel.externalAdd(foreign('198.19.4.0/24', 186, 30, '198.18.40.2')); // ours at an old metric
    const { target } = setup({}, kernel);
    await target.reconcile([
      route('198.19.1.0/24', '198.18.40.2'),
      route('198.19.2.0/24', '198.18.40.3'),
      route('198.19.4.0/24', '198.18.40.2'),
    ]);
    expect(kernel.show()).toEqual([
      '198.19.1.0/24 metric 20 via 198.18.40.2@3',
      '198.19.2.0/24 metric 20 via 198.18.40.3@3',
      '198.19.4.0/24 metric 20 via 198.18.40.2@3',
    ]);
    expect(kernel.show(254, 4)).toEqual(['198.19.9.0/24 metric 20 via 198.18.40.9@3']);
    expect(kernel.show(254, 188)).toEqual(['198.19.8.0/24 metric 20 via 198.18.40.9@3']);
  });

  it('re-resolves next hops: a recursive next hop follows the IGP route that moved', async () => {
    const kernel = new FakeKernel();
    kernel.lookupRoutes.push({ prefix: '198.18.99.0/24', gateway: '198.18.40.3', ifindex: 3, protocol: 188 });
    const { target } = setup({}, kernel);
    const r = route('198.19.1.0/24', '198.18.99.1');
    await target.reconcile([r]);
    kernel.lookupRoutes[kernel.lookupRoutes.length - 1] = {
      prefix: '198.18.99.0/24',
      gateway: '198.18.40.4',
      ifindex: 3,
    };
    await target.apply([add(r)]);
    expect(kernel.show()).toEqual(['198.19.1.0/24 metric 20 via 198.18.40.3@3']);
    await target.reconcile([r]);
    expect(kernel.show()).toEqual(['198.19.1.0/24 metric 20 via 198.18.40.4@3']);
  });

  it('metric 0 on IPv6 compares as the 1024 the kernel stores: no churn on the next reconcile', async () => {
    const { kernel, target } = setup({ metric: 0 });
    const r = route('2001:db8:100::/48', '2001:db8:40::2');
    await target.reconcile([r]);
    const before = kernel.routeRequests;
    await target.reconcile([r]);
    expect(kernel.routeRequests).toBe(before);
    expect(kernel.show(254, 186)).toEqual(['2001:db8:100::/48 metric 1024 via 2001:db8:40::2@3']);
  });
});

describe('the monitor puts back what others take', () => {
  it('a route of ours deleted by someone else comes back; logged once', async () => {
    const { kernel, target, warnings, until } = setup();
    await target.reconcile([route('198.19.1.0/24', '198.18.40.2'), route('198.19.2.0/24', '198.18.40.2')]);
    kernel.externalDelete(254, '198.19.1.0/24', 20);
    kernel.externalDelete(254, '198.19.2.0/24', 20);
    await until('put back', () => kernel.show().length === 2);
    expect(target.status().repairs).toBe(2);
    expect(warnings.filter((w) => String(w.msg).includes('putting it back'))).toHaveLength(1);
  });

  it('a route of ours replaced by another protocol is put back', async () => {
    const { kernel, target, until } = setup();
    await target.reconcile([route('198.19.1.0/24', '198.18.40.2')]);
    kernel.externalAdd(foreign('198.19.1.0/24', 4), NlmFlag.CREATE | NlmFlag.REPLACE);
    await until('put back', () => kernel.show().length === 1);
    expect(kernel.show(254, 4)).toEqual([]);
  });

  it('a route added beside ours (no NLM_F_REPLACE) leaves ours alone', async () => {
    const { kernel, target, clock } = setup();
    await target.reconcile([route('198.19.1.0/24', '198.18.40.2')]);
    kernel.externalAdd(foreign('198.19.1.0/24', 4, 30));
    await clock.advance(10);
    expect(target.status().repairs).toBe(0);
  });

  it('stops after repairLimit repairs in the window: no fight loop, the prefix is displaced', async () => {
    const { kernel, target, warnings, until, clock } = setup({ repairLimit: 2 });
    await target.reconcile([route('198.19.1.0/24', '198.18.40.2')]);
    for (let i = 0; i < 2; i++) {
      kernel.externalDelete(254, '198.19.1.0/24', 20);
      await until(`repair ${i + 1}`, () => kernel.show().length === 1);
    }
    kernel.externalDelete(254, '198.19.1.0/24', 20);
    await clock.advance(20);
    expect(kernel.show()).toEqual([]);
    expect(target.status()).toMatchObject({ repairs: 2, gaveUp: 1, problems: { displaced: 1 } });
    expect(warnings.filter((w) => String(w.msg).includes('not installed (displaced)'))).toHaveLength(1);
    // The next apply of the prefix starts afresh.
    await target.apply([add(route('198.19.1.0/24', '198.18.40.2'))]);
    expect(kernel.show()).toHaveLength(1);
  });

  it('after lost notifications (sk_drops went up) compares with the kernel and restores what is missing', async () => {
    const { kernel, target, until } = setup();
    await target.reconcile([route('198.19.1.0/24', '198.18.40.2')]);
    kernel.fib.clear(); // gone without a notification
    kernel.overrunMonitors();
    await until('restored', () => kernel.show().length === 1);
    expect(target.status().monitor).toMatchObject({ overruns: 1, dropped: 10 });
  });

  it('skips other tables unread: a route there it could not decode costs no compare with the kernel', async () => {
    const { kernel, target, until, clock } = setup();
    await target.reconcile([route('198.19.1.0/24', '198.18.40.2')]);
    const before = kernel.routeRequests;
    kernel.notifyRaw(brokenMultipathRoute(100));
    kernel.notifyRaw(brokenMultipathRoute(1000, true));
    await clock.advance(10);
    expect(target.status().monitor).toMatchObject({ otherTables: 2, overruns: 0, events: 0 });
    expect(kernel.routeRequests).toBe(before);
    // The same message in our own table cannot be read, so the monitor says it lost track.
    kernel.notifyRaw(brokenMultipathRoute(254));
    await until('lost', () => target.status().monitor.overruns === 1);
    expect(target.status().monitor.otherTables).toBe(2);
  });

  it('details count what show sinks prints: conflicts and routes put back', async () => {
    const { kernel, target, until } = setup();
    kernel.externalAdd(foreign('198.19.9.0/24', 4));
    await target.reconcile([route('198.19.1.0/24', '198.18.40.2'), route('198.19.9.0/24', '198.18.40.2')]);
    kernel.externalDelete(254, '198.19.1.0/24', 20);
    // The kernel holds the route again before the target has read the answer: wait for both.
    await until('put back', () => kernel.show().length === 1 && target.status().routes === 1);
    const d = Object.fromEntries(target.details().map((x) => [x.name, x.value]));
    expect(d).toMatchObject({
      table: 254,
      routes: 1,
      conflicts: 1,
      failed: 0,
      'put back': 1,
      'gave up': 0,
      monitor: 'on',
    });
  });

  it('ignores our own writes even when the socket filter is missing (port check)', async () => {
    const kernel = new FakeKernel();
    kernel.filters = false;
    const { target, clock } = setup({}, kernel);
    await target.reconcile([route('198.19.1.0/24', '198.18.40.2')]);
    await target.apply([withdraw('198.19.1.0/24')]);
    await clock.advance(10);
    expect(kernel.show()).toEqual([]);
    expect(target.status().repairs).toBe(0);
  });
});

describe('next-hop tracking: our routes follow the IGP', () => {
  /** An IGP route somebody adds: in the fake's FIB (notified) and where its lookups look. */
  function igpAdd(kernel: FakeKernel, prefix: string, gateway: string, table = 254): void {
    kernel.lookupRoutes.push({ prefix, gateway, ifindex: 3, protocol: 188, table });
    kernel.externalAdd({ ...foreign(prefix, 188, 20, gateway), table });
  }

  it('a more specific IGP route to an iBGP next hop moves our routes to its gateway, no reconcile', async () => {
    const kernel = new FakeKernel();
    kernel.lookupRoutes.push({ prefix: '198.18.99.0/24', gateway: '198.18.40.3', ifindex: 3, protocol: 188 });
    const { target, until } = setup({}, kernel);
    await target.apply([
      add(route('198.19.1.0/24', '198.18.99.1')),
      add(route('198.19.2.0/24', '198.18.99.1', '198.18.40.2')),
      add(route('198.19.3.0/24', '198.18.40.2')),
    ]);
    const before = kernel.routeRequests;
    igpAdd(kernel, '198.18.99.0/25', '198.18.40.4');
    await until('the routes to follow', () => kernel.show()[0]?.endsWith('via 198.18.40.4@3') ?? false);
    expect(kernel.show()).toEqual([
      '198.19.1.0/24 metric 20 via 198.18.40.4@3',
      '198.19.2.0/24 metric 20 via 198.18.40.4@3,198.18.40.2@3',
      '198.19.3.0/24 metric 20 via 198.18.40.2@3',
    ]);
    // Only the two routes over the next hop that moved were written.
    expect(kernel.routeRequests - before).toBe(2);
    expect(target.status()).toMatchObject({ nextHopsMoved: 1, routes: 3 });
    expect(target.status().nextHops).toContainEqual({
      address: '198.18.99.1',
      resolution: 'recursive',
      detail: '198.18.99.0/25: 198.18.40.4@3*1',
    });
  });

  it('a route whose next hop had no route goes in once one appears', async () => {
    const { kernel, target, until } = setup();
    await target.apply([add(route('198.19.1.0/24', '198.18.77.1'))]);
    expect(target.status().problems.failed).toBe(1);
    igpAdd(kernel, '198.18.77.0/24', '198.18.40.3');
    await until('the route to go in', () => kernel.show().length === 1);
    expect(kernel.show()).toEqual(['198.19.1.0/24 metric 20 via 198.18.40.3@3']);
    expect(target.status().problems.failed).toBe(0);
  });

  it('changes that cover none of our next hops, or sit in a table no lookup used, look nothing up', async () => {
    const kernel = new FakeKernel();
    kernel.lookupRoutes.push({ prefix: '198.18.99.0/24', gateway: '198.18.40.3', ifindex: 3, protocol: 188 });
    const { target, clock } = setup({}, kernel);
    await target.apply([add(route('198.19.1.0/24', '198.18.99.1'))]);
    const writes = kernel.writes.length;
    igpAdd(kernel, '198.18.98.0/24', '198.18.40.4'); // another prefix
    kernel.externalAdd({ ...foreign('198.18.99.0/25', 188, 20, '198.18.40.4'), table: 300 }); // another table
    await clock.advance(30);
    expect(kernel.writes.length).toBe(writes); // not even a lookup
    expect(kernel.show()).toEqual(['198.19.1.0/24 metric 20 via 198.18.40.3@3']);
    expect(target.status().nextHopsMoved).toBe(0);
  });

  it('the IGP route going away leaves the route failed and says why; it comes back with the route', async () => {
    const kernel = new FakeKernel();
    const { target, until } = setup({}, kernel);
    igpAdd(kernel, '198.18.99.0/24', '198.18.40.3');
    await target.apply([add(route('198.19.1.0/24', '198.18.99.1'))]);
    expect(kernel.show()).toHaveLength(1);
    kernel.lookupRoutes.splice(
      kernel.lookupRoutes.findIndex((r) => r.prefix === '198.18.99.0/24'),
      1,
    );
    kernel.externalDelete(254, '198.18.99.0/24', 20);
    await until('the route to go', () => kernel.show().length === 0);
    expect(target.status().problemSample[0]).toMatchObject({ prefix: '198.19.1.0/24', problem: 'failed' });
    igpAdd(kernel, '198.18.99.0/24', '198.18.40.2');
    await until('the route to come back', () => kernel.show().length === 1);
    expect(kernel.show()).toEqual(['198.19.1.0/24 metric 20 via 198.18.40.2@3']);
  });
});

describe('start', () => {
  it('an idle target holds the process by no timer: the monitor checks sk_drops in the background', async () => {
    const { target, clock } = setup();
    await target.reconcile([route('198.19.1.0/24', '198.18.40.2')]);
    expect(clock.pending).toEqual({ timers: 1, keepAlive: 0 });
  });

  it('without NETLINK_NO_ENOBUFS the monitor stays off (an overrun would abort); routes still go in', async () => {
    const kernel = new FakeKernel();
    kernel.noEnobufs = false;
    const { target, warnings } = setup({}, kernel);
    await target.apply([add(route('198.19.1.0/24', '198.18.40.2'))]);
    expect(kernel.show()).toHaveLength(1);
    expect(target.status().monitor.on).toBe(false);
    expect(warnings.map((w) => w.msg)).toContain('kernel: route monitor not started');
  });
});

describe('close', () => {
  it('flush deletes every route of ours and nothing else', async () => {
    const kernel = new FakeKernel();
    kernel.externalAdd(foreign('198.19.9.0/24', 4));
    const { target } = setup({ onStop: 'flush' }, kernel);
    await target.reconcile([
      route('198.19.1.0/24', '198.18.40.2'),
      route('2001:db8:1::/48', '2001:db8:40::2'),
    ]);
    await target.close();
    expect(kernel.show()).toEqual([]);
    expect(kernel.show(254, 4)).toHaveLength(1);
  });

  it('keep leaves them for the next start, which adopts them', async () => {
    const kernel = new FakeKernel();
    const first = setup({ onStop: 'keep' }, kernel).target;
    await first.reconcile([route('198.19.1.0/24', '198.18.40.2')]);
    await first.close();
    expect(kernel.show()).toHaveLength(1);
    const { target } = setup({}, kernel);
    const before = kernel.routeRequests;
    await target.reconcile([route('198.19.1.0/24', '198.18.40.2')]);
    // Dumps and a lookup only: the route was already right.
    expect(kernel.routeRequests).toBe(before);
    expect(kernel.show()).toHaveLength(1);
  });
});
