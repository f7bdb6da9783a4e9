import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { addressBytes, parseIpv4 } from '../../src/address/index.js';
import { Afi } from '../../src/bgp/wire/constants.js';
import {
  type AddPathSelect,
  type ExportTarget,
  type OutboundWork,
  Rib,
  type RibOut,
  type RibPeerInit,
  UpdateGroups,
} from '../../src/rib/index.js';
import { attrs, LOCAL_AS, ROUTER_ID, v4 } from './routes.js';

// Add-path send (RFC 7911): the peer holds, per prefix, exactly the paths selected for it,
// each under an id of its own that stays while the path does.

const TARGET: ExportTarget = {
  kind: 'ebgp',
  localIpv4: parseIpv4('198.18.0.1'),
  localIpv6: addressBytes('2001:db8::1'),
};
const SOURCES: RibPeerInit[] = [1, 2, 3, 4].map((n) => ({
  id: `p${n}`,
  kind: 'ebgp',
  asn: 65000 + n,
  routerId: parseIpv4(`198.18.1.${n}`),
  address: `198.18.0.${n + 1}`,
}));
/** The receiving peer is a source too: its own paths never go back to it. */
const RECEIVER: RibPeerInit = {
  id: 'r',
  kind: 'ebgp',
  asn: 65009,
  routerId: parseIpv4('198.18.1.9'),
  address: '198.18.0.9',
};
const PREFIXES = ['198.18.10.0/24', '198.18.11.0/24', '198.18.12.0/24'];

/** A path's tag: which source sent it (high 16 bits) and which version (low), in a community. */
const tagOf = (source: number, version: number) => (source << 16) | version;

function world(select: AddPathSelect, families: [boolean, boolean] = [true, false]) {
  const rib = new Rib({
    localAs: LOCAL_AS,
    routerId: ROUTER_ID,
    decision: { maxPaths: 4, multipathRelax: true },
  });
  const groups = new UpdateGroups({ localAs: LOCAL_AS, clusterId: ROUTER_ID, defaultLocalPref: 100 });
  const peers = [...SOURCES, RECEIVER].map((p) => rib.addPeer(p));
  const out = groups.join(
    { id: RECEIVER.id, routerId: RECEIVER.routerId, target: TARGET, addPath: { select, families } },
    rib,
  );
  /** What the receiver holds: prefix → path id → tag. */
  const held = new Map<string, Map<number, number>>();
  const step = () => {
    groups.apply(rib.flush());
    receive(held, out.take());
  };
  return { rib, groups, peers, out, held, step };
}

function receive(held: Map<string, Map<number, number>>, work: OutboundWork): void {
  for (const list of work.withdraw) {
    for (const p of list.toArray()) {
      const paths = held.get(`${p.addr}/${p.len}`);
      // A withdrawal only for what the peer holds.
      expect(paths?.has(p.pathId!), `withdraw ${p.addr}/${p.len} id ${p.pathId}`).toBe(true);
      paths!.delete(p.pathId!);
    }
  }
  for (const a of work.announce) {
    for (const p of a.prefixes.toArray(a.from, a.to)) {
      const key = `${p.addr}/${p.len}`;
      const paths = held.get(key) ?? new Map<number, number>();
      paths.set(p.pathId!, a.attrs.communities![0]);
      held.set(key, paths);
    }
  }
}

/** The tags the peer should hold for a prefix: the selection over the RIB's paths, never its own. */
function expectedTags(rib: Rib, select: AddPathSelect, prefix: string): number[] {
  const list = v4(prefix);
  const ranked = rib.rankedPaths(Afi.IPV4, list.words, 0, list.lens[0]);
  if (!ranked) return [];
  const pool = select === 'ecmp' ? ranked.multipath : ranked.paths;
  const mine = pool.filter((p) => p.source.id !== RECEIVER.id).map((p) => p.attrs.communities![0]);
  return (typeof select === 'number' ? mine.slice(0, select) : mine).sort();
}

const announceOp = fc.record({
  kind: fc.constant('announce' as const),
  source: fc.integer({ min: 0, max: SOURCES.length }),
  prefix: fc.integer({ min: 0, max: PREFIXES.length - 1 }),
  pathLength: fc.integer({ min: 1, max: 3 }),
});
const withdrawOp = fc.record({
  kind: fc.constant('withdraw' as const),
  source: fc.integer({ min: 0, max: SOURCES.length }),
  prefix: fc.integer({ min: 0, max: PREFIXES.length - 1 }),
});

