import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { addressBytes } from '../../../src/address/index.js';
import { mergeAs4Path } from '../../../src/bgp/wire/attributes/as-path.js';
import { ByteArena } from '../../../src/bgp/wire/attributes/byte-arena.js';
import { AttrInterner, hashKey } from '../../../src/bgp/wire/attributes/interner.js';
import { WireAttributes } from '../../../src/bgp/wire/attributes/wire-attributes.js';
import { Afi, AttrType, UpdateSubcode } from '../../../src/bgp/wire/constants.js';
import { BgpError } from '../../../src/bgp/wire/errors.js';
import { PrefixList } from '../../../src/bgp/wire/prefix-list.js';
import { encodeUpdate, endOfRib, endOfRibInput } from '../../../src/bgp/wire/update.js';
import type { UpdateContext } from '../../../src/bgp/wire/update-context.js';
import { UpdateDecoder } from '../../../src/bgp/wire/update-decode.js';
import { UpdatePacker } from '../../../src/bgp/wire/update-packer.js';
import { Writer } from '../../../src/bgp/wire/writer.js';
import { hex, toHex } from '../../support/hex.js';

const EBGP: UpdateContext = { as4: true, addPathIpv4: false, addPathIpv6: false, ebgp: true };
const IBGP: UpdateContext = { ...EBGP, ebgp: false };

/** An UPDATE body from its three fields, lengths filled in. */
function body(parts: { withdrawn?: string; attrs?: string; nlri?: string }): Uint8Array {
  const w = hex(parts.withdrawn ?? '');
  const a = hex(parts.attrs ?? '');
  const n = hex(parts.nlri ?? '');
  const out = new Uint8Array(4 + w.length + a.length + n.length);
  out[0] = w.length >> 8;
  out[1] = w.length;
  out.set(w, 2);
  out[2 + w.length] = a.length >> 8;
  out[3 + w.length] = a.length;
  out.set(a, 4 + w.length);
  out.set(n, 4 + w.length + a.length);
  return out;
}

function decode(b: Uint8Array, ctx: UpdateContext = EBGP) {
  return new UpdateDecoder(ctx).decode(b, 0, b.length);
}

function reencode(b: Uint8Array, ctx: UpdateContext = EBGP): string {
  const u = decode(b, ctx);
  const w = new Writer();
  encodeUpdate(w, u, ctx);
  return toHex(w.finish());
}

// A well-formed eBGP attribute set, one attribute per line.
const ORIGIN_IGP = '40 01 01 00';
const AS_PATH_65001 = '40 02 06 02 01 0000fde9'; // SEQUENCE of one 4-octet ASN
const NEXT_HOP = '40 03 04 c6 12 01 01'; // 198.18.1.1
const BASE = `${ORIGIN_IGP} ${AS_PATH_65001} ${NEXT_HOP}`;
const NLRI_24 = '18 c6 13 01'; // 198.19.1.0/24

