import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import {
  CAPABILITIES,
  type Capability,
  capabilityCode,
  decodeCapabilities,
  encodeCapabilities,
  encodeCapability,
} from '../../../src/bgp/wire/capabilities.js';
import { CapabilityCode, capabilityName } from '../../../src/bgp/wire/constants.js';
import { BgpError } from '../../../src/bgp/wire/errors.js';
import { Reader } from '../../../src/bgp/wire/reader.js';
import { Writer } from '../../../src/bgp/wire/writer.js';
import { hex } from '../../support/hex.js';

const ascii = (s: string) => new TextEncoder().encode(s);

function encode(caps: readonly Capability[]): Uint8Array {
  const w = new Writer(16);
  encodeCapabilities(w, caps);
  return w.finish();
}

const decode = (bytes: Uint8Array) => decodeCapabilities(new Reader(bytes));

interface ValueFixture {
  name: string;
  hex: Uint8Array;
  value: Capability[];
}

// Each hex is the value of one capabilities optional parameter: code, length, value.
const valueFixtures: ValueFixture[] = [
  {
    name: 'multiprotocol IPv4 unicast (RFC 4760)',
    hex: hex`01 04      # code 1, length 4
             0001       # AFI IPv4
             00         # reserved
             01         # SAFI unicast`,
    value: [{ name: 'multiprotocol', afi: 1, reserved: 0, safi: 1 }],
  },
  {
    name: 'multiprotocol keeps a non-zero reserved octet',
    hex: hex`01 04 0002 07 02   # IPv6 multicast, reserved 7`,
    value: [{ name: 'multiprotocol', afi: 2, reserved: 7, safi: 2 }],
  },
  {
    name: 'route refresh (RFC 2918)',
    hex: hex`02 00`,
    value: [{ name: 'route-refresh' }],
  },
  {
    name: 'pre-standard route refresh 128 stays raw',
    hex: hex`80 00`,
    value: [{ name: 'raw', code: CapabilityCode.PRESTANDARD_ROUTE_REFRESH, value: new Uint8Array() }],
  },
  {
    name: 'enhanced route refresh (RFC 7313)',
    hex: hex`46 00`,
    value: [{ name: 'enhanced-route-refresh' }],
  },
  {
    name: '4-octet AS 65001 (RFC 6793)',
    hex: hex`41 04 0000fde9`,
    value: [{ name: 'four-octet-as', as: 65001 }],
  },
  {
    name: '4-octet AS 4200000000',
    hex: hex`41 04 fa56ea00`,
    value: [{ name: 'four-octet-as', as: 4200000000 }],
  },
  {
    name: 'graceful restart helper: R and N set, 120 s, no families (FRR 8.4 at start)',
    hex: hex`40 02
             c0 78      # flags 1100 (R, N), restart time 0x078 = 120`,
    value: [{ name: 'graceful-restart', flags: 0xc, restartTime: 120, families: [] }],
  },
  {
    name: 'graceful restart with families and forwarding state',
    hex: hex`40 0a
             0f ff            # flags 0, restart time 4095 (the 12-bit maximum)
             0001 01 80       # IPv4 unicast, F bit
             0002 01 00       # IPv6 unicast, no forwarding state`,
    value: [
      {
        name: 'graceful-restart',
        flags: 0,
        restartTime: 4095,
        families: [
          { afi: 1, safi: 1, flags: 0x80 },
          { afi: 2, safi: 1, flags: 0 },
        ],
      },
    ],
  },
  {
    name: 'add-path (RFC 7911)',
    hex: hex`45 08
             0001 01 01     # IPv4 unicast, receive
             0002 01 03     # IPv6 unicast, send/receive`,
    value: [
      {
        name: 'add-path',
        families: [
          { afi: 1, safi: 1, mode: 1 },
          { afi: 2, safi: 1, mode: 3 },
        ],
      },
    ],
  },
  {
    name: 'add-path with Send/Receive 4 is not understood, so raw (RFC 7911 section 4)',
    hex: hex`45 08 0001 01 01  0002 01 04`,
    value: [{ name: 'raw', code: CapabilityCode.ADD_PATH, value: hex`0001 01 01 0002 01 04` }],
  },
  {
    name: 'add-path with a bad Send/Receive before good entries is raw as a whole',
    hex: hex`45 0c 0001 01 09  0002 01 01  0001 02 03`,
    value: [{ name: 'raw', code: CapabilityCode.ADD_PATH, value: hex`0001 01 09 0002 01 01 0001 02 03` }],
  },
  {
    name: 'add-path with Send/Receive 0 is raw too',
    hex: hex`45 04 0001 01 00`,
    value: [{ name: 'raw', code: CapabilityCode.ADD_PATH, value: hex`0001 01 00` }],
  },
  {
    name: 'extended next hop (RFC 8950): IPv4 unicast over IPv6, 2-octet SAFI',
    hex: hex`05 06
             0001     # NLRI AFI IPv4
             0001     # NLRI SAFI unicast (2 octets)
             0002     # next hop AFI IPv6`,
    value: [{ name: 'extended-next-hop', families: [{ afi: 1, safi: 1, nextHopAfi: 2 }] }],
  },
  {
    name: 'extended message (RFC 8654)',
    hex: hex`06 00`,
    value: [{ name: 'extended-message' }],
  },
  {
    name: 'FQDN as FRR sends it, empty domain',
    hex: hex`49 07
             05 667272 2d61    # hostname length 5, "frr-a"
             00                # domain length 0`,
    value: [{ name: 'fqdn', hostname: 'frr-a', domain: '' }],
  },
  {
    name: 'FQDN with a domain',
    hex: hex`49 11 04 6e6f6465 0b 6578616d706c652e6f7267   # "node", "example.org"`,
    value: [{ name: 'fqdn', hostname: 'node', domain: 'example.org' }],
  },
  {
    name: 'FQDN keeps a leading byte-order mark',
    hex: hex`49 05 03 efbbbf 00`,
    value: [{ name: 'fqdn', hostname: '\ufeff', domain: '' }],
  },
  {
    name: 'FQDN that is not UTF-8 stays raw',
    hex: hex`49 03 01 ff 00`,
    value: [{ name: 'raw', code: CapabilityCode.FQDN, value: hex`01 ff 00` }],
  },
  {
    name: 'unknown capability (role, RFC 9234) kept raw',
    hex: hex`09 01 02`,
    value: [{ name: 'raw', code: 9, value: hex`02` }],
  },
  {
    name: 'long-lived graceful restart (RFC 9494)',
    hex: hex`47 0e
             0001 01 80 000e10   # IPv4 unicast, F, long-lived stale time 3600
             0002 01 00 ffffff   # IPv6 unicast, no F, the 24-bit maximum`,
    value: [
      {
        name: 'long-lived-graceful-restart',
        families: [
          { afi: 1, safi: 1, flags: 0x80, staleTime: 3600 },
          { afi: 2, safi: 1, flags: 0, staleTime: 0xffffff },
        ],
      },
    ],
  },
  {
    name: 'several capabilities in one parameter keep their order',
    hex: hex`02 00   41 04 00010000   01 04 0001 00 01`,
    value: [
      { name: 'route-refresh' },
      { name: 'four-octet-as', as: 65536 },
      { name: 'multiprotocol', afi: 1, reserved: 0, safi: 1 },
    ],
  },
  { name: 'empty parameter value', hex: hex``, value: [] },
];

