import { describe, expect, it } from 'vitest';
import { type ChangeBatch, parsePrefix, Rib } from '../../src/rib/index.js';
import { type RouteConsumer, RouteFlow } from '../../src/routing/index.js';
import { attrs, EBGP_A, LOCAL_AS, ROUTER_ID, summary, v4 } from '../rib/routes.js';

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
