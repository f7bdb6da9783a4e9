import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { addressBytes, parseIpv4 } from '../../src/address/index.js';
import type { PathAttributes } from '../../src/bgp/wire/attributes/types.js';
import { makeAttributes } from '../../src/bgp/wire/attributes/types.js';
import { WireAttributes } from '../../src/bgp/wire/attributes/wire-attributes.js';
import { Afi, WellKnownCommunity } from '../../src/bgp/wire/constants.js';
import { encodeUpdate } from '../../src/bgp/wire/update.js';
import { UpdateDecoder } from '../../src/bgp/wire/update-decode.js';
import { restBytes } from '../../src/bgp/wire/update-packer.js';
import { Writer } from '../../src/bgp/wire/writer.js';
import {
  type ExportContext,
  type ExportTarget,
  exportAttributes,
  parsePrefix,
  Rib,
  type RouteSource,
  UpdateGroups,
} from '../../src/rib/index.js';
import { WireExport, writeWireExport } from '../../src/rib/wire-export.js';
import { EBGP_A, v4, v6, wireUpdate } from './routes.js';

const CTX: ExportContext = { localAs: 64512, clusterId: 0xc6120001, defaultLocalPref: 100 };
const NEXT_HOPS = [parseIpv4('198.18.5.1'), parseIpv4('198.18.6.1')];
const OURS = parseIpv4('198.18.5.2');
const NEXT_HOP_V6 = addressBytes('2001:db8:5::1');
const OURS_V6 = addressBytes('2001:db8:5::2');
/** An IPv6 route's MP_REACH_NLRI: a global next hop, or global and link-local (RFC 2545). */
const reachV6 = fc
  .constantFrom(NEXT_HOP_V6, new Uint8Array([...NEXT_HOP_V6, ...addressBytes('fe80::1')]))
  .map((nextHop) => ({ afi: Afi.IPV6, safi: 1, nextHop, reserved: 0 }));

const u32 = fc.integer({ min: 0, max: 0xffffffff });
const asn = fc.integer({ min: 1, max: 0xffffffff });
/** Segment lengths around the 255-ASN limit too, where prepending needs a new segment. */
const segment = fc.record({
  type: fc.constantFrom(1, 2, 2, 2, 2, 2, 2, 2, 3, 4),
  asns: fc.oneof(
    fc.array(asn, { minLength: 1, maxLength: 6 }),
    fc.constantFrom(254, 255).chain((n) => fc.array(asn, { minLength: n, maxLength: n })),
  ),
});
const community = fc.oneof(
  { arbitrary: u32, weight: 30 },
  fc.constantFrom(
    WellKnownCommunity.NO_EXPORT,
    WellKnownCommunity.NO_ADVERTISE,
    WellKnownCommunity.NO_EXPORT_SUBCONFED,
    WellKnownCommunity.LLGR_STALE,
  ),
);

/** What the byte path covers. */
const covered = {
  origin: fc.integer({ min: 0, max: 2 }),
  asPath: fc.array(segment, { maxLength: 3 }),
  nextHop: fc.constantFrom(...NEXT_HOPS),
  med: u32,
  atomicAggregate: fc.constant(true),
  aggregator: fc.record({ as: asn, address: u32 }),
  communities: fc.array(community, { maxLength: 70 }),
  largeCommunities: fc.array(fc.tuple(u32, u32, u32), { minLength: 1, maxLength: 3 }).map((t) => t.flat()),
};

