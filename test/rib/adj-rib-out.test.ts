import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { addressBytes, parseIpv4 } from '../../src/address/index.js';
import { AttrInterner } from '../../src/bgp/wire/attributes/interner.js';
import { WireAttributes } from '../../src/bgp/wire/attributes/wire-attributes.js';
import { Afi } from '../../src/bgp/wire/constants.js';
import { checkHeader } from '../../src/bgp/wire/header.js';
import { UpdateDecoder } from '../../src/bgp/wire/update-decode.js';
import { UpdatePacker } from '../../src/bgp/wire/update-packer.js';
import { Writer } from '../../src/bgp/wire/writer.js';
import {
  type AdjRibOut,
  type BestCursor,
  ChangeBatch,
  type ExportTarget,
  FIRST_BEST,
  type OutboundWork,
  type OutPeer,
  parsePrefix,
  Rib,
  type RibPeer,
  UpdateGroups,
  WellKnownCommunity,
} from '../../src/rib/index.js';
import {
  attrs,
  attrs6,
  CLIENT,
  EBGP_A,
  EBGP_B,
  LOCAL_AS,
  NONCLIENT,
  ROUTER_ID,
  v4,
  v6,
  wireUpdate,
} from './routes.js';

const LOCAL_V4 = parseIpv4('198.18.0.1');
const LOCAL_V6 = addressBytes('2001:db8::1');
const EBGP_TARGET: ExportTarget = { kind: 'ebgp', localIpv4: LOCAL_V4, localIpv6: LOCAL_V6 };
const out = (id: string, target: ExportTarget = EBGP_TARGET, routerId = 0xc6120100): OutPeer => ({
  id,
  routerId,
  target,
});

function setup() {
  const rib = new Rib({ localAs: LOCAL_AS, routerId: ROUTER_ID });
  const groups = new UpdateGroups({ localAs: LOCAL_AS, clusterId: ROUTER_ID, defaultLocalPref: 100 });
  const step = () => groups.apply(rib.flush());
  return { rib, groups, step };
}

/** Work as "+prefix,prefix [as path]" / "-prefix" lines, sorted. */
function lines(w: OutboundWork): string[] {
  const outl: string[] = [];
  for (const l of w.withdraw) for (const p of l.toArray()) outl.push(`-${p.addr}/${p.len}`);
  for (const a of w.announce) {
    const path = a.attrs.asPath?.map((s) => s.asns.join(' ')).join(' ') ?? '';
    outl.push(
      `+${a.prefixes
        .toArray(a.from, a.to)
        .map((p) => `${p.addr}/${p.len}`)
        .join(',')} [${path}]`,
    );
  }
  return outl.sort();
}