describe('add-path send', () => {
  it('sends every path of a prefix, each with its own id, and withdraws the one that leaves', () => {
    const { rib, peers, held, step } = world('all');
    rib.announce(peers[0], v4('198.18.10.0/24'), attrs([65001], { communities: [tagOf(0, 1)] }));
    rib.announce(peers[1], v4('198.18.10.0/24'), attrs([65002, 65002], { communities: [tagOf(1, 1)] }));
    step();
    expect(held.get('198.18.10.0/24')).toEqual(
      new Map([
        [1, tagOf(0, 1)],
        [2, tagOf(1, 1)],
      ]),
    );
    // The best path changes attributes: same id, replaced in place; the other is untouched.
    rib.announce(peers[0], v4('198.18.10.0/24'), attrs([65001], { communities: [tagOf(0, 2)] }));
    step();
    expect(held.get('198.18.10.0/24')).toEqual(
      new Map([
        [1, tagOf(0, 2)],
        [2, tagOf(1, 1)],
      ]),
    );
    rib.withdraw(peers[0], v4('198.18.10.0/24'));
    step();
    expect(held.get('198.18.10.0/24')).toEqual(new Map([[2, tagOf(1, 1)]]));
  });

  it('a second path changing (the best staying) reaches the peer', () => {
    const { rib, peers, held, step } = world('all');
    rib.announce(peers[0], v4('198.18.10.0/24'), attrs([65001], { communities: [tagOf(0, 1)] }));
    step();
    rib.announce(
      peers[1],
      v4('198.18.10.0/24'),
      attrs([65002, 65002, 65002], { communities: [tagOf(1, 1)] }),
    );
    step();
    expect([...held.get('198.18.10.0/24')!.values()].sort()).toEqual([tagOf(0, 1), tagOf(1, 1)]);
  });

  it('a family without add-path negotiated gets the best path alone, without ids', () => {
    const { rib, peers, out, step } = world('all', [false, false]);
    rib.announce(peers[0], v4('198.18.10.0/24'), attrs([65001], { communities: [tagOf(0, 1)] }));
    rib.announce(peers[1], v4('198.18.10.0/24'), attrs([65002, 65002], { communities: [tagOf(1, 1)] }));
    step();
    expect(out.count(Afi.IPV4)).toBe(1);
    // A peer joining later gets the same from its initial table.
    const groups = new UpdateGroups({ localAs: LOCAL_AS, clusterId: ROUTER_ID, defaultLocalPref: 100 });
    const fresh: RibOut = groups.join(
      { id: 'x', routerId: 7, target: TARGET, addPath: { select: 'all', families: [false, false] } },
      rib,
    );
    const work = fresh.take();
    expect(work.announce).toHaveLength(1);
    expect(work.announce[0].prefixes.addPath).toBe(false);
    expect(work.announce[0].attrs.communities).toEqual([tagOf(0, 1)]);
  });

  it('add-path and single-path peers never share an update group', () => {
    const { rib, groups } = world('all');
    groups.join({ id: 'plain', routerId: 8, target: TARGET }, rib);
    expect(groups.groupOf('plain')).not.toBe(groups.groupOf(RECEIVER.id));
    expect(groups.groupCount).toBe(2);
  });

  it('random path changes: the peer holds the selected set, ids unique and stable for paths that stay', () => {
    fc.assert(
      fc.property(
        fc.constantFrom<AddPathSelect>('all', 'ecmp', 1, 2),
        fc.array(fc.array(fc.oneof(announceOp, withdrawOp), { minLength: 1, maxLength: 5 }), {
          minLength: 1,
          maxLength: 12,
        }),
        (select, rounds) => {
          const { rib, peers, held, step } = world(select);
          let version = 0;
          /** prefix → source tag (high bits) → id, as the peer saw it in the previous round. */
          let before = new Map<string, Map<number, number>>();
          for (const round of rounds) {
            for (const op of round) {
              const list = v4(PREFIXES[op.prefix]);
              if (op.kind === 'withdraw') rib.withdraw(peers[op.source], list);
              else {
                const asn = 65001 + op.source;
                const path = Array.from({ length: op.pathLength }, () => asn);
                rib.announce(
                  peers[op.source],
                  list,
                  attrs(path, { communities: [tagOf(op.source, ++version)] }),
                );
              }
            }
            step();
            const now = new Map<string, Map<number, number>>();
            for (const prefix of PREFIXES) {
              const paths = held.get(prefix) ?? new Map<number, number>();
              expect([...paths.values()].sort(), `${prefix} with ${select}`).toEqual(
                expectedTags(rib, select, prefix),
              );
              const bySource = new Map<number, number>();
              for (const [id, tag] of paths) bySource.set(tag >>> 16, id);
              // One id per path: as many sources as paths.
              expect(bySource.size).toBe(paths.size);
              for (const [source, id] of bySource) {
                const was = before.get(prefix)?.get(source);
                if (was !== undefined) expect(id, `${prefix} source ${source} kept its id`).toBe(was);
              }
              now.set(prefix, bySource);
            }
            before = now;
          }
        },
      ),
      { numRuns: 150 },
    );
  });
});
