import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { BgpError } from '../../../src/bgp/wire/errors.js';
import { Reader } from '../../../src/bgp/wire/reader.js';
import {
  decodeRouteRefresh,
  encodeRouteRefresh,
  isKnownRouteRefreshSubtype,
  type RouteRefreshContext,
  type RouteRefreshMessage,
} from '../../../src/bgp/wire/route-refresh.js';
import { Writer } from '../../../src/bgp/wire/writer.js';
import { hex, toHex } from '../../support/hex.js';

function encode(m: RouteRefreshMessage): Uint8Array {
  const w = new Writer(8);
  encodeRouteRefresh(w, m);
  return w.finish();
}

const decode = (body: Uint8Array, ctx?: RouteRefreshContext) => decodeRouteRefresh(new Reader(body), ctx);
const rr = (afi: number, subtype: number, safi: number): RouteRefreshMessage => ({
  type: 'route-refresh',
  afi,
  subtype,
  safi,
});

const valueFixtures: { name: string; hex: Uint8Array; value: RouteRefreshMessage }[] = [
  {
    // FRR 8.4.4 on `clear bgp X soft in` and BIRD 2.0.12 on `reload in`, recorded on loopback.
    name: 'normal request for IPv4 unicast (FRR, BIRD)',
    hex: hex`0001   # AFI IPv4
             00     # subtype 0: normal request (RFC 2918 reserved octet)
             01     # SAFI unicast`,
    value: rr(1, 0, 1),
  },
  { name: 'normal request for IPv6 unicast (FRR)', hex: hex`0002 00 01`, value: rr(2, 0, 1) },
  { name: 'BoRR (RFC 7313)', hex: hex`0001 01 01`, value: rr(1, 1, 1) },
  { name: 'EoRR (RFC 7313)', hex: hex`0002 02 01`, value: rr(2, 2, 1) },
  {
    name: 'reserved subtype 255 is returned for the session to ignore',
    hex: hex`0001 ff 01`,
    value: rr(1, 255, 1),
  },
];

interface ErrorFixture {
  name: string;
  hex: Uint8Array;
  ctx?: RouteRefreshContext;
  error: { code: number; subcode: number; kind: string; data: Uint8Array };
}

const marker = 'ffffffffffffffffffffffffffffffff';

const errorFixtures: ErrorFixture[] = [
  {
    name: 'BoRR of 5 octets: 7/1 with the whole message (RFC 7313 section 5)',
    hex: hex`0001 01 01 00`,
    error: {
      code: 7,
      subcode: 1,
      kind: 'route-refresh-invalid-length',
      data: hex`${marker} 0018 05   # header: length 24, type ROUTE-REFRESH
                0001 01 01 00`,
    },
  },
  {
    name: 'EoRR of 3 octets: 7/1 even when told enhanced route refresh is off',
    hex: hex`0002 02`,
    ctx: { enhancedRouteRefresh: false },
    error: {
      code: 7,
      subcode: 1,
      kind: 'route-refresh-invalid-length',
      data: hex`${marker} 0016 05 0002 02`,
    },
  },
  {
    name: 'normal request of 5 octets: 1/2 with the length field',
    hex: hex`0001 00 01 00`,
    error: { code: 1, subcode: 2, kind: 'route-refresh-bad-length', data: hex`0018` },
  },
  {
    name: 'no subtype octet, enhanced route refresh (the default): 7/1',
    hex: hex`0001`,
    error: { code: 7, subcode: 1, kind: 'route-refresh-invalid-length', data: hex`${marker} 0015 05 0001` },
  },
  {
    name: 'no subtype octet without enhanced route refresh: 1/2',
    hex: hex`0001`,
    ctx: { enhancedRouteRefresh: false },
    error: { code: 1, subcode: 2, kind: 'route-refresh-bad-length', data: hex`0015` },
  },
  {
    name: 'empty body, enhanced route refresh: 7/1 with just the header',
    hex: hex``,
    ctx: { enhancedRouteRefresh: true },
    error: { code: 7, subcode: 1, kind: 'route-refresh-invalid-length', data: hex`${marker} 0013 05` },
  },
];

describe('ROUTE-REFRESH fixtures', () => {
  it.each(valueFixtures)('$name decodes', ({ hex: body, value }) => {
    expect(decode(body)).toEqual(value);
  });

  it.each(valueFixtures)('$name re-encodes byte for byte', ({ hex: body, value }) => {
    expect(toHex(encode(value))).toBe(toHex(body));
  });

  it.each(errorFixtures)('$name', ({ hex: body, ctx, error }) => {
    let e: unknown;
    try {
      decode(body, ctx);
    } catch (err) {
      e = err;
    }
    expect(e).toBeInstanceOf(BgpError);
    expect(e).toMatchObject({ code: error.code, subcode: error.subcode, kind: error.kind });
    expect(toHex((e as BgpError).data)).toBe(toHex(error.data));
  });

  it.each([
    ['5 octets', hex`0001 07 01 ff`, rr(1, 7, 1)],
    ['3 octets (SAFI read as 0)', hex`0002 07`, rr(2, 7, 0)],
  ])(
    'an unknown subtype of the wrong length, %s, is returned to be ignored (RFC 7313 section 5)',
    (_n, body, v) => {
      expect(decode(body)).toEqual(v);
      expect(isKnownRouteRefreshSubtype(v.subtype)).toBe(false);
    },
  );

  it('knows subtypes 0, 1 and 2', () => {
    expect([0, 1, 2, 3, 255].map(isKnownRouteRefreshSubtype)).toEqual([true, true, true, false, false]);
  });
});

describe('ROUTE-REFRESH properties', () => {
  const rrArb = fc
    .tuple(
      fc.integer({ min: 0, max: 0xffff }),
      fc.integer({ min: 0, max: 0xff }),
      fc.integer({ min: 0, max: 0xff }),
    )
    .map(([afi, subtype, safi]) => rr(afi, subtype, safi));

  it('decode(encode(m)) is the identity', () => {
    fc.assert(
      fc.property(rrArb, (m) => {
        expect(decode(encode(m))).toEqual(m);
      }),
      { numRuns: 5_000 },
    );
  });

  it('random bodies decode or throw a BgpError, nothing else', () => {
    fc.assert(
      fc.property(fc.uint8Array({ maxLength: 12 }), fc.boolean(), (body, enhanced) => {
        try {
          const m = decode(body, { enhancedRouteRefresh: enhanced });
          return body.length === 4 || !isKnownRouteRefreshSubtype(m.subtype);
        } catch (e) {
          if (!(e instanceof BgpError)) throw e;
          return body.length !== 4;
        }
      }),
      { numRuns: 100_000 },
    );
  });
});
