import { describe, expect, it } from 'vitest';
import type { AsPathSegment } from '../../src/bgp/wire/attributes/types.js';
import { AS_TRANS, AsPathSegmentType } from '../../src/bgp/wire/constants.js';
import {
  type AsPathListEntryModel,
  AsPathView,
  compileAsPathList,
  originAs,
  PolicyError,
  translateAsPathRegex,
} from '../../src/policy/index.js';
import { attrs, policy, run } from './helpers.js';

const SEQ = AsPathSegmentType.AS_SEQUENCE;
const SET = AsPathSegmentType.AS_SET;
const CSEQ = AsPathSegmentType.AS_CONFED_SEQUENCE;
const CSET = AsPathSegmentType.AS_CONFED_SET;
const s = (type: number, ...asns: number[]): AsPathSegment => ({ type, asns });

function matches(entry: Omit<AsPathListEntryModel, 'action'>, path: AsPathSegment[]): boolean {
  const list = compileAsPathList({ name: 'A', entries: [{ action: 'permit', ...entry }] });
  return list.matches(new AsPathView(attrs({ asPath: path })));
}

describe('AS path regex translation', () => {
  it('turns _ into the delimiter group and leaves the rest', () => {
    expect(translateAsPathRegex('_65001_')).toBe('(?:^|[,{}()\\[\\] ]|$)65001(?:^|[,{}()\\[\\] ]|$)');
    expect(translateAsPathRegex('^65001$')).toBe('^65001$');
    expect(translateAsPathRegex('[[:digit:]]+')).toBe('[0-9]+');
    expect(translateAsPathRegex('[_]')).toBe('[_]');
    expect(translateAsPathRegex('\\_')).toBe('\\_');
  });
});

describe('AS path regexes over the printed path', () => {
  const rows: [string, AsPathSegment[], boolean][] = [
    ['_65001_', [s(SEQ, 65001, 65002)], true],
    ['_65001_', [s(SEQ, 65002, 65001)], true],
    ['_65001_', [s(SEQ, 165001)], false],
    ['_65001_', [s(SEQ, 650011)], false],
    ['_65001_', [s(SEQ, 65000), s(SET, 65001, 65003)], true],
    ['_65003_', [s(SEQ, 65000), s(SET, 65001, 65003)], true],
    ['_65005_', [s(CSEQ, 65005, 65006), s(SEQ, 65001)], true],
    ['_65006_', [s(CSET, 65005, 65006), s(SEQ, 65001)], true],
    ['^65001_', [s(SEQ, 65001, 65002)], true],
    ['^65001_', [s(SEQ, 65002, 65001)], false],
    ['_65001$', [s(SEQ, 65002, 65001)], true],
    ['_65001$', [s(SEQ, 65001, 65002)], false],
    ['^$', [], true],
    ['^$', [s(SEQ, 65001)], false],
    ['^65001(_65001)*$', [s(SEQ, 65001, 65001, 65001)], true],
    ['^65001(_65001)*$', [s(SEQ, 65001, 65001, 65002)], false],
    ['^65001_65002_', [s(SEQ, 65001, 65002, 65003)], true],
    ['^65001_65003_', [s(SEQ, 65001, 65002, 65003)], false],
    ['_6500[0-9]_', [s(SEQ, 65003)], true],
    ['_6500[0-9]_', [s(SEQ, 65013)], false],
    ['^[0-9]+$', [s(SEQ, 65001)], true],
    ['^[0-9]+$', [s(SEQ, 65001, 65002)], false],
    ['^[[:digit:]]+_65002$', [s(SEQ, 65001, 65002)], true],
    ['_64(51[2-9]|5[2-9][0-9]|[6-9][0-9][0-9])_', [s(SEQ, 65001, 64512, 65002)], true],
    ['_64(51[2-9]|5[2-9][0-9]|[6-9][0-9][0-9])_', [s(SEQ, 65001, 64511, 65002)], false],
    ['.*', [], true],
    ['.*', [s(SEQ, 1, 2, 3)], true],
    ['{', [s(SET, 1, 2)], true],
    ['_4200000001_', [s(SEQ, 4200000001)], true],
  ];
  for (const [regex, path, expected] of rows) {
    it(`${regex} ${expected ? 'matches' : 'does not match'} "${new AsPathView(attrs({ asPath: path })).text}"`, () => {
      expect(matches({ regex }, path)).toBe(expected);
    });
  }

  it('refuses a regex that does not compile, naming the field', () => {
    let err: unknown;
    try {
      compileAsPathList({ name: 'A', entries: [{ action: 'permit', regex: '(65001' }] });
    } catch (e) {
      err = e;
    }
    expect(err).toBeInstanceOf(PolicyError);
    expect((err as PolicyError).kind).toBe('invalid-regex');
    expect((err as PolicyError).path).toBe('asPathLists[A].entries[0].regex');
  });

  it('sees the path of a 2-octet speaker with its AS4_PATH merged in (RFC 6793 4.2.3)', () => {
    const a = attrs({ asPath: [s(SEQ, 65002, AS_TRANS)], as4Path: [s(SEQ, 4200000001)] });
    expect(new AsPathView(a).text).toBe('65002 4200000001');
    const p = policy([{ match: { asPath: 'A' }, action: 'accept' }], {
      asPathLists: [{ name: 'A', entries: [{ action: 'permit', regex: '_4200000001$' }] }],
    });
    expect(run(p, '198.18.0.0/24', a).accept).toBe(true);
  });
});

