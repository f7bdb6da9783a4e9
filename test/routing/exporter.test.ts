import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { formatIpv4, parseIpv4 } from '../../src/address/index.js';
import { makeAttributes, type PathAttributes } from '../../src/bgp/wire/attributes/types.js';
import { Afi, type AfiCode, Origin } from '../../src/bgp/wire/constants.js';
import { Framer } from '../../src/bgp/wire/framer.js';
import { decodeMessage, encodeMessageBytes } from '../../src/bgp/wire/message.js';
import { PrefixList } from '../../src/bgp/wire/prefix-list.js';
import type { UpdateMessage } from '../../src/bgp/wire/update.js';
import { UpdatePacker } from '../../src/bgp/wire/update-packer.js';
import { Writer } from '../../src/bgp/wire/writer.js';
import {
  AcceptAll,
  compileLists,
  compilePolicy,
  RejectAll,
  type RouteFilter,
} from '../../src/policy/index.js';
import { parsePrefix, Rib, RibDefaults, UpdateGroups } from '../../src/rib/index.js';
import { Exporter, type ExportSession, SINGLE_PATH_ID } from '../../src/routing/index.js';

// The export side between the Adj-RIB-Out and the wire: what the peer ends up with is exactly
// what the export policy accepts of the Loc-RIB, and it never hears of a prefix it was not sent.

const LOCAL_AS = 65000;
const OUR_IPV4 = parseIpv4('198.18.1.1');
const OUR_IPV6 = Uint8Array.from(Buffer.from('20010db8000100000000000000000001', 'hex'));
const CTX = {
  update: { as4: true, addPathIpv4: false, addPathIpv6: false, ebgp: true },
  maxLength: 4096,
  enhancedRouteRefresh: false,
};

function session(
  families: AfiCode[] = [Afi.IPV4, Afi.IPV6],
  addPathSend: [boolean, boolean] = [false, false],
): ExportSession {
  return {
    packer: new UpdatePacker({ as4: true }),
    families: new Set(families),
    addPathSend,
    localIpv4: OUR_IPV4,
    localIpv6: OUR_IPV6,
  };
}

/** A RIB with one eBGP peer's Adj-RIB-Out; routes are originated locally. */
function world(filter: RouteFilter, s: ExportSession = session()) {
  const rib = new Rib({ localAs: LOCAL_AS, routerId: parseIpv4('198.18.0.1') });
  const groups = new UpdateGroups({
    localAs: LOCAL_AS,
    clusterId: rib.clusterId,
    defaultLocalPref: RibDefaults.LOCAL_PREF,
  });
  const target = { kind: 'ebgp' as const, localIpv4: OUR_IPV4, localIpv6: OUR_IPV6 };
  let out = groups.join({ id: 'peer', routerId: 2, target }, rib);
  const exporter = new Exporter(filter, s);
  exporter.track(out);
  /** What the peer holds, from the decoded messages. */
  const peer = new Map<string, PathAttributes>();
  const spurious: string[] = [];
  const w = new Writer();
  const ctx = {
    ...CTX,
    update: { ...CTX.update, addPathIpv4: s.addPathSend[0], addPathIpv6: s.addPathSend[1] },
  };
  const pump = (slice = 3): UpdateMessage[] => {
    groups.apply(rib.flush());
    const seen: UpdateMessage[] = [];
    for (;;) {
      const work = out.take(slice);
      w.reset();
      if (work.count > 0) exporter.encode(work, w);
      if (exporter.resyncing && out.pending === 0) exporter.finishResync(w);
      const framer = new Framer();
      framer.push(w.finish());
      for (let m = framer.next(); m; m = framer.next()) {
        const u = decodeMessage(m.slice(), ctx) as UpdateMessage;
        seen.push(u);
        for (const list of [u.withdrawn, u.mpUnreach?.withdrawn]) {
          for (const p of list?.toArray() ?? []) {
            const key = `${p.addr}/${p.len}`;
            if (!peer.delete(key)) spurious.push(key);
          }
        }
        for (const list of [u.nlri, u.mpNlri]) {
          for (const p of list?.toArray() ?? []) peer.set(`${p.addr}/${p.len}`, u.attrs!);
        }
      }
      if (work.count === 0) break;
    }
    return seen;
  };
  /** A new Adj-RIB-Out (the update group changed): the exporter resyncs. */
  const rejoin = () => {
    exporter.beginResync();
    groups.leave('peer');
    out = groups.join({ id: 'peer', routerId: 2, target }, rib);
    exporter.track(out);
  };
  return {
    rib,
    get out() {
      return out;
    },
    exporter,
    peer,
    spurious,
    pump,
    rejoin,
  };
}

/** A locally originated route's attributes (next hop self). */
function local(med: number): PathAttributes {
  return makeAttributes({ origin: Origin.IGP, asPath: [], med });
}

