import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { AF } from '../../../src/bgp/transport/index.js';
import {
  type Found,
  NexthopSets,
  planInSteps,
  planReconcile,
  type Wanted,
} from '../../../src/fib/kernel/index.js';
import { parsePrefix } from '../../../src/rib/index.js';

const sets = new NexthopSets();
const A = sets.get(AF.INET, [{ gateway: '198.18.40.2', ifindex: 3, weight: 1, flags: 0 }]);
const B = sets.get(AF.INET, [{ gateway: '198.18.40.3', ifindex: 3, weight: 1, flags: 0 }]);
const OURS = 186;

function want(prefix: string, set = A, priority = 20): Wanted {
  return { prefix: parsePrefix(prefix), set, priority };
}
function found(prefix: string, protocol = OURS, canon = A.canon, priority = 20, nhId?: number): Found {
  return { prefix: parsePrefix(prefix), protocol, canon, priority, ...(nhId !== undefined && { nhId }) };
}
function wanted(...ws: Wanted[]): Map<number | string, Wanted> {
  return new Map(ws.map((w) => [w.prefix.key(), w]));
}
function ops(plan: ReturnType<typeof planReconcile>): string[] {
  return plan.ops.map((o) =>
    o.kind === 'delete'
      ? `delete ${o.prefix} metric ${o.priority}`
      : `${o.kind} ${o.want.prefix} ${o.want.set.canon}`,
  );
}

describe('planReconcile', () => {
  const CASES: {
    name: string;
    wanted: Wanted[];
    found: Found[];
    ops: string[];
    keep?: string[];
    conflicts?: string[];
  }[] = [
    {
      name: 'empty kernel: create all',
      wanted: [want('198.19.1.0/24')],
      found: [],
      ops: ['create 198.19.1.0/24 198.18.40.2@3*1'],
    },
    {
      name: 'already right: nothing',
      wanted: [want('198.19.1.0/24')],
      found: [found('198.19.1.0/24')],
      ops: [],
      keep: ['198.19.1.0/24'],
    },
    {
      name: 'other next hops: replace',
      wanted: [want('198.19.1.0/24', B)],
      found: [found('198.19.1.0/24')],
      ops: ['replace 198.19.1.0/24 198.18.40.3@3*1'],
    },
    {
      name: 'stale ours: delete',
      wanted: [],
      found: [found('198.19.1.0/24')],
      ops: ['delete 198.19.1.0/24 metric 20'],
    },
    {
      name: 'ours at an old metric: delete it, create at ours',
      wanted: [want('198.19.1.0/24')],
      found: [found('198.19.1.0/24', OURS, A.canon, 30)],
      ops: ['delete 198.19.1.0/24 metric 30', 'create 198.19.1.0/24 198.18.40.2@3*1'],
    },
    {
      name: 'another protocol at another metric: ours coexists',
      wanted: [want('198.19.1.0/24')],
      found: [found('198.19.1.0/24', 4, B.canon, 0)],
      ops: ['create 198.19.1.0/24 198.18.40.2@3*1'],
    },
    {
      name: 'another protocol at our metric: conflict, nothing written',
      wanted: [want('198.19.1.0/24')],
      found: [found('198.19.1.0/24', 4, B.canon, 20)],
      ops: [],
      conflicts: ['198.19.1.0/24'],
    },
    {
      name: 'ours differs and another protocol shares the key: delete ours only',
      wanted: [want('198.19.1.0/24', B)],
      found: [found('198.19.1.0/24'), found('198.19.1.0/24', 4, B.canon, 20)],
      ops: ['delete 198.19.1.0/24 metric 20'],
      conflicts: ['198.19.1.0/24'],
    },
    {
      name: 'ours on a nexthop object (zebra-style) is never equal: replace',
      wanted: [want('198.19.1.0/24')],
      found: [found('198.19.1.0/24', OURS, A.canon, 20, 7)],
      ops: ['replace 198.19.1.0/24 198.18.40.2@3*1'],
    },
    {
      name: 'deletes go before replaces, replaces before creates',
      wanted: [want('198.19.3.0/24'), want('198.19.2.0/24', B)],
      found: [found('198.19.1.0/24'), found('198.19.2.0/24')],
      ops: [
        'delete 198.19.1.0/24 metric 20',
        'replace 198.19.2.0/24 198.18.40.3@3*1',
        'create 198.19.3.0/24 198.18.40.2@3*1',
      ],
    },
  ];
  for (const c of CASES)
    it(c.name, () => {
      const plan = planReconcile(wanted(...c.wanted), c.found, OURS);
      expect(ops(plan)).toEqual(c.ops);
      expect(plan.keep.map((w) => w.prefix.toString())).toEqual(c.keep ?? []);
      expect(plan.conflicts.map((w) => w.prefix.toString())).toEqual(c.conflicts ?? []);
    });

  it('in steps, it yields between slices and comes to the same plan', () => {
    const w = wanted(want('198.19.1.0/24'), want('198.19.2.0/24', B), want('198.19.3.0/24'));
    const f = [found('198.19.2.0/24'), found('198.19.4.0/24'), found('198.19.3.0/24', 4)];
    const steps = planInSteps(w, f, OURS, 2);
    let yields = 0;
    let step = steps.next();
    for (; !step.done; step = steps.next()) yields++;
    expect(yields).toBe(4); // 3 found, 2 of them ours, 3 wanted: 8 entries, a yield at every 2nd
    expect(step.value).toEqual(planReconcile(w, f, OURS));
  });

  it('property: applying the plan to the kernel leaves exactly the wanted routes of ours, others untouched', () => {
    const prefixes = ['198.19.1.0/24', '198.19.2.0/24', '198.19.3.0/24', '198.19.4.0/24', '2001:db8:1::/48'];
    const entry = fc.record({
      prefix: fc.constantFrom(...prefixes),
      protocol: fc.constantFrom(OURS, 4),
      set: fc.constantFrom(A, B),
      priority: fc.constantFrom(20, 30),
    });
    fc.assert(
      fc.property(
        fc.uniqueArray(entry, { selector: (e) => `${e.prefix}|${e.priority}` }),
        fc.subarray(prefixes),
        fc.constantFrom(A, B),
        (kernel, want_, set) => {
          const f = kernel.map((e) => found(e.prefix, e.protocol, e.set.canon, e.priority));
          const w = wanted(...want_.map((p) => want(p, set)));
          const plan = planReconcile(w, f, OURS);
          // Run the plan on a model of the kernel keyed as Linux keys it.
          const model = new Map(f.map((x) => [`${x.prefix}|${x.priority}`, x]));
          for (const op of plan.ops) {
            if (op.kind === 'delete') {
              const k = `${op.prefix}|${op.priority}`;
              expect(model.get(k)?.protocol).toBe(OURS);
              model.delete(k);
            } else {
              const k = `${op.want.prefix}|${op.want.priority}`;
              if (op.kind === 'create') expect(model.has(k)).toBe(false);
              else expect(model.get(k)?.protocol).toBe(OURS);
              model.set(k, found(op.want.prefix.toString(), OURS, op.want.set.canon, op.want.priority));
            }
          }
          const ours = [...model.values()].filter((x) => x.protocol === OURS).map((x) => `${x.prefix}`);
          const conflicts = new Set(plan.conflicts.map((c) => `${c.prefix}`));
          expect(ours.sort()).toEqual(want_.filter((p) => !conflicts.has(p)).sort());
          for (const x of f.filter((y) => y.protocol !== OURS))
            expect(model.get(`${x.prefix}|${x.priority}`)).toEqual(x);
        },
      ),
    );
  });
});
