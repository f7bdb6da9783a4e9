import { describe, expect, it } from 'vitest';
import {
  compileExtCommunityList,
  compilePolicies,
  formatExtCommunity,
  PolicyError,
  parseExtCommunity,
  parseExtCommunityPattern,
} from '../../src/policy/index.js';
import { accepted, attrs, policy, run } from './helpers.js';

/** The 8 octets of extended communities given as hex strings, concatenated. */
function ext(...hex: string[]): Uint8Array {
  return Uint8Array.from(
    hex
      .join('')
      .match(/../g)!
      .map((b) => Number.parseInt(b, 16)),
  );
}
function hexOf(b: Uint8Array | undefined): string[] {
  if (!b) return [];
  const all = [...b].map((x) => x.toString(16).padStart(2, '0')).join('');
  return all.match(/.{16}/g) ?? [];
}
function bytesOf(text: string): string {
  const p = parseExtCommunity(text);
  return (p.hi.toString(16).padStart(8, '0') + p.lo.toString(16).padStart(8, '0')).toLowerCase();
}

describe('extended community text', () => {
  // type sub-type value, as RFC 4360 section 3-4, RFC 5668 section 2 lay them out.
  const rows: [string, string][] = [
    ['rt:65000:1', '0002' + 'fde8' + '00000001'], // two-octet AS: AS(2) local(4)
    ['rt:65000:4294967295', '0002' + 'fde8' + 'ffffffff'],
    ['rt 65000:1', '0002fde800000001'], // FRR's spelling
    ['RT:65000:1', '0002fde800000001'],
    ['soo:65000:7', '0003' + 'fde8' + '00000007'],
    ['rt:198.18.0.1:5', '0102' + 'c6120001' + '0005'], // IPv4: address(4) local(2)
    ['soo:198.18.0.1:65535', '0103c6120001ffff'],
    ['rt:4200000000:5', '0202' + 'fa56ea00' + '0005'], // four-octet AS: AS(4) local(2)
    ['rt:100L:5', '0202' + '00000064' + '0005'], // L forces the four-octet form
    ['rt:1.10:2', '0202' + '0001000a' + '0002'], // asdot
    ['0x030c:00000000000a', '030c00000000000a'], // transitive opaque, encapsulation
    ['0x4300:0000000000ff', '43000000000000ff'], // non-transitive opaque
    ['0X8000:ABCDEF012345', '8000abcdef012345'],
  ];
  for (const [text, hex] of rows) {
    it(`parses ${text}`, () => expect(bytesOf(text)).toBe(hex));
  }

  const bad: [string, RegExp][] = [
    ['', /expected an extended community/],
    ['65000:1', /expected an extended community/],
    ['rt:65000', /expected rt:GLOBAL:LOCAL/],
    ['rt:65000:x', /local administrator x is not a number/],
    ['rt:65000:4294967296', /local administrator 4294967296 is more than 4294967295 with a two-octet AS/],
    ['rt:198.18.0.1:65536', /local administrator 65536 is more than 65535 with an IPv4 address/],
    ['rt:4200000000:65536', /local administrator 65536 is more than 65535 with a four-octet AS/],
    ['rt:4294967296:1', /global administrator 4294967296 is neither an AS number nor an IPv4 address/],
    ['rt:198.18.0.256:1', /global administrator 198.18.0.256 is neither/],
    ['soo:foo:1', /global administrator foo is neither/],
    ['0x0002:fde8', /expected an extended community/],
    ['0x02:fde800000001', /expected an extended community/],
    ['color:1', /expected an extended community/],
  ];
  for (const [text, why] of bad) {
    it(`refuses ${JSON.stringify(text)} naming the field and the value`, () => {
      let caught: unknown;
      try {
        parseExtCommunity(text, 'extendedCommunityLists[X].entries[0].communities[1]');
      } catch (e) {
        caught = e;
      }
      expect(caught).toBeInstanceOf(PolicyError);
      const e = caught as PolicyError;
      expect(e.kind).toBe('invalid-extended-community');
      expect(e.message).toMatch(why);
      expect(e.message).toContain(
        `extendedCommunityLists[X].entries[0].communities[1]: ${JSON.stringify(text)}`,
      );
    });
  }

  it('takes wildcards in patterns only', () => {
    expect(() => parseExtCommunity('rt:65000:*', 'set')).toThrow(/wildcard cannot be set/);
    expect(() => parseExtCommunity('0x43**:*', 'set')).toThrow(/wildcard cannot be set/);
    expect(parseExtCommunityPattern('rt:65000:*', 'p')).toMatchObject({ loMask: 0 });
  });

  it('formats rt and soo by keyword and other types in hex', () => {
    expect(formatExtCommunity(0x0002fde8, 1)).toBe('rt:65000:1');
    expect(formatExtCommunity(0x0103c612, 0x00010005)).toBe('soo:198.18.0.1:5');
    expect(formatExtCommunity(0x0202fa56, 0xea000005)).toBe('rt:4200000000:5');
    expect(formatExtCommunity(0x02020000, 0x00640005)).toBe('rt:100L:5');
    expect(formatExtCommunity(0x42020000, 0x00640005)).toBe('0x4202:000000640005');
    expect(formatExtCommunity(0x030c0000, 0x0000000a)).toBe('0x030c:00000000000a');
  });
});

