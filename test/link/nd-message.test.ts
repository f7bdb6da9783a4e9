import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { parseIp } from '../../src/address/index.js';
import {
  decodeNdMessage,
  encodeRouterAdvertisement,
  icmp6Filter,
  parseMac,
  sockaddrIn6,
} from '../../src/link/index.js';

const LL = parseIp('fe80::1').bytes;
const GLOBAL = parseIp('2001:db8::1').bytes;
const UNSPECIFIED = parseIp('::').bytes;
const hex = (s: string) => Uint8Array.from(Buffer.from(s.replace(/\s+|#[^\n]*/g, ''), 'hex'));

// An RA as FRR 10.3's zebra sends one on an unnumbered BGP interface (fields per RFC 4861 4.2).
const FRR_RA = hex(`
  86 00 0000      # type 134, code 0, checksum (the kernel's)
  40 00 0000      # hop limit 64, M=0 O=0, router lifetime 0
  00000000        # reachable time
  00000000        # retrans timer
  01 01 0a0b0c0d0e0f   # source link-layer address 0a:0b:0c:0d:0e:0f
  05 01 0000 000005dc  # MTU 1500
`);

describe('decodeNdMessage', () => {
  const cases: { name: string; bytes: Uint8Array; source?: Uint8Array; drop?: RegExp }[] = [
    { name: 'an RA with link-layer address and MTU options', bytes: FRR_RA },
    { name: 'an RA from a global source', bytes: FRR_RA, source: GLOBAL, drop: /not link-local/ },
    { name: 'an RA with code 1', bytes: hex('8601 0000 40000000 00000000 00000000'), drop: /code 1/ },
    { name: 'an RA of 15 bytes', bytes: FRR_RA.subarray(0, 15), drop: /15 bytes/ },
    {
      name: 'an option of length 0',
      bytes: hex('8600 0000 40000000 00000000 00000000 0100 0000 0000 0000'),
      drop: /length 0/,
    },
    {
      name: 'an option past the end',
      bytes: hex('8600 0000 40000000 00000000 00000000 0102 0a0b0c0d0e0f'),
      drop: /runs past/,
    },
    {
      name: 'an option header cut short',
      bytes: hex('8600 0000 40000000 00000000 00000000 01'),
      drop: /cut short/,
    },
    { name: 'an RS', bytes: hex('8500 0000 00000000 0101 0a0b0c0d0e0f') },
    {
      name: 'an RS from :: with a link-layer option',
      bytes: hex('8500 0000 00000000 0101 0a0b0c0d0e0f'),
      source: UNSPECIFIED,
      drop: /from ::/,
    },
    { name: 'an RS of 7 bytes', bytes: hex('8500 0000 000000'), drop: /7 bytes/ },
    { name: 'a neighbour solicitation', bytes: hex('8700 0000 00000000'), drop: /type 135/ },
    { name: 'three bytes', bytes: hex('860000'), drop: /shorter than/ },
  ];
  for (const c of cases) {
    it(c.name, () => {
      const v = decodeNdMessage(c.bytes, c.source ?? LL);
      if (c.drop) expect('drop' in v && v.drop).toMatch(c.drop);
      else expect('message' in v).toBe(true);
    });
  }

  it('reads every field of an RA', () => {
    const v = decodeNdMessage(FRR_RA, LL);
    expect(v).toEqual({
      message: {
        type: 'router-advertisement',
        curHopLimit: 64,
        managed: false,
        other: false,
        routerLifetime: 0,
        reachableTime: 0,
        retransTimer: 0,
        sourceLinkLayer: hex('0a0b0c0d0e0f'),
        mtu: 1500,
      },
    });
  });

  it('skips options it does not know (RFC 4861 4.6)', () => {
    const v = decodeNdMessage(hex('8600 0000 40c00708 00000001 00000002 1901 000000000000'), LL);
    expect(v).toEqual({
      message: {
        type: 'router-advertisement',
        curHopLimit: 64,
        managed: true,
        other: true,
        routerLifetime: 0x708,
        reachableTime: 1,
        retransTimer: 2,
      },
    });
  });
});

describe('encodeRouterAdvertisement', () => {
  it('writes the FRR fixture from its fields', () => {
    const bytes = encodeRouterAdvertisement({
      curHopLimit: 64,
      sourceLinkLayer: hex('0a0b0c0d0e0f'),
      mtu: 1500,
    });
    expect(Buffer.from(bytes).toString('hex')).toBe(Buffer.from(FRR_RA).toString('hex'));
  });

  it('defaults to lifetime 0: not a default router', () => {
    const bytes = encodeRouterAdvertisement();
    expect(bytes.length).toBe(16);
    expect(bytes[0]).toBe(134);
    expect(bytes[6] | bytes[7]).toBe(0);
  });

  it('refuses fields out of range, naming them', () => {
    expect(() => encodeRouterAdvertisement({ routerLifetime: 65536 })).toThrow(/router lifetime 65536/);
    expect(() => encodeRouterAdvertisement({ curHopLimit: -1 })).toThrow(/hop limit -1/);
    expect(() => encodeRouterAdvertisement({ sourceLinkLayer: new Uint8Array(0) })).toThrow(/0 bytes/);
  });

  it('decodes what it encodes (property)', () => {
    fc.assert(
      fc.property(
        fc.record({
          curHopLimit: fc.integer({ min: 0, max: 255 }),
          managed: fc.boolean(),
          other: fc.boolean(),
          routerLifetime: fc.integer({ min: 0, max: 0xffff }),
          reachableTime: fc.integer({ min: 0, max: 0xffffffff }),
          retransTimer: fc.integer({ min: 0, max: 0xffffffff }),
          sourceLinkLayer: fc.option(fc.uint8Array({ minLength: 6, maxLength: 6 }), { nil: undefined }),
          mtu: fc.option(fc.integer({ min: 0, max: 0xffffffff }), { nil: undefined }),
        }),
        (init) => {
          const v = decodeNdMessage(encodeRouterAdvertisement(init), LL);
          expect('message' in v).toBe(true);
          const m = 'message' in v ? v.message : undefined;
          expect(m).toMatchObject({
            type: 'router-advertisement',
            curHopLimit: init.curHopLimit,
            managed: init.managed,
            other: init.other,
            routerLifetime: init.routerLifetime,
            reachableTime: init.reachableTime,
            retransTimer: init.retransTimer,
          });
          if (m?.type !== 'router-advertisement') return;
          if (init.sourceLinkLayer) expect(m.sourceLinkLayer).toEqual(init.sourceLinkLayer);
          expect(m.mtu).toBe(init.mtu);
        },
      ),
    );
  });

  it('never throws on arbitrary input (property)', () => {
    fc.assert(
      fc.property(
        fc.uint8Array({ maxLength: 80 }),
        fc.uint8Array({ minLength: 16, maxLength: 16 }),
        (b, s) => {
          const v = decodeNdMessage(b, s);
          expect('message' in v || 'drop' in v).toBe(true);
        },
      ),
    );
  });
});

describe('socket structs', () => {
  it('passes only the asked types through the ICMPv6 filter', () => {
    const f = icmp6Filter([133, 134]);
    const word = f.readUInt32LE(4 * 4); // types 128..159
    for (let t = 128; t < 160; t++) expect(((word >>> (t & 31)) & 1) === 0).toBe(t === 133 || t === 134);
    expect(f.readUInt32LE(0)).toBe(0xffffffff);
  });

  it('writes sockaddr_in6 with the scope id', () => {
    const s = sockaddrIn6(parseIp('ff02::1').bytes, 7);
    expect(s.length).toBe(28);
    expect(s.readUInt16LE(0)).toBe(10);
    expect(s.subarray(8, 24)).toEqual(Buffer.from(parseIp('ff02::1').bytes));
    expect(s.readUInt32LE(24)).toBe(7);
  });

  it('parses MAC addresses, refusing the zero one and other spellings', () => {
    expect(parseMac('0a:0B:0c:0d:0e:0f')).toEqual(hex('0a0b0c0d0e0f'));
    expect(parseMac('00:00:00:00:00:00')).toBeUndefined();
    expect(parseMac('0a0b0c0d0e0f')).toBeUndefined();
    expect(parseMac(undefined)).toBeUndefined();
  });
});
