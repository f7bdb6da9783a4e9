import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import {
  as4PathFor,
  asPathFactsRaw,
  asPathLength,
  decodeAsPath,
  encodeAsPath,
  formatAsPath,
  mergeAs4Path,
  prependAs,
} from '../../../src/bgp/wire/attributes/as-path.js';
import { AsPathSegmentType } from '../../../src/bgp/wire/constants.js';
import { Writer } from '../../../src/bgp/wire/writer.js';
import { countAs, neighborAs } from '../../../src/rib/attr-table.js';

const seq = (...asns: number[]) => ({ type: 2, asns });
const set = (...asns: number[]) => ({ type: 1, asns });
const confed = (...asns: number[]) => ({ type: 3, asns });

describe('RFC 6793 section 4.2.3 merge', () => {
  const cases = [
    {
      name: 'leading 2-octet ASes that the AS4_PATH lacks are put in front',
      asPath: [seq(65001, 65002, 23456, 23456)],
      as4Path: [seq(4200000001, 4200000002)],
      want: [seq(65001, 65002, 4200000001, 4200000002)],
    },
    {
      name: 'an AS_PATH shorter than AS4_PATH keeps AS_PATH',
      asPath: [seq(23456)],
      as4Path: [seq(4200000001, 4200000002)],
      want: [seq(23456)],
    },
    {
      name: 'an AS_SET counts one',
      asPath: [seq(65001), set(23456, 65003)],
      as4Path: [set(4200000001, 65003)],
      want: [seq(65001), set(4200000001, 65003)],
    },
    {
      name: 'leading confederation segments are kept and not counted',
      asPath: [confed(65010), seq(65000, 23456)],
      as4Path: [seq(65000, 4200000001)],
      want: [confed(65010), seq(65000, 4200000001)],
    },
  ];
  for (const c of cases) it(c.name, () => expect(mergeAs4Path(c.asPath, c.as4Path)).toEqual(c.want));

  it('an AGGREGATOR other than AS_TRANS makes AS4_PATH ignored', () => {
    expect(mergeAs4Path([seq(65001, 23456)], [seq(4200000001)], { as: 65001, address: 1 })).toEqual([
      seq(65001, 23456),
    ]);
  });
});

describe('as4PathFor', () => {
  it('is undefined when every AS fits in two octets', () =>
    expect(as4PathFor([seq(1, 65535)])).toBeUndefined());
  it('drops confederation segments', () => {
    expect(as4PathFor([confed(65010), seq(4200000001)])).toEqual([seq(4200000001)]);
  });
});

describe('path length and text', () => {
  it('counts a set as one and confederation segments as none', () => {
    expect(asPathLength([confed(1, 2), seq(3, 4), set(5, 6)])).toBe(3);
  });
  it('prints as FRR does', () => {
    expect(formatAsPath([confed(1, 2), seq(3, 4), set(5, 6)])).toBe('(1 2) 3 4 {5,6}');
  });
});

describe('formatAsPath', () => {
  it('prints sequences, sets and confederation segments as vtysh does', () => {
    expect(
      formatAsPath([
        { type: AsPathSegmentType.AS_CONFED_SEQUENCE, asns: [64512, 64513] },
        { type: AsPathSegmentType.AS_SEQUENCE, asns: [65001, 65002] },
        { type: AsPathSegmentType.AS_SET, asns: [65003, 65004] },
        { type: AsPathSegmentType.AS_CONFED_SET, asns: [64514] },
      ]),
    ).toBe('(64512 64513) 65001 65002 {65003,65004} [64514]');
    expect(formatAsPath([])).toBe('');
  });
});

describe('prepending our AS (RFC 4271 section 5.1.2)', () => {
  it('prepends into the leading AS_SEQUENCE while it has room, else in a new segment', () => {
    expect(prependAs([], 1)).toEqual([{ type: 2, asns: [1] }]);
    expect(prependAs([{ type: 1, asns: [5, 6] }], 1)).toEqual([
      { type: 2, asns: [1] },
      { type: 1, asns: [5, 6] },
    ]);
    const full = { type: 2, asns: Array.from({ length: 255 }, (_, i) => i + 1) };
    expect(prependAs([full], 9)).toEqual([{ type: 2, asns: [9] }, full]);
  });
});

describe('AS_PATH facts read from the bytes', () => {
  const LOCAL = 65000;
  const asn = (four: boolean) =>
    four
      ? fc.oneof(fc.constantFrom(LOCAL, 65001, 4200000000), fc.integer({ min: 0, max: 0xffffffff }))
      : fc.oneof(fc.constantFrom(LOCAL, 65001), fc.integer({ min: 0, max: 0xffff }));
  const path = (four: boolean) =>
    fc.array(
      fc.record({
        type: fc.integer({ min: 1, max: 4 }),
        asns: fc.array(asn(four), { minLength: 1, maxLength: 6 }),
      }),
      { maxLength: 5 },
    );

  for (const four of [false, true]) {
    it(`give what the decoded path gives (${four ? 4 : 2}-octet ASNs)`, () => {
      fc.assert(
        fc.property(path(four), (segments) => {
          const w = new Writer();
          encodeAsPath(w, segments, four ? 4 : 2);
          const bytes = w.finish();
          const out = new Float64Array(3);
          asPathFactsRaw(bytes, 0, bytes.length, four ? 4 : 2, LOCAL, out);
          const decoded = decodeAsPath(bytes, 0, bytes.length, four ? 4 : 2);
          expect([...out]).toEqual([
            asPathLength(decoded),
            neighborAs(decoded, LOCAL),
            countAs(decoded, LOCAL),
          ]);
        }),
        { numRuns: 2000 },
      );
    });
  }
});
