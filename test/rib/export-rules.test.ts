import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { addressBytes, formatAddress, parseIpv4 } from '../../src/address/index.js';
import type { PathAttributes } from '../../src/bgp/wire/attributes/types.js';
import { Afi, AttrFlag } from '../../src/bgp/wire/constants.js';
import {
  communitiesAllow,
  type ExportContext,
  type ExportTarget,
  exportAttributes,
  mayAdvertise,
  PEER_KINDS,
  parsePrefix,
  Rib,
  type RouteSource,
  type SourceKind,
  WellKnownCommunity,
} from '../../src/rib/index.js';
import { attrs, attrs6, LOCAL_AS, ROUTER_ID, v4 } from './routes.js';

const CTX: ExportContext = { localAs: LOCAL_AS, clusterId: ROUTER_ID, defaultLocalPref: 100 };
const LOCAL_V4 = parseIpv4('198.18.0.1');
const LOCAL_V6 = addressBytes('2001:db8::1');
const LINK_LOCAL = addressBytes('fe80::1');
const EBGP: ExportTarget = { kind: 'ebgp', localIpv4: LOCAL_V4, localIpv6: LOCAL_V6 };
const CLIENT: ExportTarget = { kind: 'ibgp-client', localIpv4: LOCAL_V4, localIpv6: LOCAL_V6 };
const NONCLIENT: ExportTarget = { kind: 'ibgp-nonclient', localIpv4: LOCAL_V4, localIpv6: LOCAL_V6 };

const source = (kind: SourceKind, routerId = parseIpv4('198.18.1.9')): RouteSource => ({
  id: kind,
  kind,
  asn: kind === 'ebgp' ? 65001 : LOCAL_AS,
  routerId,
  address: '198.18.0.9',
});

describe('split horizon and route reflection (RFC 4271 9.2, RFC 4456 section 6)', () => {
  // from → [to eBGP, to client, to non-client]
  const TABLE: Record<SourceKind, [boolean, boolean, boolean]> = {
    local: [true, true, true],
    ebgp: [true, true, true],
    'ibgp-client': [true, true, true],
    'ibgp-nonclient': [true, true, false],
  };
  for (const [from, row] of Object.entries(TABLE) as [SourceKind, [boolean, boolean, boolean]][]) {
    for (let i = 0; i < PEER_KINDS.length; i++) {
      it(`${from} → ${PEER_KINDS[i]}: ${row[i] ? 'sent' : 'not sent'}`, () => {
        expect(mayAdvertise(from, PEER_KINDS[i])).toBe(row[i]);
        const target = [EBGP, CLIENT, NONCLIENT][i];
        expect(exportAttributes(attrs([65001]), Afi.IPV4, source(from), target, CTX) !== null).toBe(row[i]);
      });
    }
  }
});

describe('long-lived stale routes (RFC 9494 section 4.5)', () => {
  it('go only to peers that agreed to long-lived graceful restart, with LLGR_STALE kept', () => {
    const stale = attrs([65001], { communities: [WellKnownCommunity.LLGR_STALE] });
    for (const target of [EBGP, CLIENT, NONCLIENT]) {
      expect(exportAttributes(stale, Afi.IPV4, source('ebgp'), target, CTX)).toBeNull();
      const out = exportAttributes(
        stale,
        Afi.IPV4,
        source('ebgp'),
        { ...target, longLivedGracefulRestart: true },
        CTX,
      );
      expect(out?.communities).toEqual([WellKnownCommunity.LLGR_STALE]);
    }
    expect(exportAttributes(attrs([65001]), Afi.IPV4, source('ebgp'), EBGP, CTX)).not.toBeNull();
  });
});

describe('well-known communities (RFC 1997)', () => {
  it('NO_ADVERTISE stops a route everywhere, NO_EXPORT and NO_EXPORT_SUBCONFED at eBGP', () => {
    for (const kind of PEER_KINDS) {
      expect(communitiesAllow([WellKnownCommunity.NO_ADVERTISE], kind)).toBe(false);
      expect(communitiesAllow([WellKnownCommunity.NO_EXPORT], kind)).toBe(kind !== 'ebgp');
      expect(communitiesAllow([WellKnownCommunity.NO_EXPORT_SUBCONFED], kind)).toBe(kind !== 'ebgp');
      expect(communitiesAllow([(65001 << 16) | 7], kind)).toBe(true);
      expect(communitiesAllow(undefined, kind)).toBe(true);
    }
    const a = attrs([65001], { communities: [WellKnownCommunity.NO_EXPORT] });
    expect(exportAttributes(a, Afi.IPV4, source('ebgp'), EBGP, CTX)).toBeNull();
    expect(exportAttributes(a, Afi.IPV4, source('ebgp'), CLIENT, CTX)?.communities).toEqual([
      WellKnownCommunity.NO_EXPORT,
    ]);
  });
});

