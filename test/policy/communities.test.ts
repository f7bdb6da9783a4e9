import { describe, expect, it } from 'vitest';
import {
  compileCommunityList,
  compileLargeCommunityList,
  formatCommunity,
  formatLargeCommunity,
  PolicyError,
  parseCommunity,
  parseLargeCommunity,
  WellKnownCommunity,
} from '../../src/policy/index.js';
import { attrs, policy, run } from './helpers.js';

const c = (hi: number, lo: number) => ((hi << 16) | lo) >>> 0;

describe('community text', () => {
  const rows: [string, number][] = [
    ['65000:100', c(65000, 100)],
    ['0:0', 0],
    ['65535:65535', 0xffffffff],
    ['NO_EXPORT', 0xffffff01],
    ['no-export', 0xffffff01],
    ['NO_ADVERTISE', 0xffffff02],
    ['no-advertise', 0xffffff02],
    ['NO_EXPORT_SUBCONFED', 0xffffff03],
    ['local-AS', 0xffffff03],
    ['NO_PEER', 0xffffff04],
    ['no-peer', 0xffffff04],
    ['BLACKHOLE', 0xffff029a],
    ['blackhole', 0xffff029a],
    ['GRACEFUL_SHUTDOWN', 0xffff0000],
    ['graceful-shutdown', 0xffff0000],
    ['internet', 0],
    ['4294967041', 0xffffff01],
    ['65535:65281', WellKnownCommunity.NO_EXPORT],
  ];
  for (const [text, value] of rows) {
    it(`parses ${text}`, () => expect(parseCommunity(text)).toBe(value));
  }

  for (const text of ['65536:1', '1:65536', '1:2:3', '', 'foo', '-1:1', '1.5', '4294967296', ' 1:1', '1:']) {
    it(`refuses ${JSON.stringify(text)}`, () => {
      expect(() => parseCommunity(text, 'x')).toThrow(PolicyError);
    });
  }

  it('refuses a wildcard where a community is set', () => {
    expect(() => parseCommunity('65000:*', 'set')).toThrow(/wildcard/);
  });

  it('formats well-known communities by name and others as AS:value', () => {
    expect(formatCommunity(0xffffff01)).toBe('NO_EXPORT');
    expect(formatCommunity(0xffff029a)).toBe('BLACKHOLE');
    expect(formatCommunity(c(65000, 100))).toBe('65000:100');
    for (const [name, value] of Object.entries(WellKnownCommunity)) {
      expect(formatCommunity(value)).toBe(name);
      expect(parseCommunity(formatCommunity(value))).toBe(value);
    }
  });

  it('parses and formats large communities', () => {
    expect(parseLargeCommunity('65000:1:2')).toEqual([65000, 1, 2]);
    expect(parseLargeCommunity('4294967295:0:4294967295')).toEqual([4294967295, 0, 4294967295]);
    expect(formatLargeCommunity(65000, 1, 2)).toBe('65000:1:2');
    for (const bad of ['1:2', '1:2:3:4', '4294967296:1:1', 'a:b:c', '*:1:2', '']) {
      expect(() => parseLargeCommunity(bad, 'x')).toThrow(PolicyError);
    }
  });
});

