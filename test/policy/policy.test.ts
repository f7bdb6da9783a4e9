import { describe, expect, it } from 'vitest';
import { parseIpv4 } from '../../src/address/index.js';
import { Afi } from '../../src/bgp/wire/constants.js';
import { PrefixList } from '../../src/bgp/wire/prefix-list.js';
import {
  compilePolicies,
  effectivePolicy,
  type ListDefinitions,
  PolicyChain,
  type PolicyDefinitions,
  PolicyError,
} from '../../src/policy/index.js';
import { accepted, attrs, attrs6, policy, prefix, run } from './helpers.js';

const c = (hi: number, lo: number) => ((hi << 16) | lo) >>> 0;

const LISTS: ListDefinitions = {
  prefixLists: [
    { name: 'LAB', entries: [{ action: 'permit', prefix: '198.18.0.0/15', le: 32 }] },
    { name: 'HOSTS', entries: [{ action: 'permit', prefix: '198.18.0.0/15', ge: 32 }] },
    { name: 'LAB6', entries: [{ action: 'permit', prefix: '2001:db8::/32', le: 128 }] },
    { name: 'NH', entries: [{ action: 'permit', prefix: '198.18.0.0/24', le: 32 }] },
    { name: 'NH6', entries: [{ action: 'permit', prefix: '2001:db8::/64', le: 128 }] },
  ],
  communityLists: [{ name: 'TAGGED', entries: [{ action: 'permit', communities: ['65000:100'] }] }],
};