describe('exported attributes', () => {
  it('towards eBGP: our AS first, next-hop-self, no LOCAL_PREF, no foreign MED, no RR attributes', () => {
    const a = attrs(
      [65001, 65100],
      { med: 7, localPref: 300, originatorId: 5, clusterList: [1] },
      '198.18.0.2',
    );
    const out = exportAttributes(a, Afi.IPV4, source('ebgp'), EBGP, CTX)!;
    expect(out).toEqual({
      origin: 0,
      asPath: [{ type: 2, asns: [LOCAL_AS, 65001, 65100] }],
      nextHop: LOCAL_V4,
    });
    expect(exportAttributes(a, Afi.IPV4, source('ebgp'), { ...EBGP, medUnchanged: true }, CTX)!.med).toBe(7);
    // A MED set inside our AS (iBGP-learned, local) may go out (FRR strips only eBGP-to-eBGP).
    expect(exportAttributes(a, Afi.IPV4, source('ibgp-client'), EBGP, CTX)!.med).toBe(7);
    expect(exportAttributes(a, Afi.IPV4, source('local'), EBGP, CTX)!.med).toBe(7);
  });

  it('towards iBGP: AS_PATH and next hop unchanged, LOCAL_PREF set (default when missing)', () => {
    const a = attrs([65001], { med: 7 }, '198.18.0.2');
    const out = exportAttributes(a, Afi.IPV4, source('ebgp'), NONCLIENT, CTX)!;
    expect(out).toEqual({
      origin: 0,
      asPath: [{ type: 2, asns: [65001] }],
      nextHop: parseIpv4('198.18.0.2'),
      med: 7,
      localPref: 100,
    });
    expect(
      exportAttributes({ ...a, localPref: 250 }, Afi.IPV4, source('ebgp'), NONCLIENT, CTX)!.localPref,
    ).toBe(250);
    expect(
      exportAttributes(a, Afi.IPV4, source('ebgp'), { ...NONCLIENT, nextHopSelf: true }, CTX)!.nextHop,
    ).toBe(LOCAL_V4);
  });

  it('a locally originated route without a next hop gets ours; with one keeps it towards iBGP', () => {
    const none = { origin: 2, asPath: [] } as PathAttributes;
    expect(exportAttributes(none, Afi.IPV4, source('local'), NONCLIENT, CTX)!.nextHop).toBe(LOCAL_V4);
    const chassis = attrs([], {}, '198.18.50.7');
    expect(exportAttributes(chassis, Afi.IPV4, source('local'), NONCLIENT, CTX)!.nextHop).toBe(
      parseIpv4('198.18.50.7'),
    );
    expect(exportAttributes(chassis, Afi.IPV4, source('local'), EBGP, CTX)!.asPath).toEqual([
      { type: 2, asns: [LOCAL_AS] },
    ]);
  });

  it('keeps a third-party next hop on a subnet shared with the eBGP peer (RFC 4271 5.1.3)', () => {
    const chassis = attrs([], {}, '198.18.50.7');
    const shared = { ...EBGP, sharedSubnets: [parsePrefix('198.18.50.0/24')] };
    expect(exportAttributes(chassis, Afi.IPV4, source('local'), shared, CTX)!.nextHop).toBe(
      parseIpv4('198.18.50.7'),
    );
    const far = attrs([], {}, '198.18.51.7');
    expect(exportAttributes(far, Afi.IPV4, source('local'), shared, CTX)!.nextHop).toBe(LOCAL_V4);
    const six = attrs6([], {}, '2001:db8:50::7');
    const shared6 = { ...EBGP, sharedSubnets: [parsePrefix('2001:db8:50::/64')] };
    expect(
      formatAddress(exportAttributes(six, Afi.IPV6, source('local'), shared6, CTX)!.mpReach!.nextHop),
    ).toBe('2001:db8:50::7');
  });

  it('IPv6: MP_REACH_NLRI with our global address, and link-local on a shared link (RFC 2545)', () => {
    const a = attrs6([65001], {}, '2001:db8::2');
    const out = exportAttributes(a, Afi.IPV6, source('ebgp'), EBGP, CTX)!;
    expect(out.nextHop).toBeUndefined();
    expect(out.mpReach).toEqual({ afi: Afi.IPV6, safi: 1, nextHop: LOCAL_V6, reserved: 0 });
    const both = exportAttributes(
      a,
      Afi.IPV6,
      source('ebgp'),
      { ...EBGP, localIpv6LinkLocal: LINK_LOCAL },
      CTX,
    )!;
    expect(both.mpReach!.nextHop.length).toBe(32);
    expect(formatAddress(both.mpReach!.nextHop.subarray(16))).toBe('fe80::1');
    // Unchanged towards iBGP: the global address only (a link-local means nothing elsewhere).
    const withLl = attrs6([65001], {}, '2001:db8::2');
    const ll = new Uint8Array(32);
    ll.set(addressBytes('2001:db8::2'));
    ll.set(addressBytes('fe80::2'), 16);
    const ibgp = exportAttributes(
      { ...withLl, mpReach: { ...withLl.mpReach!, nextHop: ll } },
      Afi.IPV6,
      source('ebgp'),
      NONCLIENT,
      CTX,
    )!;
    expect(formatAddress(ibgp.mpReach!.nextHop)).toBe('2001:db8::2');
  });

  it('cannot send when we have no address of the family for next-hop-self', () => {
    const v6only: ExportTarget = { kind: 'ebgp', localIpv6: LOCAL_V6 };
    expect(exportAttributes(attrs([65001]), Afi.IPV4, source('ebgp'), v6only, CTX)).toBeNull();
  });

  describe('IPv4 with an IPv6 next hop (RFC 8950)', () => {
    const v6only: ExportTarget = { kind: 'ebgp', localIpv6: LOCAL_V6 };
    const enhe: ExportTarget = { ...v6only, extendedNextHop: true };
    /** An IPv4 route learned with an IPv6 next hop (MP_REACH_NLRI, AFI 1). */
    const learned = (nh: Uint8Array): PathAttributes => ({
      origin: 0,
      asPath: [{ type: 2, asns: [65001] }],
      mpReach: { afi: Afi.IPV4, safi: 1, nextHop: nh, reserved: 0 },
    });

    it('negotiated: MP_REACH_NLRI with AFI 1 and our global address, plus our link-local on-link', () => {
      const out = exportAttributes(attrs([65001]), Afi.IPV4, source('ebgp'), enhe, CTX)!;
      expect(out.nextHop).toBeUndefined();
      expect(out.mpReach).toEqual({ afi: Afi.IPV4, safi: 1, nextHop: LOCAL_V6, reserved: 0 });
      const onLink = { ...enhe, localIpv6LinkLocal: LINK_LOCAL };
      const both = exportAttributes(attrs([65001]), Afi.IPV4, source('ebgp'), onLink, CTX)!;
      expect(both.mpReach!.afi).toBe(Afi.IPV4);
      expect(both.mpReach!.nextHop.length).toBe(32);
      expect(formatAddress(both.mpReach!.nextHop.subarray(0, 16))).toBe('2001:db8::1');
      expect(formatAddress(both.mpReach!.nextHop.subarray(16))).toBe('fe80::1');
    });

    it('negotiated with an IPv4 address too: the IPv6 next hop still (as FRR does)', () => {
      const dual = { ...enhe, localIpv4: LOCAL_V4 };
      const out = exportAttributes(attrs([65001]), Afi.IPV4, source('ebgp'), dual, CTX)!;
      expect(formatAddress(out.mpReach!.nextHop)).toBe('2001:db8::1');
    });

    it('towards iBGP the learned IPv6 next hop stays, its global half only', () => {
      const ll = new Uint8Array(32);
      ll.set(addressBytes('2001:db8::2'));
      ll.set(addressBytes('fe80::2'), 16);
      const ibgp: ExportTarget = { kind: 'ibgp-nonclient', localIpv6: LOCAL_V6, extendedNextHop: true };
      const out = exportAttributes(learned(ll), Afi.IPV4, source('ebgp'), ibgp, CTX)!;
      expect(out.mpReach!.afi).toBe(Afi.IPV4);
      expect(formatAddress(out.mpReach!.nextHop)).toBe('2001:db8::2');
      // ...and an IPv4 next hop stays in NEXT_HOP.
      expect(exportAttributes(attrs([65001]), Afi.IPV4, source('ebgp'), ibgp, CTX)!.nextHop).toBe(
        parseIpv4('198.18.0.2'),
      );
    });

    it('keeps a third-party IPv6 next hop of an IPv4 route on a shared IPv6 subnet', () => {
      const shared = { ...enhe, sharedSubnets: [parsePrefix('2001:db8:50::/64')] };
      const out = exportAttributes(
        learned(addressBytes('2001:db8:50::7')),
        Afi.IPV4,
        source('ebgp'),
        shared,
        CTX,
      )!;
      expect(formatAddress(out.mpReach!.nextHop)).toBe('2001:db8:50::7');
    });

    it('not negotiated: never an IPv6 next hop; without an IPv4 address nothing is sent', () => {
      expect(exportAttributes(attrs([65001]), Afi.IPV4, source('ebgp'), v6only, CTX)).toBeNull();
      const learnedV6 = learned(addressBytes('2001:db8::2'));
      expect(exportAttributes(learnedV6, Afi.IPV4, source('ebgp'), v6only, CTX)).toBeNull();
      const ibgp: ExportTarget = { kind: 'ibgp-nonclient', localIpv4: LOCAL_V4, localIpv6: LOCAL_V6 };
      const out = exportAttributes(learnedV6, Afi.IPV4, source('ebgp'), ibgp, CTX)!;
      expect(out.mpReach).toBeUndefined();
      expect(out.nextHop).toBe(LOCAL_V4);
    });
  });

  it('merges AS4_PATH before prepending, drops confederation segments towards eBGP', () => {
    const a: PathAttributes = {
      origin: 0,
      asPath: [
        { type: 3, asns: [65010] },
        { type: 2, asns: [23456, 65001] },
      ],
      as4Path: [{ type: 2, asns: [4200000001, 65001] }],
      nextHop: parseIpv4('198.18.0.2'),
    };
    const out = exportAttributes(a, Afi.IPV4, source('ebgp'), EBGP, CTX)!;
    expect(out.asPath).toEqual([{ type: 2, asns: [LOCAL_AS, 4200000001, 65001] }]);
    expect(out.as4Path).toBeUndefined();
  });

  it('passes unknown optional transitive attributes with Partial set, drops the others', () => {
    const a = attrs([65001], {
      unknown: [
        { type: 99, flags: AttrFlag.OPTIONAL | AttrFlag.TRANSITIVE, value: Uint8Array.of(1, 2) },
        { type: 98, flags: AttrFlag.OPTIONAL, value: Uint8Array.of(3) },
      ],
    });
    const out = exportAttributes(a, Afi.IPV4, source('ebgp'), EBGP, CTX)!;
    expect(out.unknown).toEqual([
      {
        type: 99,
        flags: AttrFlag.OPTIONAL | AttrFlag.TRANSITIVE | AttrFlag.PARTIAL,
        value: Uint8Array.of(1, 2),
      },
    ]);
  });
});

