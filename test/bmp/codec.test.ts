/* The BMP codec: annotated fixtures, every message type round-tripped, truncation told apart. */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { addressBytes, formatAddress } from '../../src/address/index.js';
import {
  BmpError,
  type BmpMessage,
  BmpPeerFlag,
  bmpMessageLength,
  decodeBmp,
  decodeBmpStream,
  encodeBmpBytes,
  initiationTlvs,
  PeerDownReason,
  type PerPeerHeader,
  type Stat,
  StatType,
  statShape,
  terminationTlvs,
} from '../../src/bmp/index.js';

const hex = (b: Uint8Array) => Buffer.from(b).toString('hex');
const bytes = (h: string) => new Uint8Array(Buffer.from(h.replace(/\s+/g, ''), 'hex'));

/** An End-of-RIB for IPv4 unicast: the shortest UPDATE (RFC 4724 section 2). */
const EOR_V4 = bytes('ffffffffffffffffffffffffffffffff 0017 02 0000 0000');

const peerV4: PerPeerHeader = {
  peerType: 0,
  flags: BmpPeerFlag.L,
  distinguisher: 0n,
  address: '198.18.0.2',
  asn: 4_200_000_001,
  bgpId: 0xc6120002,
  seconds: 1_800_000_000,
  micros: 250_000,
};