describe('Adj-RIB-Out and update groups', () => {
  it('a joining peer gets the whole Loc-RIB, grouped by attribute set, then only changes', () => {
    const { rib, groups, step } = setup();
    const a = rib.addPeer(EBGP_A);
    rib.announce(a, v4('198.18.10.0/24', '198.18.11.0/24'), attrs([65001]));
    rib.announce(a, v4('198.18.12.0/24'), attrs([65001, 65100]));
    step();
    const x = groups.join(out('x'), rib);
    expect(lines(x.take())).toEqual([
      `+198.18.10.0/24,198.18.11.0/24 [${LOCAL_AS} 65001]`,
      `+198.18.12.0/24 [${LOCAL_AS} 65001 65100]`,
    ]);
    expect(x.take().count).toBe(0);
    expect(x.count(Afi.IPV4)).toBe(3);
    rib.withdraw(a, v4('198.18.10.0/24'));
    step();
    expect(lines(x.take())).toEqual(['-198.18.10.0/24']);
  });

  it('sends nothing when the export did not change, even if the best path did', () => {
    const { rib, groups, step } = setup();
    const x = groups.join(out('x'), rib);
    const a = rib.addPeer(EBGP_A);
    const a2 = rib.addPeer({ ...EBGP_A, id: 'a2', routerId: 1, address: '198.18.0.4' });
    rib.announce(a, v4('198.18.10.0/24'), attrs([65001], {}, '198.18.0.2'));
    step();
    expect(x.take().count).toBe(1);
    // A better path with another next hop: towards eBGP the next hop is ours either way.
    rib.announce(a2, v4('198.18.10.0/24'), attrs([65001], {}, '198.18.0.4'));
    const changes = rib.flush();
    expect(changes.length).toBe(1);
    groups.apply(changes);
    expect(x.pending).toBe(0);
    expect(x.take().count).toBe(0);
  });

  it('withdraws only what was sent and collapses changes made between takes', () => {
    const { rib, groups, step } = setup();
    const x = groups.join(out('x'), rib);
    const a = rib.addPeer(EBGP_A);
    rib.announce(a, v4('198.18.10.0/24'), attrs([65001], { communities: [WellKnownCommunity.NO_EXPORT] }));
    step();
    rib.withdraw(a, v4('198.18.10.0/24'));
    step();
    expect(x.take().count).toBe(0); // never sent, so no withdrawal either
    rib.announce(a, v4('198.18.11.0/24'), attrs([65001]));
    step();
    rib.withdraw(a, v4('198.18.11.0/24'));
    step();
    expect(x.take().count).toBe(0); // announced and withdrawn before the session took it
    rib.announce(a, v4('198.18.12.0/24'), attrs([65001]));
    step();
    x.take();
    rib.announce(a, v4('198.18.12.0/24'), attrs([65001, 65100]));
    step();
    rib.announce(a, v4('198.18.12.0/24'), attrs([65001]));
    step();
    expect(x.take().count).toBe(0); // changed and changed back
  });

  it('never sends a route back to the peer it came from', () => {
    const { rib, groups, step } = setup();
    const a = rib.addPeer(EBGP_A);
    const b = rib.addPeer(EBGP_B);
    const toA = groups.join(out('a'), rib);
    const toB = groups.join(out('b'), rib);
    expect(groups.groupOf('a')).toBe(groups.groupOf('b'));
    rib.announce(a, v4('198.18.10.0/24'), attrs([65001, 65100]));
    step();
    expect(toA.take().count).toBe(0);
    expect(lines(toB.take())).toEqual([`+198.18.10.0/24 [${LOCAL_AS} 65001 65100]`]);
    // B's path becomes best: A gets it, B gets a withdrawal of what it was sent.
    rib.announce(b, v4('198.18.10.0/24'), attrs([65002], {}, '198.18.0.3'));
    step();
    expect(lines(toA.take())).toEqual([`+198.18.10.0/24 [${LOCAL_AS} 65002]`]);
    expect(lines(toB.take())).toEqual(['-198.18.10.0/24']);
  });

  it('peers with equal targets share exported attribute objects; other targets form other groups', () => {
    const { rib, groups, step } = setup();
    const a = rib.addPeer(EBGP_A);
    const x = groups.join(out('x'), rib);
    const y = groups.join(out('y'), rib);
    const z = groups.join(out('z', { ...EBGP_TARGET, localIpv4: parseIpv4('198.18.0.99') }), rib);
    expect(groups.groupCount).toBe(2);
    rib.announce(a, v4('198.18.10.0/24'), attrs([65001]));
    step();
    const [wx, wy, wz] = [x.take(), y.take(), z.take()];
    expect(wx.announce[0].attrs).toBe(wy.announce[0].attrs);
    expect(wz.announce[0].attrs).not.toBe(wx.announce[0].attrs);
    expect(wz.announce[0].attrs.nextHop).toBe(parseIpv4('198.18.0.99'));
  });

  it('keeps iBGP split horizon and does not reflect a route to its originator', () => {
    const { rib, groups, step } = setup();
    const n = rib.addPeer(NONCLIENT);
    const c = rib.addPeer(CLIENT);
    const ibgp = (kind: ExportTarget['kind']): ExportTarget => ({ kind, localIpv4: LOCAL_V4 });
    const toN2 = groups.join(out('n2', ibgp('ibgp-nonclient'), 0xc6120200), rib);
    const toC2 = groups.join(out('c2', ibgp('ibgp-client'), 0xc6120300), rib);
    const toOrig = groups.join(out('c3', ibgp('ibgp-client'), 0xc6120077), rib);
    rib.announce(n, v4('198.18.10.0/24'), attrs([], { localPref: 100 }, '198.18.0.6'));
    rib.announce(
      c,
      v4('198.18.11.0/24'),
      attrs([], { localPref: 100, originatorId: 0xc6120077 }, '198.18.0.5'),
    );
    step();
    const n2 = toN2.take();
    expect(lines(n2)).toEqual(['+198.18.11.0/24 []']); // non-client to non-client: never
    expect(lines(toC2.take())).toEqual(['+198.18.10.0/24 []', '+198.18.11.0/24 []']);
    expect(lines(toOrig.take())).toEqual(['+198.18.10.0/24 []']); // its own route stays away
    expect(n2.announce[0].attrs.clusterList).toEqual([ROUTER_ID]);
  });

  it('takes work in bounded chunks and resends everything on refresh', () => {
    const { rib, groups, step } = setup();
    const a = rib.addPeer(EBGP_A);
    const x = groups.join(out('x'), rib);
    rib.announce(a, v4(...Array.from({ length: 10 }, (_, i) => `198.18.${i}.0/24`)), attrs([65001]));
    step();
    expect(x.take(4).count).toBe(4);
    expect(x.pending).toBe(6);
    expect(x.take(100).count).toBe(6);
    x.refresh();
    expect(x.take().count).toBe(10);
    expect(x.take().count).toBe(0);
    rib.withdraw(a, v4('198.18.0.0/24'));
    step();
    x.refresh();
    expect(lines(x.take()).filter((l) => l.startsWith('-'))).toEqual(['-198.18.0.0/24']);
  });

  it('a withdrawal after a refresh still reaches the peer that has the route', () => {
    const { rib, groups, step } = setup();
    const a = rib.addPeer(EBGP_A);
    const x = groups.join(out('x'), rib);
    rib.announce(a, v4('198.18.0.0/24', '198.18.1.0/24'), attrs([65001]));
    step();
    expect(x.take().count).toBe(2);
    x.refresh();
    rib.withdraw(a, v4('198.18.0.0/24'));
    step();
    const work = lines(x.take());
    expect(work.filter((l) => l.startsWith('-'))).toEqual(['-198.18.0.0/24']);
    expect(work.filter((l) => !l.startsWith('-'))).toHaveLength(1);
    expect(x.take().count).toBe(0);
  });

  it('releases every exported attribute set when peers leave', () => {
    const { rib, groups, step } = setup();
    const a = rib.addPeer(EBGP_A);
    const x = groups.join(out('x'), rib);
    groups.join(out('y'), rib);
    rib.announce(a, v4('198.18.10.0/24', '198.18.11.0/24'), attrs([65001]));
    step();
    x.take();
    expect(groups.interner.size).toBe(1);
    groups.leave('x');
    groups.leave('y');
    expect(groups.interner.size).toBe(0);
    expect(groups.groupCount).toBe(0);
    expect(() => groups.join(out('x', { kind: 'ebgp' }), rib)).toThrow(/next-hop-self/);
  });
});

