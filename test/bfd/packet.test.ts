import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { BfdState, type BfdStateCode } from '../../src/bfd/constants.js';
import { type ControlPacket, decodeControl, encodeControl } from '../../src/bfd/packet.js';

const base: ControlPacket = {
  diag: 0,
  state: BfdState.Down,
  poll: false,
  final: false,
  controlPlaneIndependent: false,
  authPresent: false,
  demand: false,
  multipoint: false,
  detectMult: 3,
  myDiscr: 0x01020304,
  yourDiscr: 0,
  desiredMinTxUs: 1_000_000,
  requiredMinRxUs: 300_000,
  requiredMinEchoRxUs: 0,
};

/** The Down packet a new session sends with FRR's default timers (1 s while not Up, 300 ms receive). */
const FRR_DOWN = Uint8Array.from([
  0x20, // version 1, diag 0
  0x40, // state Down, no flags
  0x03, // detect mult
  0x18, // length 24
  0x01,
  0x02,
  0x03,
  0x04, // my discriminator
  0x00,
  0x00,
  0x00,
  0x00, // your discriminator
  0x00,
  0x0f,
  0x42,
  0x40, // desired min tx 1,000,000 us
  0x00,
  0x04,
  0x93,
  0xe0, // required min rx 300,000 us
  0x00,
  0x00,
  0x00,
  0x00, // required min echo rx 0
]);

describe('BFD Control packet (RFC 5880 4.1)', () => {
  it('encodes the mandatory section field by field', () => {
    expect([...encodeControl(base)]).toEqual([...FRR_DOWN]);
    const up = encodeControl({ ...base, state: BfdState.Up, poll: true, diag: 1, yourDiscr: 7 });
    expect(up[0]).toBe(0x21);
    expect(up[1]).toBe(0xc0 | 0x20);
    expect(up[11]).toBe(7);
  });

  it('sets each flag bit in its place', () => {
    const bit = (p: Partial<ControlPacket>) => encodeControl({ ...base, ...p })[1]! & 0x3f;
    expect(bit({ poll: true })).toBe(0x20);
    expect(bit({ final: true })).toBe(0x10);
    expect(bit({ controlPlaneIndependent: true })).toBe(0x08);
    expect(bit({ authPresent: true })).toBe(0x04);
    expect(bit({ demand: true })).toBe(0x02);
    expect(bit({ multipoint: true })).toBe(0x01);
  });

  it('decodes what it encodes', () => {
    const state = fc.constantFrom<BfdStateCode>(0, 1, 2, 3);
    const u32 = fc.integer({ min: 0, max: 0xffffffff });
    fc.assert(
      fc.property(
        fc.record({
          diag: fc.integer({ min: 0, max: 31 }),
          state,
          poll: fc.boolean(),
          final: fc.boolean(),
          controlPlaneIndependent: fc.boolean(),
          demand: fc.boolean(),
          detectMult: fc.integer({ min: 1, max: 255 }),
          myDiscr: fc.integer({ min: 1, max: 0xffffffff }),
          yourDiscr: fc.integer({ min: 1, max: 0xffffffff }),
          desiredMinTxUs: u32,
          requiredMinRxUs: u32,
          requiredMinEchoRxUs: u32,
        }),
        (r) => {
          const p: ControlPacket = { ...r, authPresent: false, multipoint: false };
          const d = decodeControl(encodeControl(p));
          expect(d).toEqual({ ok: true, packet: p });
        },
      ),
    );
  });

  it('accepts trailing bytes past Length and reads only the packet', () => {
    const long = new Uint8Array(40);
    long.set(FRR_DOWN);
    expect(decodeControl(long).ok).toBe(true);
  });

  /** The packet with byte `at` set to `value` (or OR-ed with it). */
  const withByte =
    (at: number, value: number, or = false) =>
    (b: Uint8Array): Uint8Array => {
      b[at] = or ? b[at]! | value : value;
      return b;
    };
  const zeroMyDiscriminator = (b: Uint8Array): Uint8Array => b.fill(0, 4, 8);

  // One row per discard rule of RFC 5880 6.8.6 that needs no session.
  const discards: readonly [string, (b: Uint8Array) => Uint8Array, string][] = [
    ['shorter than 24 bytes', (b) => b.subarray(0, 23), 'too-short'],
    ['version 0', withByte(0, 0x00), 'bad-version'],
    ['version 2', withByte(0, 0x40), 'bad-version'],
    ['Length under 24', withByte(3, 23), 'bad-length'],
    ['Length past the payload', withByte(3, 25), 'bad-length'],
    ['A bit with Length under 26', withByte(1, 0x04, true), 'bad-length'],
    ['Detect Mult 0', withByte(2, 0), 'zero-detect-mult'],
    ['M bit', withByte(1, 0x01, true), 'multipoint'],
    ['My Discriminator 0', zeroMyDiscriminator, 'zero-my-discriminator'],
    ['Your Discriminator 0 in Init', withByte(1, 0x80), 'zero-your-discriminator'],
    ['Your Discriminator 0 in Up', withByte(1, 0xc0), 'zero-your-discriminator'],
    [
      'authentication (no key is configured)',
      (b) => {
        const a = new Uint8Array(28);
        a.set(b);
        a[1]! |= 0x04;
        a[3] = 28;
        return a;
      },
      'authentication',
    ],
  ];
  it.each(discards)('discards a packet with %s', (_name, mutate, kind) => {
    const d = decodeControl(mutate(Uint8Array.from(FRR_DOWN)));
    expect(d.ok).toBe(false);
    if (!d.ok) expect(d.kind).toBe(kind);
  });

  it('keeps Your Discriminator 0 from a peer that is Down or AdminDown', () => {
    expect(decodeControl(FRR_DOWN).ok).toBe(true);
    const adminDown = Uint8Array.from(FRR_DOWN);
    adminDown[1] = 0x00;
    expect(decodeControl(adminDown).ok).toBe(true);
  });

  it('never throws on any bytes', () => {
    fc.assert(
      fc.property(fc.uint8Array({ maxLength: 64 }), (bytes) => {
        decodeControl(bytes);
      }),
    );
  });
});