describe('UPDATE decode: well-formed', () => {
  const cases: {
    name: string;
    body: Uint8Array;
    ctx?: UpdateContext;
    check: (u: ReturnType<typeof decode>) => void;
  }[] = [
    {
      name: 'IPv4 route with MED and communities',
      body: body({
        attrs: `${BASE}
          80 04 04 00000064          # MED 100
          c0 08 08 fde90001 ffffff01 # COMMUNITIES 65001:1 NO_EXPORT`,
        nlri: `${NLRI_24} 10 c6 14 # 198.20.0.0/16`,
      }),
      check(u) {
        expect(u.action).toBe('ok');
        expect(u.attrs?.origin).toBe(0);
        expect(u.attrs?.asPath).toEqual([{ type: 2, asns: [65001] }]);
        expect(u.attrs?.nextHop).toBe(0xc6120101);
        expect(u.attrs?.med).toBe(100);
        expect(u.attrs?.communities).toEqual([0xfde90001, 0xffffff01]);
        expect(u.nlri.toArray()).toEqual([
          { afi: Afi.IPV4, addr: '198.19.1.0', len: 24 },
          { afi: Afi.IPV4, addr: '198.20.0.0', len: 16 },
        ]);
      },
    },
    {
      name: 'IPv4 withdrawal only, including /0 and /32',
      body: body({ withdrawn: '00 20 c6 12 00 01 18 c6 13 01' }),
      check(u) {
        expect(u.attrs).toBeNull();
        expect(u.withdrawn.toArray().map((p) => `${p.addr}/${p.len}`)).toEqual([
          '0.0.0.0/0',
          '198.18.0.1/32',
          '198.19.1.0/24',
        ]);
      },
    },
    {
      name: 'IPv6 MP_REACH with global and link-local next hop',
      body: body({
        attrs: `90 0e 00 2c 0002 01 20          # MP_REACH ext-length 44, AFI 2 SAFI 1, NH len 32
          20010db8000100000000000000000001  # 2001:db8:1::1
          fe800000000000000000000000000001  # fe80::1
          00                                # reserved
          30 20010db80f00                   # 2001:db8:f00::/48
          ${ORIGIN_IGP} ${AS_PATH_65001}`,
      }),
      check(u) {
        expect(u.action).toBe('ok');
        expect(u.attrs?.mpReach?.afi).toBe(Afi.IPV6);
        expect(u.attrs?.mpReach?.nextHop.length).toBe(32);
        expect(u.mpNlri?.toArray()).toEqual([{ afi: Afi.IPV6, addr: '2001:db8:f00::', len: 48 }]);
      },
    },
    {
      name: 'IPv4 NLRI in MP_REACH with a 16-byte IPv6 next hop (RFC 8950)',
      body: body({
        attrs: `90 0e 00 1c 0001 01 10          # MP_REACH ext-length 28, AFI 1 SAFI 1, NH len 16
          20010db8000100000000000000000001  # 2001:db8:1::1
          00                                # reserved
          18 c61301 10 c614                 # 198.19.1.0/24, 198.20.0.0/16
          ${ORIGIN_IGP} ${AS_PATH_65001}`,
      }),
      check(u) {
        expect(u.action).toBe('ok');
        expect(u.attrs?.nextHop).toBeUndefined();
        expect(u.attrs?.mpReach?.afi).toBe(Afi.IPV4);
        expect(toHex(u.attrs!.mpReach!.nextHop)).toBe('20010db8000100000000000000000001');
        expect(u.nlri.count).toBe(0);
        expect(u.mpNlri?.toArray()).toEqual([
          { afi: Afi.IPV4, addr: '198.19.1.0', len: 24 },
          { afi: Afi.IPV4, addr: '198.20.0.0', len: 16 },
        ]);
      },
    },
    {
      name: 'IPv4 NLRI in MP_REACH with a 32-byte global and link-local next hop (RFC 8950)',
      body: body({
        attrs: `90 0e 00 29 0001 01 20          # MP_REACH ext-length 41, AFI 1 SAFI 1, NH len 32
          20010db8000100000000000000000001  # 2001:db8:1::1
          fe800000000000000000000000000001  # fe80::1
          00                                # reserved
          18 c61301                         # 198.19.1.0/24
          ${ORIGIN_IGP} ${AS_PATH_65001}`,
      }),
      check(u) {
        expect(u.action).toBe('ok');
        expect(u.attrs?.mpReach?.afi).toBe(Afi.IPV4);
        expect(u.attrs?.mpReach?.nextHop.length).toBe(32);
        expect(u.mpNlri?.toArray()).toEqual([{ afi: Afi.IPV4, addr: '198.19.1.0', len: 24 }]);
      },
    },
    {
      name: 'IPv6 withdrawal in MP_UNREACH',
      body: body({ attrs: '80 0f 0a 0002 01 30 20010db80f00' }),
      check(u) {
        expect(u.mpUnreach?.withdrawn.toArray()).toEqual([
          { afi: Afi.IPV6, addr: '2001:db8:f00::', len: 48 },
        ]);
        expect(endOfRib(u)).toBeNull();
      },
    },
    {
      name: 'End-of-RIB IPv4 (empty UPDATE)',
      body: body({}),
      check: (u) => expect(endOfRib(u)).toEqual({ afi: 1, safi: 1 }),
    },
    {
      name: 'End-of-RIB IPv6 (empty MP_UNREACH)',
      body: body({ attrs: '80 0f 03 0002 01' }),
      check: (u) => expect(endOfRib(u)).toEqual({ afi: 2, safi: 1 }),
    },
    {
      name: 'add-path IPv4 NLRI carries path ids',
      ctx: { ...EBGP, addPathIpv4: true },
      body: body({ attrs: BASE, nlri: `00000001 ${NLRI_24} 00000002 ${NLRI_24}` }),
      check(u) {
        expect(u.nlri.toArray()).toEqual([
          { afi: 1, addr: '198.19.1.0', len: 24, pathId: 1 },
          { afi: 1, addr: '198.19.1.0', len: 24, pathId: 2 },
        ]);
      },
    },
    {
      name: '2-octet AS_PATH with AS_TRANS and AS4_PATH, AGGREGATOR and AS4_AGGREGATOR',
      ctx: { ...EBGP, as4: false },
      body: body({
        attrs: `${ORIGIN_IGP}
          40 02 06 02 02 fde9 5ba0     # AS_PATH 65001 23456
          ${NEXT_HOP}
          40 06 00                     # ATOMIC_AGGREGATE
          c0 07 06 5ba0 c6120101       # AGGREGATOR AS_TRANS 198.18.1.1
          c0 11 06 02 01 fa56ea01      # AS4_PATH 4200000001
          c0 12 08 fa56ea01 c6120101   # AS4_AGGREGATOR`,
        nlri: NLRI_24,
      }),
      check(u) {
        expect(u.action).toBe('ok');
        expect(u.attrs?.asPath).toEqual([{ type: 2, asns: [65001, 23456] }]);
        expect(u.attrs?.as4Path).toEqual([{ type: 2, asns: [4200000001] }]);
        expect(u.attrs?.aggregator).toEqual({ as: 23456, address: 0xc6120101 });
        expect(u.attrs?.as4Aggregator).toEqual({ as: 4200000001, address: 0xc6120101 });
        expect(u.attrs?.atomicAggregate).toBe(true);
      },
    },
    {
      name: 'iBGP with LOCAL_PREF, ORIGINATOR_ID, CLUSTER_LIST, extended and large communities',
      ctx: IBGP,
      body: body({
        attrs: `${BASE}
          40 05 04 000000c8                     # LOCAL_PREF 200
          80 09 04 c6120102                     # ORIGINATOR_ID
          80 0a 08 c6120103 c6120104            # CLUSTER_LIST
          c0 10 08 0002fde900000001             # route target 65001:1
          c0 20 0c 0000fde9 00000001 00000002   # large 65001:1:2`,
        nlri: NLRI_24,
      }),
      check(u) {
        expect(u.action).toBe('ok');
        expect(u.attrs?.localPref).toBe(200);
        expect(u.attrs?.originatorId).toBe(0xc6120102);
        expect(u.attrs?.clusterList).toEqual([0xc6120103, 0xc6120104]);
        expect(toHex(u.attrs!.extCommunities!)).toBe('0002fde900000001');
        expect(u.attrs?.largeCommunities).toEqual([65001, 1, 2]);
      },
    },
    {
      name: 'unknown optional transitive attribute travels untouched',
      body: body({ attrs: `${BASE} e0 63 03 010203 # type 99, Partial set`, nlri: NLRI_24 }),
      check(u) {
        expect(u.action).toBe('ok');
        expect(u.attrs?.unknown).toEqual([{ type: 99, flags: 0xe0, value: Uint8Array.from([1, 2, 3]) }]);
      },
    },
  ];

  for (const c of cases) {
    it(c.name, () => {
      c.check(decode(c.body, c.ctx));
      // Re-encoding what was decoded gives the same bytes.
      expect(reencode(c.body, c.ctx)).toBe(toHex(c.body));
    });
  }
});

type Expect =
  | { action: 'treat-as-withdraw' | 'attribute-discard'; kind: string }
  | { reset: [number, number]; kind: string };

/**
 * RFC 7606 section 7 and RFC 4271 section 6.3: one row per rule, each with its outcome.
 * All rows are eBGP unless `ctx` says otherwise.
 */
const V6_GLOBAL = '20010db8000000000000000000000001'; // 2001:db8::1
const V6_LINK_LOCAL = 'fe800000000000000000000000000001'; // fe80::1

/** An IPv6 UPDATE announcing 2001:db8::/32 with the given MP next hop (its length octet first). */
function mpBody(nextHop: string): Uint8Array {
  const nh = hex(nextHop);
  const len = 2 + 1 + nh.length + 1 + 5;
  return body({
    attrs: `80 0e ${len.toString(16).padStart(2, '0')} 0002 01 ${nextHop} 00 20 20010db8 ${ORIGIN_IGP} ${AS_PATH_65001}`,
  });
}