describe('end to end: RIB → Adj-RIB-Out → UpdatePacker → UpdateDecoder → peer RIB', () => {
  /** Packs work as the session would and feeds the bytes to the receiving RIB. */
  function deliver(work: OutboundWork, to: Rib, from: string): void {
    const ctx = { as4: true, addPathIpv4: false, addPathIpv6: false, ebgp: true };
    const packer = new UpdatePacker(ctx);
    const w = new Writer(4096);
    for (const list of work.withdraw) packer.withdraw(w, list);
    for (const a of work.announce) packer.announce(w, packer.prepare(a.attrs), a.prefixes, a.from, a.to);
    const bytes = w.finish();
    const dec = new UpdateDecoder(ctx, { interner: new AttrInterner(), reuseLists: true });
    const peer = to.peer(from)!;
    for (let pos = 0; pos < bytes.length; ) {
      const len = checkHeader(bytes, pos);
      to.applyUpdate(peer, dec.decode(bytes, pos + 19, pos + len));
      pos += len;
    }
  }

  it('the peer learns our originated and learned routes with our AS and next hop', () => {
    const { rib, groups, step } = setup();
    const upstream = new Rib({ localAs: 65099, routerId: 0xc6120063 });
    upstream.addPeer({ id: 'us', kind: 'ebgp', asn: LOCAL_AS, routerId: ROUTER_ID, address: '198.18.0.1' });
    const toUp = groups.join(out('up'), rib) as AdjRibOut;
    const a = rib.addPeer(EBGP_A);
    rib.originate(parsePrefix('198.18.60.10/32'), attrs([], {}, '198.18.50.7'));
    rib.originate(parsePrefix('2001:db8:60::10/128'), attrs6([], {}, '2001:db8:50::7'));
    rib.announce(
      a,
      v4(...Array.from({ length: 600 }, (_, i) => `10.${i >> 8}.${i & 255}.0/24`)),
      attrs([65001, 65100]),
    );
    step();
    deliver(toUp.take(), upstream, 'us');
    const learned = upstream.flush();
    expect(learned.length).toBe(602);
    const fip = upstream.best(parsePrefix('198.18.60.10/32'))!;
    expect(fip.attrs.asPath).toEqual([{ type: 2, asns: [LOCAL_AS] }]);
    expect(fip.attrs.nextHop).toBe(LOCAL_V4);
    const fip6 = upstream.best(parsePrefix('2001:db8:60::10/128'))!;
    expect(fip6.attrs.mpReach?.nextHop).toEqual(LOCAL_V6);
    expect(upstream.best(parsePrefix('10.1.44.0/24'))!.attrs.asPath).toEqual([
      { type: 2, asns: [LOCAL_AS, 65001, 65100] },
    ]);

    rib.unoriginate(parsePrefix('2001:db8:60::10/128'));
    rib.withdraw(a, v4('10.0.0.0/24'));
    step();
    deliver(toUp.take(), upstream, 'us');
    expect(
      upstream
        .flush()
        .map((c) => `${c.kind} ${c.prefix}`)
        .sort(),
    ).toEqual(['withdraw 10.0.0.0/24', 'withdraw 2001:db8:60::10/128']);
  });
});

