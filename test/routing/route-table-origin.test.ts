import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { parsePrefix, Rib } from '../../src/rib/index.js';
import {
  LocalOrigin,
  MED_LEAVING,
  RouteFlow,
  RouteTableOrigin,
  type RouteTableOriginInit,
} from '../../src/routing/index.js';
import { FakeClock } from '../components/fake-clock.js';
import { LOCAL_AS, ROUTER_ID, summary } from '../rib/routes.js';

const OVN: RouteTableOriginInit = {
  name: 'lr0',
  preference: 'med',
  localMetric: 100,
  prepend: 2,
  holdTimeMs: 0,
};

function setup(init: Partial<RouteTableOriginInit> = {}) {
  const rib = new Rib({ localAs: LOCAL_AS, routerId: ROUTER_ID });
  const flow = new RouteFlow(rib, () => {});
  const clock = new FakeClock();
  const table = new RouteTableOrigin(
    { ...OVN, ...init },
    new LocalOrigin(rib, rib.origin('ovn-table'), flow),
    clock,
  );
  const best = (p: string) => rib.best(parsePrefix(p));
  return { rib, flow, clock, table, best, flush: () => summary(flow.flush().toArray()) };
}

describe('RouteTableOrigin', () => {
  it('advertises each route of the table with us as next hop and its metric as MED', () => {
    const { table, best, flush } = setup();
    table.add('198.18.171.10', 100);
    table.add('198.18.171.0/24', 1000);
    table.add('2001:db8:171::10', 100);
    expect(flush().sort()).toEqual([
      '+198.18.171.0/24 ovn-table',
      '+198.18.171.10/32 ovn-table',
      '+2001:db8:171::10/128 ovn-table',
    ]);
    const fip = best('198.18.171.10/32')!;
    expect(fip.attrs.med).toBe(100);
    expect(fip.attrs.nextHop).toBeUndefined();
    expect(fip.attrs.asPath).toEqual([]);
    expect(best('198.18.171.0/24')!.attrs.med).toBe(1000);
    expect(best('2001:db8:171::10/128')!.attrs.mpReach).toBeUndefined();
  });

  it('the best (lowest) metric counts while a prefix is in the table twice', () => {
    const { table, best, flush } = setup();
    table.add('198.18.171.10', 1000);
    table.add('198.18.171.10', 100);
    flush();
    expect(best('198.18.171.10/32')!.attrs.med).toBe(100);
    table.remove('198.18.171.10', 100);
    expect(flush()).toEqual(['+198.18.171.10/32 ovn-table']);
    expect(best('198.18.171.10/32')!.attrs.med).toBe(1000);
  });

  it('prepend: remote routes get our AS twice more, local ones none, and no MED', () => {
    const { table, best, flush } = setup({ preference: 'prepend' });
    table.add('198.18.171.10', 100);
    table.add('198.18.171.0/24', 1000);
    flush();
    expect(best('198.18.171.10/32')!.attrs.asPath).toEqual([]);
    expect(best('198.18.171.10/32')!.attrs.med).toBeUndefined();
    expect(best('198.18.171.0/24')!.attrs.asPath).toEqual([{ type: 2, asns: [LOCAL_AS, LOCAL_AS] }]);
  });

  it('a network connected on this host (the provider network) is not advertised', () => {
    const { table, best, flush } = setup({ connected: (p) => p === '198.18.171.0/24' });
    table.add('198.18.171.0/24', 1000);
    table.add('198.18.171.10', 100);
    expect(flush()).toEqual(['+198.18.171.10/32 ovn-table']);
    expect(best('198.18.171.0/24')).toBeUndefined();
    expect(table.view().find((r) => r.prefix === '198.18.171.0/24')?.state).toBe('skipped');
  });

  it('local-only: a route the chassis does not host is not advertised until it is', () => {
    const { table, best, flush } = setup({ preference: 'local-only' });
    table.add('198.18.171.10', 1000);
    expect(flush()).toEqual([]);
    table.add('198.18.171.10', 100);
    expect(flush()).toEqual(['+198.18.171.10/32 ovn-table']);
    table.remove('198.18.171.10', 100);
    expect(flush()).toEqual(['-198.18.171.10/32 ovn-table']);
    expect(best('198.18.171.10/32')).toBeUndefined();
  });

  it('a route that leaves is held with the worst MED, then withdrawn when the hold time is over', async () => {
    const { table, clock, best, flush } = setup({ holdTimeMs: 30_000 });
    table.add('198.18.171.10', 100);
    flush();
    table.remove('198.18.171.10', 100);
    expect(flush()).toEqual(['+198.18.171.10/32 ovn-table']);
    expect(best('198.18.171.10/32')!.attrs.med).toBe(MED_LEAVING);
    expect(table.view()).toMatchObject([
      { prefix: '198.18.171.10/32', state: 'held', until: clock.now() + 30_000 },
    ]);
    await clock.advance(29_999);
    expect(flush()).toEqual([]);
    await clock.advance(1);
    expect(flush()).toEqual(['-198.18.171.10/32 ovn-table']);
    expect(table.view()).toEqual([]);
  });

  it('a route that leaves a table that keeps others (a NAT deleted) goes at once to the worst MED, then is withdrawn', async () => {
    const { table, clock, best, flush } = setup({ holdTimeMs: 30_000, confirmMs: 1000 });
    table.add('198.18.171.10', 100);
    table.add('198.18.171.0/24', 1000);
    flush();
    table.remove('198.18.171.10', 100);
    expect(flush()).toEqual(['+198.18.171.10/32 ovn-table']);
    expect(best('198.18.171.10/32')!.attrs.med).toBe(MED_LEAVING);
    await clock.advance(999);
    expect(flush()).toEqual([]);
    await clock.advance(1);
    expect(flush()).toEqual(['-198.18.171.10/32 ovn-table']);
    expect(table.counts()).toEqual({ table: 1, advertised: 1, held: 0 });
  });

  it('ovn-controller restarting (the table emptied, then refilled) is no withdrawal', async () => {
    const { table, clock, best, flush } = setup({ holdTimeMs: 30_000 });
    const full = [
      { prefix: '198.18.171.10', metrics: [100] },
      { prefix: '198.18.171.0/24', metrics: [1000] },
    ];
    table.replaceAll(full);
    flush();
    table.replaceAll([]);
    await clock.advance(5000);
    table.replaceAll(full);
    await clock.advance(60_000);
    expect(flush().every((c) => c.startsWith('+'))).toBe(true);
    expect(best('198.18.171.10/32')!.attrs.med).toBe(100);
    expect(table.counts()).toEqual({ table: 2, advertised: 2, held: 0 });
  });

  it('replaceAll changes nothing for routes that stayed', () => {
    const { table, flush } = setup();
    table.replaceAll([{ prefix: '198.18.171.10', metrics: [100] }]);
    flush();
    table.replaceAll([
      { prefix: '198.18.171.10', metrics: [100] },
      { prefix: '198.18.171.11', metrics: [100] },
    ]);
    expect(flush()).toEqual(['+198.18.171.11/32 ovn-table']);
  });

  it('withdrawAll takes every route of the origin away, held ones too', () => {
    const { table, flush } = setup({ holdTimeMs: 30_000 });
    table.add('198.18.171.10', 100);
    table.add('198.18.171.11', 100);
    table.remove('198.18.171.11', 100);
    flush();
    table.withdrawAll();
    expect(flush().sort()).toEqual(['-198.18.171.10/32 ovn-table', '-198.18.171.11/32 ovn-table']);
  });

  const op = fc.record({
    add: fc.boolean(),
    host: fc.integer({ min: 1, max: 6 }),
    metric: fc.constantFrom(100, 1000, 50),
  });

  it('property: without a hold time the origin holds exactly the table (local-only: the local part), MED its lowest metric', () => {
    fc.assert(
      fc.property(
        fc.array(op, { maxLength: 60 }),
        fc.constantFrom('med', 'local-only'),
        (ops, preference) => {
          const { table, best, flush } = setup({ preference: preference as 'med' | 'local-only' });
          const model = new Map<string, Set<number>>();
          for (const o of ops) {
            const p = `198.18.171.${o.host}`;
            const set = model.get(p) ?? new Set<number>();
            if (o.add) {
              table.add(p, o.metric);
              set.add(o.metric);
            } else {
              table.remove(p, o.metric);
              set.delete(o.metric);
            }
            if (set.size > 0) model.set(p, set);
            else model.delete(p);
          }
          flush();
          for (let host = 1; host <= 6; host++) {
            const metrics = [...(model.get(`198.18.171.${host}`) ?? [])];
            const min = Math.min(...metrics);
            const want = metrics.length > 0 && (preference === 'med' || min <= 100);
            const b = best(`198.18.171.${host}/32`);
            expect(b !== undefined).toBe(want);
            if (b && preference === 'med') expect(b.attrs.med).toBe(min);
          }
        },
      ),
    );
  });

  it('property: a route back within the confirm time is never withdrawn', async () => {
    await fc.assert(
      fc.asyncProperty(fc.array(op, { maxLength: 40 }), async (ops) => {
        const { table, clock, flush } = setup({ holdTimeMs: 10_000, confirmMs: 5000 });
        const withdrawn: string[] = [];
        for (const o of ops) {
          const p = `198.18.171.${o.host}`;
          if (o.add) table.add(p, o.metric);
          else table.remove(p, o.metric);
          await clock.advance(100);
          withdrawn.push(...flush().filter((c) => c.startsWith('-')));
        }
        // 40 steps of 100 ms stay inside one confirm time.
        expect(withdrawn).toEqual([]);
      }),
      { numRuns: 50 },
    );
  });

  it('property: a table emptied keeps every route until the hold time, then none', async () => {
    await fc.assert(
      fc.asyncProperty(fc.array(op, { maxLength: 40 }), async (ops) => {
        const { table, clock, flush, best } = setup({ holdTimeMs: 10_000, confirmMs: 1000 });
        for (const o of ops) {
          if (o.add) table.add(`198.18.171.${o.host}`, o.metric);
          else table.remove(`198.18.171.${o.host}`, o.metric);
        }
        // A route that stays keeps the table from being empty; past every hold from the steps.
        table.add('198.18.171.99', 100);
        await clock.advance(11_000);
        flush();
        const before = table.counts().advertised;
        table.replaceAll([]);
        await clock.advance(9_999);
        expect(flush().filter((c) => c.startsWith('-'))).toEqual([]);
        expect(table.counts().advertised).toBe(before);
        await clock.advance(1);
        flush();
        expect(table.counts()).toEqual({ table: 0, advertised: 0, held: 0 });
        for (let host = 1; host <= 6; host++) expect(best(`198.18.171.${host}/32`)).toBeUndefined();
      }),
      { numRuns: 50 },
    );
  });
});