const MALFORMED: { name: string; ctx?: UpdateContext; body: Uint8Array; expect: Expect }[] = [
  // RFC 4271 6.3 / RFC 7606 section 4: field lengths
  {
    name: 'withdrawn length past the message',
    body: hex('00 10 00 00'),
    expect: { reset: [3, 1], kind: 'withdrawn-length-overrun' },
  },
  {
    name: 'total attribute length past the message',
    body: hex('00 00 00 20 40 01 01 00'),
    expect: { reset: [3, 1], kind: 'attribute-length-overrun' },
  },
  {
    name: 'body shorter than its two length fields',
    body: hex('00 00 00'),
    expect: { reset: [3, 1], kind: 'update-too-short' },
  },
  {
    name: 'attribute value overruns the attribute field',
    body: body({ attrs: `${ORIGIN_IGP} 40 02 09 02 01 0000fde9`, nlri: NLRI_24 }),
    expect: { action: 'treat-as-withdraw', kind: 'attribute-overrun' },
  },
  {
    name: 'fewer than 3 octets left for an attribute header',
    body: body({ attrs: `${BASE} 40 01`, nlri: NLRI_24 }),
    expect: { action: 'treat-as-withdraw', kind: 'attribute-overrun' },
  },
  // RFC 7606 section 5.3: NLRI that does not parse
  {
    name: 'NLRI prefix length over 32',
    body: body({ attrs: BASE, nlri: '21 c6 13 01 00 00' }),
    expect: { reset: [3, 10], kind: 'nlri-malformed' },
  },
  {
    name: 'NLRI prefix runs past the message',
    body: body({ attrs: BASE, nlri: '18 c6 13' }),
    expect: { reset: [3, 10], kind: 'nlri-malformed' },
  },
  {
    name: 'withdrawn prefix length over 32',
    body: body({ withdrawn: '28 c6 13 01 00 00' }),
    expect: { reset: [3, 10], kind: 'withdrawn-malformed' },
  },
  // RFC 7606 section 7.1 ORIGIN
  {
    name: 'ORIGIN length 2',
    body: body({ attrs: `40 01 02 00 00 ${AS_PATH_65001} ${NEXT_HOP}`, nlri: NLRI_24 }),
    expect: { action: 'treat-as-withdraw', kind: 'origin-malformed' },
  },
  {
    name: 'ORIGIN value 3',
    body: body({ attrs: `40 01 01 03 ${AS_PATH_65001} ${NEXT_HOP}`, nlri: NLRI_24 }),
    expect: { action: 'treat-as-withdraw', kind: 'origin-malformed' },
  },
  // RFC 7606 section 7.2 AS_PATH
  {
    name: 'AS_PATH segment type 5',
    body: body({ attrs: `${ORIGIN_IGP} 40 02 06 05 01 0000fde9 ${NEXT_HOP}`, nlri: NLRI_24 }),
    expect: { action: 'treat-as-withdraw', kind: 'as-path-malformed' },
  },
  {
    name: 'AS_PATH zero segment length',
    body: body({ attrs: `${ORIGIN_IGP} 40 02 02 02 00 ${NEXT_HOP}`, nlri: NLRI_24 }),
    expect: { action: 'treat-as-withdraw', kind: 'as-path-malformed' },
  },
  {
    name: 'AS_PATH segment overruns the attribute',
    body: body({ attrs: `${ORIGIN_IGP} 40 02 06 02 02 0000fde9 ${NEXT_HOP}`, nlri: NLRI_24 }),
    expect: { action: 'treat-as-withdraw', kind: 'as-path-malformed' },
  },
  {
    name: 'AS_CONFED_SEQUENCE from an eBGP peer',
    body: body({ attrs: `${ORIGIN_IGP} 40 02 06 03 01 0000fde9 ${NEXT_HOP}`, nlri: NLRI_24 }),
    expect: { action: 'treat-as-withdraw', kind: 'as-path-confed-from-ebgp' },
  },
  // RFC 7606 section 7.3 NEXT_HOP
  {
    name: 'NEXT_HOP length 5',
    body: body({ attrs: `${ORIGIN_IGP} ${AS_PATH_65001} 40 03 05 c6 12 01 01 00`, nlri: NLRI_24 }),
    expect: { action: 'treat-as-withdraw', kind: 'next-hop-malformed' },
  },
  {
    name: 'NEXT_HOP 0.0.0.0',
    body: body({ attrs: `${ORIGIN_IGP} ${AS_PATH_65001} 40 03 04 00000000`, nlri: NLRI_24 }),
    expect: { action: 'treat-as-withdraw', kind: 'next-hop-malformed' },
  },
  {
    name: 'NEXT_HOP multicast',
    body: body({ attrs: `${ORIGIN_IGP} ${AS_PATH_65001} 40 03 04 e0000001`, nlri: NLRI_24 }),
    expect: { action: 'treat-as-withdraw', kind: 'next-hop-malformed' },
  },
  // RFC 7606 section 7.4 MULTI_EXIT_DISC, 7.5 LOCAL_PREF
  {
    name: 'MED length 3',
    body: body({ attrs: `${BASE} 80 04 03 000064`, nlri: NLRI_24 }),
    expect: { action: 'treat-as-withdraw', kind: 'multi-exit-disc-malformed' },
  },
  {
    name: 'LOCAL_PREF length 2 (iBGP)',
    ctx: IBGP,
    body: body({ attrs: `${BASE} 40 05 02 0064`, nlri: NLRI_24 }),
    expect: { action: 'treat-as-withdraw', kind: 'local-pref-malformed' },
  },
  {
    name: 'LOCAL_PREF from an eBGP peer is discarded',
    body: body({ attrs: `${BASE} 40 05 04 00000064`, nlri: NLRI_24 }),
    expect: { action: 'attribute-discard', kind: 'local-pref-from-ebgp' },
  },
  {
    name: 'LOCAL_PREF length 2 from an eBGP peer is discarded, not treat-as-withdraw',
    body: body({ attrs: `${BASE} 40 05 02 0064`, nlri: NLRI_24 }),
    expect: { action: 'attribute-discard', kind: 'local-pref-from-ebgp' },
  },
  {
    name: 'LOCAL_PREF marked optional from an eBGP peer is discarded',
    body: body({ attrs: `${BASE} 80 05 04 00000064`, nlri: NLRI_24 }),
    expect: { action: 'attribute-discard', kind: 'local-pref-from-ebgp' },
  },
  // RFC 7606 section 7.6 ATOMIC_AGGREGATE, 7.7 AGGREGATOR
  {
    name: 'ATOMIC_AGGREGATE length 1',
    body: body({ attrs: `${BASE} 40 06 01 00`, nlri: NLRI_24 }),
    expect: { action: 'attribute-discard', kind: 'atomic-aggregate-malformed' },
  },
  {
    name: 'AGGREGATOR length 6 from a 4-octet speaker',
    body: body({ attrs: `${BASE} c0 07 06 fde9 c6120101`, nlri: NLRI_24 }),
    expect: { action: 'attribute-discard', kind: 'aggregator-malformed' },
  },
  // RFC 7606 section 7.8 COMMUNITIES, 7.9 ORIGINATOR_ID, 7.10 CLUSTER_LIST
  {
    name: 'COMMUNITIES length 5',
    body: body({ attrs: `${BASE} c0 08 05 fde9000100`, nlri: NLRI_24 }),
    expect: { action: 'treat-as-withdraw', kind: 'communities-malformed' },
  },
  {
    name: 'COMMUNITIES length 0',
    body: body({ attrs: `${BASE} c0 08 00`, nlri: NLRI_24 }),
    expect: { action: 'treat-as-withdraw', kind: 'communities-malformed' },
  },
  {
    name: 'ORIGINATOR_ID length 3',
    ctx: IBGP,
    body: body({ attrs: `${BASE} 40 05 04 00000064 80 09 03 c61201`, nlri: NLRI_24 }),
    expect: { action: 'treat-as-withdraw', kind: 'originator-id-malformed' },
  },
  {
    name: 'CLUSTER_LIST length 6',
    ctx: IBGP,
    body: body({ attrs: `${BASE} 40 05 04 00000064 80 0a 06 c6120101 0000`, nlri: NLRI_24 }),
    expect: { action: 'treat-as-withdraw', kind: 'cluster-list-malformed' },
  },
  {
    name: 'ORIGINATOR_ID from an eBGP peer is discarded',
    body: body({ attrs: `${BASE} 80 09 04 c6120102`, nlri: NLRI_24 }),
    expect: { action: 'attribute-discard', kind: 'originator-id-from-ebgp' },
  },
  {
    name: 'ORIGINATOR_ID length 3 from an eBGP peer is discarded, not treat-as-withdraw',
    body: body({ attrs: `${BASE} 80 09 03 c61201`, nlri: NLRI_24 }),
    expect: { action: 'attribute-discard', kind: 'originator-id-from-ebgp' },
  },
  {
    name: 'CLUSTER_LIST from an eBGP peer is discarded',
    body: body({ attrs: `${BASE} 80 0a 04 c6120101`, nlri: NLRI_24 }),
    expect: { action: 'attribute-discard', kind: 'cluster-list-from-ebgp' },
  },
  {
    name: 'CLUSTER_LIST length 6 from an eBGP peer is discarded, not treat-as-withdraw',
    body: body({ attrs: `${BASE} 80 0a 06 c6120101 0000`, nlri: NLRI_24 }),
    expect: { action: 'attribute-discard', kind: 'cluster-list-from-ebgp' },
  },
  {
    name: 'CLUSTER_LIST length 0 (iBGP)',
    ctx: IBGP,
    body: body({ attrs: `${BASE} 40 05 04 00000064 80 0a 00`, nlri: NLRI_24 }),
    expect: { action: 'treat-as-withdraw', kind: 'cluster-list-malformed' },
  },
  // RFC 4271 section 6.3 semantic NEXT_HOP checks, handled as RFC 7606 section 7.3 says
  {
    name: 'NEXT_HOP 255.255.255.255',
    body: body({ attrs: `${ORIGIN_IGP} ${AS_PATH_65001} 40 03 04 ffffffff`, nlri: NLRI_24 }),
    expect: { action: 'treat-as-withdraw', kind: 'next-hop-malformed' },
  },
  {
    name: 'NEXT_HOP is the receiving speaker’s own address',
    ctx: { ...EBGP, localAddress: hex('c6 12 01 01') },
    body: body({ attrs: BASE, nlri: NLRI_24 }),
    expect: { action: 'treat-as-withdraw', kind: 'next-hop-own-address' },
  },
  {
    name: 'MP_REACH IPv6 next hop is our own address',
    ctx: { ...EBGP, localAddress: hex(V6_GLOBAL) },
    body: mpBody(`10 ${V6_GLOBAL}`),
    expect: { action: 'treat-as-withdraw', kind: 'next-hop-own-address' },
  },
  {
    name: 'MP_REACH IPv6 next hop ::',
    body: mpBody(`10 ${'00'.repeat(16)}`),
    expect: { action: 'treat-as-withdraw', kind: 'mp-next-hop-unspecified' },
  },
  {
    name: 'MP_REACH IPv6 next hop :: beside a link-local, session not link-local',
    body: mpBody(`20 ${'00'.repeat(16)} ${V6_LINK_LOCAL}`),
    expect: { action: 'treat-as-withdraw', kind: 'mp-next-hop-unspecified' },
  },
  {
    name: 'MP_REACH IPv6 next hop ff02::1 (multicast)',
    body: mpBody('10 ff020000000000000000000000000001'),
    expect: { action: 'treat-as-withdraw', kind: 'mp-next-hop-multicast' },
  },
  {
    name: 'MP_REACH IPv6 next hop ::1 (loopback)',
    body: mpBody(`10 ${'00'.repeat(15)}01`),
    expect: { action: 'treat-as-withdraw', kind: 'mp-next-hop-loopback' },
  },
  {
    name: 'MP_REACH link-local-only next hop over a session between global addresses',
    body: mpBody(`10 ${V6_LINK_LOCAL}`),
    expect: { action: 'treat-as-withdraw', kind: 'mp-next-hop-link-local-only' },
  },
  {
    name: 'MP_REACH IPv4 next hop 0.0.0.0',
    body: body({
      attrs: `80 0e 0d 0001 01 04 00000000 00 18 c61301 ${ORIGIN_IGP} ${AS_PATH_65001}`,
    }),
    expect: { action: 'treat-as-withdraw', kind: 'mp-next-hop-martian' },
  },
  // RFC 7606 section 7.11/7.12 MP_REACH_NLRI / MP_UNREACH_NLRI
  {
    name: 'MP_REACH next hop length 15 for IPv6',
    body: body({ attrs: `80 0e 14 0002 01 0f ${'00'.repeat(15)} 00 ${ORIGIN_IGP} ${AS_PATH_65001}` }),
    expect: { reset: [3, 9], kind: 'mp-reach-next-hop-length' },
  },
  {
    name: 'MP_REACH NLRI length over 128',
    body: body({
      attrs: `80 0e 17 0002 01 10 20010db8000100000000000000000001 00 81 20 ${ORIGIN_IGP} ${AS_PATH_65001}`,
    }),
    expect: { reset: [3, 9], kind: 'mp-reach-nlri-malformed' },
  },
  {
    name: 'MP_REACH shorter than its fixed part',
    body: body({ attrs: '80 0e 03 0002 01' }),
    expect: { reset: [3, 9], kind: 'mp-reach-malformed' },
  },
  {
    name: 'MP_UNREACH NLRI runs past the attribute',
    body: body({ attrs: '80 0f 05 0002 01 30 20' }),
    expect: { reset: [3, 9], kind: 'mp-unreach-nlri-malformed' },
  },
  {
    name: 'MP_REACH appears twice',
    body: body({ attrs: '80 0f 03 0002 01 80 0f 03 0002 01' }),
    expect: { reset: [3, 1], kind: 'mp-attribute-repeated' },
  },
  {
    name: 'MP_REACH with transitive flag',
    body: body({ attrs: 'c0 0f 03 0002 01' }),
    expect: { reset: [3, 4], kind: 'mp-unreach-flags' },
  },
  // RFC 7606 section 7.14 EXTENDED_COMMUNITIES, RFC 8092 section 6 LARGE_COMMUNITY, RFC 5701
  {
    name: 'EXTENDED_COMMUNITIES length 7',
    body: body({ attrs: `${BASE} c0 10 07 0002fde9000000`, nlri: NLRI_24 }),
    expect: { action: 'treat-as-withdraw', kind: 'extended-communities-malformed' },
  },
  {
    name: 'LARGE_COMMUNITY length 8',
    body: body({ attrs: `${BASE} c0 20 08 0000fde900000001`, nlri: NLRI_24 }),
    expect: { action: 'treat-as-withdraw', kind: 'large-community-malformed' },
  },
  {
    name: 'IPv6 extended communities length 19',
    body: body({ attrs: `${BASE} c0 19 13 ${'00'.repeat(19)}`, nlri: NLRI_24 }),
    expect: { action: 'treat-as-withdraw', kind: 'ipv6-extended-communities-malformed' },
  },
  // RFC 6793 section 6: AS4_PATH / AS4_AGGREGATOR malformed are discarded
  {
    name: 'AS4_PATH malformed',
    ctx: { ...EBGP, as4: false },
    body: body({ attrs: `${ORIGIN_IGP} 40 02 04 02 01 fde9 ${NEXT_HOP} c0 11 04 02 01 fa56`, nlri: NLRI_24 }),
    expect: { action: 'attribute-discard', kind: 'as4-path-malformed' },
  },
  {
    name: 'AS4_AGGREGATOR length 6',
    ctx: { ...EBGP, as4: false },
    body: body({
      attrs: `${ORIGIN_IGP} 40 02 04 02 01 fde9 ${NEXT_HOP} c0 12 06 fde9 c6120101`,
      nlri: NLRI_24,
    }),
    expect: { action: 'attribute-discard', kind: 'as4-aggregator-malformed' },
  },
  // RFC 7606 section 3 (c): flags in conflict
  {
    name: 'ORIGIN marked optional',
    body: body({ attrs: `c0 01 01 00 ${AS_PATH_65001} ${NEXT_HOP}`, nlri: NLRI_24 }),
    expect: { action: 'treat-as-withdraw', kind: 'origin-flags' },
  },
  {
    name: 'COMMUNITIES marked well-known',
    body: body({ attrs: `${BASE} 40 08 04 fde90001`, nlri: NLRI_24 }),
    expect: { action: 'treat-as-withdraw', kind: 'communities-flags' },
  },
  {
    name: 'AGGREGATOR with wrong flags is discarded',
    body: body({ attrs: `${BASE} 80 07 08 0000fde9 c6120101`, nlri: NLRI_24 }),
    expect: { action: 'attribute-discard', kind: 'aggregator-flags' },
  },
  {
    name: 'NEXT_HOP with Partial set',
    body: body({ attrs: `${ORIGIN_IGP} ${AS_PATH_65001} 60 03 04 c6120101`, nlri: NLRI_24 }),
    expect: { action: 'treat-as-withdraw', kind: 'next-hop-flags' },
  },
  // RFC 7606 section 3 (d): missing well-known mandatory
  {
    name: 'ORIGIN missing',
    body: body({ attrs: `${AS_PATH_65001} ${NEXT_HOP}`, nlri: NLRI_24 }),
    expect: { action: 'treat-as-withdraw', kind: 'missing-ORIGIN' },
  },
  {
    name: 'AS_PATH missing',
    body: body({ attrs: `${ORIGIN_IGP} ${NEXT_HOP}`, nlri: NLRI_24 }),
    expect: { action: 'treat-as-withdraw', kind: 'missing-AS_PATH' },
  },
  {
    name: 'NEXT_HOP missing with IPv4 NLRI',
    body: body({ attrs: `${ORIGIN_IGP} ${AS_PATH_65001}`, nlri: NLRI_24 }),
    expect: { action: 'treat-as-withdraw', kind: 'missing-NEXT_HOP' },
  },
  {
    name: 'LOCAL_PREF missing on iBGP',
    ctx: IBGP,
    body: body({ attrs: BASE, nlri: NLRI_24 }),
    expect: { action: 'treat-as-withdraw', kind: 'missing-LOCAL_PREF' },
  },
  {
    name: 'NLRI without any attribute',
    body: body({ nlri: NLRI_24 }),
    expect: { action: 'treat-as-withdraw', kind: 'missing-NEXT_HOP' },
  },
  // RFC 7606 section 3 (g): other duplicates keep the first
  {
    name: 'ORIGIN twice: the second is discarded',
    body: body({ attrs: `${BASE} 40 01 01 02`, nlri: NLRI_24 }),
    expect: { action: 'attribute-discard', kind: 'duplicate-ORIGIN' },
  },
  // RFC 4271 section 6.3: unrecognized well-known attribute
  {
    name: 'unknown well-known attribute',
    body: body({ attrs: `${BASE} 40 63 01 00`, nlri: NLRI_24 }),
    expect: { reset: [3, 2], kind: 'unrecognized-well-known-attribute' },
  },
];