/**
 * Changes to a small table from one peer, for properties: `ipv4` /24s and four IPv6 /48s, each
 * change a prefix and an AS path to announce it with (-1: withdraw it), and `apply` to make one.
 */
function tableChanges(ipv4: number) {
  const PREFIXES = [
    ...Array.from({ length: ipv4 }, (_, i) => `198.18.${i}.0/24`),
    ...Array.from({ length: 4 }, (_, i) => `2001:db8:${i}::/48`),
  ];
  const PATHS = [[65001], [65001, 65100], [65001, 65100, 65200]];
  const change = fc.record({
    prefix: fc.integer({ min: 0, max: PREFIXES.length - 1 }),
    path: fc.integer({ min: -1, max: PATHS.length - 1 }),
  });
  const apply = (rib: Rib, peer: RibPeer, c: { prefix: number; path: number }) => {
    const p = PREFIXES[c.prefix];
    const list = p.includes(':') ? v6(p) : v4(p);
    if (c.path < 0) rib.withdraw(peer, list);
    else rib.announce(peer, list, p.includes(':') ? attrs6(PATHS[c.path]) : attrs(PATHS[c.path]));
  };
  return { PREFIXES, change, apply };
}

describe('an initial table offered in slices', () => {
  const { PREFIXES, change, apply } = tableChanges(12);

  it('ends where a peer joining at once ends, whatever changes come between slices', () => {
    fc.assert(
      fc.property(
        fc.array(change, { maxLength: 20 }),
        fc.array(fc.array(change, { maxLength: 3 }), { maxLength: 12 }),
        fc.integer({ min: 1, max: 5 }),
        (before, between, budget) => {
          const { rib, groups, step } = setup();
          const a = rib.addPeer(EBGP_A);
          for (const c of before) apply(rib, a, c);
          step();
          const sliced = groups.attach(out('sliced'));
          let cursor: BestCursor | null = FIRST_BEST;
          let turn = 0;
          while (cursor !== null) {
            cursor = groups.fill('sliced', rib, cursor, budget);
            for (const c of between[turn++] ?? []) apply(rib, a, c);
            step();
            sliced.take();
          }
          sliced.take();
          const whole = groups.join(out('whole'), rib);
          whole.take();
          for (const p of PREFIXES) {
            const prefix = parsePrefix(p);
            expect(sliced.sentFor(prefix)).toBe(whole.sentFor(prefix));
            expect(whole.sentFor(prefix) !== undefined).toBe(rib.best(prefix) !== undefined);
          }
        },
      ),
      { numRuns: 300 },
    );
  });
});

