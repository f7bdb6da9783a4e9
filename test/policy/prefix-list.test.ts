import { describe, expect, it } from 'vitest';
import { parseIpv4 } from '../../src/address/index.js';
import { Afi } from '../../src/bgp/wire/constants.js';
import { PrefixList } from '../../src/bgp/wire/prefix-list.js';
import {
  type CompiledPrefixList,
  compilePrefixList,
  NO_ENTRY,
  PolicyError,
  type PrefixListEntryModel,
  type PrefixListModel,
} from '../../src/policy/index.js';
import { prefix } from './helpers.js';

/** Both lookups: the linear scan and the trie. */
function compileBoth(model: PrefixListModel): CompiledPrefixList[] {
  return [compilePrefixList(model, 'test', 'linear'), compilePrefixList(model, 'test', 'trie')];
}

function permits(list: CompiledPrefixList, route: string): boolean {
  const p = prefix(route);
  const w = p.afi === Afi.IPV4 ? Uint32Array.of(parseIpv4(p.addr)) : PrefixList.from(Afi.IPV6, [p]).words;
  return list.permits(p.afi, w, 0, p.len);
}

type Row = [entry: Omit<PrefixListEntryModel, 'action'>, route: string, matches: boolean];

// FRR's prefix_list_entry_match: inside the entry prefix, then the length rule.
const ROWS: Row[] = [
  // Neither ge nor le: the exact prefix only.
  [{ prefix: '10.0.0.0/8' }, '10.0.0.0/8', true],
  [{ prefix: '10.0.0.0/8' }, '10.0.0.0/9', false],
  [{ prefix: '10.0.0.0/8' }, '10.0.0.0/7', false],
  [{ prefix: '10.0.0.0/8' }, '11.0.0.0/8', false],
  [{ prefix: '192.0.2.1/32' }, '192.0.2.1/32', true],
  [{ prefix: '192.0.2.1/32' }, '192.0.2.0/32', false],
  // ge only: from ge up to the family's maximum.
  [{ prefix: '10.0.0.0/8', ge: 16 }, '10.1.0.0/16', true],
  [{ prefix: '10.0.0.0/8', ge: 16 }, '10.1.2.0/24', true],
  [{ prefix: '10.0.0.0/8', ge: 16 }, '10.1.2.3/32', true],
  [{ prefix: '10.0.0.0/8', ge: 16 }, '10.0.0.0/8', false],
  [{ prefix: '10.0.0.0/8', ge: 16 }, '10.0.0.0/15', false],
  [{ prefix: '10.0.0.0/8', ge: 16 }, '11.1.0.0/16', false],
  [{ prefix: '10.0.0.0/8', ge: 8 }, '10.0.0.0/8', true],
  [{ prefix: '10.0.0.0/8', ge: 8 }, '10.255.255.255/32', true],
  // le only: from the prefix length up to le.
  [{ prefix: '10.0.0.0/8', le: 24 }, '10.0.0.0/8', true],
  [{ prefix: '10.0.0.0/8', le: 24 }, '10.1.0.0/16', true],
  [{ prefix: '10.0.0.0/8', le: 24 }, '10.1.2.0/24', true],
  [{ prefix: '10.0.0.0/8', le: 24 }, '10.1.2.0/25', false],
  [{ prefix: '10.0.0.0/8', le: 24 }, '10.0.0.0/7', false],
  [{ prefix: '10.0.0.0/8', le: 8 }, '10.0.0.0/8', true],
  [{ prefix: '10.0.0.0/8', le: 8 }, '10.0.0.0/9', false],
  [{ prefix: '10.0.0.0/8', le: 32 }, '10.9.9.9/32', true],
  [{ prefix: '10.0.0.0/8', le: 32 }, '10.0.0.0/8', true],
  // Both.
  [{ prefix: '10.0.0.0/8', ge: 16, le: 24 }, '10.1.0.0/16', true],
  [{ prefix: '10.0.0.0/8', ge: 16, le: 24 }, '10.1.2.0/24', true],
  [{ prefix: '10.0.0.0/8', ge: 16, le: 24 }, '10.0.0.0/8', false],
  [{ prefix: '10.0.0.0/8', ge: 16, le: 24 }, '10.0.0.0/12', false],
  [{ prefix: '10.0.0.0/8', ge: 16, le: 24 }, '10.1.2.0/25', false],
  [{ prefix: '10.0.0.0/8', ge: 24, le: 24 }, '10.1.2.0/24', true],
  [{ prefix: '10.0.0.0/8', ge: 24, le: 24 }, '10.1.0.0/23', false],
  [{ prefix: '10.0.0.0/8', ge: 24, le: 32 }, '10.1.0.0/23', false],
  // The default route and "any".
  [{ prefix: '0.0.0.0/0' }, '0.0.0.0/0', true],
  [{ prefix: '0.0.0.0/0' }, '10.0.0.0/8', false],
  [{ prefix: '0.0.0.0/0', le: 32 }, '0.0.0.0/0', true],
  [{ prefix: '0.0.0.0/0', le: 32 }, '203.0.113.7/32', true],
  [{ prefix: '0.0.0.0/0', ge: 32 }, '203.0.113.7/32', true],
  [{ prefix: '0.0.0.0/0', ge: 32 }, '203.0.113.0/24', false],
  [{ prefix: 'any' }, '0.0.0.0/0', true],
  [{ prefix: 'any' }, '198.18.3.0/24', true],
  // FRR reads a bound of 0 as no bound: "0.0.0.0/0 ge 0" is the exact default route.
  [{ prefix: '0.0.0.0/0', ge: 0 }, '0.0.0.0/0', true],
  [{ prefix: '0.0.0.0/0', ge: 0 }, '10.0.0.0/8', false],
  [{ prefix: '0.0.0.0/0', le: 0 }, '10.0.0.0/8', false],
  [{ prefix: '198.18.0.0/15', le: 32 }, '198.19.255.255/32', true],
  [{ prefix: '198.18.0.0/15', le: 32 }, '198.20.0.0/16', false],
  [{ prefix: '198.18.0.0/15', le: 32 }, '198.16.0.0/14', false],
  // IPv6.
  [{ prefix: '2001:db8::/32', le: 48 }, '2001:db8:1::/48', true],
  [{ prefix: '2001:db8::/32', le: 48 }, '2001:db8::/32', true],
  [{ prefix: '2001:db8::/32', le: 48 }, '2001:db8:1:1::/64', false],
  [{ prefix: '2001:db8::/32', le: 48 }, '2001:db9::/32', false],
  [{ prefix: '2001:db8::/32', ge: 64 }, '2001:db8:0:1::/64', true],
  [{ prefix: '2001:db8::/32', ge: 64 }, '2001:db8::1/128', true],
  [{ prefix: '2001:db8::/32', ge: 64 }, '2001:db8::/48', false],
  [{ prefix: '::/0', ge: 128 }, '2001:db8::1/128', true],
  [{ prefix: '::/0', ge: 128 }, '2001:db8::/64', false],
  [{ prefix: '2001:db8::8000:0:0:0/65' }, '2001:db8::8000:0:0:0/65', true],
  [{ prefix: '2001:db8::8000:0:0:0/65' }, '2001:db8::/65', false],
  [{ prefix: '2001:db8:0:0:8000::/65', le: 128 }, '2001:db8::8000:0:0:1/128', true],
  [{ prefix: '2001:db8::/127' }, '2001:db8::/127', true],
  [{ prefix: '2001:db8::1/128' }, '2001:db8::1/128', true],
  [{ prefix: '2001:db8::1/128' }, '2001:db8::/128', false],
  [{ prefix: 'any' }, '2001:db8::/32', true],
];