describe('fixtures', () => {
  it('route monitoring: common header, per-peer header with L set and V clear, the UPDATE', () => {
    const m: BmpMessage = { type: 'route-monitoring', peer: peerV4, update: EOR_V4 };
    const want = bytes(
      `
      03 00000047 00                      # version 3, length 6+42+23 = 71, route monitoring
      00 40 0000000000000000              # global instance, L, distinguisher 0
      000000000000000000000000 c6120002   # 198.18.0.2 in the last 4 of 16 octets
      fa56ea01 c6120002                   # AS 4200000001, BGP ID 198.18.0.2
      6b49d200 0003d090                   # timestamp 1800000000 s, 250000 us
    `.replace(/#.*$/gm, '') + hex(EOR_V4),
    );
    expect(hex(encodeBmpBytes(m))).toBe(hex(want));
    expect(decodeBmp(want)).toEqual(m);
  });

  it('an IPv6 peer sets V whatever flags were asked for; its address fills all 16 octets', () => {
    const m: BmpMessage = {
      type: 'route-monitoring',
      peer: { ...peerV4, flags: 0, address: '2001:db8::2' },
      update: EOR_V4,
    };
    const b = encodeBmpBytes(m);
    expect(b[7]).toBe(BmpPeerFlag.V);
    expect(hex(b.subarray(16, 32))).toBe('20010db8000000000000000000000002');
    expect(decodeBmp(b)).toEqual({ ...m, peer: { ...m.peer, flags: BmpPeerFlag.V } });
  });

  it('initiation carries sysDescr (1) and sysName (2) as TLVs', () => {
    const b = encodeBmpBytes({ type: 'initiation', info: initiationTlvs('spk', 'd') });
    expect(hex(b)).toBe(`03 00000012 04 0001 0001 64 0002 0003 73706b`.replace(/\s/g, ''));
  });

  it('termination carries the reason as two octets', () => {
    const b = encodeBmpBytes({ type: 'termination', info: terminationTlvs() });
    expect(hex(b)).toBe('030000000c05' + '00010002' + '0000');
  });

  it('stats: counters in 4 octets, gauges in 8, per-AFI gauges with AFI and SAFI', () => {
    const stats: Stat[] = [
      { type: StatType.REJECTED_PREFIXES, value: 3 },
      { type: StatType.ADJ_RIB_IN_ROUTES, value: 2 ** 40 },
      { type: StatType.LOC_RIB_ROUTES_PER_AFI_SAFI, afi: 2, safi: 1, value: 7 },
    ];
    const b = encodeBmpBytes({ type: 'statistics-report', peer: peerV4, stats });
    const body = hex(b.subarray(48));
    // count 3; type 0 len 4; type 7 len 8; type 10 len 11 (AFI 2, SAFI 1, gauge)
    expect(body).toBe(
      '00000003' + '0000000400000003' + '000700080000010000000000' + '000a000b00020100000000000000' + '07',
    );
    expect(decodeBmp(b)).toEqual({ type: 'statistics-report', peer: peerV4, stats });
  });
});

describe('malformed and incomplete', () => {
  const whole = encodeBmpBytes({ type: 'route-monitoring', peer: peerV4, update: EOR_V4 });

  it('every truncation of a message is incomplete, never malformed', () => {
    for (let n = 0; n < whole.length; n++) {
      expect(() => decodeBmp(whole.subarray(0, n)), `${n} octets`).toThrow(
        expect.objectContaining({ kind: 'incomplete' }),
      );
    }
  });

  it('a stream split anywhere yields the same messages once whole', () => {
    const two = new Uint8Array([...whole, ...whole]);
    for (let n = 0; n <= two.length; n++) {
      const first = decodeBmpStream(two.subarray(0, n));
      const rest = new Uint8Array([...first.rest, ...two.subarray(n)]);
      const second = decodeBmpStream(rest);
      expect(first.messages.length + second.messages.length).toBe(2);
      expect(second.rest.length).toBe(0);
    }
  });

  it('a wrong version, a length below the header, an unknown type, extra octets are malformed', () => {
    const bad = (b: Uint8Array, kind: string) =>
      expect(() => decodeBmp(b)).toThrow(expect.objectContaining({ kind }));
    const v = whole.slice();
    v[0] = 2;
    bad(v, 'bad-version');
    bad(bytes('03 00000005 00'), 'bad-length');
    bad(bytes('03 00000006 07'), 'bad-type');
    const long = whole.slice();
    long[4]! -= 1; // the UPDATE then runs past the message
    bad(long.subarray(0, long.length - 1), 'bad-body');
    expect(() => bmpMessageLength(v)).toThrow(BmpError);
  });

  it('a stat whose length does not fit its type is malformed', () => {
    const b = encodeBmpBytes({ type: 'statistics-report', peer: peerV4, stats: [{ type: 0, value: 1 }] });
    // Count at 48, the stat's type at 52, its length at 54: 4 becomes 8.
    const fixed = b.slice();
    fixed[55] = 8;
    expect(() => decodeBmp(fixed)).toThrow(expect.objectContaining({ kind: 'bad-body' }));
  });
});

// Generators: every field over its whole range.
const u32 = fc.integer({ min: 0, max: 0xffffffff });
const norm = (a: string) => formatAddress(addressBytes(a));
const address = fc.oneof(fc.ipV4(), fc.ipV6().map(norm));
const gauge = fc.integer({ min: 0, max: Number.MAX_SAFE_INTEGER });

const header = fc
  .record({
    peerType: fc.integer({ min: 0, max: 255 }),
    flags: fc.integer({ min: 0, max: 255 }),
    distinguisher: fc.bigInt({ min: 0n, max: 2n ** 64n - 1n }),
    address,
    asn: u32,
    bgpId: u32,
    seconds: u32,
    micros: u32,
  })
  .map((h) => ({ ...h, flags: (h.flags & ~BmpPeerFlag.V) | (h.address.includes(':') ? BmpPeerFlag.V : 0) }));

/** A whole BGP message of a type with a random body. */
const bgpMessage = (type: number) =>
  fc.uint8Array({ maxLength: 200 }).map((body) => {
    const b = new Uint8Array(19 + body.length);
    b.fill(0xff, 0, 16);
    b[16] = b.length >> 8;
    b[17] = b.length & 0xff;
    b[18] = type;
    b.set(body, 19);
    return b;
  });

const tlvs = fc.array(
  fc.record({ type: fc.integer({ min: 0, max: 0xffff }), value: fc.uint8Array({ maxLength: 64 }) }),
  {
    maxLength: 5,
  },
);

const stat: fc.Arbitrary<Stat> = fc.integer({ min: 0, max: 0xffff }).chain((type): fc.Arbitrary<Stat> => {
  switch (statShape(type)) {
    case 'counter':
      return u32.map((value) => ({ type, value }));
    case 'gauge':
      return gauge.map((value) => ({ type, value }));
    case 'afi-gauge':
      return fc
        .record({
          afi: fc.integer({ min: 0, max: 0xffff }),
          safi: fc.integer({ min: 0, max: 255 }),
          value: gauge,
        })
        .map((s) => ({ type, ...s }));
    default:
      return fc.uint8Array({ maxLength: 16 }).map((raw) => ({ type, raw }));
  }
});

const message: fc.Arbitrary<BmpMessage> = fc.oneof(
  fc.record({ type: fc.constant('route-monitoring' as const), peer: header, update: bgpMessage(2) }),
  fc.record({
    type: fc.constant('statistics-report' as const),
    peer: header,
    stats: fc.array(stat, { maxLength: 12 }),
  }),
  fc.oneof(
    fc.record({
      type: fc.constant('peer-down' as const),
      peer: header,
      reason: fc.constantFrom(PeerDownReason.LOCAL_NOTIFICATION, PeerDownReason.REMOTE_NOTIFICATION),
      data: bgpMessage(3),
    }),
    fc.record({
      type: fc.constant('peer-down' as const),
      peer: header,
      reason: fc.constant(PeerDownReason.LOCAL_NO_NOTIFICATION),
      data: fc.uint8Array({ minLength: 2, maxLength: 2 }),
    }),
    fc.record({
      type: fc.constant('peer-down' as const),
      peer: header,
      reason: fc.constantFrom(PeerDownReason.REMOTE_NO_NOTIFICATION, PeerDownReason.PEER_DECONFIGURED),
      data: fc.constant(new Uint8Array(0)),
    }),
  ),
  header.chain((peer) =>
    fc.record({
      type: fc.constant('peer-up' as const),
      peer: fc.constant(peer),
      // Section 4.10: the local address is of the peer's family.
      localAddress: peer.address.includes(':') ? fc.ipV6().map(norm) : fc.ipV4(),
      localPort: fc.integer({ min: 0, max: 0xffff }),
      remotePort: fc.integer({ min: 0, max: 0xffff }),
      sentOpen: bgpMessage(1),
      receivedOpen: bgpMessage(1),
      info: tlvs,
    }),
  ),
  fc.record({ type: fc.constant('initiation' as const), info: tlvs }),
  fc.record({ type: fc.constant('termination' as const), info: tlvs }),
);

describe('properties', () => {
  it('decode(encode(m)) = m for every message', () => {
    fc.assert(
      fc.property(message, (m) => {
        expect(decodeBmp(encodeBmpBytes(m))).toEqual(m);
      }),
      { numRuns: 2000 },
    );
  });

  it('the length field is the whole message; a stream of messages decodes to the same list', () => {
    fc.assert(
      fc.property(fc.array(message, { maxLength: 6 }), (ms) => {
        const parts = ms.map((m) => encodeBmpBytes(m));
        for (const p of parts) expect(bmpMessageLength(p)).toBe(p.length);
        const all = new Uint8Array(parts.reduce((n, p) => n + p.length, 0));
        let at = 0;
        for (const p of parts) {
          all.set(p, at);
          at += p.length;
        }
        const { messages, rest } = decodeBmpStream(all);
        expect(messages).toEqual(ms);
        expect(rest.length).toBe(0);
      }),
      { numRuns: 300 },
    );
  });

  it('any truncation of any message is incomplete', () => {
    fc.assert(
      fc.property(message, fc.nat(), (m, cut) => {
        const b = encodeBmpBytes(m);
        const n = cut % b.length;
        expect(() => decodeBmp(b.subarray(0, n))).toThrow(expect.objectContaining({ kind: 'incomplete' }));
      }),
      { numRuns: 500 },
    );
  });
});
