import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { addressBytes, parseIpv4 } from '../../src/address/index.js';
import { makeAttributes, type PathAttributes } from '../../src/bgp/wire/attributes/types.js';
import { Afi, AsPathSegmentType, Origin } from '../../src/bgp/wire/constants.js';
import { PrefixList } from '../../src/bgp/wire/prefix-list.js';
import type { UpdateMessage } from '../../src/bgp/wire/update.js';
import {
  AcceptAll,
  compileLists,
  compilePolicy,
  RejectAll,
  type RouteFilter,
} from '../../src/policy/index.js';
import { parsePrefix, Rib } from '../../src/rib/index.js';
import { Importer } from '../../src/routing/index.js';

// The import side on a real RIB: per prefix through the filter, the store of what was sent, and
// a changed filter applied to the stored routes.

const ATTRS = makeAttributes({
  origin: Origin.IGP,
  asPath: [{ type: AsPathSegmentType.AS_SEQUENCE, asns: [65001] }],
  nextHop: parseIpv4('198.18.1.2'),
});
const ATTRS6 = makeAttributes({
  origin: Origin.IGP,
  asPath: [{ type: AsPathSegmentType.AS_SEQUENCE, asns: [65001] }],
  mpReach: { afi: Afi.IPV6, safi: 1, nextHop: addressBytes('2001:db8:1::2'), reserved: 0 },
});

function list(prefixes: readonly string[]): PrefixList {
  const l = new PrefixList(prefixes[0]?.includes(':') ? Afi.IPV6 : Afi.IPV4);
  for (const p of prefixes) {
    const [a, n] = p.split('/');
    l.add(a!, Number(n));
  }
  return l;
}

function update(parts: {
  announce?: string[];
  withdraw?: string[];
  announce6?: string[];
  action?: UpdateMessage['action'];
}): UpdateMessage {
  const a6 = parts.announce6 ?? [];
  return {
    type: 'update',
    withdrawn: list(parts.withdraw ?? []),
    attrs: a6.length ? ATTRS6 : ATTRS,
    nlri: list(parts.announce ?? []),
    mpNlri: a6.length ? list(a6) : null,
    mpUnreach: null,
    action: parts.action ?? 'ok',
    issues: [],
  };
}

function setup(filter: RouteFilter) {
  const rib = new Rib({ localAs: 65000, routerId: parseIpv4('198.18.0.1') });
  const peer = rib.addPeer({ id: 'a', kind: 'ebgp', asn: 65001, routerId: 2, address: '198.18.1.2' });
  const importer = new Importer(rib, peer, filter, [false, false]);
  const inRib = () => [...rib.snapshot()].map((r) => `${r.prefix}`).sort();
  const attrsOf = (p: string): PathAttributes | undefined =>
    rib.adjRibIn(peer).lookup(parsePrefix(p))[0]?.attrs;
  const settle = (slice = 2) => {
    for (const afi of [Afi.IPV4, Afi.IPV6] as const)
      for (let c = 0; c !== -1; ) c = importer.reimport(afi, c, slice);
    importer.reimportDone();
    rib.flush();
  };
  return { rib, peer, importer, inRib, attrsOf, settle };
}

const dropEleven = compilePolicy(
  {
    name: 'drop-11',
    statements: [
      { match: { prefixList: 'eleven' }, action: 'reject' },
      { match: { prefixList: 'twelve' }, set: { localPref: 300 }, action: 'accept' },
    ],
    defaultAction: 'accept',
  },
  compileLists({
    prefixLists: [
      { name: 'eleven', entries: [{ action: 'permit', prefix: '198.18.11.0/24' }] },
      { name: 'twelve', entries: [{ action: 'permit', prefix: '198.18.12.0/24' }] },
    ],
  }),
);

