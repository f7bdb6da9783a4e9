import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { ATTRS } from '../../../src/bgp/wire/attributes/table.js';
import type { PathAttributes } from '../../../src/bgp/wire/attributes/types.js';
import { Afi, type AfiCode } from '../../../src/bgp/wire/constants.js';
import { BgpError } from '../../../src/bgp/wire/errors.js';
import { PrefixList } from '../../../src/bgp/wire/prefix-list.js';
import { encodeUpdate, presentFields, type UpdateInput } from '../../../src/bgp/wire/update.js';
import type { UpdateContext } from '../../../src/bgp/wire/update-context.js';
import { UpdateDecoder } from '../../../src/bgp/wire/update-decode.js';
import { Writer } from '../../../src/bgp/wire/writer.js';

const u32 = fc.integer({ min: 0, max: 0xffffffff });
const asn = fc.integer({ min: 1, max: 0xffffffff });

/** Prefixes whose bits beyond the covered bytes are zero (those bits never reach the wire). */
function prefixList(afi: AfiCode, addPath: boolean, max = 20) {
  const bits = afi === Afi.IPV4 ? 32 : 128;
  const one = fc.record({
    len: fc.integer({ min: 0, max: bits }),
    words: fc.array(u32, { minLength: 4, maxLength: 4 }),
    pathId: u32,
  });
  return fc.array(one, { maxLength: max }).map((ps) => {
    const list = new PrefixList(afi, addPath);
    for (const p of ps) {
      const i = list.grow();
      list.lens[i] = p.len;
      const keepBits = ((p.len + 7) >> 3) * 8;
      const n = afi === Afi.IPV4 ? 1 : 4;
      for (let k = 0; k < n; k++) {
        const bitsHere = Math.max(0, Math.min(32, keepBits - 32 * k));
        list.words[i * n + k] =
          bitsHere === 0 ? 0 : bitsHere === 32 ? p.words[k] : (p.words[k] & (~0 << (32 - bitsHere))) >>> 0;
      }
      if (addPath) list.pathIds[i] = p.pathId;
    }
    return list;
  });
}

const segment = fc.record({
  type: fc.integer({ min: 1, max: 4 }),
  asns: fc.array(asn, { minLength: 1, maxLength: 8 }),
});
const nonMartian = fc.integer({ min: 0x01000000, max: 0xdfffffff });
const bytesOf = (unit: number) =>
  fc.integer({ min: 1, max: 4 }).chain((k) => fc.uint8Array({ minLength: unit * k, maxLength: unit * k }));

const attributes: fc.Arbitrary<PathAttributes> = fc.record(
  {
    origin: fc.integer({ min: 0, max: 2 }),
    asPath: fc.array(segment, { maxLength: 4 }),
    nextHop: nonMartian,
    med: u32,
    localPref: u32,
    atomicAggregate: fc.constant(true),
    aggregator: fc.record({ as: asn, address: u32 }),
    communities: fc.array(u32, { minLength: 1, maxLength: 10 }),
    originatorId: u32,
    clusterList: fc.array(u32, { minLength: 1, maxLength: 4 }),
    extCommunities: bytesOf(8),
    as4Path: fc.array(
      segment.filter((s) => s.type <= 2),
      { minLength: 1, maxLength: 3 },
    ),
    as4Aggregator: fc.record({ as: asn, address: u32 }),
    ipv6ExtCommunities: bytesOf(20),
    largeCommunities: fc.array(fc.tuple(u32, u32, u32), { minLength: 1, maxLength: 4 }).map((t) => t.flat()),
    unknown: fc
      .array(
        fc.record({
          type: fc.integer({ min: 100, max: 250 }),
          flags: fc.constantFrom(0xc0, 0xe0, 0x80),
          value: fc.uint8Array({ maxLength: 40 }),
        }),
        { maxLength: 2 },
      )
      .map((xs) => {
        const distinct = xs.filter((x, i) => xs.findIndex((y) => y.type === x.type) === i);
        return distinct.length ? distinct : undefined;
      }),
  },
  { requiredKeys: ['origin', 'asPath', 'nextHop', 'localPref'] },
);

const IBGP: UpdateContext = { as4: true, addPathIpv4: false, addPathIpv6: false, ebgp: false };
const contexts = fc.record({
  as4: fc.constant(true),
  addPathIpv4: fc.boolean(),
  addPathIpv6: fc.boolean(),
  ebgp: fc.constant(false),
});

const updates = contexts.chain((ctx) =>
  fc
    .record({
      withdrawn: prefixList(Afi.IPV4, ctx.addPathIpv4),
      nlri: prefixList(Afi.IPV4, ctx.addPathIpv4),
      attrs: attributes,
      v6: fc.option(
        fc.record({
          // A usable next hop (RFC 4271 section 6.3): global unicast, 2000::/3.
          nh: fc
            .constantFrom(16, 32)
            .chain((n) => fc.uint8Array({ minLength: n, maxLength: n }))
            .map((b) => {
              b[0] = 0x20 | (b[0] & 0x1f);
              return b;
            }),
          nlri: prefixList(Afi.IPV6, ctx.addPathIpv6),
        }),
      ),
      unreach: fc.option(prefixList(Afi.IPV6, ctx.addPathIpv6)),
    })
    .map(({ withdrawn, nlri, attrs, v6, unreach }) => {
      const input: UpdateInput = {
        withdrawn,
        nlri,
        attrs: v6 ? { ...attrs, mpReach: { afi: Afi.IPV6, safi: 1, nextHop: v6.nh, reserved: 0 } } : attrs,
        mpNlri: v6?.nlri ?? null,
        mpUnreach: unreach ? { afi: Afi.IPV6, safi: 1, withdrawn: unreach } : null,
      };
      return { ctx: ctx as UpdateContext, input };
    }),
);

