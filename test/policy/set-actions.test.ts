import { describe, expect, it } from 'vitest';
import { addressBytes, parseIpv4 } from '../../src/address/index.js';
import { makeAttributes, type PathAttributes } from '../../src/bgp/wire/attributes/types.js';
import { AS_TRANS, AsPathSegmentType, AttrFlag } from '../../src/bgp/wire/constants.js';
import { PolicyError, type SetModel, WellKnownCommunity } from '../../src/policy/index.js';
import { accepted, attrs, attrs6, policy, run, seq } from './helpers.js';

const c = (hi: number, lo: number) => ((hi << 16) | lo) >>> 0;
const SEQ = AsPathSegmentType.AS_SEQUENCE;
const SET = AsPathSegmentType.AS_SET;

/** The attributes after one accept statement with `set`, for an IPv4 route. */
function apply(set: SetModel, input: PathAttributes, route = '198.18.0.0/24', localAs?: number) {
  return accepted(run(policy([{ set, action: 'accept' }], {}, 'reject', 'P', localAs), route, input));
}

describe('set local-pref and MED', () => {
  it('sets LOCAL_PREF', () => {
    expect(apply({ localPref: 200 }, attrs({ localPref: 100 })).localPref).toBe(200);
    expect(apply({ localPref: 0 }, attrs()).localPref).toBe(0);
  });

  const med: [number | string, number | undefined, number][] = [
    [50, 100, 50],
    [50, undefined, 50],
    ['+10', 100, 110],
    ['+10', undefined, 10],
    ['-10', 100, 90],
    ['-10', 5, 0],
    ['-10', undefined, 0],
    ['+1', 0xffffffff, 0xffffffff],
    ['+4294967295', 7, 0xffffffff],
  ];
  for (const [value, before, after] of med) {
    it(`med ${value} on ${before ?? 'no MED'} gives ${after}`, () => {
      expect(apply({ med: value }, attrs({ med: before })).med).toBe(after);
    });
  }

  for (const bad of ['10', '+x', '*5', -1, 2 ** 32, '+', 1.5]) {
    it(`refuses med ${JSON.stringify(bad)}`, () => {
      expect(() => policy([{ set: { med: bad }, action: 'accept' }])).toThrow(/statements\[0\]\.set\.med/);
    });
  }

  it('refuses a local-pref out of range', () => {
    expect(() => policy([{ set: { localPref: 2 ** 32 }, action: 'accept' }])).toThrow(PolicyError);
  });
});

describe('set communities', () => {
  const base = attrs({ communities: [c(65000, 1), c(65000, 2), c(65010, 5)] });

  it('adds the missing ones at the end, keeping the order', () => {
    const out = apply({ communities: { add: ['65000:2', '65000:3', 'NO_EXPORT'] } }, base);
    expect(out.communities).toEqual([
      c(65000, 1),
      c(65000, 2),
      c(65010, 5),
      c(65000, 3),
      WellKnownCommunity.NO_EXPORT,
    ]);
  });

  it('adds to a route that had none', () => {
    expect(apply({ communities: { add: ['no-export'] } }, attrs()).communities).toEqual([
      WellKnownCommunity.NO_EXPORT,
    ]);
  });

  it('removes by value and by pattern', () => {
    expect(apply({ communities: { remove: ['65000:1'] } }, base).communities).toEqual([
      c(65000, 2),
      c(65010, 5),
    ]);
    expect(apply({ communities: { remove: ['65000:*'] } }, base).communities).toEqual([c(65010, 5)]);
    expect(apply({ communities: { remove: ['*:5'] } }, base).communities).toEqual([c(65000, 1), c(65000, 2)]);
  });

  it('drops the attribute when nothing is left', () => {
    const out = apply({ communities: { remove: ['*:*'] } }, base);
    expect(out.communities).toBeUndefined();
    expect(apply({ communities: { set: [] } }, base).communities).toBeUndefined();
  });

  it('replaces them all with set', () => {
    expect(apply({ communities: { set: ['65100:1', 'BLACKHOLE'] } }, base).communities).toEqual([
      c(65100, 1),
      WellKnownCommunity.BLACKHOLE,
    ]);
  });

  it('applies set, remove, delete-list, then add', () => {
    const p = policy(
      [
        {
          set: {
            communities: {
              set: ['65000:1', '65000:2', '65000:3'],
              remove: ['65000:1'],
              deleteList: 'D',
              add: ['65000:9'],
            },
          },
          action: 'accept',
        },
      ],
      { communityLists: [{ name: 'D', entries: [{ action: 'permit', communities: ['65000:2'] }] }] },
    );
    expect(accepted(run(p, '198.18.0.0/24', base)).communities).toEqual([c(65000, 3), c(65000, 9)]);
  });

  it('deletes with a community list: permit entries delete, deny entries protect', () => {
    const p = policy([{ set: { communities: { deleteList: 'D' } }, action: 'accept' }], {
      communityLists: [
        {
          name: 'D',
          entries: [
            { action: 'deny', communities: ['65000:2'] },
            { action: 'permit', communities: ['65000:*'] },
          ],
        },
      ],
    });
    expect(accepted(run(p, '198.18.0.0/24', base)).communities).toEqual([c(65000, 2), c(65010, 5)]);
  });

  it('refuses wildcards in add and set, and unknown delete lists', () => {
    expect(() => policy([{ set: { communities: { add: ['65000:*'] } }, action: 'accept' }])).toThrow(
      /set\.communities\.add\[0\]/,
    );
    expect(() => policy([{ set: { communities: { deleteList: 'nope' } }, action: 'accept' }])).toThrow(
      /set\.communities\.deleteList: no community list named nope/,
    );
  });

  it('sets large communities the same way', () => {
    const before = attrs({ largeCommunities: [65000, 1, 1, 65000, 2, 2] });
    expect(apply({ largeCommunities: { add: ['65000:3:3', '65000:1:1'] } }, before).largeCommunities).toEqual(
      [65000, 1, 1, 65000, 2, 2, 65000, 3, 3],
    );
    expect(apply({ largeCommunities: { remove: ['*:2:*'] } }, before).largeCommunities).toEqual([
      65000, 1, 1,
    ]);
    expect(apply({ largeCommunities: { set: ['1:2:3'] } }, before).largeCommunities).toEqual([1, 2, 3]);
    expect(apply({ largeCommunities: { remove: ['*:*:*'] } }, before).largeCommunities).toBeUndefined();
  });
});