describe('UPDATE decode: RFC 7606 / RFC 4271 section 6.3 table', () => {
  for (const row of MALFORMED) {
    it(row.name, () => {
      const run = () => decode(row.body, row.ctx);
      if ('reset' in row.expect) {
        let err: unknown;
        try {
          run();
        } catch (e) {
          err = e;
        }
        expect(err).toBeInstanceOf(BgpError);
        const b = err as BgpError;
        expect([b.code, b.subcode]).toEqual(row.expect.reset);
        expect(b.kind).toBe(row.expect.kind);
      } else {
        const u = run();
        expect(u.action).toBe(row.expect.action);
        expect(u.issues.map((i) => i.kind)).toContain(row.expect.kind);
      }
    });
  }

  it('an eBGP peer’s LOCAL_PREF, ORIGINATOR_ID and CLUSTER_LIST are gone but the route stays', () => {
    const u = decode(
      body({ attrs: `${BASE} 40 05 02 0064 80 09 03 c61201 80 0a 06 c6120101 0000`, nlri: NLRI_24 }),
    );
    expect(u.action).toBe('attribute-discard');
    expect(u.nlri.count).toBe(1);
    expect(u.attrs?.localPref).toBeUndefined();
    expect(u.attrs?.originatorId).toBeUndefined();
    expect(u.attrs?.clusterList).toBeUndefined();
    expect(u.attrs?.nextHop).toBe(0xc6120101);
  });

  it('the same bytes interned from an iBGP peer keep eBGP rules for an eBGP peer', () => {
    const interner = new AttrInterner();
    const b = body({ attrs: `${BASE} 40 05 04 00000064`, nlri: NLRI_24 });
    const fromIbgp = new UpdateDecoder(IBGP, { interner }).decode(b, 0, b.length);
    expect(fromIbgp.attrs?.localPref).toBe(100);
    const fromEbgp = new UpdateDecoder(EBGP, { interner }).decode(b, 0, b.length);
    expect(fromEbgp.attrs?.localPref).toBeUndefined();
    expect(fromEbgp.action).toBe('attribute-discard');
  });

  it('next hops that are usable stay routes', () => {
    const ok = (b: Uint8Array, ctx: UpdateContext) => expect(decode(b, ctx).action).toBe('ok');
    ok(body({ attrs: BASE, nlri: NLRI_24 }), { ...EBGP, localAddress: hex('c6 12 01 02') });
    ok(mpBody(`10 ${V6_GLOBAL}`), { ...EBGP, localAddress: hex('20010db8000000000000000000000002') });
    ok(mpBody(`20 ${V6_GLOBAL} ${V6_LINK_LOCAL}`), EBGP);
    // An unnumbered link: the link-local alone, or beside an empty global slot, is the next hop.
    ok(mpBody(`10 ${V6_LINK_LOCAL}`), { ...EBGP, linkLocalSession: true });
    ok(mpBody(`20 ${'00'.repeat(16)} ${V6_LINK_LOCAL}`), { ...EBGP, linkLocalSession: true });
  });

  it('an own-address next hop withdraws the prefixes it announced', () => {
    const u = decode(body({ attrs: BASE, nlri: NLRI_24 }), { ...EBGP, localAddress: hex('c6120101') });
    expect(u.issues).toContainEqual({
      kind: 'next-hop-own-address',
      action: 'treat-as-withdraw',
      attrType: AttrType.NEXT_HOP,
      subcode: UpdateSubcode.INVALID_NEXT_HOP_ATTRIBUTE,
    });
  });

  it('the worst outcome wins when several apply', () => {
    const u = decode(body({ attrs: `${BASE} 40 06 01 00 c0 08 05 fde9000100`, nlri: NLRI_24 }));
    expect(u.issues.map((i) => i.action).sort()).toEqual(['attribute-discard', 'treat-as-withdraw']);
    expect(u.action).toBe('treat-as-withdraw');
  });

  it('a discarded duplicate keeps the first value', () => {
    const u = decode(body({ attrs: `${BASE} 40 01 01 02`, nlri: NLRI_24 }));
    expect(u.attrs?.origin).toBe(0);
  });

  it('the unrecognized well-known attribute is the NOTIFICATION data', () => {
    try {
      decode(body({ attrs: `${BASE} 40 63 01 07`, nlri: NLRI_24 }));
      expect.unreachable();
    } catch (e) {
      expect(toHex((e as BgpError).data)).toBe('40630107');
      expect((e as BgpError).subcode).toBe(UpdateSubcode.UNRECOGNIZED_WELL_KNOWN_ATTRIBUTE);
    }
  });
});