describe('structured AS path matches', () => {
  it('finds the origin AS only at the end of an AS_SEQUENCE', () => {
    expect(originAs([s(SEQ, 65001, 65002)])).toBe(65002);
    expect(originAs([s(SEQ, 65001), s(SET, 65002, 65003)])).toBeUndefined();
    expect(originAs([])).toBeUndefined();
  });

  const rows: [string, Omit<AsPathListEntryModel, 'action'>, AsPathSegment[], boolean][] = [
    ['origin AS', { originAs: 65002 }, [s(SEQ, 65001, 65002)], true],
    ['origin AS elsewhere', { originAs: 65001 }, [s(SEQ, 65001, 65002)], false],
    ['origin AS of a local route', { originAs: 65001 }, [], false],
    ['contains AS', { containsAs: 65002 }, [s(SEQ, 65001, 65002, 65003)], true],
    ['contains AS in a set', { containsAs: 65009 }, [s(SEQ, 65001), s(SET, 65008, 65009)], true],
    ['contains AS absent', { containsAs: 65009 }, [s(SEQ, 65001)], false],
    ['length in range', { minLength: 2, maxLength: 3 }, [s(SEQ, 65001, 65002)], true],
    ['length below range', { minLength: 2 }, [s(SEQ, 65001)], false],
    ['length above range', { maxLength: 2 }, [s(SEQ, 1, 2, 3)], false],
    ['a set counts one', { maxLength: 2 }, [s(SEQ, 1), s(SET, 2, 3, 4)], true],
    ['confederation segments count nothing', { maxLength: 1 }, [s(CSEQ, 1, 2), s(SEQ, 3)], true],
    [
      'all conditions at once',
      { originAs: 3, containsAs: 1, maxLength: 3, regex: '^1_' },
      [s(SEQ, 1, 2, 3)],
      true,
    ],
    ['all but one condition', { originAs: 3, containsAs: 1, maxLength: 2 }, [s(SEQ, 1, 2, 3)], false],
    ['no condition', {}, [s(SEQ, 1)], true],
  ];
  for (const [what, entry, path, expected] of rows) {
    it(`${what}: ${expected}`, () => expect(matches(entry, path)).toBe(expected));
  }

  it('the first matching entry decides and nothing matching means no match', () => {
    const list = compileAsPathList({
      name: 'A',
      entries: [
        { action: 'deny', regex: '_64512_' },
        { action: 'permit', originAs: 65002 },
      ],
    });
    const view = (...asns: number[]) => new AsPathView(attrs({ asPath: [s(SEQ, ...asns)] }));
    expect(list.matches(view(65001, 65002))).toBe(true);
    expect(list.matches(view(64512, 65002))).toBe(false);
    expect(list.matches(view(65001))).toBe(false);
  });

  it('refuses a length range upside down and ASNs out of range', () => {
    expect(() =>
      compileAsPathList({ name: 'A', entries: [{ action: 'permit', minLength: 3, maxLength: 2 }] }),
    ).toThrow(PolicyError);
    expect(() =>
      compileAsPathList({ name: 'A', entries: [{ action: 'permit', originAs: 2 ** 32 }] }),
    ).toThrow(/asPathLists\[A\]\.entries\[0\]\.originAs/);
  });
});