describe('statements', () => {
  it('the first matching statement decides', () => {
    const p = policy(
      [
        { name: 'hosts', match: { prefixList: 'HOSTS' }, set: { localPref: 300 }, action: 'accept' },
        { name: 'lab', match: { prefixList: 'LAB' }, set: { localPref: 200 }, action: 'accept' },
        { name: 'drop', match: { prefixList: 'LAB' }, action: 'reject' },
      ],
      LISTS,
    );
    expect(accepted(run(p, '198.18.0.1/32', attrs())).localPref).toBe(300);
    expect(accepted(run(p, '198.18.0.0/24', attrs())).localPref).toBe(200);
    expect(run(p, '203.0.113.0/24', attrs())).toEqual({
      accept: false,
      reason: 'policy P: no statement matched, default action reject',
    });
  });

  it('a reject statement names itself in the reason, by name or by position', () => {
    const p = policy(
      [
        { name: 'no-hosts', match: { prefixList: 'HOSTS' }, action: 'reject' },
        { match: { prefixList: 'LAB' }, action: 'reject' },
      ],
      LISTS,
      'accept',
    );
    expect(run(p, '198.18.0.1/32', attrs())).toEqual({
      accept: false,
      reason: 'policy P statement no-hosts: reject',
    });
    expect(run(p, '198.18.0.0/24', attrs())).toEqual({
      accept: false,
      reason: 'policy P statement #2: reject',
    });
    expect(run(p, '203.0.113.0/24', attrs()).accept).toBe(true);
  });

  it('a statement without match matches every route', () => {
    const p = policy([{ set: { med: 7 }, action: 'accept' }]);
    expect(accepted(run(p, '203.0.113.0/24', attrs())).med).toBe(7);
    expect(accepted(run(p, '2001:db8::/32', attrs6())).med).toBe(7);
  });

  it('every condition of a match must hold', () => {
    const p = policy([{ match: { prefixList: 'LAB', communityList: 'TAGGED' }, action: 'accept' }], LISTS);
    expect(run(p, '198.18.0.0/24', attrs({ communities: [c(65000, 100)] })).accept).toBe(true);
    expect(run(p, '198.18.0.0/24', attrs()).accept).toBe(false);
    expect(run(p, '203.0.113.0/24', attrs({ communities: [c(65000, 100)] })).accept).toBe(false);
  });

  it('next applies the sets and goes on; later matches see the changed attributes', () => {
    const p = policy(
      [
        {
          match: { prefixList: 'LAB' },
          set: { communities: { add: ['65000:100'] }, med: 10 },
          action: 'next',
        },
        { match: { communityList: 'TAGGED' }, set: { localPref: 250 }, action: 'accept' },
      ],
      LISTS,
    );
    const out = accepted(run(p, '198.18.0.0/24', attrs()));
    expect(out).toMatchObject({ med: 10, localPref: 250, communities: [c(65000, 100)] });
    expect(run(p, '203.0.113.0/24', attrs()).accept).toBe(false);
  });

  it('default actions: reject (implicit), accept, and next which alone rejects', () => {
    const stmts = [{ match: { prefixList: 'HOSTS' }, action: 'reject' as const }];
    expect(run(policy(stmts, LISTS), '198.18.0.0/24', attrs()).accept).toBe(false);
    const a = attrs();
    expect(accepted(run(policy(stmts, LISTS, 'accept'), '198.18.0.0/24', a))).toBe(a);
    expect(run(policy(stmts, LISTS, 'next'), '198.18.0.0/24', a)).toEqual({
      accept: false,
      reason: 'policy P: no statement accepted the route',
    });
  });

  it('the default action keeps what next statements set', () => {
    const p = policy([{ set: { localPref: 50 }, action: 'next' }], {}, 'accept');
    expect(accepted(run(p, '198.18.0.0/24', attrs())).localPref).toBe(50);
  });

  it('matches the family', () => {
    const p = policy([{ match: { family: 'ipv6' }, action: 'accept' }]);
    expect(run(p, '2001:db8::/32', attrs6()).accept).toBe(true);
    expect(run(p, '198.18.0.0/24', attrs()).accept).toBe(false);
  });

  it('a prefix list of one family never matches routes of the other', () => {
    const p = policy([{ match: { prefixList: 'LAB' }, action: 'accept' }], LISTS);
    expect(run(p, '2001:db8::/32', attrs6()).accept).toBe(false);
  });

  it('matches the next hop, from NEXT_HOP for IPv4 and MP_REACH_NLRI for IPv6', () => {
    const p = policy(
      [
        { match: { nextHop: 'NH' }, action: 'accept' },
        { match: { nextHop: 'NH6' }, action: 'accept' },
      ],
      LISTS,
    );
    expect(run(p, '203.0.113.0/24', attrs({ nextHop: parseIpv4('198.18.0.7') })).accept).toBe(true);
    expect(run(p, '203.0.113.0/24', attrs({ nextHop: parseIpv4('198.18.1.7') })).accept).toBe(false);
    expect(run(p, '2001:db8:5::/48', attrs6('2001:db8::7')).accept).toBe(true);
    expect(run(p, '2001:db8:5::/48', attrs6('2001:db8:1::7')).accept).toBe(false);
    // An IPv4 route whose UPDATE also carried IPv6 MP_REACH_NLRI: NEXT_HOP is its next hop.
    const mixed = attrs6('2001:db8::7', { nextHop: parseIpv4('198.18.0.7') });
    expect(run(p, '203.0.113.0/24', mixed).accept).toBe(true);
    expect(run(p, '203.0.113.0/24', attrs6('2001:db8::7')).accept).toBe(false);
  });

  it('says whether it reads the next hop: a match on it, or keeping it (set next_hop unchanged)', () => {
    const reads = (statements: Parameters<typeof policy>[0], d: 'accept' | 'reject' = 'reject') =>
      policy(statements, LISTS, d).readsNextHop;
    expect(reads([{ match: { nextHop: 'NH' }, action: 'accept' }])).toBe(true);
    expect(reads([{ match: { prefixList: 'LAB' }, set: { nextHop: 'unchanged' }, action: 'accept' }])).toBe(
      true,
    );
    expect(reads([{ set: { nextHop: 'self' }, action: 'accept' }])).toBe(false);
    expect(reads([{ set: { nextHop: '198.18.0.9' }, action: 'accept' }])).toBe(false);
    expect(reads([{ match: { prefixList: 'LAB' }, action: 'accept' }])).toBe(false);
    expect(reads([], 'accept')).toBe(false);
    // Everything accepted as it is, or everything rejected, before the statement could run.
    expect(reads([{ action: 'accept' }, { match: { nextHop: 'NH' }, action: 'reject' }])).toBe(false);
    expect(reads([{ action: 'reject' }, { set: { nextHop: 'unchanged' }, action: 'accept' }])).toBe(false);
  });

  it('evaluate, evaluateIpv4 and evaluatePrefix agree, and IPv6 reads words at their offset', () => {
    const p = policy(
      [
        { match: { prefixList: 'LAB' }, action: 'accept' },
        { match: { prefixList: 'LAB6' }, action: 'accept' },
      ],
      LISTS,
    );
    const a = attrs();
    expect(p.evaluateIpv4(parseIpv4('198.18.3.0'), 24, a)).toBe(run(p, '198.18.3.0/24', a));
    expect(p.evaluate(Afi.IPV4, Uint32Array.of(0, parseIpv4('198.18.3.0')), 1, 24, a)).toBe(
      run(p, '198.18.3.0/24', a),
    );
    const list = PrefixList.from(Afi.IPV6, [prefix('2001:db9::/32'), prefix('2001:db8:7::/48')]);
    const v6 = attrs6();
    expect(p.evaluate(Afi.IPV6, list.words, 0, 32, v6).accept).toBe(false);
    expect(p.evaluate(Afi.IPV6, list.words, 4, 48, v6).accept).toBe(true);
  });
});