describe('set AS path prepend', () => {
  it('puts copies of the AS in front of the first AS_SEQUENCE', () => {
    const out = apply({ asPathPrepend: { as: 65000, count: 3 } }, attrs({ path: [65001, 65002] }));
    expect(out.asPath).toEqual([{ type: SEQ, asns: [65000, 65000, 65000, 65001, 65002] }]);
  });

  it('prepends the local AS when no AS is given', () => {
    const out = apply({ asPathPrepend: { count: 2 } }, attrs({ path: [65001] }), '198.18.0.0/24', 64999);
    expect(out.asPath).toEqual([{ type: SEQ, asns: [64999, 64999, 65001] }]);
  });

  it('refuses a prepend without AS when the local AS is unknown, and counts out of 1..10', () => {
    expect(() => policy([{ set: { asPathPrepend: { count: 2 } }, action: 'accept' }])).toThrow(
      /asPathPrepend\.as/,
    );
    expect(() => policy([{ set: { asPathPrepend: { as: 1, count: 0 } }, action: 'accept' }])).toThrow(
      /count/,
    );
    expect(() => policy([{ set: { asPathPrepend: { as: 1, count: 11 } }, action: 'accept' }])).toThrow(
      /count/,
    );
  });

  it('starts a new segment before an AS_SET, on an empty path, and when the segment is full', () => {
    const before = attrs({ asPath: [{ type: SET, asns: [1, 2] }] });
    expect(apply({ asPathPrepend: { as: 7, count: 1 } }, before).asPath).toEqual([
      { type: SEQ, asns: [7] },
      { type: SET, asns: [1, 2] },
    ]);
    expect(apply({ asPathPrepend: { as: 7, count: 2 } }, attrs({ path: [] })).asPath).toEqual(seq(7, 7));
    const full = attrs({ asPath: [{ type: SEQ, asns: new Array(254).fill(9) }] });
    const out = apply({ asPathPrepend: { as: 7, count: 2 } }, full).asPath!;
    expect(out.map((segment) => segment.asns.length)).toEqual([2, 254]);
  });

  it('merges AS4_PATH first for a 2-octet speaker, so the prepend lands in the path that counts', () => {
    const before = attrs({
      asPath: seq(65002, AS_TRANS),
      as4Path: seq(4200000001),
      aggregator: { as: AS_TRANS, address: 1 },
      as4Aggregator: { as: 4200000001, address: 1 },
    });
    const out = apply({ asPathPrepend: { as: 4200000009, count: 1 } }, before);
    expect(out.asPath).toEqual(seq(4200000009, 65002, 4200000001));
    expect(out.as4Path).toBeUndefined();
    expect(out.aggregator).toEqual({ as: 4200000001, address: 1 });
    expect(out.as4Aggregator).toBeUndefined();
  });
});