describe('UPDATE interning and list reuse', () => {
  it('shares one attribute object between UPDATEs with the same attributes', () => {
    const interner = new AttrInterner();
    const d = new UpdateDecoder(EBGP, { interner });
    const a = body({ attrs: BASE, nlri: NLRI_24 });
    const b = body({ attrs: BASE, nlri: '18 c6 13 02' });
    const c = body({ attrs: `${ORIGIN_IGP} 40 02 06 02 01 0000fdea ${NEXT_HOP}`, nlri: NLRI_24 });
    const ua = d.decode(a, 0, a.length);
    const ub = d.decode(b, 0, b.length);
    const uc = d.decode(c, 0, c.length);
    expect(ub.attrs).toBe(ua.attrs);
    expect(uc.attrs).not.toBe(ua.attrs);
    expect(interner.size).toBe(2);
  });

  it('IPv6 UPDATEs differing only in NLRI share attributes; next hops keep them apart', () => {
    const interner = new AttrInterner();
    const d = new UpdateDecoder(EBGP, { interner });
    const mk = (nh: string, nlri: string) =>
      body({ attrs: `80 0e 1c 0002 01 10 ${nh} 00 ${nlri} ${ORIGIN_IGP} ${AS_PATH_65001}` });
    const nh1 = '20010db8000100000000000000000001';
    const nh2 = '20010db8000100000000000000000002';
    const run = (b: Uint8Array) => d.decode(b, 0, b.length);
    const x = run(mk(nh1, '30 20010db80f00'));
    const y = run(mk(nh1, '30 20010db80f01'));
    const z = run(mk(nh2, '30 20010db80f00'));
    expect(y.attrs).toBe(x.attrs);
    expect(z.attrs).not.toBe(x.attrs);
    expect(y.mpNlri?.get(0).addr).toBe('2001:db8:f01::');
  });

  it('finds every set it holds as it grows, each only for sessions checked like its own', () => {
    const interner = new AttrInterner();
    const ebgp = new UpdateDecoder(EBGP, { interner });
    const ibgp = new UpdateDecoder(IBGP, { interner });
    const bodyOf = (i: number) =>
      body({ attrs: `${BASE} 80 04 04 ${i.toString(16).padStart(8, '0')}`, nlri: NLRI_24 });
    const sets = Array.from({ length: 5000 }, (_, i) => {
      const b = bodyOf(i);
      return ebgp.decode(b, 0, b.length).attrs as WireAttributes;
    });
    expect(interner.size).toBe(5000);
    for (const [i, a] of sets.entries()) {
      const b = bodyOf(i);
      expect(ebgp.decode(b, 0, b.length).attrs).toBe(a);
      const key = a.bytes();
      expect(interner.get(hashKey(key, 0, key.length), key, 0, key.length, a.checkedFor)).toBe(a);
    }
    // The same bytes from an iBGP session make a set of their own (RFC 7606 section 7.5).
    const b = bodyOf(7);
    expect(ibgp.decode(b, 0, b.length).attrs).not.toBe(sets[7]);
    expect(interner.size).toBe(5001);
    const unknown = hex(`${BASE} 80 04 04 ffffffff`);
    expect(interner.get(hashKey(unknown, 0, unknown.length), unknown, 0, unknown.length)).toBeUndefined();
  });

  it('refuses a size its slots cannot number', () => {
    expect(() => new AttrInterner(1 << 21)).toThrow(/maxEntries 2097152 is outside/);
  });

  it('an attribute set interned by a short session pins a small chunk, not a 256 KiB one', () => {
    // The interner outlives sessions: a peer that reconnected many times once held 256 KiB per
    // session this way (found by bench/fuzz).
    const interner = new AttrInterner();
    for (let session = 0; session < 3; session++) {
      const d = new UpdateDecoder(EBGP, { interner });
      const b = body({ attrs: `${ORIGIN_IGP} 40 02 06 02 01 0000fd${session}0 ${NEXT_HOP}`, nlri: NLRI_24 });
      const u = d.decode(b, 0, b.length);
      expect((u.attrs as WireAttributes).bytes().buffer.byteLength).toBeLessThanOrEqual(
        ByteArena.FIRST_CHUNK,
      );
    }
    expect(interner.size).toBe(3);
  });

  it('holds at most maxBytes of attribute sets: past it the table starts afresh', () => {
    // A peer sending a new large set in every UPDATE must not pin memory without bound.
    const interner = new AttrInterner(1 << 20, 100);
    const d = new UpdateDecoder(EBGP, { interner });
    const decode = (asn: number) => {
      const as = asn.toString(16).padStart(8, '0');
      const b = body({ attrs: `${ORIGIN_IGP} 40 02 06 02 01 ${as} ${NEXT_HOP}`, nlri: NLRI_24 });
      return d.decode(b, 0, b.length).attrs as WireAttributes;
    };
    const first = decode(65001);
    const perSet = interner.heldBytes;
    expect(perSet).toBeGreaterThan(0);
    let n = 1;
    while (interner.heldBytes + perSet <= 100) {
      decode(65001 + n);
      n++;
    }
    expect(interner.size).toBe(n);
    expect(decode(65001)).toBe(first);
    decode(65001 + n);
    // The set that did not fit cleared the table and is its only entry.
    expect(interner.size).toBe(1);
    expect(interner.heldBytes).toBe(perSet);
    expect(decode(65001)).not.toBe(first);
  });

  it('arena chunks grow to their cap as a long session interns more', () => {
    const arena = new ByteArena();
    const sizes: number[] = [];
    for (let i = 0; i < 300; i++) {
      arena.reserve(4000);
      arena.commit(4000);
      if (sizes.at(-1) !== arena.chunk.length) sizes.push(arena.chunk.length);
    }
    expect(sizes[0]).toBe(ByteArena.FIRST_CHUNK);
    expect(sizes.at(-1)).toBe(ByteArena.MAX_CHUNK);
    expect(sizes.every((s, i) => i === 0 || s >= sizes[i - 1]!)).toBe(true);
    // A string longer than a chunk gets a chunk of its own size.
    arena.reserve(ByteArena.MAX_CHUNK + 10);
    expect(arena.chunk.length).toBe(ByteArena.MAX_CHUNK + 10);
  });

  it('reused lists are refilled, not appended to', () => {
    const d = new UpdateDecoder(EBGP, { reuseLists: true });
    const a = body({ attrs: BASE, nlri: `${NLRI_24} ${NLRI_24}` });
    const b = body({ attrs: BASE, nlri: '18 c6 13 02' });
    expect(d.decode(a, 0, a.length).nlri.count).toBe(2);
    const ub = d.decode(b, 0, b.length);
    expect(ub.nlri.toArray()).toEqual([{ afi: 1, addr: '198.19.2.0', len: 24 }]);
  });
});