const prefixes = [
  '198.18.10.0/24',
  '198.18.11.0/24',
  '198.18.12.0/24',
  '2001:db8:10::/48',
  '2001:db8:11::/48',
];
const rejectEleven = compilePolicy(
  {
    name: 'no-11',
    statements: [{ match: { prefixList: 'eleven' }, action: 'reject' }],
    defaultAction: 'accept',
  },
  compileLists({
    prefixLists: [{ name: 'eleven', entries: [{ action: 'permit', prefix: '198.18.11.0/24' }] }],
  }),
);
const tag = compilePolicy(
  { name: 'tag', statements: [{ set: { communities: { add: ['65000:9'] } }, action: 'accept' }] },
  compileLists({}),
);

describe('Exporter', () => {
  it('sends what the policy accepts with our AS and next hop; a route it rejects later is withdrawn', () => {
    const x = world(rejectEleven);
    for (const p of prefixes) x.rib.originate(parsePrefix(p), local(1));
    x.pump();
    expect([...x.peer.keys()].sort()).toEqual([
      '198.18.10.0/24',
      '198.18.12.0/24',
      '2001:db8:10::/48',
      '2001:db8:11::/48',
    ]);
    const a = x.peer.get('198.18.10.0/24')!;
    expect(a.asPath).toEqual([{ type: 2, asns: [LOCAL_AS] }]);
    expect(formatIpv4(a.nextHop!)).toBe('198.18.1.1');
    expect(Buffer.from(x.peer.get('2001:db8:10::/48')!.mpReach!.nextHop).equals(OUR_IPV6)).toBe(true);
    expect(x.exporter.advertised.count(Afi.IPV4)).toBe(2);

    // The policy now tags everything (soft out): sent again, with the community; 11 appears.
    x.exporter.filter = tag;
    x.rejoin();
    x.pump();
    expect(x.peer.size).toBe(5);
    expect(x.peer.get('198.18.11.0/24')!.communities).toEqual([((65000 << 16) | 9) >>> 0]);
    // Back: 11 is withdrawn; a withdrawn route never sent draws no withdrawal.
    x.exporter.filter = rejectEleven;
    x.rejoin();
    x.pump();
    expect(x.peer.has('198.18.11.0/24')).toBe(false);
    x.exporter.filter = new RejectAll('none', 'RFC 8212');
    x.rejoin();
    x.pump();
    expect(x.peer.size).toBe(0);
    for (const p of prefixes) x.rib.unoriginate(parsePrefix(p));
    x.pump();
    expect(x.spurious).toEqual([]);
  });

  it('sends only negotiated families, with our path id when ADD-PATH send was agreed', () => {
    const x = world(new AcceptAll('all'), session([Afi.IPV4], [true, false]));
    for (const p of prefixes) x.rib.originate(parsePrefix(p), local(1));
    const updates = x.pump(100);
    expect([...x.peer.keys()].sort()).toEqual(['198.18.10.0/24', '198.18.11.0/24', '198.18.12.0/24']);
    expect(updates.flatMap((u) => u.nlri.toArray().map((p) => p.pathId))).toEqual([
      SINGLE_PATH_ID,
      SINGLE_PATH_ID,
      SINGLE_PATH_ID,
    ]);
    // What the peer has, as show advertised reads it: IPv6 was never sent.
    expect(x.exporter.advertised.count(Afi.IPV4)).toBe(3);
    expect(x.exporter.advertised.count(Afi.IPV6)).toBe(0);
    expect(x.exporter.advertised.lookup(parsePrefix('2001:db8:10::/48'))).toEqual([]);
    expect(x.exporter.advertised.lookup(parsePrefix('198.18.11.0/24'))).toHaveLength(1);
    x.rib.unoriginate(parsePrefix('198.18.10.0/24'));
    const [w] = x.pump();
    expect(w!.withdrawn.toArray()).toEqual([
      { afi: Afi.IPV4, addr: '198.18.10.0', len: 24, pathId: SINGLE_PATH_ID },
    ]);
  });

  it('a policy’s next_hop self puts our address in, whatever export chose', () => {
    const self = compilePolicy(
      { name: 'self', statements: [{ set: { nextHop: 'self', med: 7 }, action: 'accept' }] },
      compileLists({}),
    );
    const x = world(self);
    x.rib.originate(
      parsePrefix('198.18.20.0/24'),
      makeAttributes({ origin: 0, asPath: [], nextHop: parseIpv4('198.18.1.50') }),
    );
    x.pump();
    expect(formatIpv4(x.peer.get('198.18.20.0/24')!.nextHop!)).toBe('198.18.1.1');
    expect(x.peer.get('198.18.20.0/24')!.med).toBe(7);
  });

  it('next_hop self on an extended next hop session (RFC 8950): our IPv6 address for IPv4 routes', () => {
    const self = compilePolicy(
      { name: 'self', statements: [{ set: { nextHop: 'self' }, action: 'accept' }] },
      compileLists({}),
    );
    const x = world(self, { ...session(), localIpv4: undefined, extendedNextHop: true });
    x.rib.originate(
      parsePrefix('198.18.22.0/24'),
      makeAttributes({ origin: 0, asPath: [], nextHop: parseIpv4('198.18.1.50') }),
    );
    x.pump();
    const got = x.peer.get('198.18.22.0/24')!;
    expect(got.nextHop).toBeUndefined();
    expect(got.mpReach?.afi).toBe(Afi.IPV4);
    expect(Buffer.from(got.mpReach!.nextHop).toString('hex')).toBe('20010db8000100000000000000000001');
  });

  it('next_hop self keeps every other attribute of a received (wire-backed) set', () => {
    const self = compilePolicy(
      { name: 'self', statements: [{ set: { nextHop: 'self' }, action: 'accept' }] },
      compileLists({}),
    );
    const x = world(self);
    // A set as a peer's UPDATE delivers it: decoded lazily from its bytes.
    const sent = makeAttributes({
      origin: 0,
      asPath: [{ type: 2, asns: [65001, 65002] }],
      nextHop: parseIpv4('198.18.1.50'),
      communities: [0xfde90001],
    });
    const nlri = PrefixList.from(Afi.IPV4, [{ addr: '198.18.21.0', len: 24 }]);
    const received = decodeMessage(
      encodeMessageBytes({ type: 'update', attrs: sent, nlri }, CTX),
      CTX,
    ) as UpdateMessage;
    x.rib.originate(parsePrefix('198.18.21.0/24'), received.attrs!);
    x.pump();
    const got = x.peer.get('198.18.21.0/24')!;
    expect(formatIpv4(got.nextHop!)).toBe('198.18.1.1');
    expect(got.communities).toEqual([0xfde90001]);
    expect(got.asPath).toEqual([{ type: 2, asns: [LOCAL_AS, 65001, 65002] }]);
  });

  it('a resync withdraws what it did not send again', () => {
    const x = world(new AcceptAll('all'));
    for (const p of prefixes) x.rib.originate(parsePrefix(p), local(1));
    x.pump();
    // The route goes while the peer changes update group: the new group never offers it.
    x.rib.unoriginate(parsePrefix('198.18.12.0/24'));
    x.rib.flush();
    x.rejoin();
    x.pump();
    expect(x.peer.size).toBe(4);
    expect(x.peer.has('198.18.12.0/24')).toBe(false);
    expect(x.exporter.resyncing).toBe(false);
    expect(x.spurious).toEqual([]);
  });

  it('whatever the changes and slices, the peer holds exactly the accepted Loc-RIB and hears of nothing else', () => {
    const all = [
      '198.18.30.0/24',
      '198.18.31.0/24',
      '198.18.11.0/24',
      '2001:db8:30::/48',
      '2001:db8:31::/48',
    ];
    const step = fc.oneof(
      fc.record({
        kind: fc.constant('add' as const),
        p: fc.constantFrom(...all),
        med: fc.integer({ min: 0, max: 3 }),
      }),
      fc.record({ kind: fc.constant('remove' as const), p: fc.constantFrom(...all) }),
      fc.record({ kind: fc.constant('policy' as const), which: fc.integer({ min: 0, max: 2 }) }),
      fc.record({ kind: fc.constant('pump' as const), slice: fc.integer({ min: 1, max: 6 }) }),
    );
    const filters: RouteFilter[] = [new AcceptAll('all'), rejectEleven, tag];
    fc.assert(
      fc.property(fc.array(step, { maxLength: 40 }), (steps) => {
        const x = world(filters[0]!);
        const held = new Map<string, number>();
        let filter = filters[0]!;
        for (const s of steps) {
          if (s.kind === 'add') {
            x.rib.originate(parsePrefix(s.p), local(s.med));
            held.set(s.p, s.med);
          } else if (s.kind === 'remove') {
            x.rib.unoriginate(parsePrefix(s.p));
            held.delete(s.p);
          } else if (s.kind === 'policy') {
            filter = filters[s.which]!;
            x.exporter.filter = filter;
            x.rejoin();
          } else {
            x.pump(s.slice);
          }
        }
        x.pump();
        const expected = [...held.keys()]
          .filter((p) => filter !== rejectEleven || p !== '198.18.11.0/24')
          .sort();
        expect([...x.peer.keys()].sort()).toEqual(expected);
        // Our own routes keep their MED towards eBGP (RFC 4271 5.1.4 drops only other ASes' MEDs).
        for (const [p, med] of held) if (x.peer.has(p)) expect(x.peer.get(p)!.med).toBe(med);
        expect(x.spurious).toEqual([]);
        expect(x.exporter.advertised.count(Afi.IPV4) + x.exporter.advertised.count(Afi.IPV6)).toBe(
          expected.length,
        );
      }),
      { numRuns: 200 },
    );
  });
});
