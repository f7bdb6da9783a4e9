import { describe, expect, it } from 'vitest';
import { formatAsPath } from '../../src/bgp/wire/attributes/as-path.js';
import { Afi, AsPathSegmentType } from '../../src/bgp/wire/constants.js';
import { attributesView } from '../../src/control/index.js';

describe('show rib path view', () => {
  it('prints extended communities as a policy spells them', () => {
    const view = attributesView(
      {
        origin: 0,
        asPath: [],
        nextHop: 0xc6120101,
        extCommunities: Uint8Array.from([
          ...[0x00, 0x02, 0xfd, 0xe9, 0, 0, 0, 100], // route target 65001:100
          ...[0x01, 0x03, 198, 18, 0, 1, 0, 7], // site of origin 198.18.0.1:7
          ...[0x43, 0x00, 0, 0, 0, 0, 0, 7], // non-transitive opaque
        ]),
      },
      Afi.IPV4,
      'p1',
      { best: true, multipath: false },
    );
    expect(view.extendedCommunities).toEqual(['rt:65001:100', 'soo:198.18.0.1:7', '0x4300:000000000007']);
    expect(
      attributesView({ origin: 0 }, Afi.IPV4, 'p1', { best: true, multipath: false }).extendedCommunities,
    ).toEqual([]);
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
