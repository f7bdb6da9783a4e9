import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { addressBytes, formatAddress, formatIpv4, parseIpv4 } from '../../src/address/index.js';
import type { MutableAttributes, PathAttributes } from '../../src/bgp/wire/attributes/types.js';
import { Afi, type AfiCode } from '../../src/bgp/wire/constants.js';
import {
  applyNextHopRule,
  type ExportContext,
  type ExportTarget,
  exportAttributes,
  type PeerKind,
  parsePrefix,
  type RouteSource,
  type SourceKind,
} from '../../src/rib/index.js';
import { targetKey } from '../../src/rib/update-groups.js';
import { LOCAL_AS, ROUTER_ID } from './routes.js';

// RFC 4271 section 5.1.3 and its exceptions: the route's own next hop kept towards eBGP
// (FRR's `attribute-unchanged next-hop`, BIRD's `next hop keep`), and the rule applied after
// export policy for a peer whose policy must see the route's own next hop first.

const CTX: ExportContext = { localAs: LOCAL_AS, clusterId: ROUTER_ID, defaultLocalPref: 100 };
const OUR_V4 = '198.18.160.1';
const OUR_V6 = '2001:db8:160::1';
const OUR_LL = 'fe80::1';
/** A chassis on the OVN underlay (198.18.140.0/23), as central mode advertises it. */
const CHASSIS_V4 = '198.18.140.5';
const CHASSIS_V6 = '2001:db8:140::5';
const SHARED = [parsePrefix('198.18.140.0/23'), parsePrefix('2001:db8:140::/64')];

const source = (kind: SourceKind): RouteSource => ({
  id: kind,
  kind,
  asn: kind === 'ebgp' ? 65001 : LOCAL_AS,
  routerId: parseIpv4('198.18.1.9'),
  address: '198.18.0.9',
});

/** The families a next hop can travel in: IPv4 NEXT_HOP, IPv6 MP_REACH, IPv4 with an IPv6 one (RFC 8950). */
type Family = 'ipv4' | 'ipv6' | 'ipv4-over-ipv6';
const FAMILIES: readonly Family[] = ['ipv4', 'ipv6', 'ipv4-over-ipv6'];

/** A route of the family with the chassis as next hop, or none of its own (originated "self"). */
function route(family: Family, own: boolean): { attrs: PathAttributes; afi: AfiCode } {
  const base = { origin: 0, asPath: [{ type: 2 as const, asns: [65001] }] };
  if (family === 'ipv4')
    return { afi: Afi.IPV4, attrs: { ...base, nextHop: own ? parseIpv4(CHASSIS_V4) : undefined } };
  const afi = family === 'ipv6' ? Afi.IPV6 : Afi.IPV4;
  const mpReach = own ? { afi, safi: 1, nextHop: addressBytes(CHASSIS_V6), reserved: 0 } : undefined;
  return { afi, attrs: { ...base, mpReach } };
}

/** The next hop as text: NEXT_HOP, or MP_REACH_NLRI's global address (and link-local). */
function nextHopOf(a: PathAttributes): string {
  if (a.mpReach) {
    const nh = a.mpReach.nextHop;
    const text = formatAddress(nh.subarray(0, 16));
    return nh.length === 32 ? `${text} ${formatAddress(nh.subarray(16))}` : text;
  }
  return a.nextHop === undefined ? 'none' : formatIpv4(a.nextHop);
}