describe('route reflection attributes and loops (RFC 4456 section 8)', () => {
  it('sets ORIGINATOR_ID when absent and prepends our CLUSTER_ID when reflecting', () => {
    const from = source('ibgp-client', parseIpv4('198.18.1.4'));
    const a = attrs([], { localPref: 120 });
    const out = exportAttributes(a, Afi.IPV4, from, NONCLIENT, CTX)!;
    expect(out.originatorId).toBe(parseIpv4('198.18.1.4'));
    expect(out.clusterList).toEqual([ROUTER_ID]);
    const again = exportAttributes(
      { ...a, originatorId: 77, clusterList: [5, 6] },
      Afi.IPV4,
      from,
      CLIENT,
      CTX,
    )!;
    expect(again.originatorId).toBe(77);
    expect(again.clusterList).toEqual([ROUTER_ID, 5, 6]);
    // eBGP-learned and local routes are not reflections.
    expect(exportAttributes(a, Afi.IPV4, source('ebgp'), CLIENT, CTX)!.clusterList).toBeUndefined();
    expect(exportAttributes(a, Afi.IPV4, source('local'), CLIENT, CTX)!.originatorId).toBeUndefined();
  });

  it('a route reflected by us and sent back is denied; other reflectors accept it', () => {
    fc.assert(
      fc.property(
        fc.integer({ min: 1, max: 0xffffffff }),
        fc.array(fc.integer({ min: 1, max: 0xffffffff }), { maxLength: 4 }),
        fc.option(fc.integer({ min: 1, max: 0xffffffff }), { nil: undefined }),
        (originator, clusters, existingOriginator) => {
          const ourCluster = parseIpv4('198.18.255.1');
          const ctx = { ...CTX, clusterId: ourCluster };
          const from = source('ibgp-client', originator);
          const received = attrs([], {
            localPref: 100,
            originatorId: existingOriginator,
            clusterList: clusters.length ? clusters : undefined,
          });
          const sent = exportAttributes(received, Afi.IPV4, from, CLIENT, ctx)!;
          // Back at us through another client: our cluster id is in CLUSTER_LIST.
          const us = new Rib({ localAs: LOCAL_AS, routerId: ROUTER_ID, clusterId: ourCluster });
          const peer = us.addPeer({
            id: 'x',
            kind: 'ibgp-client',
            asn: LOCAL_AS,
            routerId: 9,
            address: '198.18.0.9',
          });
          us.announce(peer, v4('198.18.9.0/24'), sent);
          expect(us.flush()).toEqual([]);
          // At a reflector with other ids the route is accepted unless its own ids are in it.
          const otherId = 0xc6120063;
          const other = new Rib({ localAs: LOCAL_AS, routerId: otherId, clusterId: otherId });
          const p = other.addPeer({
            id: 'y',
            kind: 'ibgp-nonclient',
            asn: LOCAL_AS,
            routerId: 9,
            address: '198.18.0.9',
          });
          other.announce(p, v4('198.18.9.0/24'), sent);
          const loops = sent.originatorId === otherId || sent.clusterList!.includes(otherId);
          expect(other.flush().length).toBe(loops ? 0 : 1);
        },
      ),
      { numRuns: 200 },
    );
  });

  it('an eBGP peer is not subject to the reflection loop rules', () => {
    const rib = new Rib({ localAs: LOCAL_AS, routerId: ROUTER_ID });
    const peer = rib.addPeer({ id: 'e', kind: 'ebgp', asn: 65001, routerId: 9, address: '198.18.0.9' });
    rib.announce(
      peer,
      v4('198.18.9.0/24'),
      attrs([65001], { originatorId: ROUTER_ID, clusterList: [ROUTER_ID] }),
    );
    expect(rib.flush().length).toBe(1);
  });
});