describe('set next hop', () => {
  it('passes self and unchanged on as directives without touching the attributes', () => {
    const a = attrs();
    for (const nh of ['self', 'unchanged'] as const) {
      const r = run(policy([{ set: { nextHop: nh }, action: 'accept' }]), '198.18.0.0/24', a);
      expect(r).toMatchObject({ accept: true, nextHop: nh });
      expect(accepted(r)).toBe(a);
    }
    const plain = run(policy([{ action: 'accept' }]), '198.18.0.0/24', a);
    expect(plain).toMatchObject({ accept: true, nextHop: 'default' });
  });

  it('replaces the next hop of routes of the address family only', () => {
    const p = policy([{ set: { nextHop: '198.18.0.9' }, action: 'accept' }]);
    expect(accepted(run(p, '198.18.0.0/24', attrs())).nextHop).toBe(parseIpv4('198.18.0.9'));
    const v6 = attrs6();
    expect(accepted(run(p, '2001:db8::/48', v6))).toBe(v6);
  });

  it('replaces the global IPv6 next hop in MP_REACH_NLRI, keeping its SAFI', () => {
    const p = policy([{ set: { nextHop: '2001:db8::9' }, action: 'accept' }]);
    const out = accepted(run(p, '2001:db8:1::/48', attrs6('2001:db8::2')));
    expect(out.mpReach).toEqual({ afi: 2, safi: 1, nextHop: addressBytes('2001:db8::9'), reserved: 0 });
    const v4 = attrs();
    expect(accepted(run(p, '198.18.0.0/24', v4))).toBe(v4);
  });

  it('an address set for the family of the route is final: the directive says send it unchanged', () => {
    // The exporter applies RFC 4271 5.1.3 only to "default": a set address must survive it.
    const set = policy([{ set: { nextHop: '198.18.0.9' }, action: 'accept' }]);
    expect(run(set, '198.18.0.0/24', attrs())).toMatchObject({ accept: true, nextHop: 'unchanged' });
    expect(run(set, '2001:db8::/48', attrs6())).toMatchObject({ accept: true, nextHop: 'default' });
    const six = policy([{ set: { nextHop: '2001:db8::9' }, action: 'accept' }]);
    expect(run(six, '2001:db8::/48', attrs6())).toMatchObject({ accept: true, nextHop: 'unchanged' });
    expect(run(six, '198.18.0.0/24', attrs())).toMatchObject({ accept: true, nextHop: 'default' });
  });

  it('the last statement that sets the next hop decides, address or directive', () => {
    const chain = (first: string, second: string) =>
      policy([
        { set: { nextHop: first }, action: 'next' },
        { set: { nextHop: second }, action: 'accept' },
      ]);
    const selfThenAddress = run(chain('self', '198.18.0.9'), '198.18.0.0/24', attrs());
    expect(selfThenAddress).toMatchObject({ accept: true, nextHop: 'unchanged' });
    expect(accepted(selfThenAddress).nextHop).toBe(parseIpv4('198.18.0.9'));
    expect(run(chain('198.18.0.9', 'self'), '198.18.0.0/24', attrs())).toMatchObject({ nextHop: 'self' });
    expect(run(chain('unchanged', 'self'), '198.18.0.0/24', attrs())).toMatchObject({ nextHop: 'self' });
    expect(run(chain('self', 'unchanged'), '198.18.0.0/24', attrs())).toMatchObject({
      nextHop: 'unchanged',
    });
    // An address of the other family changes nothing, so the earlier directive stands.
    expect(run(chain('self', '2001:db8::9'), '198.18.0.0/24', attrs())).toMatchObject({ nextHop: 'self' });
  });

  it('refuses a next hop that is neither a directive nor an address', () => {
    expect(() => policy([{ set: { nextHop: 'peer' }, action: 'accept' }])).toThrow(/set\.nextHop/);
  });
});

describe('attributes built by a set clause', () => {
  it('have the fixed shape of makeAttributes and carry everything else over', () => {
    const unknown = [
      { type: 99, flags: AttrFlag.OPTIONAL | AttrFlag.TRANSITIVE, value: Uint8Array.of(1, 2) },
    ];
    const layout = [{ type: 1, flags: AttrFlag.TRANSITIVE }];
    const before = attrs({ med: 5, unknown, layout, atomicAggregate: true });
    const out = apply({ localPref: 300 }, before);
    expect(Object.keys(out)).toEqual(Object.keys(makeAttributes({})));
    expect(out).toEqual({ ...before, localPref: 300 });
    expect(out.unknown).toBe(unknown);
  });
});