describe('prefix list entry semantics (FRR ge/le rules)', () => {
  for (const [entry, route, matches] of ROWS) {
    const text = `${entry.prefix}${entry.ge !== undefined ? ` ge ${entry.ge}` : ''}${entry.le !== undefined ? ` le ${entry.le}` : ''}`;
    it(`${text} ${matches ? 'matches' : 'does not match'} ${route}`, () => {
      const family = route.includes(':') ? 'ipv6' : 'ipv4';
      for (const action of ['permit', 'deny'] as const) {
        for (const list of compileBoth({ name: 'L', family, entries: [{ ...entry, action }] })) {
          const p = prefix(route);
          const w =
            p.afi === Afi.IPV4 ? Uint32Array.of(parseIpv4(p.addr)) : PrefixList.from(Afi.IPV6, [p]).words;
          const e = p.afi === Afi.IPV4 ? list.lookupIpv4(w[0], p.len) : list.lookupIpv6(w, 0, p.len);
          expect(e).toBe(matches ? 0 : NO_ENTRY);
          expect(permits(list, route)).toBe(matches && action === 'permit');
        }
      }
    });
  }
});

describe('prefix list evaluation', () => {
  it('the first matching entry by seq decides, and no match denies', () => {
    const model: PrefixListModel = {
      name: 'L',
      entries: [
        { seq: 20, action: 'permit', prefix: '10.0.0.0/8', le: 32 },
        { seq: 10, action: 'deny', prefix: '10.1.0.0/16', le: 32 },
      ],
    };
    for (const list of compileBoth(model)) {
      expect(list.seqs).toEqual([10, 20]);
      expect(permits(list, '10.1.2.0/24')).toBe(false);
      expect(permits(list, '10.2.0.0/16')).toBe(true);
      expect(list.seqs[list.lookupIpv4(parseIpv4('10.1.2.0'), 24)]).toBe(10);
      expect(list.seqs[list.lookupIpv4(parseIpv4('10.2.0.0'), 16)]).toBe(20);
      expect(permits(list, '11.0.0.0/8')).toBe(false);
    }
  });

  it('numbers entries without seq as FRR does: highest so far, rounded down to 5, plus 5', () => {
    const list = compilePrefixList({
      name: 'L',
      entries: [
        { action: 'permit', prefix: '10.0.0.0/8' },
        { action: 'permit', prefix: '10.1.0.0/16' },
        { seq: 12, action: 'permit', prefix: '10.2.0.0/16' },
        { action: 'permit', prefix: '10.3.0.0/16' },
        { seq: 1, action: 'permit', prefix: '10.4.0.0/16' },
      ],
    });
    expect(list.seqs).toEqual([1, 5, 10, 12, 15]);
  });

  it('an empty list denies everything', () => {
    for (const list of compileBoth({ name: 'L', family: 'ipv4', entries: [] })) {
      expect(permits(list, '0.0.0.0/0')).toBe(false);
      expect(permits(list, '10.0.0.0/8')).toBe(false);
    }
  });

  it('never permits a prefix of the other family', () => {
    const v4 = compilePrefixList({
      name: 'L',
      entries: [{ action: 'permit', prefix: 'any' }],
      family: 'ipv4',
    });
    const v6 = compilePrefixList({ name: 'L', entries: [{ action: 'permit', prefix: '::/0', le: 128 }] });
    expect(v6.afi).toBe(Afi.IPV6);
    expect(permits(v4, '2001:db8::/32')).toBe(false);
    expect(permits(v6, '10.0.0.0/8')).toBe(false);
    expect(v6.permitsIpv4(0, 0)).toBe(false);
    expect(v4.lookupIpv6(new Uint32Array(4), 0, 0)).toBe(NO_ENTRY);
  });

  it('ignores the bits past the prefix length, as PrefixList keeps them as received', () => {
    for (const list of compileBoth({
      name: 'L',
      entries: [{ action: 'permit', prefix: '10.0.0.0/8', le: 16 }],
    })) {
      expect(list.permitsIpv4(parseIpv4('10.1.255.255'), 16)).toBe(true);
      expect(list.permitsIpv4(parseIpv4('11.255.255.255'), 7)).toBe(false);
      // 10/7 with stray bits that would look like 10.x inside the /8.
      expect(list.permitsIpv4(parseIpv4('10.0.0.0'), 7)).toBe(false);
    }
  });

  it('reads IPv6 prefixes at their offset in a PrefixList', () => {
    const routes = PrefixList.from(Afi.IPV6, [
      prefix('2001:db8:1::/48'),
      prefix('2001:db9::/48'),
      prefix('2001:db8:2::/64'),
    ]);
    for (const list of compileBoth({
      name: 'L',
      entries: [{ action: 'permit', prefix: '2001:db8::/32', le: 48 }],
    })) {
      const got = [0, 1, 2].map((i) => list.permits(Afi.IPV6, routes.words, i * 4, routes.lens[i]));
      expect(got).toEqual([true, false, false]);
    }
  });

  it('finds the first entry among many with the trie', () => {
    const entries: PrefixListEntryModel[] = [];
    for (let i = 0; i < 200; i++) entries.push({ action: 'deny', prefix: `10.${i}.0.0/16`, le: 24 });
    entries.push({ action: 'permit', prefix: '10.0.0.0/8', le: 32 });
    entries.push({ action: 'deny', prefix: '10.7.7.0/24' });
    for (const list of compileBoth({ name: 'L', entries })) {
      expect(permits(list, '10.7.7.0/24')).toBe(false);
      expect(list.seqs[list.lookupIpv4(parseIpv4('10.7.7.0'), 24)]).toBe(40);
      expect(permits(list, '10.7.7.0/25')).toBe(true);
      expect(permits(list, '10.250.0.0/16')).toBe(true);
      expect(permits(list, '11.0.0.0/16')).toBe(false);
    }
  });
});