/** A received set: mostly what the byte path covers, sometimes what it leaves to the object path. */
const received: fc.Arbitrary<PathAttributes> = fc.oneof(
  { arbitrary: fc.record(covered, { requiredKeys: ['nextHop'] }), weight: 4 },
  fc.record(
    {
      origin: fc.integer({ min: 0, max: 2 }),
      asPath: fc.array(segment, { maxLength: 3 }),
      nextHop: fc.constantFrom(...NEXT_HOPS),
      med: u32,
      localPref: u32,
      atomicAggregate: fc.constant(true),
      aggregator: fc.record({ as: asn, address: u32 }),
      communities: fc.array(community, { maxLength: 70 }),
      largeCommunities: fc
        .array(fc.tuple(u32, u32, u32), { minLength: 1, maxLength: 3 })
        .map((t) => t.flat()),
      extCommunities: fc.constant(Uint8Array.of(0x00, 0x02, 0, 1, 0, 0, 0, 1)),
      originatorId: u32,
    },
    { requiredKeys: ['nextHop'] },
  ),
);

const source = fc.record({
  id: fc.constant('from'),
  kind: fc.constantFrom('ebgp', 'ibgp-client', 'ibgp-nonclient') as fc.Arbitrary<RouteSource['kind']>,
  asn: fc.constant(65001),
  routerId: fc.constant(parseIpv4('198.18.0.9')),
  address: fc.constant('198.18.5.1'),
});

const target: fc.Arbitrary<ExportTarget> = fc.record(
  {
    kind: fc.constant('ebgp' as const),
    localIpv4: fc.constantFrom(OURS, NEXT_HOPS[0]!),
    localIpv6: fc.constantFrom(OURS_V6, NEXT_HOP_V6),
    localIpv6LinkLocal: fc.constant(addressBytes('fe80::2')),
    nextHopUnchanged: fc.boolean(),
    medUnchanged: fc.boolean(),
    sharedSubnets: fc.constant([parsePrefix('198.18.5.0/24')]),
    longLivedGracefulRestart: fc.boolean(),
  },
  { requiredKeys: ['kind'] },
);

/** The context the export interner decodes its compact sets with. */
const AS4_IBGP = { as4: true, ebgp: false, addPathIpv4: false, addPathIpv6: false };

function encoded(attrs: PathAttributes): number[] {
  const w = new Writer(256);
  encodeUpdate(w, { attrs }, { as4: true });
  return Array.from(w.buf.subarray(0, w.pos));
}