describe('the next hop of each combination', () => {
  // kind × family × shared subnet × next_hop_unchanged × next_hop_self × own next hop or none.
  const kinds: PeerKind[] = ['ebgp', 'ibgp-client', 'ibgp-nonclient'];
  for (const kind of kinds)
    for (const family of FAMILIES)
      for (const shared of [false, true])
        for (const unchanged of [false, true])
          for (const self of [false, true])
            for (const own of [true, false]) {
              // The rule in words: no next hop of its own, ours; kept when asked to, whatever the
              // peer; an eBGP peer otherwise gets ours unless the chassis is on a shared subnet;
              // an iBGP peer keeps it unless next_hop_self.
              const keeps = own && (unchanged || (kind === 'ebgp' ? shared : !self));
              const ours = family === 'ipv4' ? OUR_V4 : OUR_V6;
              const want = keeps ? (family === 'ipv4' ? CHASSIS_V4 : CHASSIS_V6) : ours;
              const name = `${kind} ${family}${shared ? ' shared' : ''}${unchanged ? ' unchanged' : ''}${self ? ' self' : ''} ${own ? 'chassis' : 'no next hop'} → ${keeps ? 'chassis' : 'ours'}`;
              it(name, () => {
                const target: ExportTarget = {
                  kind,
                  localIpv4: parseIpv4(OUR_V4),
                  localIpv6: addressBytes(OUR_V6),
                  ...(family === 'ipv4-over-ipv6' && { extendedNextHop: true }),
                  ...(shared && { sharedSubnets: SHARED }),
                  ...(unchanged && { nextHopUnchanged: true }),
                  ...(self && { nextHopSelf: true }),
                };
                const r = route(family, own);
                const out = exportAttributes(r.attrs, r.afi, source('ebgp'), target, CTX)!;
                expect(nextHopOf(out)).toBe(want);
                // Where it travels: NEXT_HOP for IPv4, MP_REACH_NLRI of the route's AFI otherwise.
                if (family === 'ipv4') expect(out.mpReach).toBeUndefined();
                else expect(out.mpReach!.afi).toBe(r.afi);
              });
            }
});

describe('keeping the next hop', () => {
  const EBGP: ExportTarget = {
    kind: 'ebgp',
    localIpv4: parseIpv4(OUR_V4),
    localIpv6: addressBytes(OUR_V6),
  };

  it('keeps the global half of a learned next hop with a link-local, never the link-local', () => {
    const both = new Uint8Array(32);
    both.set(addressBytes(CHASSIS_V6));
    both.set(addressBytes('fe80::5'), 16);
    const a: PathAttributes = {
      origin: 0,
      asPath: [],
      mpReach: { afi: Afi.IPV6, safi: 1, nextHop: both, reserved: 0 },
    };
    const out = exportAttributes(a, Afi.IPV6, source('ebgp'), { ...EBGP, nextHopUnchanged: true }, CTX)!;
    expect(nextHopOf(out)).toBe(CHASSIS_V6);
  });

  it('without RFC 8950 an IPv4 route with an IPv6 next hop still gets our IPv4 address', () => {
    const r = route('ipv4-over-ipv6', true);
    const out = exportAttributes(
      r.attrs,
      Afi.IPV4,
      source('ebgp'),
      { ...EBGP, nextHopUnchanged: true },
      CTX,
    )!;
    expect(nextHopOf(out)).toBe(OUR_V4);
  });

  it('a next hop that is our own address is ours: with our link-local on a shared link', () => {
    const onLink: ExportTarget = {
      ...EBGP,
      localIpv6LinkLocal: addressBytes(OUR_LL),
      sharedSubnets: [parsePrefix('2001:db8:160::/64')],
    };
    const a: PathAttributes = {
      origin: 0,
      asPath: [],
      mpReach: { afi: Afi.IPV6, safi: 1, nextHop: addressBytes(OUR_V6), reserved: 0 },
    };
    const want = `${OUR_V6} ${OUR_LL}`;
    expect(nextHopOf(exportAttributes(a, Afi.IPV6, source('local'), onLink, CTX)!)).toBe(want);
    const kept = exportAttributes(a, Afi.IPV6, source('local'), { ...onLink, nextHopUnchanged: true }, CTX)!;
    expect(nextHopOf(kept)).toBe(want);
  });

  it('peers that keep next hops are an update group of their own', () => {
    expect(targetKey({ ...EBGP, nextHopUnchanged: true })).not.toBe(targetKey(EBGP));
    expect(targetKey({ ...EBGP, nextHopUnchanged: false })).toBe(targetKey(EBGP));
  });
});

