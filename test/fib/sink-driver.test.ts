import { describe, expect, it } from 'vitest';
import { silentLogger } from '../../src/components/index.js';
import { type FibChange, type FibRoute, type FibTarget, SinkDriver } from '../../src/fib/index.js';
import { parsePrefix, Rib } from '../../src/rib/index.js';
import { RouteFlow } from '../../src/routing/index.js';
import { attrs, EBGP_A, EBGP_B, LOCAL_AS, ROUTER_ID, v4 } from '../rib/routes.js';

/** A forwarding plane in memory that can be told to fail, and that logs what it was asked. */
class MemoryTarget implements FibTarget {
  readonly name = 'memory';
  readonly routes = new Map<string, string[]>();
  readonly calls: string[] = [];
  /** Prefixes of every applied change, in the order they were handed over. */
  readonly order: string[] = [];
  failNext = 0;
  /** Resolves the current apply only when released (a slow target). */
  hold: (() => void) | null = null;
  holding = false;

  async apply(changes: readonly FibChange[]): Promise<void> {
    this.calls.push(`apply ${changes.length}`);
    if (this.holding) await new Promise<void>((r) => (this.hold = r));
    if (this.failNext > 0) {
      this.failNext--;
      throw new Error('target unavailable');
    }
    for (const c of changes) {
      this.order.push((c.kind === 'add' ? c.route.prefix : c.prefix).toString());
      if (c.kind === 'add')
        this.routes.set(
          c.route.prefix.toString(),
          c.route.nextHops.map((h) => h.address),
        );
      else this.routes.delete(c.prefix.toString());
    }
  }

  async reconcile(all: readonly FibRoute[]): Promise<void> {
    this.calls.push(`reconcile ${all.length}`);
    if (this.failNext > 0) {
      this.failNext--;
      throw new Error('target unavailable');
    }
    this.routes.clear();
    for (const r of all)
      this.routes.set(
        r.prefix.toString(),
        r.nextHops.map((h) => h.address),
      );
  }

  async close(): Promise<void> {}
}

function setup(decision = {}, init: { maxBatch?: number; learnedOnly?: boolean } = {}) {
  const rib = new Rib({ localAs: LOCAL_AS, routerId: ROUTER_ID, decision });
  const flow = new RouteFlow(rib, (fn) => setImmediate(fn));
  const target = new MemoryTarget();
  const timers: (() => void)[] = [];
  const logs: string[] = [];
  const log = { ...silentLogger, warn: (_o: unknown, m?: string) => void logs.push(String(m)) };
  const driver = new SinkDriver(target, init, {
    log,
    replay: (into) => flow.replay(into),
    setTimer: (fn) => timers.push(fn),
    clearTimer: () => {},
    now: () => 0,
    random: () => 0.5,
  });
  flow.addConsumer(driver);
  return { rib, flow, target, driver, timers, logs };
}

const settle = () => new Promise((r) => setTimeout(r, 20));