describe('an eBGP export written from the received bytes', () => {
  it('is byte for byte the encoding of the export built as an object, or not sent when that is null', () => {
    let written = 0;
    fc.assert(
      fc.property(received, reachV6, fc.boolean(), source, target, (attrs, reach, ipv6, from, to) => {
        const ebgp = from.kind === 'ebgp';
        const afi = ipv6 ? Afi.IPV6 : Afi.IPV4;
        const u = ipv6
          ? wireUpdate({ attrs: { ...attrs, mpReach: reach }, mpNlri: v6('2001:db8:10::/48') }, { ebgp })
          : wireUpdate({ attrs, nlri: v4('198.18.10.0/24') }, { ebgp });
        fc.pre(u.action === 'ok' && u.attrs instanceof WireAttributes);
        const a = u.attrs as WireAttributes;
        const w = new Writer(64);
        const r = writeWireExport(w, a, afi, from, to, CTX);
        if (r === WireExport.UNSUPPORTED) return;
        const made = exportAttributes(a, afi, from, to, CTX);
        if (r === WireExport.NOT_SENT) {
          expect(made).toBeNull();
          return;
        }
        written++;
        expect(made).not.toBeNull();
        expect(Array.from(w.buf.subarray(0, w.pos))).toEqual(encoded(made!));
        // The compact set made from these bytes without decode's checks is the set decode makes.
        const trusted = new UpdateDecoder(AS4_IBGP).trustedAttributes(w.buf, 0, w.pos);
        const checked = new UpdateDecoder(AS4_IBGP).decode(w.buf, 0, w.pos).attrs as WireAttributes;
        expect(Array.from(trusted.bytes())).toEqual(Array.from(checked.bytes()));
        expect([trusted.present, trusted.sent, trusted.checkedFor, trusted.hasUndecoded]).toEqual([
          checked.present,
          checked.sent,
          checked.checkedFor,
          checked.hasUndecoded,
        ]);
        expect(trusted.issues).toEqual(checked.issues);
        expect(makeAttributes(trusted)).toEqual(makeAttributes(checked));
      }),
      { numRuns: 3000 },
    );
    // The byte path must carry most of these sets, or the comparison says little.
    expect(written).toBeGreaterThan(500);
  });

  it('covers a typical set from an eBGP peer, and leaves what it does not know to the object path', () => {
    const from: RouteSource = { id: 'p', kind: 'ebgp', asn: 65001, routerId: 1, address: '198.18.5.1' };
    const to: ExportTarget = { kind: 'ebgp', localIpv4: OURS };
    const wire = (attrs: PathAttributes) =>
      wireUpdate({ attrs, nlri: v4('198.18.10.0/24') }).attrs as WireAttributes;
    const w = new Writer(64);
    const plain = wire({
      origin: 0,
      asPath: [{ type: 2, asns: [65001, 65002] }],
      nextHop: NEXT_HOPS[0],
      med: 5,
      communities: [1],
    });
    expect(writeWireExport(w, plain, Afi.IPV4, from, to, CTX)).toBe(WireExport.WRITTEN);
    const withExt = wire({
      origin: 0,
      asPath: [],
      nextHop: NEXT_HOPS[0],
      extCommunities: Uint8Array.of(0, 2, 0, 1, 0, 0, 0, 1),
    });
    expect(writeWireExport(w, withExt, Afi.IPV4, from, to, CTX)).toBe(WireExport.UNSUPPORTED);
    // An IPv4 route's set offered as IPv6 (it has no MP_REACH_NLRI) is not the byte path's.
    expect(writeWireExport(w, plain, Afi.IPV6, from, to, CTX)).toBe(WireExport.UNSUPPORTED);
    expect(writeWireExport(w, plain, Afi.IPV4, from, { kind: 'ibgp-client', localIpv4: OURS }, CTX)).toBe(
      WireExport.UNSUPPORTED,
    );
    const noExport = wire({
      origin: 0,
      asPath: [],
      nextHop: NEXT_HOPS[0],
      communities: [WellKnownCommunity.NO_EXPORT],
    });
    expect(writeWireExport(w, noExport, Afi.IPV4, from, to, CTX)).toBe(WireExport.NOT_SENT);
  });

  it('gives a joining eBGP peer the same UPDATE bytes as the object path does', () => {
    fc.assert(
      fc.property(
        fc.array(fc.record(covered, { requiredKeys: ['nextHop'] }), { minLength: 1, maxLength: 6 }),
        (sets) => {
          // Sets a session would not take as they are (RFC 7606 findings) have no object twin.
          fc.pre(
            sets.every((attrs) => wireUpdate({ attrs, nlri: v4('198.18.10.0/24') }).issues.length === 0),
          );
          // The same routes twice: as a session decodes them (the byte path), and as objects.
          const sent = [true, false].map((wire) => {
            const rib = new Rib({ localAs: CTX.localAs, routerId: CTX.clusterId });
            const groups = new UpdateGroups(CTX);
            const from = rib.addPeer(EBGP_A);
            sets.forEach((attrs, i) => {
              const prefixes = v4(`198.18.${10 + i}.0/24`);
              const u = wireUpdate({ attrs, nlri: prefixes });
              rib.announce(from, prefixes, wire ? u.attrs! : makeAttributes(attrs));
            });
            groups.apply(rib.flush());
            const work = groups
              .join({ id: 'to', routerId: 9, target: { kind: 'ebgp', localIpv4: OURS } }, rib)
              .take();
            return work.announce
              .map((a) => {
                const p = groups.interner.prepared(a.attrs)!;
                return `${a.prefixes.toArray(a.from, a.to).join(',')} ${Array.from(restBytes(p)).join('.')}`;
              })
              .sort();
          });
          expect(sent[0]).toEqual(sent[1]);
        },
      ),
      { numRuns: 300 },
    );
  });
});