describe('prefix list validation', () => {
  const bad: [string, PrefixListModel, string, string][] = [
    [
      'ge below the length',
      { name: 'L', entries: [{ action: 'permit', prefix: '10.0.0.0/16', ge: 8 }] },
      'invalid-length-range',
      'prefixLists[L].entries[0].ge',
    ],
    [
      'le below the length',
      { name: 'L', entries: [{ action: 'permit', prefix: '10.0.0.0/16', le: 15 }] },
      'invalid-length-range',
      'prefixLists[L].entries[0].le',
    ],
    [
      'ge above le',
      { name: 'L', entries: [{ action: 'permit', prefix: '10.0.0.0/8', ge: 24, le: 16 }] },
      'invalid-length-range',
      'prefixLists[L].entries[0]',
    ],
    [
      'le past 32',
      { name: 'L', entries: [{ action: 'permit', prefix: '10.0.0.0/8', le: 33 }] },
      'invalid-number',
      'prefixLists[L].entries[0].le',
    ],
    [
      'ge not an integer',
      { name: 'L', entries: [{ action: 'permit', prefix: '10.0.0.0/8', ge: 16.5 }] },
      'invalid-number',
      'prefixLists[L].entries[0].ge',
    ],
    [
      'host bits set',
      { name: 'L', entries: [{ action: 'permit', prefix: '10.0.0.1/8' }] },
      'invalid-prefix',
      'prefixLists[L].entries[0].prefix',
    ],
    [
      'IPv6 host bits set',
      { name: 'L', entries: [{ action: 'permit', prefix: '2001:db8::1/64' }] },
      'invalid-prefix',
      'prefixLists[L].entries[0].prefix',
    ],
    [
      'no length',
      { name: 'L', entries: [{ action: 'permit', prefix: '10.0.0.0' }] },
      'invalid-prefix',
      'prefixLists[L].entries[0].prefix',
    ],
    [
      'length past 32',
      { name: 'L', entries: [{ action: 'permit', prefix: '10.0.0.0/33' }] },
      'invalid-prefix',
      'prefixLists[L].entries[0].prefix',
    ],
    [
      'bad address',
      { name: 'L', entries: [{ action: 'permit', prefix: '10.0.300.0/24' }] },
      'invalid-prefix',
      'prefixLists[L].entries[0].prefix',
    ],
    [
      'mixed families',
      {
        name: 'L',
        entries: [
          { action: 'permit', prefix: '10.0.0.0/8' },
          { action: 'permit', prefix: '2001:db8::/32' },
        ],
      },
      'family-mismatch',
      'prefixLists[L].entries[1].prefix',
    ],
    [
      'family says otherwise',
      { name: 'L', family: 'ipv6', entries: [{ action: 'permit', prefix: '10.0.0.0/8' }] },
      'family-mismatch',
      'prefixLists[L].entries[0].prefix',
    ],
    [
      '"any" with le',
      { name: 'L', entries: [{ action: 'permit', prefix: 'any', le: 24 }], family: 'ipv4' },
      'invalid-length-range',
      'prefixLists[L].entries[0]',
    ],
    [
      'only "any" without family',
      { name: 'L', entries: [{ action: 'permit', prefix: 'any' }] },
      'family-mismatch',
      'prefixLists[L]',
    ],
    [
      'bad action',
      { name: 'L', entries: [{ action: 'allow' as 'permit', prefix: '10.0.0.0/8' }] },
      'invalid-value',
      'prefixLists[L].entries[0].action',
    ],
    [
      'seq 0',
      { name: 'L', entries: [{ seq: 0, action: 'permit', prefix: '10.0.0.0/8' }] },
      'invalid-number',
      'prefixLists[L].entries[0].seq',
    ],
    [
      'duplicate seq',
      {
        name: 'L',
        entries: [
          { seq: 5, action: 'permit', prefix: '10.0.0.0/8' },
          { action: 'deny', prefix: '11.0.0.0/8', seq: 5 },
        ],
      },
      'duplicate-seq',
      'prefixLists[L].entries[1].seq',
    ],
    [
      'an entry that is not an object',
      { name: 'L', entries: [null as unknown as PrefixListEntryModel] },
      'invalid-value',
      'prefixLists[L].entries[0]',
    ],
  ];
  for (const [what, model, kind, path] of bad) {
    it(`refuses ${what}`, () => {
      let err: unknown;
      try {
        compilePrefixList(model);
      } catch (e) {
        err = e;
      }
      expect(err).toBeInstanceOf(PolicyError);
      expect((err as PolicyError).kind).toBe(kind);
      expect((err as PolicyError).path).toBe(path);
    });
  }

  it('accepts the bounds FRR accepts: ge and le equal to the length, le 32, ge 32, ge 128', () => {
    const v4 = compilePrefixList({
      name: 'L',
      entries: [
        { action: 'permit', prefix: '10.0.0.0/8', ge: 8, le: 8 },
        { action: 'permit', prefix: '10.0.0.0/8', le: 32 },
        { action: 'permit', prefix: '10.0.0.0/8', ge: 32 },
      ],
    });
    const v6 = compilePrefixList({
      name: 'L6',
      entries: [{ action: 'permit', prefix: '2001:db8::/32', ge: 128 }],
    });
    expect(v4.size).toBe(3);
    expect(v6.size).toBe(1);
  });
});
