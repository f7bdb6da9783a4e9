import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import type { PathAttributes } from '../../src/bgp/wire/attributes/types.js';
import type { PrefixList } from '../../src/bgp/wire/prefix-list.js';
import { parsePrefix, Rib, type RibPeer, type RouteAdd, type RouteChange } from '../../src/rib/index.js';
import {
  attrs,
  attrs6,
  CLIENT,
  EBGP_A,
  EBGP_A2,
  EBGP_B,
  LOCAL_AS,
  NONCLIENT,
  ROUTER_ID,
  v4,
  v6,
} from './routes.js';

const PEERS = [EBGP_A, EBGP_B, EBGP_A2, CLIENT, NONCLIENT];
const PREFIXES = [
  '198.18.1.0/24',
  '198.18.2.0/24',
  '198.18.3.0/25',
  '198.18.3.0/24',
  '2001:db8:1::/48',
  '2001:db8:2::/48',
];
const isV6 = (p: string) => p.includes(':');
/** A small pool of shared attribute sets, so steps tie and MED groups form. */
const POOL: readonly ((v6: boolean) => PathAttributes)[] = [
  (six) => (six ? attrs6 : attrs)([65001, 65100]),
  (six) => (six ? attrs6 : attrs)([65001, 65100], { med: 5 }),
  (six) => (six ? attrs6 : attrs)([65002, 65100], { med: 1 }),
  (six) => (six ? attrs6 : attrs)([65002, 65100, 65200]),
  (six) => (six ? attrs6 : attrs)([65001], { origin: 2 }),
  (six) => (six ? attrs6 : attrs)([65003, 65100], { localPref: 200 }),
  (six) => (six ? attrs6 : attrs)([65001, LOCAL_AS]),
];
const pool4 = POOL.map((f) => f(false));
const pool6 = POOL.map((f) => f(true));

const list = (p: string): PrefixList => (isV6(p) ? v6(p) : v4(p));
const attrsFor = (p: string, i: number) => (isV6(p) ? pool6[i] : pool4[i]);

function freshRib(maxPaths: number, alwaysCompareMed: boolean): { rib: Rib; peers: RibPeer[] } {
  const rib = new Rib({
    localAs: LOCAL_AS,
    routerId: ROUTER_ID,
    decision: { maxPaths, maxPathsIbgp: maxPaths, alwaysCompareMed },
  });
  return { rib, peers: PEERS.map((p) => rib.addPeer(p)) };
}

/** What a prefix's best looks like, by identities that survive a rebuild. */
function shape(r: RouteAdd | undefined) {
  if (!r) return null;
  return r.multipath.map(
    (p) => `${p.source.id}#${p.pathId}@${pool4.indexOf(p.attrs)}/${pool6.indexOf(p.attrs)}`,
  );
}

const announcement = fc.record({
  peer: fc.integer({ min: 0, max: PEERS.length - 1 }),
  prefix: fc.integer({ min: 0, max: PREFIXES.length - 1 }),
  attrs: fc.integer({ min: 0, max: POOL.length - 1 }),
  flushAfter: fc.boolean(),
});
const uniqueAnnouncements = fc.uniqueArray(announcement, {
  selector: (a) => `${a.peer}/${a.prefix}`,
  maxLength: 25,
});