describe('SinkDriver', () => {
  it('reconciles to the Loc-RIB on start, then follows best-path changes with ECMP sets', async () => {
    const { rib, flow, target, driver } = setup({ maxPaths: 2, multipathRelax: true });
    const a = rib.addPeer(EBGP_A);
    rib.announce(a, v4('198.18.10.0/24'), attrs([65001], {}, '198.18.0.2'));
    flow.flush();
    driver.start();
    await settle();
    expect(target.calls[0]).toBe('reconcile 1');
    expect(Object.fromEntries(target.routes)).toEqual({ '198.18.10.0/24': ['198.18.0.2'] });
    const b = rib.addPeer(EBGP_B);
    rib.announce(b, v4('198.18.10.0/24'), attrs([65002], {}, '198.18.0.3'));
    flow.flush();
    await settle();
    expect(target.routes.get('198.18.10.0/24')).toEqual(['198.18.0.2', '198.18.0.3']);
    rib.withdraw(a, v4('198.18.10.0/24'));
    rib.withdraw(b, v4('198.18.10.0/24'));
    flow.flush();
    await settle();
    expect(target.routes.size).toBe(0);
    expect(driver.status().state).toBe('in-sync');
  });

  it('learnedOnly: a prefix whose best path is one of our own origins is not installed, a learned one is', async () => {
    const { rib, flow, target, driver } = setup({}, { learnedOnly: true });
    const own = rib.origin('ovn-table');
    rib.originate(parsePrefix('198.18.171.10/32'), attrs([], {}), 0, own);
    const a = rib.addPeer(EBGP_A);
    rib.announce(a, v4('198.18.180.0/24'), attrs([65001], {}, '198.18.171.254'));
    flow.flush();
    driver.start();
    await settle();
    expect(Object.fromEntries(target.routes)).toEqual({ '198.18.180.0/24': ['198.18.171.254'] });
    // The peer's path to our own prefix loses to the local one: still nothing installed there.
    rib.announce(a, v4('198.18.171.10/32'), attrs([65001], {}, '198.18.171.254'));
    flow.flush();
    await settle();
    expect([...target.routes.keys()]).toEqual(['198.18.180.0/24']);
    // Once ours leaves, the learned path is best and goes in.
    rib.unoriginate(parsePrefix('198.18.171.10/32'), 0, own);
    flow.flush();
    await settle();
    expect(target.routes.get('198.18.171.10/32')).toEqual(['198.18.171.254']);
  });

  it('coalesces changes to one prefix while the target is busy: only the newest is sent', async () => {
    const { rib, flow, target, driver } = setup();
    driver.start();
    await settle();
    const a = rib.addPeer(EBGP_A);
    target.holding = true;
    rib.announce(a, v4('198.18.20.0/24'), attrs([65001], {}, '198.18.0.2'));
    flow.flush();
    await settle();
    for (const nh of ['198.18.0.7', '198.18.0.8', '198.18.0.9']) {
      rib.announce(a, v4('198.18.20.0/24'), attrs([65001], {}, nh));
      flow.flush();
    }
    expect(driver.status().pending).toBe(1);
    target.holding = false;
    target.hold!();
    await settle();
    expect(target.calls.slice(1)).toEqual(['apply 1', 'apply 1']);
    expect(target.routes.get('198.18.20.0/24')).toEqual(['198.18.0.9']);
  });

  it('hands over at most maxBatch changes per apply, oldest first, until none waits', async () => {
    const { rib, flow, target, driver } = setup({}, { maxBatch: 2 });
    driver.start();
    await settle();
    const a = rib.addPeer(EBGP_A);
    target.holding = true;
    rib.announce(a, v4('198.18.30.0/24'), attrs([65001], {}, '198.18.0.2'));
    flow.flush();
    await settle();
    const later = ['198.18.31.0/24', '198.18.32.0/24', '198.18.33.0/24', '198.18.34.0/24', '198.18.35.0/24'];
    for (const p of later) {
      rib.announce(a, v4(p), attrs([65001], {}, '198.18.0.2'));
      flow.flush();
    }
    expect(driver.status().pending).toBe(5);
    target.holding = false;
    target.hold!();
    await settle();
    expect(target.calls.slice(1)).toEqual(['apply 1', 'apply 2', 'apply 2', 'apply 1']);
    expect(target.order).toEqual(['198.18.30.0/24', ...later]);
    expect(driver.status()).toMatchObject({ pending: 0, state: 'in-sync' });
  });

  it('a failed apply is retried after a back-off, logged once, and loses nothing', async () => {
    const { rib, flow, target, driver, timers, logs } = setup();
    driver.start();
    await settle();
    const a = rib.addPeer(EBGP_A);
    target.failNext = 2;
    rib.announce(a, v4('198.18.30.0/24', '198.18.31.0/24'), attrs([65001]));
    flow.flush();
    await settle();
    expect(driver.status()).toMatchObject({ state: 'retrying', pending: 2, failures: 1 });
    rib.withdraw(a, v4('198.18.31.0/24'));
    flow.flush();
    timers.shift()!();
    await settle();
    expect(driver.status().failures).toBe(2);
    timers.shift()!();
    await settle();
    expect(Object.fromEntries(target.routes)).toEqual({ '198.18.30.0/24': ['198.18.0.2'] });
    expect(logs.filter((l) => l.includes('route sink failed'))).toHaveLength(1);
    expect(driver.status()).toMatchObject({ state: 'in-sync', pending: 0 });
  });

  it('resync replays everything after the target lost its state', async () => {
    const { rib, flow, target, driver } = setup();
    rib.originate(parsePrefix('198.18.40.0/24'), attrs([], {}, '198.18.0.5'));
    flow.flush();
    driver.start();
    await settle();
    target.routes.clear(); // as zebra forgets a client's routes when it restarts
    driver.resync();
    await settle();
    expect(target.calls.filter((c) => c.startsWith('reconcile'))).toEqual(['reconcile 1', 'reconcile 1']);
    expect(target.routes.get('198.18.40.0/24')).toEqual(['198.18.0.5']);
  });
});
