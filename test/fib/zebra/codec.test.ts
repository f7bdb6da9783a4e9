import { describe, expect, it } from 'vitest';
import { Writer } from '../../../src/bgp/wire/index.js';
import {
  decodeHeader,
  decodeMessage,
  decodeRoute,
  FRR_8_4,
  NotifyOwner,
  writeHello,
  writeRouteAdd,
  writeRouteDelete,
  writeRouterIdAdd,
  ZapiError,
  ZapiFramer,
  type ZapiRoute,
} from '../../../src/fib/zebra/index.js';
import { hex, toHex } from '../../support/hex.js';
import * as F from './fixtures.js';

const V4 = { family: 2, len: 24, addr: '203.0.113.0' } as const;
const V6 = { family: 10, len: 48, addr: '2001:db8:300::' } as const;

function encode(fn: (w: Writer) => void): Uint8Array {
  const w = new Writer(64);
  fn(w);
  return w.finish();
}

function body(frame: Uint8Array): Uint8Array {
  return frame.subarray(10);
}

function only(frame: Uint8Array) {
  const frames = new ZapiFramer().push(frame);
  expect(frames).toHaveLength(1);
  return decodeMessage(frames[0], FRR_8_4);
}

const probeV4: ZapiRoute = {
  type: 9,
  instance: 0,
  flags: 0,
  safi: 1,
  prefix: V4,
  nexthops: [{ type: 3, vrfId: 0, flags: 0, gate: '198.18.1.1', ifindex: 2 }],
  distance: 20,
  metric: 0,
};

const probeV6: ZapiRoute = {
  ...probeV4,
  prefix: V6,
  nexthops: [{ type: 5, vrfId: 0, flags: 0, gate: '2001:db8:1::1', ifindex: 2 }],
};

const bgpdV4: ZapiRoute = {
  ...probeV4,
  prefix: { family: 2, len: 24, addr: '192.0.2.0' },
  nexthops: [{ type: 2, vrfId: 0, flags: 0, gate: '198.18.3.3', ifindex: 0 }],
};

describe('encoders give the captured bytes', () => {
  const cases: { name: string; bytes: Uint8Array; write: (w: Writer) => void }[] = [
    {
      name: 'HELLO with notify (probe)',
      bytes: F.PROBE_HELLO,
      write: (w) =>
        writeHello(w, FRR_8_4, {
          proto: 9,
          instance: 0,
          sessionId: 0,
          receiveNotify: true,
          synchronous: false,
        }),
    },
    {
      name: 'HELLO without notify (bgpd)',
      bytes: F.BGPD_HELLO,
      write: (w) =>
        writeHello(w, FRR_8_4, {
          proto: 9,
          instance: 0,
          sessionId: 0,
          receiveNotify: false,
          synchronous: false,
        }),
    },
    {
      name: 'ROUTER_ID_ADD afi 1 (bgpd)',
      bytes: F.ROUTER_ID_ADD_IPV4,
      write: (w) => writeRouterIdAdd(w, FRR_8_4, 1),
    },
    {
      name: 'ROUTE_ADD IPv4 (probe)',
      bytes: F.PROBE_ROUTE_ADD_V4,
      write: (w) => writeRouteAdd(w, FRR_8_4, probeV4),
    },
    {
      name: 'ROUTE_ADD IPv6 (probe)',
      bytes: F.PROBE_ROUTE_ADD_V6,
      write: (w) => writeRouteAdd(w, FRR_8_4, probeV6),
    },
    {
      name: 'ROUTE_ADD IPv4 (bgpd)',
      bytes: F.BGPD_ROUTE_ADD,
      write: (w) => writeRouteAdd(w, FRR_8_4, bgpdV4),
    },
    {
      name: 'ROUTE_DELETE IPv4 (probe)',
      bytes: F.PROBE_ROUTE_DELETE_V4,
      write: (w) => writeRouteDelete(w, FRR_8_4, { type: 9, instance: 0, flags: 0, safi: 1, prefix: V4 }),
    },
    {
      name: 'ROUTE_DELETE IPv6 (probe)',
      bytes: F.PROBE_ROUTE_DELETE_V6,
      write: (w) => writeRouteDelete(w, FRR_8_4, { type: 9, instance: 0, flags: 0, safi: 1, prefix: V6 }),
    },
  ];
  for (const c of cases) it(c.name, () => expect(toHex(encode(c.write))).toBe(toHex(c.bytes)));
});