describe('changes as columns', () => {
  const PREFIXES = ['198.18.1.0/24', '198.18.2.0/24', '198.18.3.0/25', '2001:db8:1::/48', '2001:db8:2::/48'];
  const PATHS = [[65001], [65001, 65100], [65002]];
  const op = fc.record({
    peer: fc.integer({ min: 0, max: 1 }),
    prefix: fc.integer({ min: 0, max: PREFIXES.length - 1 }),
    path: fc.integer({ min: -1, max: PATHS.length - 1 }),
    flush: fc.boolean(),
  });

  // Three peers in one group; or a group of one, the sending peer itself (whose own routes are
  // passed over a batch at a time while it holds nothing) or the other one.
  const members = fc.constantFrom(['a', 'b', 'x'], ['a'], ['b']);

  it('a batch offered as columns leaves every Adj-RIB-Out as its objects offered one by one do', () => {
    fc.assert(
      fc.property(fc.array(op, { maxLength: 40 }), members, (ops, ids) => {
        const rib = new Rib({ localAs: LOCAL_AS, routerId: ROUTER_ID, decision: { maxPaths: 2 } });
        const ctx = { localAs: LOCAL_AS, clusterId: ROUTER_ID, defaultLocalPref: 100 };
        const byColumns = new UpdateGroups(ctx);
        const byObjects = new UpdateGroups(ctx);
        const peers = [rib.addPeer(EBGP_A), rib.addPeer(EBGP_B)];
        const outs = ids.map((id) => [byColumns.join(out(id), rib), byObjects.join(out(id), rib)]);
        const batch = new ChangeBatch();
        const flush = () => {
          batch.reset();
          rib.flushInto(batch);
          byColumns.applyBatch(batch);
          byObjects.apply(batch.toArray());
          for (const [c, o] of outs) expect(lines(c!.take())).toEqual(lines(o!.take()));
        };
        for (const o of ops) {
          const p = PREFIXES[o.prefix];
          const list = p.includes(':') ? v6(p) : v4(p);
          if (o.path < 0) rib.withdraw(peers[o.peer]!, list);
          else {
            const path = [o.peer === 0 ? 65001 : 65002, ...PATHS[o.path]!.slice(1)];
            rib.announce(peers[o.peer]!, list, p.includes(':') ? attrs6(path) : attrs(path));
          }
          if (o.flush) flush();
        }
        flush();
      }),
      { numRuns: 300 },
    );
  });
});

describe('work handed back after packing', () => {
  const { change, apply } = tableChanges(10);

  it('gives every later take the same work as when nothing is handed back', () => {
    fc.assert(
      fc.property(
        fc.array(fc.array(change, { maxLength: 8 }), { minLength: 1, maxLength: 8 }),
        fc.integer({ min: 1, max: 6 }),
        (rounds, limit) => {
          const worlds = [setup(), setup()].map((w) => {
            const a = w.rib.addPeer(EBGP_A);
            return { ...w, a, out: w.groups.join(out('b'), w.rib) as AdjRibOut };
          });
          for (const changes of rounds) {
            const works = worlds.map(({ rib, a, step, out: o }) => {
              for (const c of changes) apply(rib, a, c);
              step();
              const taken: string[][] = [];
              while (o.pending > 0) {
                const work = o.take(limit);
                taken.push(lines(work));
                if (o === worlds[0].out) o.release(work);
              }
              return taken;
            });
            expect(works[0]).toEqual(works[1]);
          }
        },
      ),
      { numRuns: 200 },
    );
  });

  it('lays out a slice of one set per prefix in one list, a range per set', () => {
    const { rib, groups, step } = setup();
    const a = rib.addPeer(EBGP_A);
    const o = groups.join(out('b'), rib) as AdjRibOut;
    for (let i = 0; i < 6000; i++)
      rib.announce(a, v4(`198.18.${i >> 8}.${i & 255}/32`), attrs([65001, i + 1]));
    step();
    const first = o.take(3000);
    expect(first.announce).toHaveLength(3000);
    const list = first.announce[0]!.prefixes;
    expect(first.announce.every((w, i) => w.prefixes === list && w.from === i && w.to === i + 1)).toBe(true);
    expect(list.count).toBe(3000);
    o.release(first);
    const second = o.take(3000);
    expect(second.announce).toHaveLength(3000);
    expect(second.announce[0]!.prefixes).not.toBe(list);
  });

  it('leaves work that was not handed back as it was', () => {
    const { rib, groups, step } = setup();
    const a = rib.addPeer(EBGP_A);
    const o = groups.join(out('b'), rib) as AdjRibOut;
    rib.announce(a, v4('198.18.1.0/24', '198.18.2.0/24'), attrs([65001]));
    step();
    const kept = o.take();
    const before = lines(kept);
    o.release(o.take()); // nothing pending: empty work handed back
    rib.announce(a, v4('198.18.3.0/24'), attrs([65001, 65100]));
    step();
    o.release(o.take());
    expect(lines(kept)).toEqual(before);
  });
});

