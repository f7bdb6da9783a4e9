/*
 * The sink as the speaker runs it: Loc-RIB best paths through a SinkDriver into OvnNbTarget
 * (over the in-memory NB). ECMP from two eBGP peers, a router created after the speaker
 * started, and a session lost with a commit out: the driver retries and NB ends exact.
 */
import { describe, expect, it } from 'vitest';
import { silentLogger } from '../../../src/bgp/session/index.js';
import { SinkDriver } from '../../../src/fib/index.js';
import { OvnNbTarget } from '../../../src/fib/ovn-nb/index.js';
import { Rib } from '../../../src/rib/index.js';
import { RouteFlow } from '../../../src/routing/index.js';
import { attrs, EBGP_A, EBGP_B, LOCAL_AS, ROUTER_ID, v4 } from '../../rib/routes.js';
import { FakeNb } from './fake-nb.js';
import { ME, shown } from './support.js';

function setup() {
  const rib = new Rib({
    localAs: LOCAL_AS,
    routerId: ROUTER_ID,
    decision: { maxPaths: 2, multipathRelax: true },
  });
  const flow = new RouteFlow(rib, (fn) => setImmediate(fn));
  const nb = new FakeNb();
  const target = new OvnNbTarget({ client: nb, router: 'fo-r1', mark: { value: ME }, readyTimeoutMs: 50 });
  const timers: (() => void)[] = [];
  const driver = new SinkDriver(
    target,
    {},
    {
      log: silentLogger,
      replay: (into) => flow.replay(into),
      setTimer: (fn) => timers.push(fn),
      clearTimer: () => {},
      now: () => 0,
      random: () => 0.5,
    },
  );
  flow.addConsumer(driver);
  return { rib, flow, nb, driver, timers };
}

const settle = () => new Promise((r) => setTimeout(r, 30));

describe('SinkDriver over OvnNbTarget', () => {
  it('best paths become rows, ECMP one per next hop; a late router is retried into', async () => {
    const { rib, flow, nb, driver, timers } = setup();
    const a = rib.addPeer(EBGP_A);
    const b = rib.addPeer(EBGP_B);
    rib.announce(a, v4('198.18.10.0/24'), attrs([65001], {}, '198.18.0.2'));
    rib.announce(b, v4('198.18.10.0/24'), attrs([65002], {}, '198.18.0.3'));
    flow.flush();
    driver.start();
    await settle();
    expect(driver.status()).toMatchObject({ state: 'retrying', failures: 1 });
    expect(driver.status().lastError).toContain('no Logical_Router named "fo-r1"');
    const router = nb.addRouter('fo-r1');
    await settle();
    timers.shift()?.();
    await settle();
    expect(shown(nb.routesOf(router))).toEqual([
      '198.18.10.0/24 via 198.18.0.2',
      '198.18.10.0/24 via 198.18.0.3',
    ]);
    expect(driver.status().state).toBe('in-sync');
    rib.withdraw(a, v4('198.18.10.0/24'));
    flow.flush();
    await settle();
    expect(shown(nb.routesOf(router))).toEqual(['198.18.10.0/24 via 198.18.0.3']);
    await driver.close();
  });

  it('a commit whose reply is lost: the driver retries, NB holds each row once', async () => {
    const { rib, flow, nb, driver, timers } = setup();
    const router = nb.addRouter('fo-r1');
    driver.start();
    await settle();
    const a = rib.addPeer(EBGP_A);
    nb.nextFault = 'lose-after-commit';
    rib.announce(a, v4('198.18.20.0/24', '198.18.21.0/24'), attrs([65001], {}, '198.18.0.2'));
    flow.flush();
    await settle();
    expect(driver.status()).toMatchObject({ state: 'retrying', pending: 2 });
    expect(driver.status().lastError).toContain('outcome-unknown');
    nb.reconnect();
    await settle();
    timers.shift()!();
    await settle();
    expect(driver.status()).toMatchObject({ state: 'in-sync', pending: 0 });
    expect(shown(nb.routesOf(router))).toEqual([
      '198.18.20.0/24 via 198.18.0.2',
      '198.18.21.0/24 via 198.18.0.2',
    ]);
    await driver.close();
  });
});