function encode(input: UpdateInput, ctx: UpdateContext): Uint8Array {
  const w = new Writer();
  encodeUpdate(w, input, ctx);
  return w.finish();
}

const FIELDS: readonly (keyof PathAttributes)[] = [
  'origin',
  'asPath',
  'nextHop',
  'med',
  'localPref',
  'atomicAggregate',
  'aggregator',
  'communities',
  'originatorId',
  'clusterList',
  'mpReach',
  'extCommunities',
  'as4Path',
  'as4Aggregator',
  'ipv6ExtCommunities',
  'largeCommunities',
  'unknown',
];

/** The values, whether held as plain fields or decoded on read. */
const strip = (a: PathAttributes | null | undefined) =>
  a && Object.fromEntries(FIELDS.map((f) => [f, a[f]]).filter(([, v]) => v !== undefined));

describe('UPDATE properties', () => {
  it('decode is the inverse of encode, and re-encoding is byte-identical', () => {
    fc.assert(
      fc.property(updates, ({ ctx, input }) => {
        const bytes = encode(input, ctx);
        const u = new UpdateDecoder(ctx).decode(bytes, 0, bytes.length);
        expect(u.action).toBe(
          (input.attrs?.asPath ?? []).some((s) => s.type >= 3) && ctx.ebgp ? 'treat-as-withdraw' : 'ok',
        );
        expect(strip(u.attrs)).toEqual(strip(input.attrs));
        expect(u.withdrawn.toArray()).toEqual(input.withdrawn!.toArray());
        expect(u.nlri.toArray()).toEqual(input.nlri!.toArray());
        expect(u.mpNlri?.toArray() ?? null).toEqual(input.mpNlri?.toArray() ?? null);
        expect(u.mpUnreach?.withdrawn.toArray() ?? null).toEqual(
          input.mpUnreach?.withdrawn.toArray() ?? null,
        );
        expect(encode(u, ctx)).toEqual(bytes);
      }),
      { numRuns: 2_000 },
    );
  });

  const outcomeIsTyped = (bytes: Uint8Array, ctx: UpdateContext) => {
    try {
      const u = new UpdateDecoder(ctx).decode(bytes, 0, bytes.length);
      expect(['ok', 'attribute-discard', 'treat-as-withdraw']).toContain(u.action);
    } catch (e) {
      if (!(e instanceof BgpError)) throw e;
      expect(e.code).toBe(3);
    }
  };

  it('random bytes decode to a value or a typed BgpError, never anything else', () => {
    fc.assert(
      fc.property(fc.uint8Array({ maxLength: 120 }), contexts, (bytes, ctx) => outcomeIsTyped(bytes, ctx)),
      { numRuns: 100_000 },
    );
  });

  it('mutated valid UPDATEs decode to a value or a typed BgpError', () => {
    const mutated = updates.chain(({ ctx, input }) => {
      const bytes = encode(input, ctx);
      return fc
        .tuple(
          fc.array(fc.tuple(fc.nat(Math.max(bytes.length - 1, 0)), fc.integer({ min: 0, max: 255 })), {
            minLength: 1,
            maxLength: 4,
          }),
          fc.nat(bytes.length),
        )
        .map(([edits, cut]) => {
          const b = bytes.slice(0, Math.max(cut, 4));
          for (const [at, v] of edits) if (at < b.length) b[at] = v;
          return { ctx, bytes: b };
        });
    });
    fc.assert(
      fc.property(mutated, ({ ctx, bytes }) => outcomeIsTyped(bytes, ctx)),
      { numRuns: 100_000 },
    );
  });

  it('IBGP decode of an UPDATE without LOCAL_PREF is treat-as-withdraw', () => {
    const bytes = encode(
      {
        attrs: { origin: 0, asPath: [], nextHop: 0x01020304 },
        nlri: PrefixList.from(Afi.IPV4, [{ addr: '198.18.0.0', len: 15 }]),
      },
      IBGP,
    );
    expect(new UpdateDecoder(IBGP).decode(bytes, 0, bytes.length).action).toBe('treat-as-withdraw');
  });
});

describe('canonical encoding', () => {
  it('presentFields agrees with every descriptor of the attribute table', () => {
    fc.assert(
      fc.property(attributes, (a) => {
        const mask = presentFields(a);
        for (const [i, d] of ATTRS.entries()) expect(((mask >> i) & 1) === 1, d.name).toBe(d.has(a));
      }),
      { numRuns: 2_000 },
    );
  });
});
