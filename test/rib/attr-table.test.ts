import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { parseIpv4 } from '../../src/address/index.js';
import { makeAttributes } from '../../src/bgp/wire/attributes/types.js';
import { WireAttributes } from '../../src/bgp/wire/attributes/wire-attributes.js';
import { AsPathSegmentType } from '../../src/bgp/wire/constants.js';
import { encodeUpdate } from '../../src/bgp/wire/update.js';
import { UpdateDecoder } from '../../src/bgp/wire/update-decode.js';
import { Writer } from '../../src/bgp/wire/writer.js';
import { AttrTable } from '../../src/rib/attr-table.js';
import { v4 } from './routes.js';

const LOCAL_AS = 65000;
const init = { localAs: LOCAL_AS, routerId: parseIpv4('198.18.0.1'), clusterId: parseIpv4('198.18.0.1') };

describe('AttrTable', () => {
  it('keeps LOCAL_PREF and ORIGINATOR_ID only for the sets that have them, through ids reused', () => {
    const t = new AttrTable(init);
    const hold = (extra: object) => {
      const id = t.intern(makeAttributes({ origin: 0, asPath: [], ...extra }));
      t.ref(id);
      return id;
    };
    const bare = hold({});
    expect([t.hasLocalPref(bare), t.localPrefOf(bare), t.hasOriginatorId(bare)]).toEqual([false, 0, false]);
    const rich = hold({ localPref: 200, originatorId: parseIpv4('198.18.9.9') });
    expect([t.localPrefOf(rich), t.originatorIdOf(rich)]).toEqual([200, parseIpv4('198.18.9.9')]);
    t.unref(rich);
    // The freed id comes back for a set with LOCAL_PREF 0 and no ORIGINATOR_ID.
    const zero = hold({ localPref: 0 });
    expect(zero).toBe(rich);
    expect([t.hasLocalPref(zero), t.localPrefOf(zero), t.hasOriginatorId(zero)]).toEqual([true, 0, false]);
    const many = Array.from({ length: 300 }, (_, i) => hold({ localPref: 1000 + i }));
    expect(many.map((id) => t.localPrefOf(id))).toEqual(many.map((_, i) => 1000 + i));
    expect(t.localPrefOf(zero)).toBe(0);
  });

  it('numbers a received set in each of two tables, and again after releasing it', () => {
    const ctx = { as4: true, addPathIpv4: false, addPathIpv6: false, ebgp: true };
    const w = new Writer();
    const plain = makeAttributes({ origin: 0, asPath: [], nextHop: parseIpv4('198.18.0.2') });
    encodeUpdate(w, { attrs: plain, nlri: v4('198.18.10.0/24') }, ctx);
    const body = w.finish();
    const decoded = new UpdateDecoder(ctx).decode(body, 0, body.length).attrs!;
    const one = new AttrTable(init);
    const two = new AttrTable(init);
    one.intern(makeAttributes({ origin: 1 })); // ids differ between the tables
    const a = one.intern(decoded);
    const b = two.intern(decoded);
    expect(a).not.toBe(b);
    expect([one.intern(decoded), two.intern(decoded)]).toEqual([a, b]);
    expect(one.get(a)).toBe(decoded);
    expect(two.get(b)).toBe(decoded);
    one.ref(a);
    one.unref(a);
    expect(one.has(a)).toBe(false);
    expect(two.intern(decoded)).toBe(b);
    const again = one.intern(decoded);
    expect(one.get(again)).toBe(decoded);
    expect(one.size).toBe(2);
  });

  for (const as4 of [true, false]) {
    it(`gives a decoded UPDATE's attribute set the path facts of its plain object (${as4 ? 4 : 2}-octet session)`, () => {
      const asn = fc.constantFrom(LOCAL_AS, 65001, 65002, 64512);
      const segment = fc.record({
        type: fc.constantFrom(
          AsPathSegmentType.AS_SEQUENCE,
          AsPathSegmentType.AS_SET,
          AsPathSegmentType.AS_CONFED_SEQUENCE,
        ),
        asns: fc.array(asn, { minLength: 1, maxLength: 4 }),
      });
      fc.assert(
        fc.property(fc.array(segment, { maxLength: 4 }), (asPath) => {
          const plain = makeAttributes({ origin: 0, asPath, nextHop: parseIpv4('198.18.0.2') });
          const ctx = { as4, addPathIpv4: false, addPathIpv6: false, ebgp: true };
          const w = new Writer();
          encodeUpdate(w, { attrs: plain, nlri: v4('198.18.10.0/24') }, ctx);
          const body = w.finish();
          const decoded = new UpdateDecoder(ctx).decode(body, 0, body.length).attrs!;
          expect(decoded).toBeInstanceOf(WireAttributes);
          const table = new AttrTable(init);
          const a = table.intern(plain);
          const b = table.intern(decoded);
          expect([table.asPathLength[b], table.neighborAs[b], table.ownAsCount[b]]).toEqual([
            table.asPathLength[a],
            table.neighborAs[a],
            table.ownAsCount[a],
          ]);
        }),
        { numRuns: 500 },
      );
    });
  }
});
