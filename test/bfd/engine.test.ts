/**
 * Two engines on one fake clock, wired by a simulated link that can delay and drop packets:
 * the sessions come Up, detect a cut within the Detection Time, survive timer changes in both
 * directions (Poll Sequences) without a false failure, and tell AdminDown from a failure.
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { BfdEngine } from '../../src/bfd/engine.js';
import type { BfdSessionSpec, BfdTransition, FromWorker } from '../../src/bfd/types.js';
import { FakeClock } from '../components/fake-clock.js';

interface Side {
  readonly engine: BfdEngine;
  readonly transitions: BfdTransition[];
  readonly sent: number[];
  /** The Detection Time in the last status report. */
  readonly detection: { ms: number };
}

function seeded(seed: number): () => number {
  let x = seed >>> 0 || 1;
  return () => {
    x ^= x << 13;
    x ^= x >>> 17;
    x ^= x << 5;
    return (x >>> 0) / 0x1_0000_0000;
  };
}

function pair(clock: FakeClock, seed: number, link: { up: boolean; delayMs: number }) {
  const sides: Side[] = [];
  const addresses = ['198.18.0.1', '198.18.0.2'];
  for (const i of [0, 1]) {
    const transitions: BfdTransition[] = [];
    const sent: number[] = [];
    const detection = { ms: 0 };
    let multihop = false;
    const engine = new BfdEngine({
      clock,
      wallClock: () => clock.now(),
      random: seeded(seed + i * 7919),
      transport: {
        open: (_id, opened) => {
          multihop = opened.multihop;
        },
        close: () => {},
        send: (_id, bytes) => {
          sent.push(clock.now());
          if (!link.up) return;
          const copy = Uint8Array.from(bytes);
          clock.setTimeout(
            () => sides[1 - i]!.engine.receive(copy, { address: addresses[i]!, multihop }),
            link.delayMs,
          );
        },
      },
      report: (m: FromWorker) => {
        if (m.type === 'transition') transitions.push(m.transition);
        if (m.type === 'status' || m.type === 'transition') detection.ms = m.status.detectionTimeMs;
      },
    });
    sides.push({ engine, transitions, sent, detection });
  }
  return sides;
}

const spec = (peer: string, over: Partial<BfdSessionSpec> = {}): BfdSessionSpec => ({
  peer,
  local: undefined,
  multihop: false,
  hops: 1,
  minTxMs: 300,
  minRxMs: 300,
  multiplier: 3,
  ...over,
});

function start(sides: Side[], over: Partial<BfdSessionSpec> = {}): void {
  sides[0]!.engine.add(1, spec('198.18.0.2', over));
  sides[1]!.engine.add(1, spec('198.18.0.1', over));
}

const last = (s: Side) => s.transitions.at(-1)?.to;

