import { describe, expect, it } from 'vitest';
import { parseIpv4 } from '../../../src/address/index.js';
import {
  ATTRS,
  attributesLeavingAs,
  formatAttribute,
  originText,
} from '../../../src/bgp/wire/attributes/table.js';
import { makeAttributes, type PathAttributes } from '../../../src/bgp/wire/attributes/types.js';
import { AttrType, WellKnownCommunity } from '../../../src/bgp/wire/constants.js';
import { hex } from '../../support/hex.js';

const a: PathAttributes = makeAttributes({
  origin: 1,
  asPath: [{ type: 2, asns: [65001, 65002] }],
  nextHop: parseIpv4('198.18.0.2'),
  med: 7,
  localPref: 200,
  atomicAggregate: true,
  aggregator: { as: 65001, address: parseIpv4('198.18.0.9') },
  communities: [(65001 << 16) | 100, WellKnownCommunity.NO_EXPORT],
  originatorId: parseIpv4('198.18.1.1'),
  clusterList: [parseIpv4('198.18.2.2')],
  // rt:65001:100, then a non-transitive 0x4300 opaque one.
  extCommunities: hex`0002 fde9 00000064  4300 000000000007`,
  largeCommunities: [65001, 1, 2],
});

describe('each row prints its attribute as show does', () => {
  const cases: [number, string[]][] = [
    [AttrType.ORIGIN, ['egp']],
    [AttrType.AS_PATH, ['65001 65002']],
    [AttrType.NEXT_HOP, ['198.18.0.2']],
    [AttrType.MULTI_EXIT_DISC, ['7']],
    [AttrType.LOCAL_PREF, ['200']],
    [AttrType.ATOMIC_AGGREGATE, ['atomic-aggregate']],
    [AttrType.AGGREGATOR, ['65001 198.18.0.9']],
    [AttrType.COMMUNITIES, ['65001:100', 'NO_EXPORT']],
    [AttrType.ORIGINATOR_ID, ['198.18.1.1']],
    [AttrType.CLUSTER_LIST, ['198.18.2.2']],
    [AttrType.EXTENDED_COMMUNITIES, ['rt:65001:100', '0x4300:000000000007']],
    [AttrType.LARGE_COMMUNITY, ['65001:1:2']],
  ];
  it.each(cases)('attribute %i', (code, text) => expect(formatAttribute(code, a)).toEqual(text));

  it('prints nothing for an absent attribute or one without a row', () => {
    for (const d of ATTRS) expect(d.format(makeAttributes({}))).toEqual([]);
    expect(formatAttribute(99, a)).toEqual([]);
  });

  it('names ORIGIN values, an unknown one as incomplete', () => {
    expect([0, 1, 2, 3].map(originText)).toEqual(['igp', 'egp', 'incomplete', 'incomplete']);
  });
});

describe('what may leave the AS (RFC 4360 section 6, RFC 5701)', () => {
  it('drops non-transitive extended communities and keeps the rest of the set', () => {
    const out = attributesLeavingAs(a);
    expect(out.extCommunities).toEqual(hex`0002 fde9 00000064`);
    expect(out.communities).toEqual(a.communities);
    expect(out.largeCommunities).toEqual(a.largeCommunities);
  });

  it('returns the same set when every member may leave', () => {
    const all = makeAttributes({ ...a, extCommunities: hex`0002 fde9 00000064` });
    expect(attributesLeavingAs(all)).toBe(all);
  });
});
