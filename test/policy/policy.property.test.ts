import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { addressBytes, parseIpv4 } from '../../src/address/index.js';
import type { PathAttributes } from '../../src/bgp/wire/attributes/types.js';
import { AS_TRANS, AsPathSegmentType } from '../../src/bgp/wire/constants.js';
import type { ListDefinitions, MatchModel, SetModel, StatementModel } from '../../src/policy/index.js';
import { PolicyChain } from '../../src/policy/index.js';
import { attrs, deepFreeze, policy, run } from './helpers.js';

const LISTS: ListDefinitions = {
  prefixLists: [
    { name: 'LAB', entries: [{ action: 'permit', prefix: '198.18.0.0/15', le: 32 }] },
    { name: 'HOSTS', entries: [{ action: 'permit', prefix: '0.0.0.0/0', ge: 32 }] },
    { name: 'V6', entries: [{ action: 'permit', prefix: '2001:db8::/32', le: 64 }] },
    { name: 'NH', entries: [{ action: 'permit', prefix: '198.18.0.0/24', le: 32 }] },
  ],
  communityLists: [
    { name: 'C1', entries: [{ action: 'permit', communities: ['65000:*'] }] },
    {
      name: 'C2',
      entries: [
        { action: 'deny', communities: ['65000:1'] },
        { action: 'permit', communities: ['*:2'] },
      ],
    },
  ],
  largeCommunityLists: [{ name: 'L1', entries: [{ action: 'permit', communities: ['65000:*:*'] }] }],
  asPathLists: [
    { name: 'A1', entries: [{ action: 'permit', regex: '_65001_' }] },
    { name: 'A2', entries: [{ action: 'permit', maxLength: 2 }] },
  ],
};

const matchArb: fc.Arbitrary<MatchModel> = fc.record(
  {
    prefixList: fc.constantFrom('LAB', 'HOSTS', 'V6'),
    communityList: fc.constantFrom('C1', 'C2'),
    largeCommunityList: fc.constant('L1'),
    asPath: fc.constantFrom('A1', 'A2'),
    nextHop: fc.constant('NH'),
    family: fc.constantFrom('ipv4' as const, 'ipv6' as const),
  },
  { requiredKeys: [] },
);

const setArb: fc.Arbitrary<SetModel> = fc.record(
  {
    localPref: fc.integer({ min: 0, max: 1000 }),
    med: fc.oneof(fc.integer({ min: 0, max: 100 }), fc.constantFrom('+5', '-5', '+4294967295')),
    communities: fc.record(
      {
        add: fc.subarray(['65000:1', '65000:2', 'NO_EXPORT', '65010:7']),
        remove: fc.subarray(['65000:*', '*:2', '65010:7']),
        set: fc.subarray(['65000:3', 'BLACKHOLE']),
        deleteList: fc.constantFrom('C1', 'C2'),
      },
      { requiredKeys: [] },
    ),
    largeCommunities: fc.record(
      { add: fc.subarray(['65000:1:1', '1:2:3']), remove: fc.subarray(['*:1:*']) },
      { requiredKeys: [] },
    ),
    asPathPrepend: fc.record({
      as: fc.constantFrom(65000, 4200000000),
      count: fc.integer({ min: 1, max: 3 }),
    }),
    nextHop: fc.constantFrom('self', 'unchanged', '198.18.0.99', '2001:db8::99'),
  },
  { requiredKeys: [] },
);

const statementArb: fc.Arbitrary<StatementModel> = fc.record(
  {
    match: matchArb,
    set: setArb,
    action: fc.constantFrom('accept' as const, 'reject' as const, 'next' as const),
  },
  { requiredKeys: ['action'] },
);

const policyArb = fc.record({
  statements: fc.array(statementArb, { maxLength: 5 }),
  defaultAction: fc.constantFrom('accept' as const, 'reject' as const, 'next' as const),
});

const asn = fc.constantFrom(65000, 65001, 65002, 64512, 4200000000);
const attrsArb: fc.Arbitrary<() => PathAttributes> = fc
  .record({
    path: fc.array(asn, { maxLength: 4 }),
    withSet: fc.boolean(),
    as4: fc.boolean(),
    communities: fc.option(fc.array(fc.constantFrom(0xfde80001, 0xfde80002, 0xfdf20007, 0xffffff01)), {
      nil: undefined,
    }),
    large: fc.option(fc.constantFrom([65000, 1, 1], [1, 1, 1, 65000, 5, 5]), { nil: undefined }),
    med: fc.option(fc.integer({ min: 0, max: 0xffffffff }), { nil: undefined }),
    localPref: fc.option(fc.integer({ min: 0, max: 500 }), { nil: undefined }),
    nextHop: fc.constantFrom('198.18.0.2', '203.0.113.1'),
    v6: fc.boolean(),
  })
  .map((r) => () => {
    const asPath = [
      {
        type: AsPathSegmentType.AS_SEQUENCE,
        asns: r.as4 ? r.path.map((a) => (a > 0xffff ? AS_TRANS : a)) : r.path,
      },
      ...(r.withSet ? [{ type: AsPathSegmentType.AS_SET, asns: [65005, 65006] }] : []),
    ].filter((s) => s.asns.length > 0);
    return attrs({
      asPath,
      as4Path:
        r.as4 && r.path.some((a) => a > 0xffff)
          ? [{ type: AsPathSegmentType.AS_SEQUENCE, asns: r.path }]
          : undefined,
      communities: r.communities,
      largeCommunities: r.large,
      med: r.med,
      localPref: r.localPref,
      nextHop: parseIpv4(r.nextHop),
      mpReach: r.v6 ? { afi: 2, safi: 1, nextHop: addressBytes('2001:db8::2'), reserved: 0 } : undefined,
    });
  });