describe('UPDATE encode', () => {
  it('builds MP attributes first and the rest in type order when no layout is given', () => {
    const w = new Writer();
    encodeUpdate(
      w,
      {
        attrs: {
          origin: 0,
          asPath: [{ type: 2, asns: [65001] }],
          med: 5,
          mpReach: { afi: 2, safi: 1, nextHop: hex('20010db8000100000000000000000001'), reserved: 0 },
        },
        mpNlri: PrefixList.from(Afi.IPV6, [{ addr: '2001:db8:f00::', len: 48 }]),
      },
      EBGP,
    );
    expect(toHex(w.finish())).toBe(
      toHex(
        body({
          attrs: `80 0e 1c 0002 01 10 20010db8000100000000000000000001 00 30 20010db80f00 ${ORIGIN_IGP} ${AS_PATH_65001} 80 04 04 00000005`,
        }),
      ),
    );
  });

  it('sets Extended Length when a value outgrows one octet', () => {
    const communities = Array.from({ length: 70 }, (_, i) => 0xfde90000 + i);
    const w = new Writer();
    encodeUpdate(
      w,
      {
        attrs: { origin: 0, asPath: [], nextHop: 0xc6120101, communities },
        nlri: PrefixList.from(Afi.IPV4, [{ addr: '198.19.1.0', len: 24 }]),
      },
      EBGP,
    );
    const u = decode(w.finish());
    expect(u.attrs?.communities).toEqual(communities);
    expect(u.attrs?.layout?.find((s) => s.type === AttrType.COMMUNITIES)?.flags).toBe(0xd0);
  });

  it('writes End-of-RIB markers that decode as End-of-RIB', () => {
    for (const afi of [Afi.IPV4, Afi.IPV6] as const) {
      const w = new Writer();
      encodeUpdate(w, endOfRibInput(afi), EBGP);
      expect(endOfRib(decode(w.finish()))).toEqual({ afi, safi: 1 });
    }
  });
});