describe('memoisation', () => {
  it('gives the same result object for prefixes that share attributes, and the same output attributes', () => {
    const p = policy(
      [{ match: { prefixList: 'LAB' }, set: { localPref: 200 }, action: 'accept' }],
      LISTS,
      'accept',
    );
    const a = attrs();
    const r1 = run(p, '198.18.0.0/24', a);
    const r2 = run(p, '198.18.7.0/24', a);
    expect(r2).toBe(r1);
    expect(accepted(r1)).not.toBe(a);
    // Another prefix, another attribute object in between, then back.
    run(p, '198.18.9.0/24', attrs());
    const r3 = run(p, '198.19.0.0/16', a);
    expect(accepted(r3)).toBe(accepted(r1));
    // A route the statement does not match keeps its attributes.
    expect(accepted(run(p, '203.0.113.0/24', a))).toBe(a);
  });

  it('keeps outputs apart per family and per statement path', () => {
    const p = policy(
      [
        { match: { prefixList: 'HOSTS' }, set: { med: 1 }, action: 'next' },
        { set: { localPref: 9 }, action: 'accept' },
      ],
      LISTS,
    );
    const a = attrs6('2001:db8::1', { nextHop: parseIpv4('198.18.0.2') });
    const host = accepted(run(p, '198.18.0.1/32', a));
    const net = accepted(run(p, '198.18.0.0/24', a));
    const six = accepted(run(p, '2001:db8::/32', a));
    expect(host).toMatchObject({ med: 1, localPref: 9 });
    expect(net.med).toBeUndefined();
    expect(net.localPref).toBe(9);
    expect(new Set([host, net, six]).size).toBe(3);
    expect(accepted(run(p, '198.18.0.5/32', a))).toBe(host);
    expect(accepted(run(p, '2001:db8:1::/48', a))).toBe(six);
  });
});

describe('chains of policies', () => {
  const defs: PolicyDefinitions = {
    ...LISTS,
    policies: [
      {
        name: 'tag',
        statements: [
          { match: { prefixList: 'LAB' }, set: { communities: { add: ['65000:100'] } }, action: 'next' },
        ],
        defaultAction: 'next',
      },
      {
        name: 'no-hosts',
        statements: [{ match: { prefixList: 'HOSTS' }, action: 'reject' }],
        defaultAction: 'next',
      },
      {
        name: 'pref',
        statements: [
          { match: { communityList: 'TAGGED' }, set: { localPref: 120, nextHop: 'self' }, action: 'accept' },
        ],
      },
      { name: 'all', statements: [], defaultAction: 'accept' },
    ],
  };
  const p = compilePolicies(defs);
  const chain = new PolicyChain('import policy of peer x', [
    p.get('tag')!,
    p.get('no-hosts')!,
    p.get('pref')!,
  ]);

  it('hands what one policy set to the next', () => {
    const r = run(chain, '198.18.0.0/24', attrs());
    expect(r).toMatchObject({ accept: true, nextHop: 'self' });
    expect(accepted(r)).toMatchObject({ localPref: 120, communities: [c(65000, 100)] });
  });

  it('stops at a rejection', () => {
    expect(run(chain, '198.18.0.1/32', attrs())).toEqual({
      accept: false,
      reason: 'policy no-hosts statement #1: reject',
    });
  });

  it('stops at the first acceptance', () => {
    const accepting = new PolicyChain('c', [p.get('all')!, p.get('no-hosts')!]);
    expect(run(accepting, '198.18.0.1/32', attrs()).accept).toBe(true);
  });

  it('says it accepts everything unchanged only when its first policy does', () => {
    expect(new PolicyChain('c', [p.get('all')!, p.get('no-hosts')!]).acceptsAll).toBe(true);
    expect(chain.acceptsAll || chain.rejectsAll).toBe(false);
    expect(new PolicyChain('empty', []).rejectsAll).toBe(true);
  });

  it('reads the next hop when one of its policies does, unless it accepts or rejects everything', () => {
    const keep = policy([{ set: { nextHop: 'unchanged' }, action: 'accept' }]);
    expect(keep.readsNextHop).toBe(true);
    expect(chain.readsNextHop).toBe(false);
    expect(new PolicyChain('c', [p.get('tag')!, keep]).readsNextHop).toBe(true);
    // The first policy decides every route: the second never runs.
    expect(new PolicyChain('c', [p.get('all')!, keep]).readsNextHop).toBe(false);
  });

  it('rejects when every policy passed the route on', () => {
    const passing = new PolicyChain('export policy of peer y', [p.get('tag')!, p.get('no-hosts')!]);
    expect(run(passing, '198.18.0.0/24', attrs())).toEqual({
      accept: false,
      reason: 'export policy of peer y: no policy accepted the route',
    });
  });

  it('is what effectivePolicy builds for several policies', () => {
    const peer = effectivePolicy({ id: 'x', ebgp: true, import: [p.get('tag')!, p.get('pref')!] });
    expect(peer.import).toBeInstanceOf(PolicyChain);
    expect(accepted(run(peer.import, '198.18.0.0/24', attrs())).localPref).toBe(120);
  });
});