interface ErrorFixture {
  name: string;
  hex: Uint8Array;
}

// RFC 4271 section 6.2: a recognized but malformed optional parameter is 2/0.
const errorFixtures: ErrorFixture[] = [
  { name: 'multiprotocol length 3', hex: hex`01 03 0001 00` },
  { name: 'multiprotocol length 5', hex: hex`01 05 0001 00 01 00` },
  { name: 'route refresh with a value', hex: hex`02 01 00` },
  { name: 'enhanced route refresh with a value', hex: hex`46 01 00` },
  { name: 'extended message with a value', hex: hex`06 01 00` },
  { name: '4-octet AS length 2', hex: hex`41 02 fde9` },
  { name: '4-octet AS length 5', hex: hex`41 05 0000fde9 00` },
  { name: 'graceful restart shorter than its header', hex: hex`40 01 00` },
  { name: 'graceful restart with a partial family', hex: hex`40 04 0078 0001` },
  { name: 'long-lived graceful restart with a partial family', hex: hex`47 06 0001 01 80 0000` },
  { name: 'add-path length 3', hex: hex`45 03 0001 01` },
  { name: 'add-path length 6', hex: hex`45 06 0001 01 01 0002` },
  { name: 'extended next hop length 4', hex: hex`05 04 0001 0001` },
  { name: 'FQDN hostname overruns the value', hex: hex`49 03 05 6672` },
  { name: 'FQDN without the domain length octet', hex: hex`49 06 05 6672722d61` },
  { name: 'FQDN domain overruns the value', hex: hex`49 03 00 05 61` },
  { name: 'FQDN with octets after the domain', hex: hex`49 03 00 00 00` },
  { name: 'FQDN of length 0', hex: hex`49 00` },
  { name: 'a lone capability code', hex: hex`02 00 41` },
  { name: 'capability length overruns the parameter', hex: hex`41 04 0000` },
];