describe('UPDATE towards a 2-octet speaker (RFC 6793 section 4.2.2)', () => {
  const OLD: UpdateContext = { ...EBGP, as4: false };

  it('sends AS_TRANS in AS_PATH and AGGREGATOR, and the real values in AS4_PATH / AS4_AGGREGATOR', () => {
    const asPath = [
      { type: 3, asns: [65010] },
      { type: 2, asns: [65000, 4200000001, 65002] },
    ];
    const aggregator = { as: 4200000001, address: 0xc6120101 };
    const w = new Writer();
    encodeUpdate(
      w,
      {
        attrs: { origin: 0, asPath, nextHop: 0xc6120101, aggregator },
        nlri: PrefixList.from(Afi.IPV4, [{ addr: '198.19.1.0', len: 24 }]),
      },
      OLD,
    );
    const u = decode(w.finish(), { ...OLD, ebgp: false });
    expect(u.attrs?.asPath).toEqual([
      { type: 3, asns: [65010] },
      { type: 2, asns: [65000, 23456, 65002] },
    ]);
    // Confederation segments stay out of AS4_PATH.
    expect(u.attrs?.as4Path).toEqual([{ type: 2, asns: [65000, 4200000001, 65002] }]);
    expect(u.attrs?.aggregator).toEqual({ as: 23456, address: 0xc6120101 });
    expect(u.attrs?.as4Aggregator).toEqual(aggregator);
    expect(mergeAs4Path(u.attrs!.asPath!, u.attrs!.as4Path, u.attrs!.aggregator)).toEqual(asPath);
  });

  it('keeps every attribute of a received (wire-backed) set when adding AS4_PATH', () => {
    const received = decode(
      body({
        attrs: `${ORIGIN_IGP} 40 02 0a 02 02 0000fde8 fa56ea01 ${NEXT_HOP} c0 08 04 fde90001`,
        nlri: NLRI_24,
      }),
    );
    const w = new Writer();
    encodeUpdate(w, { attrs: received.attrs, nlri: received.nlri }, OLD);
    const u = decode(w.finish(), { ...OLD, ebgp: false });
    expect(u.attrs?.asPath).toEqual([{ type: 2, asns: [65000, 23456] }]);
    expect(u.attrs?.as4Path).toEqual([{ type: 2, asns: [65000, 4200000001] }]);
    expect(u.attrs?.communities).toEqual([0xfde90001]);
    expect(u.attrs?.nextHop).toBe(0xc6120101);
  });

  it('sends no AS4_PATH when every AS fits in two octets', () => {
    const w = new Writer();
    encodeUpdate(
      w,
      {
        attrs: { origin: 0, asPath: [{ type: 2, asns: [65000, 65001] }], nextHop: 0xc6120101 },
        nlri: PrefixList.from(Afi.IPV4, [{ addr: '198.19.1.0', len: 24 }]),
      },
      OLD,
    );
    expect(decode(w.finish(), OLD).attrs?.as4Path).toBeUndefined();
  });
});