describe('BfdEngine over a simulated link', () => {
  it('comes Up within a few slow intervals and stays Up', async () => {
    const clock = new FakeClock();
    const link = { up: true, delayMs: 1 };
    const sides = pair(clock, 42, link);
    start(sides);
    await clock.advance(4000);
    expect(sides.map(last)).toEqual(['Up', 'Up']);
    const before = sides.map((s) => s.transitions.length);
    await clock.advance(10_000);
    expect(sides.map((s) => s.transitions.length)).toEqual(before);
    // At 300 ms, jittered to 75-100%: between 33 and 45 packets in 10 s.
    const recent = sides[0]!.sent.filter((t) => t > clock.now() - 10_000).length;
    expect(recent).toBeGreaterThanOrEqual(33);
    expect(recent).toBeLessThanOrEqual(45);
  });

  it('detects a cut link within the Detection Time in force (property over seeds and cut times)', async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.integer({ min: 1, max: 1e6 }),
        fc.integer({ min: 0, max: 3000 }),
        async (seed, at) => {
          const clock = new FakeClock();
          const link = { up: true, delayMs: 1 };
          const sides = pair(clock, seed, link);
          start(sides);
          // Cut anywhere from before Up to well after, through the switch to the fast timers.
          await clock.advance(1500 + at);
          const states = sides.map(last);
          const inForce = sides.map((s) => s.detection.ms);
          link.up = false;
          const cut = clock.now();
          await clock.advance(4000);
          sides.forEach((s, i) => {
            if (states[i] !== 'Up' && states[i] !== 'Init') return;
            const down = s.transitions.at(-1)!;
            expect(down).toMatchObject({ to: 'Down', diag: 1, remoteAdminDown: false });
            // At most the Detection Time after the last packet, which came before the cut (+1 ms on the link).
            expect(down.at - cut).toBeLessThanOrEqual(inForce[i]! + 1);
            if (inForce[i] === 900) expect(down.at - cut).toBeGreaterThan(900 - 300);
          });
        },
      ),
      { numRuns: 40 },
    );
  });

  it('never fails falsely while either side changes its timers (Poll Sequences)', async () => {
    const change = fc.record({
      side: fc.integer({ min: 0, max: 1 }),
      afterMs: fc.integer({ min: 0, max: 3000 }),
      minTxMs: fc.integer({ min: 20, max: 2000 }),
      minRxMs: fc.integer({ min: 20, max: 2000 }),
      multiplier: fc.integer({ min: 1, max: 5 }),
    });
    await fc.assert(
      fc.asyncProperty(
        fc.integer({ min: 1, max: 1e6 }),
        fc.array(change, { maxLength: 6 }),
        async (seed, changes) => {
          const clock = new FakeClock();
          const sides = pair(clock, seed, { up: true, delayMs: 2 });
          start(sides);
          await clock.advance(5000);
          expect(sides.map(last)).toEqual(['Up', 'Up']);
          const upTransitions = sides.map((s) => s.transitions.length);
          for (const c of changes) {
            sides[c.side]!.engine.update(1, c);
            await clock.advance(c.afterMs);
          }
          await clock.advance(5000);
          expect(sides.map((s) => s.transitions.length)).toEqual(upTransitions);
        },
      ),
      { numRuns: 40 },
    );
  });

  it('comes back Up when the link returns', async () => {
    const clock = new FakeClock();
    const link = { up: true, delayMs: 1 };
    const sides = pair(clock, 7, link);
    start(sides);
    await clock.advance(5000);
    link.up = false;
    await clock.advance(3000);
    expect(sides.map(last)).toEqual(['Down', 'Down']);
    link.up = true;
    await clock.advance(5000);
    expect(sides.map(last)).toEqual(['Up', 'Up']);
  });

  it('a removed session says AdminDown, which the peer does not take for a failure (RFC 5882 3.2)', async () => {
    const clock = new FakeClock();
    const sides = pair(clock, 9, { up: true, delayMs: 1 });
    start(sides);
    await clock.advance(5000);
    sides[0]!.engine.remove(1);
    await clock.advance(3000);
    expect(sides[0]!.engine.size).toBe(0);
    const t = sides[1]!.transitions.at(-1)!;
    expect(t).toMatchObject({ from: 'Up', to: 'Down', diag: 3, remoteAdminDown: true });
    expect(clock.pending.timers).toBeGreaterThan(0);
    sides[1]!.engine.closeAll();
    // Only its AdminDown is still on the link; no timer of either engine is left.
    await clock.advance(10);
    expect(clock.pending.timers).toBe(0);
  });

  it('matches packets by discriminator and by address, and ignores strangers', async () => {
    const clock = new FakeClock();
    const sides = pair(clock, 11, { up: true, delayMs: 1 });
    sides[0]!.engine.add(1, spec('198.18.0.2'));
    // The peer runs a multihop session: its packets come to the other port and match nothing.
    sides[1]!.engine.add(1, spec('198.18.0.1', { multihop: true }));
    await clock.advance(5000);
    expect(sides[0]!.transitions).toEqual([]);
  });
});