describe('capability fixtures', () => {
  it.each(valueFixtures)('$name decodes', ({ hex: bytes, value }) => {
    expect(decode(bytes)).toEqual(value);
  });

  it.each(valueFixtures)('$name re-encodes byte for byte', ({ hex: bytes }) => {
    expect(encode(decode(bytes))).toEqual(bytes);
  });

  it.each(errorFixtures)('$name is OPEN Message Error / Unspecific (2/0)', ({ hex: bytes }) => {
    let thrown: unknown;
    try {
      decode(bytes);
    } catch (e) {
      thrown = e;
    }
    expect(thrown).toBeInstanceOf(BgpError);
    expect(thrown).toMatchObject({
      code: 2,
      subcode: 0,
      kind: 'open-malformed-capability',
      data: new Uint8Array(),
    });
  });

  it('copies raw values out of the receive buffer', () => {
    const bytes = hex`09 01 02`;
    const [cap] = decode(bytes);
    bytes[2] = 0x99;
    expect(cap).toEqual({ name: 'raw', code: 9, value: hex`02` });
  });
});

describe('capability table', () => {
  it('has a codec for every capability we speak, keyed by its IANA code', () => {
    const codes = Object.values(CAPABILITIES).map((c) => [c.code, c.name]);
    expect(codes).toEqual(
      expect.arrayContaining([
        [CapabilityCode.MULTIPROTOCOL, 'multiprotocol'],
        [CapabilityCode.ROUTE_REFRESH, 'route-refresh'],
        [CapabilityCode.EXTENDED_NEXT_HOP, 'extended-next-hop'],
        [CapabilityCode.EXTENDED_MESSAGE, 'extended-message'],
        [CapabilityCode.GRACEFUL_RESTART, 'graceful-restart'],
        [CapabilityCode.LONG_LIVED_GRACEFUL_RESTART, 'long-lived-graceful-restart'],
        [CapabilityCode.FOUR_OCTET_AS, 'four-octet-as'],
        [CapabilityCode.ADD_PATH, 'add-path'],
        [CapabilityCode.ENHANCED_ROUTE_REFRESH, 'enhanced-route-refresh'],
        [CapabilityCode.FQDN, 'fqdn'],
      ]),
    );
    expect(codes).toHaveLength(10);
    for (const [code, codec] of Object.entries(CAPABILITIES)) expect(codec.code).toBe(Number(code));
  });

  it('names the pre-standard route refresh code for logs', () => {
    expect(capabilityName[128]).toBe('PRESTANDARD_ROUTE_REFRESH');
  });

  it('maps a value back to its code', () => {
    expect(capabilityCode({ name: 'fqdn', hostname: 'a', domain: '' })).toBe(73);
    expect(capabilityCode({ name: 'raw', code: 200, value: new Uint8Array() })).toBe(200);
  });

  it('refuses to encode a value longer than the 1-octet length allows', () => {
    const families = Array.from({ length: 64 }, (_, i) => ({ afi: 1, safi: i, mode: 1 as const }));
    expect(() => encodeCapability(new Writer(), { name: 'add-path', families })).toThrow(RangeError);
    expect(() =>
      encodeCapability(new Writer(), { name: 'raw', code: 200, value: new Uint8Array(256) }),
    ).toThrow(RangeError);
    const w = new Writer();
    encodeCapability(w, { name: 'raw', code: 200, value: new Uint8Array(255) });
    expect(w.pos).toBe(257);
  });

  it('encodes FQDN names as UTF-8', () => {
    expect(encode([{ name: 'fqdn', hostname: 'höst', domain: 'ex' }])).toEqual(
      Uint8Array.from([0x49, 9, 5, ...ascii('h'), 0xc3, 0xb6, ...ascii('st'), 2, ...ascii('ex')]),
    );
  });
});

const u16 = fc.integer({ min: 0, max: 0xffff });
const u8 = fc.integer({ min: 0, max: 0xff });
const name = fc.string({ unit: 'binary', maxLength: 30 });
const knownCodes = new Set(Object.keys(CAPABILITIES).map(Number));

