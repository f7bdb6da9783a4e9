import { describe, expect, it } from 'vitest';
import { type ChangeBatch, parsePrefix, Rib } from '../../src/rib/index.js';
import { type RouteConsumer, RouteFlow } from '../../src/routing/index.js';
import { attrs, attrs6, EBGP_A, EBGP_B, LOCAL_AS, ROUTER_ID, summary, v4, v6 } from '../rib/routes.js';

/** A deferral queue run by hand, so the test decides when a turn ends. */
function turns() {
  const queue: (() => void)[] = [];
  return {
    defer: (fn: () => void) => queue.push(fn),
    run: () => {
      for (let n = 0; queue.length > 0 && n < 10_000; n++) queue.shift()!();
    },
  };
}

function recorder(name: string, log: string[]): RouteConsumer & { seen: string[][] } {
  const seen: string[][] = [];
  return {
    name,
    seen,
    accept: (b: ChangeBatch) => {
      log.push(name);
      seen.push(summary(b.toArray()));
    },
  };
}

describe('RouteFlow', () => {
  it('hands one flush per turn to every consumer, in registration order', () => {
    const rib = new Rib({ localAs: LOCAL_AS, routerId: ROUTER_ID });
    const t = turns();
    const flow = new RouteFlow(rib, t.defer);
    const order: string[] = [];
    const bgp = recorder('bgp', order);
    const kernel = recorder('kernel', order);
    flow.addConsumer(bgp);
    const remove = flow.addConsumer(kernel);
    const a = rib.addPeer(EBGP_A);
    rib.announce(a, v4('198.18.10.0/24'), attrs([65001]));
    flow.schedule();
    rib.announce(a, v4('198.18.11.0/24'), attrs([65001]));
    flow.schedule();
    t.run();
    expect(order).toEqual(['bgp', 'kernel']);
    expect(kernel.seen).toEqual([['+198.18.10.0/24 a', '+198.18.11.0/24 a']]);
    remove();
    rib.withdraw(a, v4('198.18.10.0/24'));
    flow.flush();
    expect(bgp.seen[1]).toEqual(['-198.18.10.0/24 a']);
    expect(kernel.seen).toHaveLength(1);
  });

  it('a failing consumer is reported and the others still get the batch', () => {
    const rib = new Rib({ localAs: LOCAL_AS, routerId: ROUTER_ID });
    const errors: string[] = [];
    const flow = new RouteFlow(
      rib,
      (fn) => fn(),
      (e, c) => errors.push(`${c}: ${String(e)}`),
    );
    const log: string[] = [];
    flow.addConsumer({
      name: 'broken',
      accept: () => {
        throw new Error('boom');
      },
    });
    const ok = recorder('ok', log);
    flow.addConsumer(ok);
    rib.originate(parsePrefix('198.18.20.0/24'), attrs([]));
    flow.flush();
    expect(errors).toEqual(['broken: Error: boom']);
    expect(ok.seen).toEqual([['+198.18.20.0/24 static']]);
  });

  it('decides a backlog a slice per turn, oldest first, IPv4 before IPv6, releasing waiters each time', async () => {
    const rib = new Rib({ localAs: LOCAL_AS, routerId: ROUTER_ID });
    const t = turns();
    const flow = new RouteFlow(rib, t.defer, () => {}, 3);
    const log: string[] = [];
    const kernel = recorder('kernel', log);
    flow.addConsumer(kernel);
    const a = rib.addPeer(EBGP_A);
    rib.announce(a, v4('198.18.1.0/24', '198.18.2.0/24', '198.18.3.0/24', '198.18.4.0/24'), attrs([65001]));
    rib.announce(a, v6('2001:db8:1::/48', '2001:db8:2::/48'), attrs6([65001]));
    let released = 0;
    void flow.whenFlushed().then(() => released++);
    t.run();
    await Promise.resolve();
    expect(kernel.seen).toEqual([
      ['+198.18.1.0/24 a', '+198.18.2.0/24 a', '+198.18.3.0/24 a'],
      ['+198.18.4.0/24 a', '+2001:db8:1::/48 a', '+2001:db8:2::/48 a'],
    ]);
    expect(released).toBe(1);
    expect(rib.pending).toBe(0);
  });

  it("gives a removed peer's number out again only once the backlog naming it is decided", () => {
    const rib = new Rib({ localAs: LOCAL_AS, routerId: ROUTER_ID });
    const t = turns();
    const flow = new RouteFlow(rib, t.defer, () => {}, 2);
    const log: string[] = [];
    const kernel = recorder('kernel', log);
    flow.addConsumer(kernel);
    const a = rib.addPeer(EBGP_A);
    rib.announce(a, v4('198.18.1.0/24', '198.18.2.0/24', '198.18.3.0/24'), attrs([65001]));
    flow.flush();
    rib.removePeer(a);
    flow.schedule();
    t.defer(() => {
      // One slice of the three withdrawals is out: a new peer must not take a's number yet.
      expect(rib.pending).toBe(1);
      expect(rib.addPeer(EBGP_B).index).not.toBe(a.index);
    });
    t.run();
    expect(kernel.seen.slice(1)).toEqual([['-198.18.1.0/24 a', '-198.18.2.0/24 a'], ['-198.18.3.0/24 a']]);
  });

  it('replays every best path a slice per turn, as it is when offered', async () => {
    const rib = new Rib({ localAs: LOCAL_AS, routerId: ROUTER_ID });
    const flow = new RouteFlow(rib, (fn) => setImmediate(fn));
    const a = rib.addPeer(EBGP_A);
    const n = 40_000; // more than one slice
    const list = v4(...Array.from({ length: n }, (_, i) => `198.18.${i >> 8}.${i & 255}/32`));
    rib.announce(a, list, attrs([65001]));
    flow.flush();
    let slices = 0;
    const seen = new Set<string>();
    await flow.replay((slice) => {
      slices++;
      for (let i = 0; i < slice.count; i++) {
        expect(slice.isAdd(i)).toBe(true);
        seen.add(slice.prefix(i).toString());
      }
    });
    expect(seen.size).toBe(n);
    expect(slices).toBeGreaterThan(1);
  });
});