describe('decoders read the captured bytes', () => {
  it('CAPABILITIES', () => {
    expect(only(F.CAPABILITIES)).toEqual({
      kind: 'capabilities',
      value: { vrfBackend: 0, mplsEnabled: false, multipathNum: 256, mlagRole: 0 },
    });
  });
  it('VRF_ADD (table_id in host order)', () => {
    expect(only(F.VRF_ADD_DEFAULT)).toEqual({
      kind: 'vrf-add',
      vrfId: 0,
      value: { tableId: 254, name: 'default' },
    });
  });
  it('ROUTE_NOTIFY_OWNER INSTALLED IPv4 (enum in host order, full address)', () => {
    expect(only(F.NOTIFY_INSTALLED_V4)).toEqual({
      kind: 'notify-owner',
      value: { note: NotifyOwner.INSTALLED, prefix: V4, tableId: 254, afi: 1, safi: 1 },
    });
  });
  it('ROUTE_NOTIFY_OWNER REMOVED IPv4', () => {
    const m = only(F.NOTIFY_REMOVED_V4);
    expect(m.kind === 'notify-owner' && m.value.note).toBe(NotifyOwner.REMOVED);
  });
  it('ROUTE_NOTIFY_OWNER INSTALLED IPv6', () => {
    expect(only(F.NOTIFY_INSTALLED_V6)).toEqual({
      kind: 'notify-owner',
      value: { note: NotifyOwner.INSTALLED, prefix: V6, tableId: 254, afi: 2, safi: 1 },
    });
  });
  it('ROUTER_ID_UPDATE (length after the address)', () => {
    expect(only(F.ROUTER_ID_UPDATE)).toEqual({
      kind: 'router-id-update',
      value: { prefix: { family: 2, addr: '198.18.2.2', len: 32 } },
    });
  });
  it('an unknown command is "other"', () => {
    expect(only(F.INTERFACE_ADD_LO)).toEqual({ kind: 'other', command: 0 });
  });
  const routes: [string, Uint8Array, ZapiRoute][] = [
    ['probe IPv4 add', F.PROBE_ROUTE_ADD_V4, probeV4],
    ['probe IPv6 add', F.PROBE_ROUTE_ADD_V6, probeV6],
    ['bgpd IPv4 add', F.BGPD_ROUTE_ADD, bgpdV4],
    [
      'probe IPv4 delete',
      F.PROBE_ROUTE_DELETE_V4,
      { type: 9, instance: 0, flags: 0, safi: 1, prefix: V4, nexthops: [] },
    ],
  ];
  for (const [name, bytes, value] of routes) it(name, () => expect(decodeRoute(body(bytes))).toEqual(value));
});

describe('encoder details', () => {
  it('ECMP: two next hops, count u16, each with its own type', () => {
    const r: ZapiRoute = {
      ...bgpdV4,
      instance: 1,
      nexthops: [
        { type: 2, vrfId: 0, flags: 0, gate: '198.18.3.3', ifindex: 0 },
        { type: 2, vrfId: 0, flags: 0, gate: '198.18.3.4', ifindex: 0 },
      ],
    };
    const bytes = encode((w) => writeRouteAdd(w, FRR_8_4, r));
    expect(toHex(bytes)).toBe(
      toHex(hex`
        00 3e fe 06 00 00 00 00 00 08
        09 | 00 01 | 00 00 00 00 | 00 00 00 07 | 01 | 02 18 c0 00 02
        00 02
        00 00 00 00 02 00 c6 12 03 03 00 00 00 00
        00 00 00 00 02 00 c6 12 03 04 00 00 00 00
        14 00 00 00 00`),
    );
    expect(decodeRoute(body(bytes))).toEqual(r);
  });
  it('host bits of the prefix are cleared; /0 carries no address bytes', () => {
    const del = { type: 9, instance: 1, flags: 0, safi: 1 };
    const bytes = encode((w) =>
      writeRouteDelete(w, FRR_8_4, { ...del, prefix: { family: 2, len: 0, addr: '1.2.3.4' } }),
    );
    expect(toHex(bytes)).toBe(
      toHex(hex`00 18 fe 06 00 00 00 00 00 09 | 09 00 01 00 00 00 00 00 00 00 00 01 | 02 00`),
    );
    const v6 = encode((w) =>
      writeRouteDelete(w, FRR_8_4, { ...del, prefix: { family: 10, len: 33, addr: '2001:db8:ffff::' } }),
    );
    // /33 needs 5 bytes; bit 33 is kept, bits 34.. are cleared.
    expect(toHex(v6.subarray(-7))).toBe('0a21' + '20010db880');
  });
  it('IPv4 prefix over an IPv6 next hop (RFC 8950) is encodable', () => {
    const r: ZapiRoute = {
      ...bgpdV4,
      nexthops: [{ type: 4, vrfId: 0, flags: 0, gate: '2001:db8:1::1', ifindex: 0 }],
    };
    expect(decodeRoute(body(encode((w) => writeRouteAdd(w, FRR_8_4, r))))).toEqual(r);
  });
  const refusals: [string, (w: Writer) => void][] = [
    ['an add without next hops', (w) => writeRouteAdd(w, FRR_8_4, { ...bgpdV4, nexthops: [] })],
    [
      'a gateway of the wrong family',
      (w) => writeRouteAdd(w, FRR_8_4, { ...bgpdV4, nexthops: [{ ...bgpdV4.nexthops[0], type: 4 }] }),
    ],
    [
      'a prefix length past 32',
      (w) => writeRouteDelete(w, FRR_8_4, { ...bgpdV4, prefix: { family: 2, len: 33, addr: '1.2.3.4' } }),
    ],
    [
      'an address that is not one',
      (w) => writeRouteDelete(w, FRR_8_4, { ...bgpdV4, prefix: { family: 2, len: 8, addr: 'x' } }),
    ],
    [
      'a frame over 16384 bytes',
      (w) =>
        writeRouteAdd(w, FRR_8_4, {
          ...bgpdV4,
          nexthops: Array.from({ length: 1200 }, () => bgpdV4.nexthops[0]),
        }),
    ],
  ];
  for (const [name, write] of refusals)
    it(`refuses ${name}`, () => {
      const w = new Writer(64);
      expect(() => write(w)).toThrow(expect.objectContaining({ kind: 'unencodable' }));
      expect(w.pos).toBe(0);
    });
});