const capabilityArb: fc.Arbitrary<Capability> = fc.oneof(
  fc.record({ name: fc.constant('multiprotocol' as const), afi: u16, reserved: u8, safi: u8 }),
  fc.constant({ name: 'route-refresh' as const }),
  fc.constant({ name: 'enhanced-route-refresh' as const }),
  fc.constant({ name: 'extended-message' as const }),
  fc.record({ name: fc.constant('four-octet-as' as const), as: fc.integer({ min: 0, max: 0xffffffff }) }),
  fc.record({
    name: fc.constant('graceful-restart' as const),
    flags: fc.integer({ min: 0, max: 0xf }),
    restartTime: fc.integer({ min: 0, max: 0xfff }),
    families: fc.array(fc.record({ afi: u16, safi: u8, flags: u8 }), { maxLength: 8 }),
  }),
  fc.record({
    name: fc.constant('long-lived-graceful-restart' as const),
    families: fc.array(
      fc.record({ afi: u16, safi: u8, flags: u8, staleTime: fc.integer({ min: 0, max: 0xffffff }) }),
      { maxLength: 8 },
    ),
  }),
  fc.record({
    name: fc.constant('add-path' as const),
    families: fc.array(
      fc.record({ afi: u16, safi: u8, mode: fc.constantFrom(1 as const, 2 as const, 3 as const) }),
      {
        maxLength: 8,
      },
    ),
  }),
  fc.record({
    name: fc.constant('extended-next-hop' as const),
    families: fc.array(fc.record({ afi: u16, safi: u16, nextHopAfi: u16 }), { maxLength: 8 }),
  }),
  fc.record({ name: fc.constant('fqdn' as const), hostname: name, domain: name }),
  fc.record({
    name: fc.constant('raw' as const),
    code: u8.filter((c) => !knownCodes.has(c)),
    value: fc.uint8Array({ maxLength: 40 }),
  }),
);

describe('capability properties', () => {
  it('decode(encode(caps)) gives the same capabilities', () => {
    fc.assert(
      fc.property(fc.array(capabilityArb, { maxLength: 10 }), (caps) => {
        expect(decode(encode(caps))).toEqual(caps);
      }),
      { numRuns: 5_000 },
    );
  });

  it('random values under well-formed capability headers decode losslessly or throw 2/0', () => {
    // Headers with consistent lengths, so every codec sees random value octets.
    const tlv = fc
      .tuple(fc.oneof(fc.constantFrom(...knownCodes), u8), fc.uint8Array({ maxLength: 24 }))
      .map(([code, value]) => [code, value.length, ...value]);
    const param = fc.array(tlv, { maxLength: 6 }).map((tlvs) => Uint8Array.from(tlvs.flat()));
    fc.assert(
      fc.property(param, (bytes) => {
        try {
          return Buffer.from(encode(decode(bytes))).equals(bytes);
        } catch (e) {
          if (!(e instanceof BgpError)) throw e;
          return e.code === 2 && e.subcode === 0;
        }
      }),
      { numRuns: 100_000 },
    );
  });

  it('a value of a length its RFC allows never throws, whatever its octets', () => {
    const allowed: Record<number, (v: Uint8Array) => boolean> = {
      1: (v) => v.length === 4,
      2: (v) => v.length === 0,
      5: (v) => v.length % 6 === 0,
      6: (v) => v.length === 0,
      64: (v) => v.length >= 2 && (v.length - 2) % 4 === 0,
      65: (v) => v.length === 4,
      69: (v) => v.length % 4 === 0,
      71: (v) => v.length % 7 === 0,
      70: (v) => v.length === 0,
      73: (v) => v.length >= 2 && v[0] + 2 <= v.length && v[0] + 2 + v[v[0] + 1] === v.length,
    };
    const sized = fc.constantFrom(...knownCodes).chain((code) =>
      fc
        .oneof(
          fc.integer({ min: 0, max: 6 }).chain((n) => fc.uint8Array({ minLength: 4 * n, maxLength: 4 * n })),
          fc.integer({ min: 0, max: 4 }).chain((n) => fc.uint8Array({ minLength: 6 * n, maxLength: 6 * n })),
          fc.integer({ min: 0, max: 4 }).chain((n) => fc.uint8Array({ minLength: 7 * n, maxLength: 7 * n })),
          fc
            .integer({ min: 0, max: 5 })
            .chain((n) => fc.uint8Array({ minLength: 2 + 4 * n, maxLength: 2 + 4 * n })),
          fc
            .tuple(fc.uint8Array({ maxLength: 8 }), fc.uint8Array({ maxLength: 8 }))
            .map(([h, d]) => Uint8Array.from([h.length, ...h, d.length, ...d])),
        )
        .map((value) => ({ code, value })),
    );
    fc.assert(
      fc.property(sized, ({ code, value }) => {
        fc.pre(allowed[code](value));
        const bytes = Uint8Array.from([code, value.length, ...value]);
        return Buffer.from(encode(decode(bytes))).equals(bytes);
      }),
      { numRuns: 100_000 },
    );
  });

  it('random bytes decode to capabilities or throw a BgpError, nothing else', () => {
    fc.assert(
      // Plain comparisons: 100k runs of expect() would dominate the time.
      fc.property(fc.uint8Array({ maxLength: 48 }), (bytes) => {
        try {
          // Whatever decodes must re-encode to the same octets: raw keeps what we do not parse.
          return Buffer.from(encode(decode(bytes))).equals(bytes);
        } catch (e) {
          if (!(e instanceof BgpError)) throw e;
          return e.code === 2 && e.subcode === 0;
        }
      }),
      { numRuns: 100_000 },
    );
  });
});