describe('UpdatePacker: IPv4 routes with an IPv6 next hop (RFC 8950)', () => {
  const pack = (nextHop: Uint8Array) => {
    const packer = new UpdatePacker({ as4: true });
    const prepared = packer.prepare({
      origin: 0,
      asPath: [{ type: 2, asns: [65001] }],
      mpReach: { afi: Afi.IPV4, safi: 1, nextHop, reserved: 0 },
    });
    const list = new PrefixList(Afi.IPV4).add('198.19.1.0', 24).add('198.20.0.0', 16);
    const w = new Writer();
    expect(packer.announce(w, prepared, list)).toBe(1);
    // The body after the 19-octet header.
    return w.finish().subarray(19);
  };

  it('16-byte next hop: MP_REACH_NLRI with AFI 1 first, no NEXT_HOP, no IPv4 NLRI field', () => {
    const b = pack(addressBytes('2001:db8:1::1'));
    expect(toHex(b)).toBe(
      toHex(
        body({
          attrs: `90 0e 00 1c 0001 01 10 20010db8000100000000000000000001 00 18 c61301 10 c614
            ${ORIGIN_IGP} ${AS_PATH_65001}`,
        }),
      ),
    );
    const u = decode(b);
    expect(u.action).toBe('ok');
    expect(u.attrs?.nextHop).toBeUndefined();
    expect(u.mpNlri?.toArray().map((p) => `${p.addr}/${p.len}`)).toEqual(['198.19.1.0/24', '198.20.0.0/16']);
  });

  it('32-byte next hop: global then link-local, decoded back as sent', () => {
    const nh = new Uint8Array(32);
    nh.set(addressBytes('2001:db8:1::1'));
    nh.set(addressBytes('fe80::1'), 16);
    const u = decode(pack(nh));
    expect(u.action).toBe('ok');
    expect(u.attrs?.mpReach?.afi).toBe(Afi.IPV4);
    expect(toHex(u.attrs!.mpReach!.nextHop)).toBe(toHex(nh));
    expect(u.mpNlri?.count).toBe(2);
  });
});

describe('UPDATE decode: the scalars a set keeps or reads from its bytes', () => {
  const u32hex = (v: number) => v.toString(16).padStart(8, '0');
  const attrsOf = (b: Uint8Array, ctx: UpdateContext) => decode(b, ctx).attrs as WireAttributes;

  it('ORIGIN, NEXT_HOP, MULTI_EXIT_DISC and LOCAL_PREF over the whole u32 range, in any order', () => {
    fc.assert(
      fc.property(
        fc.constantFrom(0, 1, 2),
        fc.integer({ min: 1, max: 0xdfffffff }).filter((nh) => nh >>> 24 !== 127 && nh >>> 24 !== 0),
        fc.option(fc.nat({ max: 0xffffffff }), { nil: undefined }),
        fc.option(fc.nat({ max: 0xffffffff }), { nil: undefined }),
        fc.boolean(),
        (origin, nextHop, med, localPref, reversed) => {
          const parts = [
            `40 01 01 0${origin}`,
            AS_PATH_65001,
            `40 03 04 ${u32hex(nextHop)}`,
            ...(med === undefined ? [] : [`80 04 04 ${u32hex(med)}`]),
            ...(localPref === undefined ? [] : [`40 05 04 ${u32hex(localPref)}`]),
            'c0 63 02 abcd', // an unknown optional transitive attribute among them
          ];
          if (reversed) parts.reverse();
          const a = attrsOf(body({ attrs: parts.join(' '), nlri: NLRI_24 }), IBGP);
          expect([a.origin, a.nextHop, a.med, a.localPref]).toEqual([origin, nextHop, med, localPref]);
          expect(a.issues).toEqual([]);
        },
      ),
    );
  });

  it('reads the first of duplicates and nothing of a discarded one', () => {
    const dup = attrsOf(body({ attrs: `${BASE} 80 04 04 00000007 80 04 04 00000009`, nlri: NLRI_24 }), EBGP);
    expect(dup.med).toBe(7);
    const lp = attrsOf(body({ attrs: `${BASE} 40 05 04 00000064`, nlri: NLRI_24 }), EBGP);
    expect(lp.localPref).toBeUndefined(); // RFC 7606 section 7.5: from an external peer
    expect(lp.issues.map((i) => i.kind)).toEqual(['local-pref-from-ebgp']);
    expect(lp.has(AttrType.LOCAL_PREF)).toBe(false);
  });

  it('keeps its block bounds for any block an UPDATE can carry, and refuses what it cannot keep', () => {
    const raw = new Uint8Array(0);
    const a = new WireAttributes(raw, 3_000_000, 3_000_000 + 65535, { as4: true, ebgp: true }, 0);
    expect([a.rawStart, a.rawEnd, a.checkedFor]).toEqual([
      3_000_000,
      3_065_535,
      WireAttributes.checkedFor(EBGP),
    ]);
    a.nextHop = 0xc6120101;
    a.markUndecoded();
    expect([a.rawEnd, a.nextHop, a.hasUndecoded]).toEqual([3_065_535, 0xc6120101, true]);
    expect(() => new WireAttributes(raw, 0, 1 << 23, { as4: true }, 0)).toThrow(RangeError);
  });

  it('keeps its findings when it forgets what a read decoded', () => {
    const a = attrsOf(body({ attrs: `${BASE} 40 05 04 00000064 c0 08 04 fde90001`, nlri: NLRI_24 }), EBGP);
    expect(a.communities).toEqual([0xfde90001]);
    expect(a.hasDecoded).toBe(true);
    a.forgetDecoded();
    expect(a.hasDecoded).toBe(false);
    expect(a.issues.map((i) => i.kind)).toEqual(['local-pref-from-ebgp']);
    expect(a.localPref).toBeUndefined();
    expect(a.communities).toEqual([0xfde90001]);
  });
});