const routeArb = fc.constantFrom(
  '198.18.0.0/24',
  '198.18.5.1/32',
  '203.0.113.0/24',
  '203.0.113.9/32',
  '2001:db8::/32',
  '2001:db8:1::/48',
  '2001:db9::/32',
);

describe('policy evaluation properties', () => {
  it('never writes to its input attributes', () => {
    fc.assert(
      fc.property(
        policyArb,
        attrsArb,
        fc.array(routeArb, { minLength: 1, maxLength: 6 }),
        (model, make, routes) => {
          const p = policy(model.statements, LISTS, model.defaultAction, 'P', 65000);
          const input = make();
          const before = structuredClone(input);
          deepFreeze(input);
          for (const r of routes) run(p, r, input);
          expect(input).toEqual(before);
        },
      ),
      { numRuns: 400 },
    );
  });

  it('memoises: the same input object gives the same result object, equal to a fresh evaluation', () => {
    fc.assert(
      fc.property(
        policyArb,
        fc.array(attrsArb, { minLength: 1, maxLength: 3 }),
        fc.array(fc.tuple(routeArb, fc.nat()), { minLength: 2, maxLength: 12 }),
        (model, makers, steps) => {
          const p = policy(model.statements, LISTS, model.defaultAction, 'P', 65000);
          const inputs = makers.map((m) => m());
          const first = new Map<string, ReturnType<typeof run>>();
          for (const [route, k] of steps) {
            const idx = k % inputs.length;
            const result = run(p, route, inputs[idx]);
            const key = `${route}|${idx}`;
            const seen = first.get(key);
            if (seen) expect(result).toBe(seen);
            else first.set(key, result);
            // A policy that has seen nothing, on an equal but distinct object, agrees.
            const freshInput = makers[idx]();
            const fresh = run(
              policy(model.statements, LISTS, model.defaultAction, 'P', 65000),
              route,
              freshInput,
            );
            expect(result).toEqual(fresh);
            if (result.accept && fresh.accept)
              expect(result.attrs === inputs[idx]).toBe(fresh.attrs === freshInput);
          }
        },
      ),
      { numRuns: 300 },
    );
  });

  it('accepted attributes are the input itself exactly when nothing was set', () => {
    fc.assert(
      fc.property(policyArb, attrsArb, routeArb, (model, make, route) => {
        const withoutSets = model.statements.map(({ set: _set, ...s }) => s);
        const p = policy(withoutSets, LISTS, model.defaultAction);
        const input = make();
        const r = run(p, route, input);
        if (r.accept) {
          expect(r.attrs).toBe(input);
          expect(r.nextHop).toBe('default');
        }
      }),
      { numRuns: 300 },
    );
  });

  it('a policy that does not read the next hop decides alike whatever the next hop is', () => {
    // What `readsNextHop` promises the exporter: without it, the route's next hop cannot change
    // the outcome, so the update group may replace it before the policy runs.
    const other = (a: PathAttributes): PathAttributes =>
      a.mpReach
        ? { ...a, mpReach: { ...a.mpReach, nextHop: addressBytes('2001:db8:77::7') } }
        : { ...a, nextHop: parseIpv4('198.18.77.7') };
    const strip = (a: PathAttributes) => ({ ...a, nextHop: undefined, mpReach: undefined });
    let checked = 0;
    fc.assert(
      fc.property(policyArb, attrsArb, routeArb, (model, make, route) => {
        const p = policy(model.statements, LISTS, model.defaultAction, 'P', 65000);
        if (p.acceptsAll) expect(p.readsNextHop).toBe(false);
        if (p.readsNextHop) return;
        checked++;
        const input = make();
        const a = run(p, route, input);
        const b = run(policy(model.statements, LISTS, model.defaultAction, 'Q', 65000), route, other(input));
        expect(b.accept).toBe(a.accept);
        if (!a.accept || !b.accept) return;
        expect(b.nextHop).toBe(a.nextHop);
        expect(strip(b.attrs)).toEqual(strip(a.attrs));
        // "unchanged" without reading the next hop: a statement set an address for the family.
        if (a.nextHop === 'unchanged') expect(a.attrs).not.toBe(input);
      }),
      { numRuns: 500 },
    );
    expect(checked).toBeGreaterThan(100);
  });

  it('a policy or chain flagged accept-all or reject-all evaluates every route that way', () => {
    // Unconditional statements first often, so both flags come up.
    const bare = fc.constantFrom<StatementModel>(
      { action: 'accept' },
      { action: 'reject' },
      { action: 'next' },
    );
    const leading = fc.tuple(fc.option(bare, { nil: undefined }), policyArb).map(([head, m]) => ({
      ...m,
      statements: head ? [head, ...m.statements] : m.statements,
    }));
    let flagged = 0;
    fc.assert(
      fc.property(
        fc.array(leading, { minLength: 1, maxLength: 3 }),
        attrsArb,
        fc.array(routeArb, { minLength: 1, maxLength: 7 }),
        (models, make, routes) => {
          const policies = models.map((m, i) => policy(m.statements, LISTS, m.defaultAction, `P${i}`, 65000));
          for (const filter of [policies[0], new PolicyChain('chain', policies)]) {
            if (filter.acceptsAll || filter.rejectsAll) flagged++;
            expect(filter.acceptsAll && filter.rejectsAll).toBe(false);
            const input = make();
            for (const route of routes) {
              const r = run(filter, route, input);
              if (filter.acceptsAll) expect(r).toEqual({ accept: true, attrs: input, nextHop: 'default' });
              if (filter.rejectsAll) expect(r.accept).toBe(false);
            }
          }
        },
      ),
      { numRuns: 500 },
    );
    expect(flagged).toBeGreaterThan(50);
  });
});