describe('the rule applied after export policy (applyNextHopRule)', () => {
  const ebgp: ExportTarget = { kind: 'ebgp', localIpv4: parseIpv4(OUR_V4), localIpv6: addressBytes(OUR_V6) };

  it('puts ours in place of a kept chassis next hop towards eBGP, and keeps every other attribute', () => {
    const r = route('ipv4', true);
    const a = { ...r.attrs, med: 5, communities: [0xfde80065] };
    const kept = exportAttributes(a, Afi.IPV4, source('local'), { ...ebgp, nextHopUnchanged: true }, CTX)!;
    expect(nextHopOf(kept)).toBe(CHASSIS_V4);
    const ruled = applyNextHopRule(kept, Afi.IPV4, ebgp)!;
    expect(ruled).toEqual({ ...kept, nextHop: parseIpv4(OUR_V4) });
    expect(ruled).toEqual(exportAttributes(a, Afi.IPV4, source('local'), ebgp, CTX));
  });

  it('hands back the very object when the rule keeps the next hop (no UPDATE split for nothing)', () => {
    const shared = { ...ebgp, sharedSubnets: SHARED };
    for (const family of FAMILIES) {
      const r = route(family, true);
      const t = family === 'ipv4-over-ipv6' ? { ...shared, extendedNextHop: true } : shared;
      const kept = exportAttributes(r.attrs, r.afi, source('ebgp'), { ...t, nextHopUnchanged: true }, CTX)!;
      expect(applyNextHopRule(kept, r.afi, t), family).toBe(kept);
    }
  });

  it('null when we have no address of the family to put instead', () => {
    const r = route('ipv6', true);
    const v4only: ExportTarget = { kind: 'ebgp', localIpv4: parseIpv4(OUR_V4) };
    const kept = exportAttributes(
      r.attrs,
      Afi.IPV6,
      source('ebgp'),
      { ...v4only, nextHopUnchanged: true },
      CTX,
    )!;
    expect(nextHopOf(kept)).toBe(CHASSIS_V6);
    expect(applyNextHopRule(kept, Afi.IPV6, v4only)).toBeNull();
    expect(exportAttributes(r.attrs, Afi.IPV6, source('ebgp'), v4only, CTX)).toBeNull();
  });

  it('keeping first and deciding after gives what deciding at once gives, for every target and route', () => {
    const v4Hops = [CHASSIS_V4, '198.18.141.9', '203.0.113.7', OUR_V4];
    const v6Hops = [CHASSIS_V6, '2001:db8:141::9', OUR_V6];
    const nextHop = fc.oneof(
      fc.constant({ kind: 'none' as const }),
      fc.record({ kind: fc.constant('v4' as const), at: fc.constantFrom(...v4Hops), mp: fc.boolean() }),
      fc.record({ kind: fc.constant('v6' as const), at: fc.constantFrom(...v6Hops), ll: fc.boolean() }),
    );
    const target = fc.record({
      kind: fc.constantFrom<PeerKind>('ebgp', 'ibgp-client', 'ibgp-nonclient'),
      v4: fc.boolean(),
      v6: fc.boolean(),
      ll: fc.boolean(),
      enhe: fc.boolean(),
      self: fc.boolean(),
      shared: fc.subarray(['198.18.140.0/23', '2001:db8:140::/64', '198.18.160.0/24', '2001:db8:160::/64']),
    });
    fc.assert(
      fc.property(
        target,
        nextHop,
        fc.constantFrom(Afi.IPV4, Afi.IPV6),
        fc.constantFrom<SourceKind>('local', 'ebgp', 'ibgp-client', 'ibgp-nonclient'),
        (t, nh, afi, from) => {
          const T: ExportTarget = {
            kind: t.kind,
            ...(t.v4 && { localIpv4: parseIpv4(OUR_V4) }),
            ...(t.v6 && { localIpv6: addressBytes(OUR_V6) }),
            ...(t.v6 && t.ll && { localIpv6LinkLocal: addressBytes(OUR_LL) }),
            ...(t.enhe && { extendedNextHop: true }),
            ...(t.self && { nextHopSelf: true }),
            sharedSubnets: t.shared.map((s) => parsePrefix(s)),
          };
          const a: MutableAttributes = { origin: 0, asPath: [] };
          if (nh.kind === 'v4' && afi === Afi.IPV4 && !nh.mp) a.nextHop = parseIpv4(nh.at);
          else if (nh.kind === 'v4') a.mpReach = { afi, safi: 1, nextHop: addressBytes(nh.at), reserved: 0 };
          else if (nh.kind === 'v6') {
            const bytes = new Uint8Array(nh.ll ? 32 : 16);
            bytes.set(addressBytes(nh.at));
            if (nh.ll) bytes.set(addressBytes('fe80::9'), 16);
            a.mpReach = { afi, safi: 1, nextHop: bytes, reserved: 0 };
          }
          const direct = exportAttributes(a, afi, source(from), T, CTX);
          const kept = exportAttributes(a, afi, source(from), { ...T, nextHopUnchanged: true }, CTX);
          if (kept === null) {
            expect(direct).toBeNull();
            return;
          }
          expect(applyNextHopRule(kept, afi, T)).toEqual(direct);
        },
      ),
      { numRuns: 2000 },
    );
  });
});