describe('extended community lists', () => {
  const list = compileExtCommunityList({
    name: 'E',
    entries: [
      { action: 'deny', communities: ['rt:65000:666'] },
      { action: 'permit', communities: ['rt:65000:1', 'soo:65000:1'] },
      { action: 'permit', communities: ['rt:198.18.0.1:*'] },
      { action: 'permit', communities: ['0x43**:*'] },
    ],
  });
  const RT1 = '0002fde800000001';
  const SOO1 = '0003fde800000001';
  const rows: [string, Uint8Array | undefined, boolean][] = [
    ['no extended communities', undefined, false],
    ['all of an entry', ext(SOO1, RT1), true],
    ['only part of an entry', ext(RT1), false],
    ['an IPv4 route target, any local administrator', ext('0102c61200010063'), true],
    ['another IPv4 address', ext('0102c61200020063'), false],
    ['any non-transitive opaque', ext('4300000000000001'), true],
    ['a transitive opaque', ext('0300000000000001'), false],
    ['an earlier deny', ext('0002fde80000029a', RT1, SOO1), false],
    ['an rt of the same numbers in the four-octet form', ext('02020000fde80001', SOO1), false],
  ];
  for (const [what, b, expected] of rows) {
    it(`${expected ? 'matches' : 'does not match'} ${what}`, () => expect(list.matches(b)).toBe(expected));
  }

  it('names the entry of a bad community', () => {
    expect(() =>
      compileExtCommunityList({
        name: 'E',
        entries: [{ action: 'permit', communities: ['rt:1:1', 'rt:x:1'] }],
      }),
    ).toThrow(/extendedCommunityLists\[E\]\.entries\[0\]\.communities\[1\]: "rt:x:1"/);
    expect(() =>
      compileExtCommunityList({ name: 'E', entries: [{ action: 'permit', communities: [] }] }),
    ).toThrow(/entries\[0\]\.communities: expected at least one/);
  });
});

describe('extended communities in a policy', () => {
  const lists = {
    extendedCommunityLists: [
      { name: 'RED', entries: [{ action: 'permit' as const, communities: ['rt:65000:100'] }] },
      { name: 'ANY-RT-65001', entries: [{ action: 'permit' as const, communities: ['rt:65001:*'] }] },
    ],
  };
  const red = ext('0002fde800000064');
  const blue = ext('0002fde8000000c8');

  it('accepts by route target and rejects the rest', () => {
    const p = policy([{ match: { extendedCommunityList: 'RED' }, action: 'accept' }], lists);
    expect(run(p, '198.18.0.0/24', attrs({ extCommunities: red })).accept).toBe(true);
    expect(run(p, '198.18.0.0/24', attrs({ extCommunities: blue })).accept).toBe(false);
    expect(run(p, '198.18.0.0/24', attrs()).accept).toBe(false);
  });

  it('sets, removes, deletes by list and adds, in that order, keeping the input untouched', () => {
    const input = ext('0002fde900000001', '0002fde900000002', '0002fde800000064', '4300000000000001');
    const before = hexOf(input);
    const p = policy(
      [
        {
          set: {
            extendedCommunities: {
              remove: ['0x43**:*'],
              deleteList: 'RED',
              add: ['soo:65000:1', 'rt:65001:1'],
            },
          },
          action: 'accept',
        },
      ],
      lists,
    );
    const out = accepted(run(p, '198.18.0.0/24', attrs({ extCommunities: input })));
    expect(hexOf(out.extCommunities)).toEqual(['0002fde900000001', '0002fde900000002', '0003fde800000001']);
    expect(hexOf(input)).toEqual(before);
    const replaced = policy(
      [{ set: { extendedCommunities: { set: ['rt:198.18.0.1:7'] } }, action: 'accept' }],
      lists,
    );
    expect(
      hexOf(accepted(run(replaced, '198.18.0.0/24', attrs({ extCommunities: input }))).extCommunities),
    ).toEqual(['0102c61200010007']);
    const cleared = policy([{ set: { extendedCommunities: { set: [] } }, action: 'accept' }], lists);
    expect(
      accepted(run(cleared, '198.18.0.0/24', attrs({ extCommunities: input }))).extCommunities,
    ).toBeUndefined();
  });

  it('refuses an unknown list and a bad community with the field at fault', () => {
    expect(() => policy([{ match: { extendedCommunityList: 'NOPE' }, action: 'accept' }], lists)).toThrow(
      /statements\[0\]\.match\.extendedCommunityList: no extended community list named NOPE/,
    );
    expect(() =>
      policy([{ set: { extendedCommunities: { add: ['rt:65000:*'] } }, action: 'accept' }], lists),
    ).toThrow(/set\.extendedCommunities\.add\[0\]: a wildcard cannot be set/);
  });
});

describe('built-in policies', () => {
  it('accept-all and reject-all exist without being defined', () => {
    const policies = compilePolicies({ policies: [] });
    const a = attrs({ extCommunities: ext('0002fde800000001') });
    expect(accepted(run(policies.get('accept-all')!, '198.18.0.0/24', a))).toBe(a);
    const r = run(policies.get('reject-all')!, '198.18.0.0/24', a);
    expect(r.accept).toBe(false);
    expect(policies.get('accept-all')!.acceptsAll).toBe(true);
    expect(policies.get('reject-all')!.rejectsAll).toBe(true);
  });

  it('cannot be redefined', () => {
    expect(() =>
      compilePolicies({ policies: [{ name: 'accept-all', statements: [{ action: 'reject' }] }] }),
    ).toThrow(/policies\[accept-all\]: accept-all is built in and cannot be redefined/);
  });
});