describe('community lists', () => {
  const list = compileCommunityList({
    name: 'C',
    entries: [
      { action: 'deny', communities: ['65000:666'] },
      { action: 'permit', communities: ['65000:1', '65000:2'] },
      { action: 'permit', communities: ['65010:*'] },
      { action: 'permit', communities: ['*:99'] },
      { action: 'permit', communities: ['NO_EXPORT'] },
    ],
  });
  const rows: [string, number[] | undefined, boolean][] = [
    ['no communities at all', undefined, false],
    ['an empty list', [], false],
    ['all of an entry', [c(65000, 1), c(65000, 2)], true],
    ['all of an entry among others', [c(1, 1), c(65000, 2), c(65000, 1)], true],
    ['only part of an entry', [c(65000, 1)], false],
    ['the AS wildcard', [c(65010, 12345)], true],
    ['the value wildcard', [c(64512, 99)], true],
    ['a well-known community by name', [WellKnownCommunity.NO_EXPORT], true],
    ['an earlier deny entry', [c(65000, 666), c(65000, 1), c(65000, 2)], false],
    ['nothing listed', [c(65001, 1)], false],
  ];
  for (const [what, communities, expected] of rows) {
    it(`${expected ? 'matches' : 'does not match'} ${what}`, () => {
      expect(list.matches(communities)).toBe(expected);
    });
  }

  it('deletes what the first entry naming a community permits', () => {
    expect(list.deletes(c(65000, 1))).toBe(true);
    expect(list.deletes(c(65000, 666))).toBe(false);
    expect(list.deletes(c(65010, 7))).toBe(true);
    expect(list.deletes(c(1, 1))).toBe(false);
  });

  it('refuses entries without communities and unknown actions', () => {
    expect(() =>
      compileCommunityList({ name: 'C', entries: [{ action: 'permit', communities: [] }] }),
    ).toThrow(/communityLists\[C\]\.entries\[0\]\.communities/);
    expect(() =>
      compileCommunityList({ name: 'C', entries: [{ action: 'accept' as 'permit', communities: ['1:1'] }] }),
    ).toThrow(/entries\[0\]\.action/);
    expect(() =>
      compileCommunityList({ name: 'C', entries: [{ action: 'permit', communities: ['1:x'] }] }),
    ).toThrow(/entries\[0\]\.communities\[0\]: not a community/);
  });
});

describe('large community lists', () => {
  const list = compileLargeCommunityList({
    name: 'L',
    entries: [
      { action: 'deny', communities: ['65000:0:666'] },
      { action: 'permit', communities: ['65000:1:*'] },
      { action: 'permit', communities: ['*:7:7', '65001:1:1'] },
    ],
  });
  const rows: [string, number[] | undefined, boolean][] = [
    ['nothing', undefined, false],
    ['a wildcard field', [65000, 1, 42], true],
    ['a wildcard elsewhere', [1, 1, 1, 64512, 7, 7, 65001, 1, 1], true],
    ['only one of two', [64512, 7, 7], false],
    ['an earlier deny', [65000, 0, 666, 65000, 1, 1], false],
    ['fields that only line up across triples', [7, 65000, 1, 5, 0, 0], false],
  ];
  for (const [what, flat, expected] of rows) {
    it(`${expected ? 'matches' : 'does not match'} ${what}`, () => expect(list.matches(flat)).toBe(expected));
  }
});

describe('community matches in a policy', () => {
  it('accepts by a well-known community given by name and rejects the rest', () => {
    const p = policy([{ match: { communityList: 'BH' }, action: 'accept' }], {
      communityLists: [{ name: 'BH', entries: [{ action: 'permit', communities: ['blackhole'] }] }],
    });
    expect(run(p, '198.18.0.1/32', attrs({ communities: [WellKnownCommunity.BLACKHOLE] })).accept).toBe(true);
    expect(run(p, '198.18.0.1/32', attrs({ communities: [c(65000, 1)] })).accept).toBe(false);
    expect(run(p, '198.18.0.1/32', attrs()).accept).toBe(false);
  });

  it('matches large community lists', () => {
    const p = policy(
      [{ match: { largeCommunityList: 'L' }, action: 'reject' }],
      {
        largeCommunityLists: [{ name: 'L', entries: [{ action: 'permit', communities: ['65000:*:666'] }] }],
      },
      'accept',
    );
    expect(run(p, '198.18.0.0/24', attrs({ largeCommunities: [65000, 3, 666] })).accept).toBe(false);
    expect(run(p, '198.18.0.0/24', attrs({ largeCommunities: [65000, 3, 667] })).accept).toBe(true);
  });
});