describe('Rib properties', () => {
  it('the best path and ECMP set of every prefix do not depend on arrival order or batching', () => {
    fc.assert(
      fc.property(
        uniqueAnnouncements.chain((as) =>
          fc
            .shuffledSubarray(as, { minLength: as.length, maxLength: as.length })
            .map((perm) => ({ as, perm })),
        ),
        fc.integer({ min: 1, max: 3 }),
        fc.boolean(),
        ({ as, perm }, maxPaths, alwaysCompareMed) => {
          const run = (order: typeof as) => {
            const { rib, peers } = freshRib(maxPaths, alwaysCompareMed);
            for (const a of order) {
              const p = PREFIXES[a.prefix];
              rib.announce(peers[a.peer], list(p), attrsFor(p, a.attrs));
              if (a.flushAfter) rib.flush();
            }
            rib.flush();
            return PREFIXES.map((p) => shape(rib.best(parsePrefix(p))));
          };
          expect(run(perm)).toEqual(run(as));
        },
      ),
      { numRuns: 300 },
    );
  });

  it('withdrawing everything empties the RIB with exactly one withdraw per prefix that had a best path', () => {
    fc.assert(
      fc.property(
        uniqueAnnouncements.chain((as) =>
          fc
            .shuffledSubarray(as, { minLength: as.length, maxLength: as.length })
            .map((withdrawOrder) => ({ as, withdrawOrder })),
        ),
        fc.boolean(),
        ({ as, withdrawOrder }, flushWhileWithdrawing) => {
          const { rib, peers } = freshRib(2, false);
          for (const a of as) {
            const p = PREFIXES[a.prefix];
            rib.announce(peers[a.peer], list(p), attrsFor(p, a.attrs));
          }
          rib.flush();
          const hadBest = PREFIXES.filter((p) => rib.best(parsePrefix(p)));
          const changes: RouteChange[] = [];
          for (const a of withdrawOrder) {
            rib.withdraw(peers[a.peer], list(PREFIXES[a.prefix]));
            if (flushWhileWithdrawing && a.flushAfter) changes.push(...rib.flush());
          }
          changes.push(...rib.flush());
          const withdrawn = changes.filter((c) => c.kind === 'withdraw').map((c) => c.prefix.toString());
          expect(withdrawn.sort()).toEqual([...hadBest].sort());
          if (!flushWhileWithdrawing) expect(changes.every((c) => c.kind === 'withdraw')).toBe(true);
          for (const p of PREFIXES) expect(rib.lookup(parsePrefix(p))).toBeUndefined();
          expect(rib.locRib(1).table.size + rib.locRib(2).table.size).toBe(0);
          expect(rib.attrs.size).toBe(0); // every attribute reference was released
        },
      ),
      { numRuns: 300 },
    );
  });

  it('changes are balanced and never redundant: the stream replays to the RIB state', () => {
    const op = fc.oneof(
      announcement.map((a) => ({ kind: 'announce' as const, ...a })),
      announcement.map((a) => ({ kind: 'withdraw' as const, ...a })),
      fc.constant({ kind: 'flush' as const }),
      fc.record({ kind: fc.constant('down' as const), peer: fc.integer({ min: 0, max: PEERS.length - 1 }) }),
    );
    fc.assert(
      fc.property(fc.array(op, { maxLength: 60 }), fc.integer({ min: 1, max: 3 }), (ops, maxPaths) => {
        const { rib, peers } = freshRib(maxPaths, false);
        const installed = new Map<string, string[]>();
        // A peer that went down and came back is another session: the same route from it is
        // news to a consumer (its source is another object), so its shape tells them apart.
        const sessions = new Map<object, number>();
        const session = (source: object) => {
          if (!sessions.has(source)) sessions.set(source, sessions.size);
          return sessions.get(source);
        };
        const shapeOf = (r: RouteAdd | undefined) =>
          r ? (shape(r) ?? []).map((s, i) => `${s}~${session(r.multipath[i]!.source)}`) : null;
        const consume = (changes: RouteChange[]) => {
          const seen = new Set<string>();
          for (const c of changes) {
            const key = c.prefix.toString();
            expect(seen.has(key)).toBe(false); // at most one change per prefix per batch
            seen.add(key);
            if (c.kind === 'withdraw') {
              expect(installed.has(key)).toBe(true);
              installed.delete(key);
            } else {
              const now = shapeOf(c)!;
              expect(now).not.toEqual(installed.get(key)); // only real changes
              installed.set(key, now);
            }
          }
          for (const p of PREFIXES) {
            const key = parsePrefix(p).toString();
            expect(shapeOf(rib.best(parsePrefix(p)))).toEqual(installed.get(key) ?? null);
          }
        };
        for (const o of ops) {
          if (o.kind === 'flush') consume(rib.flush());
          else if (o.kind === 'down') {
            const id = PEERS[o.peer].id;
            rib.removePeer(peers[o.peer]);
            peers[o.peer] = rib.addPeer(PEERS[o.peer]);
            expect(rib.peer(id)).toBe(peers[o.peer]);
          } else {
            const p = PREFIXES[o.prefix];
            if (o.kind === 'announce') rib.announce(peers[o.peer], list(p), attrsFor(p, o.attrs));
            else rib.withdraw(peers[o.peer], list(p));
          }
        }
        consume(rib.flush());
        for (const peer of peers) rib.removePeer(peer);
        consume(rib.flush());
        expect(installed.size).toBe(0);
        expect(rib.attrs.size).toBe(0);
      }),
      { numRuns: 300 },
    );
  });

  it('a graceful restart ends as if the peer had sent only what it announced again (RFC 4724 4.2)', () => {
    fc.assert(
      fc.property(
        uniqueAnnouncements,
        fc.integer({ min: 0, max: PEERS.length - 1 }),
        fc.uniqueArray(
          fc.record({
            prefix: fc.integer({ min: 0, max: PREFIXES.length - 1 }),
            attrs: fc.integer({ min: 0, max: POOL.length - 1 }),
            flushAfter: fc.boolean(),
          }),
          { selector: (a) => a.prefix, maxLength: PREFIXES.length },
        ),
        fc.integer({ min: 1, max: 3 }),
        (before, restarting, again, maxPaths) => {
          const { rib, peers } = freshRib(maxPaths, false);
          for (const a of before) {
            const p = PREFIXES[a.prefix];
            rib.announce(peers[a.peer], list(p), attrsFor(p, a.attrs));
          }
          rib.flush();
          const peer = peers[restarting];
          rib.markStale(peer, 1);
          rib.markStale(peer, 2);
          for (const a of again) {
            const p = PREFIXES[a.prefix];
            rib.announce(peer, list(p), attrsFor(p, a.attrs));
            if (a.flushAfter) rib.flush();
          }
          rib.sweepStale(peer, 1);
          rib.sweepStale(peer, 2);
          rib.flush();
          // The same table built plainly: the others' routes, and the restarted peer's new ones.
          const plain = freshRib(maxPaths, false);
          for (const a of before) {
            if (a.peer === restarting) continue;
            const p = PREFIXES[a.prefix];
            plain.rib.announce(plain.peers[a.peer], list(p), attrsFor(p, a.attrs));
          }
          for (const a of again) {
            const p = PREFIXES[a.prefix];
            plain.rib.announce(plain.peers[restarting], list(p), attrsFor(p, a.attrs));
          }
          plain.rib.flush();
          for (const p of PREFIXES) {
            expect(shape(rib.best(parsePrefix(p)))).toEqual(shape(plain.rib.best(parsePrefix(p))));
          }
          expect(rib.staleCount(peer, 1) + rib.staleCount(peer, 2)).toBe(0);
          for (const x of peers) rib.removePeer(x);
          rib.flush();
          expect(rib.attrs.size).toBe(0);
        },
      ),
      { numRuns: 300 },
    );
  });

  it('each peer’s Adj-RIB-In and counts are what it sent, loops counted as received only', () => {
    const LOOP = POOL.length - 1; // the set with our AS in AS_PATH
    const op = fc.oneof(
      announcement.map((a) => ({ kind: 'announce' as const, ...a })),
      announcement.map((a) => ({ kind: 'withdraw' as const, ...a })),
      fc.record({
        kind: fc.constant('down' as const),
        peer: fc.integer({ min: 0, max: PEERS.length - 1 }),
        chunk: fc.integer({ min: 1, max: 4 }),
      }),
    );
    fc.assert(
      fc.property(fc.array(op, { maxLength: 60 }), (ops) => {
        const { rib, peers } = freshRib(1, false);
        const sent = PEERS.map(() => new Map<string, number>());
        for (const o of ops) {
          if (o.kind === 'down') {
            // Unwound in chunks, as a session going down is.
            let left = rib.clearPeer(peers[o.peer], o.chunk);
            while (left > 0) {
              const next = rib.clearPeer(peers[o.peer], o.chunk);
              expect(next).toBe(Math.max(0, left - o.chunk));
              left = next;
            }
            sent[o.peer].clear();
            continue;
          }
          const p = PREFIXES[o.prefix];
          if (o.kind === 'announce') {
            rib.announce(peers[o.peer], list(p), attrsFor(p, o.attrs));
            sent[o.peer].set(p, o.attrs);
          } else {
            rib.withdraw(peers[o.peer], list(p));
            sent[o.peer].delete(p);
          }
          if (o.flushAfter) rib.flush();
        }
        peers.forEach((peer, i) => {
          for (const six of [false, true]) {
            const mine = [...sent[i]].filter(([p]) => isV6(p) === six);
            const counts = rib.counts(peer, six ? 2 : 1);
            expect(counts.received).toBe(mine.length);
            expect(counts.accepted).toBe(mine.filter(([, a]) => a !== LOOP).length);
          }
          const adj = rib.adjRibIn(peer);
          for (const p of PREFIXES) {
            const held = adj.lookup(parsePrefix(p)).map((r) => r.attrs);
            const a = sent[i].get(p);
            expect(held).toEqual(a === undefined ? [] : [attrsFor(p, a)]);
          }
          expect(
            adj
              .entries()
              .map((r) => r.prefix.toString())
              .sort(),
          ).toEqual([...sent[i].keys()].map((p) => parsePrefix(p).toString()).sort());
        });
        rib.flush();
        // A loop path is never anyone's best.
        for (const p of PREFIXES) expect(rib.best(parsePrefix(p))?.attrs).not.toBe(attrsFor(p, LOOP));
      }),
      { numRuns: 300 },
    );
  });
});