describe('Importer', () => {
  it('without policy hands UPDATEs to the RIB as they are, keeping no store', () => {
    const x = setup(new AcceptAll('all'));
    x.importer.apply(update({ announce: ['198.18.10.0/24', '198.18.11.0/24'] }));
    x.rib.flush();
    expect(x.inRib()).toEqual(['198.18.10.0/24', '198.18.11.0/24']);
    expect(x.importer.store).toBeNull();
    expect(x.importer.received(Afi.IPV4)).toBe(2);
  });

  it('with a policy: rejected prefixes stay out, changed attributes go in, all are stored as sent', () => {
    const x = setup(dropEleven);
    x.importer.apply(
      update({ announce: ['198.18.10.0/24', '198.18.11.0/24', '198.18.12.0/24', '198.18.13.0/24'] }),
    );
    x.rib.flush();
    expect(x.inRib()).toEqual(['198.18.10.0/24', '198.18.12.0/24', '198.18.13.0/24']);
    expect(x.attrsOf('198.18.12.0/24')!.localPref).toBe(300);
    expect(x.attrsOf('198.18.13.0/24')!.localPref).toBeUndefined();
    expect(x.importer.received(Afi.IPV4)).toBe(4);
    expect(x.importer.receivedFor(parsePrefix('198.18.11.0/24'))[0]!.attrs).toBe(ATTRS);
    // A withdrawal removes from both; treat-as-withdraw withdraws what the UPDATE names.
    x.importer.apply(update({ withdraw: ['198.18.10.0/24'] }));
    x.importer.apply(update({ announce: ['198.18.12.0/24'], action: 'treat-as-withdraw' }));
    x.rib.flush();
    expect(x.inRib()).toEqual(['198.18.13.0/24']);
    expect(x.importer.received(Afi.IPV4)).toBe(2);
  });

  it('RFC 8212 reject-all stores but accepts nothing; a policy added later accepts the stored routes', () => {
    const x = setup(new RejectAll('none', 'RFC 8212'));
    x.importer.apply(update({ announce: ['198.18.10.0/24', '198.18.11.0/24'] }));
    x.importer.apply(update({ announce6: ['2001:db8:10::/48'] }));
    x.rib.flush();
    expect(x.inRib()).toEqual([]);
    expect(x.importer.setFilter(dropEleven)).toBe(true);
    x.settle();
    expect(x.inRib()).toEqual(['198.18.10.0/24', '2001:db8:10::/48']);
    // To accept-all: everything in, and the store is dropped (the RIB's Adj-RIB-In is it now).
    expect(x.importer.setFilter(new AcceptAll('all'))).toBe(true);
    x.settle();
    expect(x.inRib()).toEqual(['198.18.10.0/24', '198.18.11.0/24', '2001:db8:10::/48']);
    expect(x.importer.store).toBeNull();
    // And back: the RIB's Adj-RIB-In becomes the store.
    expect(x.importer.setFilter(dropEleven)).toBe(true);
    x.settle();
    expect(x.inRib()).toEqual(['198.18.10.0/24', '2001:db8:10::/48']);
    expect(x.importer.received(Afi.IPV4)).toBe(2);
  });

  it('whatever the UPDATEs and filter changes, the RIB holds the filter’s verdict on the last announcement', () => {
    const prefixes = ['198.18.10.0/24', '198.18.11.0/24', '198.18.12.0/24', '198.18.13.0/24'];
    const filters: RouteFilter[] = [new AcceptAll('all'), dropEleven, new RejectAll('none', 'x')];
    const step = fc.oneof(
      fc.record({ kind: fc.constant('announce' as const), ps: fc.subarray(prefixes, { minLength: 1 }) }),
      fc.record({ kind: fc.constant('withdraw' as const), ps: fc.subarray(prefixes, { minLength: 1 }) }),
      fc.record({ kind: fc.constant('filter' as const), f: fc.integer({ min: 0, max: 2 }) }),
    );
    fc.assert(
      fc.property(fc.integer({ min: 0, max: 2 }), fc.array(step, { maxLength: 25 }), (first, steps) => {
        let filter = filters[first]!;
        const x = setup(filter);
        const sent = new Set<string>();
        for (const s of steps) {
          if (s.kind === 'announce') {
            x.importer.apply(update({ announce: s.ps }));
            for (const p of s.ps) sent.add(p);
          } else if (s.kind === 'withdraw') {
            x.importer.apply(update({ withdraw: s.ps }));
            for (const p of s.ps) sent.delete(p);
          } else {
            filter = filters[s.f]!;
            if (x.importer.setFilter(filter)) x.settle(1);
          }
        }
        x.rib.flush();
        const accepted = [...sent].filter((p) =>
          filter.rejectsAll ? false : filter === dropEleven ? p !== '198.18.11.0/24' : true,
        );
        expect(x.inRib()).toEqual(accepted.sort());
        expect(x.importer.received(Afi.IPV4)).toBe(sent.size);
      }),
      { numRuns: 300 },
    );
  });
});