describe('non-transitive extended communities (RFC 4360 section 6, RFC 5701)', () => {
  const RT = [0x00, 0x02, 0xfd, 0xe9, 0, 0, 0, 100]; // transitive two-octet AS route target 65001:100
  const OPAQUE_NT = [0x43, 0x00, 0, 0, 0, 0, 0, 7]; // non-transitive opaque
  const V6_RT = [0x00, 0x02, ...new Array<number>(18).fill(1)];
  const V6_NT = [0x40, 0x02, ...new Array<number>(18).fill(2)];
  const withExt = attrs([65001], {
    extCommunities: Uint8Array.from([...RT, ...OPAQUE_NT]),
    ipv6ExtCommunities: Uint8Array.from([...V6_NT, ...V6_RT]),
  });

  it('are not sent to an eBGP peer; the transitive ones are', () => {
    const out = exportAttributes(withExt, Afi.IPV4, source('ibgp-client'), EBGP, CTX)!;
    expect([...out.extCommunities!]).toEqual(RT);
    expect([...out.ipv6ExtCommunities!]).toEqual(V6_RT);
  });

  it('stay on iBGP sessions', () => {
    const out = exportAttributes(withExt, Afi.IPV4, source('ebgp'), CLIENT, CTX)!;
    expect([...out.extCommunities!]).toEqual([...RT, ...OPAQUE_NT]);
    expect([...out.ipv6ExtCommunities!]).toEqual([...V6_NT, ...V6_RT]);
  });

  it('leave no empty attribute behind, and an all-transitive list is passed as it is', () => {
    const only = attrs([65001], { extCommunities: Uint8Array.from(OPAQUE_NT) });
    expect(exportAttributes(only, Afi.IPV4, source('local'), EBGP, CTX)!.extCommunities).toBeUndefined();
    const rt = attrs([65001], { extCommunities: Uint8Array.from(RT) });
    expect(exportAttributes(rt, Afi.IPV4, source('local'), EBGP, CTX)!.extCommunities).toBe(
      rt.extCommunities,
    );
  });
});