describe('malformed input', () => {
  const cases: { name: string; bytes: Uint8Array; kind: ZapiError['kind']; text?: RegExp }[] = [
    { name: 'bad marker', bytes: hex`00 0a ff 06 00 00 00 00 00 13`, kind: 'bad-marker' },
    {
      name: 'ZAPI version 5 named in the error',
      bytes: hex`00 0a fe 05 00 00 00 00 00 13`,
      kind: 'unsupported-version',
      text: /version 5.*only version 6/,
    },
    { name: 'length under the header', bytes: hex`00 09 fe 06 00 00 00 00 00`, kind: 'bad-length' },
    { name: 'length over 16384', bytes: hex`40 01 fe 06`, kind: 'bad-length' },
  ];
  for (const c of cases)
    it(c.name, () => {
      const framer = new ZapiFramer();
      let err: unknown;
      try {
        framer.push(c.bytes);
      } catch (e) {
        err = e;
      }
      expect(err).toBeInstanceOf(ZapiError);
      expect((err as ZapiError).kind).toBe(c.kind);
      if (c.text) expect((err as ZapiError).message).toMatch(c.text);
      // Poisoned: the rest of the stream cannot be trusted.
      expect(() => framer.push(F.CAPABILITIES)).toThrow(ZapiError);
    });

  it('version is refused from 4 bytes, before the length is complete', () => {
    expect(() => new ZapiFramer().push(hex`00 30 fe 05`)).toThrow(/unsupported-version/);
  });
  it('decodeHeader checks the same', () => {
    expect(decodeHeader(F.CAPABILITIES)).toEqual({ length: 20, version: 6, vrfId: 0, command: 19 });
    expect(() => decodeHeader(hex`00 0a fe 07 00 00 00 00 00 13`)).toThrow(/version 7/);
  });
  const bodies: [string, Uint8Array][] = [
    ['CAPABILITIES cut short', hex`00 0d fe 06 00 00 00 00 00 13 00 00 00`],
    ['NOTIFY_OWNER cut inside the address', hex`00 12 fe 06 00 00 00 00 00 0a 02 00 00 00 02 18 cb 00`],
    [
      'NOTIFY_OWNER with note 9',
      hex`00 1a fe 06 00 00 00 00 00 0a 09 00 00 00 02 18 cb 00 71 00 00 00 00 fe 01 01`,
    ],
    [
      'NOTIFY_OWNER family 7',
      hex`00 1a fe 06 00 00 00 00 00 0a 02 00 00 00 07 18 cb 00 71 00 00 00 00 fe 01 01`,
    ],
    ['NOTIFY_OWNER /33', hex`00 1a fe 06 00 00 00 00 00 0a 02 00 00 00 02 21 cb 00 71 00 00 00 00 fe 01 01`],
    ['ROUTER_ID_UPDATE without length', hex`00 0f fe 06 00 00 00 00 00 11 02 c6 12 02 02`],
    ['ROUTE_ADD with a trailing byte', new Uint8Array([0x00, 0x31, ...F.BGPD_ROUTE_ADD.subarray(2), 0])],
    [
      'ROUTE_ADD with SAFI 3',
      hex`00 1b fe 06 00 00 00 00 00 08 09 00 00 00 00 00 00 00 00 00 00 03 02 18 cb 00 71`,
    ],
  ];
  for (const [name, bytes] of bodies)
    it(`${name} is malformed`, () => {
      const frames = new ZapiFramer().push(bytes);
      expect(frames).toHaveLength(1);
      expect(() => decodeMessage(frames[0], FRR_8_4)).toThrow(expect.objectContaining({ kind: 'malformed' }));
    });
});