describe('one attribute set from two sources', () => {
  it('is exported per source: each reflected route names its own originator', () => {
    const { rib, groups, step } = setup();
    const c1 = rib.addPeer(CLIENT);
    const c2 = rib.addPeer({ ...CLIENT, id: 'c2', routerId: parseIpv4('198.18.1.6'), address: '198.18.0.7' });
    const shared = attrs([65001]);
    rib.announce(c1, v4('198.18.1.0/24'), shared);
    rib.announce(c2, v4('198.18.2.0/24'), shared);
    rib.announce(c1, v4('198.18.3.0/24'), shared);
    step();
    const to = groups.join(out('c3', { kind: 'ibgp-client' }, parseIpv4('198.18.1.7')), rib);
    to.take();
    expect(to.sentFor(parsePrefix('198.18.1.0/24'))?.originatorId).toBe(CLIENT.routerId);
    expect(to.sentFor(parsePrefix('198.18.2.0/24'))?.originatorId).toBe(parseIpv4('198.18.1.6'));
    expect(to.sentFor(parsePrefix('198.18.3.0/24'))?.originatorId).toBe(CLIENT.routerId);
  });
});

describe('exporting a received attribute set', () => {
  function receivedTable() {
    const w = setup();
    const a = w.rib.addPeer(EBGP_A);
    const u = wireUpdate({
      attrs: attrs([65001, 65100], { communities: [0xfde80001], med: 7 }),
      nlri: v4('198.18.1.0/24', '198.18.2.0/24'),
    });
    const received = u.attrs as WireAttributes;
    return { ...w, a, u, received };
  }

  it('sends it as a compact set and leaves the received set undecoded', () => {
    const { rib, groups, step, a, u, received } = receivedTable();
    rib.applyUpdate(a, u);
    step();
    expect(received.hasDecoded).toBe(false);
    const work = groups.join(out('b'), rib).take();
    expect(work.announce).toHaveLength(1);
    const sent = work.announce[0]!.attrs;
    expect(sent).toBeInstanceOf(WireAttributes);
    expect(sent.asPath).toEqual([{ type: 2, asns: [LOCAL_AS, 65001, 65100] }]);
    expect(sent.communities).toEqual([0xfde80001]);
    expect(sent.nextHop).toBe(LOCAL_V4);
    expect(sent.med).toBeUndefined(); // RFC 4271 5.1.4: not passed on to another AS
    expect(received.hasDecoded).toBe(false);
  });

  it('gives each prefix its own set when more sets than the export cache has slots share its slots', () => {
    const { rib, groups, step, a } = receivedTable();
    // 4096 slots: sets i and i + 4096 meet in one slot, in the fill and in the changes after it.
    const n = 4096 + 300;
    const prefix = (i: number) => `198.18.${i >> 8}.${i & 255}/32`;
    for (let i = 0; i < n; i++)
      rib.applyUpdate(a, wireUpdate({ attrs: attrs([65001, 70000 + i]), nlri: v4(prefix(i)) }));
    step();
    const b = groups.join(out('b'), rib);
    const sent = new Map<string, number>();
    const record = (w: OutboundWork) => {
      for (const x of w.announce)
        for (const p of x.prefixes.toArray(x.from, x.to))
          sent.set(`${p.addr}/${p.len}`, x.attrs.asPath![0]!.asns[2]!);
    };
    record(b.take());
    // The same prefixes again, each with the set of the prefix 4096 further on or back.
    for (let i = 0; i < 600; i++) {
      const other = i < 300 ? i + 4096 : i - 300;
      rib.applyUpdate(
        a,
        wireUpdate({ attrs: attrs([65001, 70000 + other]), nlri: v4(prefix(i < 300 ? i : i + 3796)) }),
      );
    }
    step();
    record(b.take());
    for (let i = 0; i < n; i++) {
      const now = i < 300 ? i + 4096 : i >= 4096 ? i - 4096 : i;
      expect(sent.get(prefix(i))).toBe(70000 + now);
    }
  });

  it('leaves a set that was decoded before its export decoded', () => {
    const { rib, groups, step, a, u, received } = receivedTable();
    rib.applyUpdate(a, u);
    step();
    const path = received.asPath;
    groups.join(out('b'), rib).take();
    expect(received.hasDecoded).toBe(true);
    expect(received.asPath).toBe(path);
  });
});
