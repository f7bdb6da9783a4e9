import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { AF } from '../../../src/bgp/transport/index.js';
import { Afi, formatIpv4, formatIpv6 } from '../../../src/bgp/wire/index.js';
import {
  decodeAck,
  decodeRoute,
  KernelError,
  type KernelNexthop,
  type KernelRoute,
  NlmFlag,
  NlmsgType,
  NlView,
  NlWriter,
  splitMessages,
  writeAck,
  writeDelRoute,
  writeNewRoute,
} from '../../../src/fib/kernel/index.js';
import { RibPrefix } from '../../../src/rib/index.js';

const u32 = fc.integer({ min: 0, max: 0xffffffff });
const v4Text = u32.map(formatIpv4);
const v6Text = fc.tuple(u32, u32, u32, u32).map(([a, b, c, d]) => formatIpv6(a, b, c, d));

const prefix: fc.Arbitrary<RibPrefix> = fc.oneof(
  fc
    .tuple(u32, fc.integer({ min: 0, max: 32 }))
    .map(([w, len]) => RibPrefix.fromWords(Afi.IPV4, [w], 0, len)),
  fc
    .tuple(fc.array(u32, { minLength: 4, maxLength: 4 }), fc.integer({ min: 0, max: 128 }))
    .map(([w, len]) => RibPrefix.fromWords(Afi.IPV6, w, 0, len)),
);

/** Next hops the kernel can hold under a route of `v4` family: IPv6 gateways under IPv4 too (RTA_VIA). */
function nexthops(v4: boolean): fc.Arbitrary<KernelNexthop[]> {
  const gateway = v4 ? fc.oneof(v4Text, v6Text) : v6Text;
  const one = fc.record({
    gateway,
    ifindex: fc.integer({ min: 1, max: 0x7fffffff }),
    weight: fc.integer({ min: 1, max: 256 }),
    flags: fc.constantFrom(0, 4),
  });
  return fc.array(one, { minLength: 1, maxLength: 8 }).map((list) =>
    list.map((n) => ({
      ...n,
      gatewayFamily: n.gateway.includes(':') ? AF.INET6 : AF.INET,
      // A single next hop has no rtnexthop to carry weight or flags.
      ...(list.length === 1 && { weight: 1, flags: 0 }),
    })),
  );
}

const route: fc.Arbitrary<KernelRoute> = prefix.chain((p) =>
  fc.record({
    prefix: fc.constant(p),
    table: fc.oneof(fc.integer({ min: 1, max: 255 }), fc.integer({ min: 256, max: 0xffffffff })),
    protocol: fc.integer({ min: 0, max: 255 }),
    scope: fc.constantFrom(0, 200, 253),
    type: fc.constantFrom(1, 6, 7),
    flags: fc.constant(0),
    priority: u32,
    nexthops: nexthops(p.afi === Afi.IPV4),
  }),
);

function roundTrip(write: (w: NlWriter) => void): KernelRoute[] {
  const w = new NlWriter(16);
  write(w);
  const v = new NlView(w.finish());
  const out: KernelRoute[] = [];
  splitMessages(v, (m) => out.push(decodeRoute(v, m)));
  return out;
}

describe('route messages round-trip', () => {
  it('decode(encode(route)) is the route, any family, table, metric and ECMP set', () => {
    fc.assert(
      fc.property(route, fc.integer({ min: 1, max: 0xffffffff }), (r, seq) => {
        const [back] = roundTrip((w) => writeNewRoute(w, r, { flags: NlmFlag.CREATE, seq }));
        expect(back.prefix.equals(r.prefix)).toBe(true);
        expect({ ...back, prefix: undefined }).toEqual({ ...r, prefix: undefined });
      }),
    );
  });

  it('many messages in one datagram come back in order, each with its sequence number', () => {
    fc.assert(
      fc.property(fc.array(route, { minLength: 1, maxLength: 20 }), (routes) => {
        const w = new NlWriter(64);
        routes.forEach((r, i) => {
          writeNewRoute(w, r, { flags: 0, seq: 100 + i });
        });
        const v = new NlView(w.finish());
        const seqs: number[] = [];
        const back: KernelRoute[] = [];
        splitMessages(v, (m) => {
          seqs.push(m.seq);
          back.push(decodeRoute(v, m));
        });
        expect(seqs).toEqual(routes.map((_, i) => 100 + i));
        expect(back.map((r) => r.prefix.toString())).toEqual(routes.map((r) => r.prefix.toString()));
      }),
    );
  });

  it('a DELROUTE carries the key fields: prefix, table, protocol, metric', () => {
    fc.assert(
      fc.property(route, (r) => {
        const key = { prefix: r.prefix, table: r.table, protocol: r.protocol, priority: r.priority };
        const [back] = roundTrip((w) => writeDelRoute(w, key, 0, 1));
        expect(back.prefix.equals(r.prefix)).toBe(true);
        expect([back.table, back.protocol, back.priority, back.nexthops]).toEqual([
          r.table,
          r.protocol,
          r.priority,
          [],
        ]);
      }),
    );
  });

  it('an ACK or error round-trips errno, seq and the extended-ACK text', () => {
    fc.assert(
      fc.property(
        fc.integer({ min: 0, max: 4095 }),
        u32,
        fc.option(fc.string({ minLength: 1, maxLength: 80 }).filter((s) => !s.includes('\0'))),
        (errno, seq, detail) => {
          const w = new NlWriter(16);
          writeAck(
            w,
            { type: NlmsgType.NEWROUTE, flags: NlmFlag.REQUEST, seq, pid: 0 },
            errno,
            detail ?? undefined,
          );
          const v = new NlView(w.finish());
          splitMessages(v, (m) => {
            const a = decodeAck(v, m);
            expect([a.errno, a.seq, a.requestType, a.detail]).toEqual([
              errno,
              seq,
              NlmsgType.NEWROUTE,
              detail ?? undefined,
            ]);
          });
        },
      ),
    );
  });
});

describe('decoders never read past their input', () => {
  it('random bytes: either messages or a KernelError, never another exception', () => {
    fc.assert(
      fc.property(fc.uint8Array({ maxLength: 256 }), (bytes) => {
        const v = new NlView(bytes);
        try {
          splitMessages(v, (m) => {
            if (m.type === NlmsgType.ERROR) decodeAck(v, m);
            else decodeRoute(v, m);
          });
        } catch (e) {
          expect(e).toBeInstanceOf(KernelError);
        }
      }),
      { numRuns: 2000 },
    );
  });

  it('every truncation of a valid route message is refused as malformed', () => {
    fc.assert(
      fc.property(route, fc.nat(), (r, cutAt) => {
        const w = new NlWriter(16);
        writeNewRoute(w, r, { flags: 0, seq: 1 });
        const full = w.finish();
        const cut = full.subarray(0, 16 + (cutAt % (full.length - 16)));
        // The header still claims the full length: a datagram cut short is never half-read.
        expect(() => splitMessages(new NlView(cut), () => {})).toThrow(KernelError);
      }),
    );
  });
});