describe('compiling', () => {
  function error(defs: PolicyDefinitions): PolicyError {
    try {
      compilePolicies(defs);
    } catch (e) {
      if (e instanceof PolicyError) return e;
      throw e;
    }
    throw new Error('compiled');
  }

  it('names the field of an unknown list', () => {
    const e = error({
      policies: [{ name: 'P', statements: [{ match: { prefixList: 'NOPE' }, action: 'accept' }] }],
    });
    expect(e.kind).toBe('unknown-list');
    expect(e.path).toBe('policies[P].statements[0].match.prefixList');
    expect(e.message).toContain('no prefix list named NOPE');
  });

  it('refuses misspelt fields instead of matching everything', () => {
    const e = error({
      policies: [{ name: 'P', statements: [{ match: { prefixlist: 'X' } as never, action: 'accept' }] }],
    });
    expect(e.path).toBe('policies[P].statements[0].match.prefixlist');
    expect(
      error({ policies: [{ name: 'P', statements: [{ set: { localpref: 1 } as never, action: 'accept' }] }] })
        .path,
    ).toBe('policies[P].statements[0].set.localpref');
  });

  it('refuses unknown actions, families and duplicate names', () => {
    expect(error({ policies: [{ name: 'P', statements: [{ action: 'permit' as never }] }] }).path).toBe(
      'policies[P].statements[0].action',
    );
    expect(error({ policies: [{ name: 'P', statements: [], defaultAction: 'deny' as never }] }).path).toBe(
      'policies[P].defaultAction',
    );
    expect(
      error({
        policies: [{ name: 'P', statements: [{ match: { family: 'ip' as never }, action: 'accept' }] }],
      }).path,
    ).toBe('policies[P].statements[0].match.family');
    const dup = error({
      policies: [
        { name: 'P', statements: [] },
        { name: 'P', statements: [] },
      ],
    });
    expect(dup.kind).toBe('duplicate-name');
    const dupList = error({
      prefixLists: [
        { name: 'L', family: 'ipv4', entries: [] },
        { name: 'L', family: 'ipv4', entries: [] },
      ],
      policies: [],
    });
    expect(dupList.path).toBe('prefixLists[L]');
  });

  it('refuses input that is not the model at all, with an error rather than a crash', () => {
    for (const junk of [
      null,
      1,
      'x',
      { policies: 'x' },
      { policies: [null] },
      { policies: [{ name: 'P' }] },
    ]) {
      expect(() => compilePolicies(junk as never)).toThrow(PolicyError);
    }
  });

  it('compiles a whole definition as the configuration would give it', () => {
    const policies = compilePolicies(
      {
        prefixLists: [
          { name: 'OVN-FIPS', entries: [{ seq: 10, action: 'permit', prefix: '198.18.16.0/20', ge: 32 }] },
        ],
        communityLists: [{ name: 'NO-EXPORT', entries: [{ action: 'permit', communities: ['no-export'] }] }],
        asPathLists: [{ name: 'FROM-65010', entries: [{ action: 'permit', regex: '^65010_' }] }],
        policies: [
          {
            name: 'TO-FABRIC',
            statements: [
              { name: 'never', match: { communityList: 'NO-EXPORT' }, action: 'reject' },
              {
                name: 'fips',
                match: { prefixList: 'OVN-FIPS' },
                set: { med: 0, asPathPrepend: { count: 1 } },
                action: 'accept',
              },
            ],
          },
          {
            name: 'FROM-FABRIC',
            statements: [{ match: { asPath: 'FROM-65010' }, set: { localPref: 150 }, action: 'accept' }],
          },
        ],
      },
      { localAs: 65000 },
    );
    expect([...policies.keys()]).toEqual(['TO-FABRIC', 'FROM-FABRIC', 'accept-all', 'reject-all']);
    const out = policies.get('TO-FABRIC')!;
    expect(accepted(run(out, '198.18.16.5/32', attrs({ path: [] }))).asPath).toEqual([
      { type: 2, asns: [65000] },
    ]);
    expect(run(out, '198.18.16.0/24', attrs()).accept).toBe(false);
    expect(
      accepted(run(policies.get('FROM-FABRIC')!, '203.0.113.0/24', attrs({ path: [65010, 65020] })))
        .localPref,
    ).toBe(150);
  });
});
