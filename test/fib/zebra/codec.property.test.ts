import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { Writer } from '../../../src/bgp/wire/index.js';
import {
  addressBytes,
  addressText,
  DIALECTS,
  decodeMessage,
  decodeRoute,
  NexthopType,
  writeNotifyOwner,
  writeRouteAdd,
  writeRouteDelete,
  ZapiFramer,
  type ZapiNexthop,
  type ZapiPrefix,
  type ZapiRoute,
} from '../../../src/fib/zebra/index.js';

function masked(bytes: Uint8Array, len: number): Uint8Array {
  const out = Uint8Array.from(bytes);
  for (let i = 0; i < out.length; i++) {
    const keep = len - 8 * i;
    if (keep < 8) out[i] &= keep <= 0 ? 0 : (0xff << (8 - keep)) & 0xff;
  }
  return out;
}

const v4Bytes = fc.uint8Array({ minLength: 4, maxLength: 4 });
const v6Bytes = fc.uint8Array({ minLength: 16, maxLength: 16 });

const prefix: fc.Arbitrary<ZapiPrefix> = fc.oneof(
  fc.tuple(v4Bytes, fc.integer({ min: 0, max: 32 })).map(([b, len]) => ({
    family: 2 as const,
    len,
    addr: addressText(masked(b, len)),
  })),
  fc.tuple(v6Bytes, fc.integer({ min: 0, max: 128 })).map(([b, len]) => ({
    family: 10 as const,
    len,
    addr: addressText(masked(b, len)),
  })),
);

const u32 = fc.integer({ min: 0, max: 0xffffffff });

const nexthop: fc.Arbitrary<ZapiNexthop> = fc
  .record({
    kind: fc.constantFrom(
      NexthopType.IPV4,
      NexthopType.IPV4_IFINDEX,
      NexthopType.IPV6,
      NexthopType.IPV6_IFINDEX,
      NexthopType.IFINDEX,
      NexthopType.BLACKHOLE,
    ),
    v4: v4Bytes,
    v6: v6Bytes,
    vrfId: u32,
    ifindex: u32,
    onlink: fc.boolean(),
    bh: fc.integer({ min: 0, max: 3 }),
    labels: fc.option(fc.array(fc.integer({ min: 0, max: 0xfffff }), { minLength: 1, maxLength: 3 }), {
      nil: undefined,
    }),
    weight: fc.option(u32, { nil: undefined }),
  })
  .map((g): ZapiNexthop => {
    const base = {
      vrfId: g.vrfId,
      flags: g.onlink ? 1 : 0,
      ...(g.labels && { labels: g.labels }),
      ...(g.weight !== undefined && { weight: g.weight }),
    };
    switch (g.kind) {
      case NexthopType.BLACKHOLE:
        return { ...base, type: g.kind, ifindex: 0, blackhole: g.bh };
      case NexthopType.IFINDEX:
        return { ...base, type: g.kind, ifindex: g.ifindex };
      case NexthopType.IPV4:
      case NexthopType.IPV4_IFINDEX:
        return { ...base, type: g.kind, gate: addressText(g.v4), ifindex: g.ifindex };
      default:
        return { ...base, type: g.kind, gate: addressText(g.v6), ifindex: g.ifindex };
    }
  });

const optional = <T>(a: fc.Arbitrary<T>) => fc.option(a, { nil: undefined });

const route: fc.Arbitrary<ZapiRoute> = fc
  .record({
    type: fc.integer({ min: 3, max: 30 }),
    instance: fc.integer({ min: 0, max: 0xffff }),
    flags: u32,
    safi: fc.constantFrom(1, 2),
    prefix,
    nexthops: fc.array(nexthop, { minLength: 1, maxLength: 8 }),
    distance: optional(fc.integer({ min: 0, max: 255 })),
    metric: optional(u32),
    tag: optional(u32),
    mtu: optional(u32),
    tableId: optional(u32),
  })
  .map(
    (r) => Object.fromEntries(Object.entries(r).filter(([, v]) => v !== undefined)) as unknown as ZapiRoute,
  );

describe('route codec round trip', () => {
  it('decodeRoute(writeRouteAdd(r)) == r, through the framer in random chunks', () => {
    fc.assert(
      fc.property(
        fc.array(route, { minLength: 1, maxLength: 5 }),
        fc.array(fc.integer({ min: 1, max: 97 })),
        (rs, cuts) => {
          const w = new Writer(256);
          for (const r of rs) writeRouteAdd(w, DIALECTS[0], r);
          const stream = w.finish();
          const framer = new ZapiFramer();
          const frames = [];
          let at = 0;
          for (const c of [...cuts, stream.length]) {
            frames.push(...framer.push(stream.subarray(at, at + c)));
            at = Math.min(stream.length, at + c);
          }
          frames.push(...framer.push(stream.subarray(at)));
          expect(frames.map((f) => decodeRoute(f.body))).toEqual(rs);
        },
      ),
    );
  });

  it('ROUTE_DELETE keeps only the key', () => {
    fc.assert(
      fc.property(route, (r) => {
        const w = new Writer(64);
        writeRouteDelete(w, DIALECTS[0], r);
        const [f] = new ZapiFramer().push(w.finish());
        expect(decodeRoute(f.body)).toEqual({
          type: r.type,
          instance: r.instance,
          flags: r.flags,
          safi: r.safi,
          prefix: r.prefix,
          nexthops: [],
        });
      }),
    );
  });

  for (const d of DIALECTS)
    it(`NOTIFY_OWNER round trip in ${d.name} (host-order note, full address${d.notifySourcePrefix ? ', source prefix' : ''})`, () => {
      fc.assert(
        fc.property(prefix, prefix, fc.integer({ min: 0, max: 4 }), u32, (p, src, note, tableId) => {
          const w = new Writer(64);
          // A source prefix of the prefix's family, length 0 meaning none (10.3 only).
          const sourcePrefix =
            d.notifySourcePrefix && src.family === p.family && src.len > 0 ? src : undefined;
          const n = {
            note: note as 0,
            prefix: p,
            ...(sourcePrefix && { sourcePrefix }),
            tableId,
            afi: p.family === 2 ? 1 : 2,
            safi: 1,
          };
          writeNotifyOwner(w, d, n);
          const [f] = new ZapiFramer().push(w.finish());
          expect(decodeMessage(f, d)).toEqual({ kind: 'notify-owner', value: n });
        }),
      );
    });

  it('address text and bytes are inverse', () => {
    fc.assert(
      fc.property(fc.oneof(v4Bytes, v6Bytes), (b) => {
        const text = addressText(b);
        expect(addressBytes(text, b.length === 4 ? 2 : 10)).toEqual(b);
      }),
    );
  });
});
