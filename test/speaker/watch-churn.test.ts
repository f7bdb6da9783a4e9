import { connect } from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import { MAX_WATCH_BACKLOG } from '../../src/api/constants.js';
import { callControl, type WatchEvent, watchControl } from '../../src/api/index.js';
import { Speaker } from '../../src/speaker/index.js';
import { ACCEPT_ALL, configFrom, Probe, probePeer, speakerSection, tempDir, until } from './support.js';

// The control API's watch stream under churn: a peer changes the best path of thousands of
// prefixes round after round while clients watch. Below the backlog bound a reading client
// gets every change, numbered without a gap and in the order it happened. Past it, a client
// that stopped reading is cut off with the documented `overflow` event, and one that reads
// gets every change in order until, at worst, that same event; watching again gives the
// speaker's table. Meanwhile the speaker answers its control socket and keeps its session.

let cleanups: (() => Promise<void> | void)[] = [];
afterEach(async () => {
  for (const c of cleanups.reverse()) await c();
  cleanups = [];
});

const PREFIXES = Array.from({ length: 12_000 }, (_, i) => `198.19.${i >> 8}.${i & 255}/32`);
/** Rounds that stay below the backlog bound (36,000 changes). */
const CALM_ROUNDS = 3;
/** Rounds that put a stopped client past it. */
const STORM_ROUNDS = Math.ceil((MAX_WATCH_BACKLOG * 1.2) / PREFIXES.length);
const PER_UPDATE = 500;
const CHURN_MS = 240_000;

/** A watch that sends its request and then never reads: the kernel's buffers fill, then the speaker's queue. */
function stalledWatcher(path: string) {
  const socket = connect(path);
  socket.write(`${JSON.stringify({ id: 7, method: 'watch', params: { topics: ['bestpath'] } })}\n`);
  socket.pause();
  const closed = new Promise<void>((resolve) => socket.once('close', () => resolve()));
  /** Reads everything that is left, once the test lets it. */
  const drain = async (): Promise<WatchEvent[]> => {
    const chunks: Buffer[] = [];
    socket.on('data', (c: Buffer) => chunks.push(c));
    socket.resume();
    await closed;
    const lines = Buffer.concat(chunks).toString('utf8').split('\n').filter(Boolean);
    return lines.slice(1).map((l) => (JSON.parse(l) as { event: WatchEvent }).event);
  };
  return { socket, drain };
}

/** Each prefix's MEDs in the order its bestpath events came. */
function medsByPrefix(events: readonly WatchEvent[]): Map<string, number[]> {
  const out = new Map<string, number[]>();
  for (const e of events) {
    if (e.type !== 'bestpath') continue;
    const list = out.get(e.prefix) ?? [];
    list.push(e.path!.med!);
    out.set(e.prefix, list);
  }
  return out;
}

const ascending = (xs: readonly number[]) => xs.every((x, i) => i === 0 || xs[i - 1]! < x);

describe('watch under churn', () => {
  it('every change in order below the bound; overflow past it for a stopped client; the speaker answers throughout', async () => {
    const a = await Probe.start('127.0.0.2', 65001, '198.18.0.12');
    cleanups.push(() => a.close());
    const t = tempDir();
    cleanups.push(t.cleanup);
    const s = await Speaker.start(
      configFrom({
        speaker: speakerSection(t.dir),
        peers: [probePeer(a, { import: ['all'] })],
        policies: { all: ACCEPT_ALL },
      }),
    );
    cleanups.push(() => s.close());
    await until(() => a.established, 'the session up');
    const socket = s.controlSocket!;

    const watchFrom = async () => {
      const events: WatchEvent[] = [];
      const w = watchControl(socket, ['bestpath'], (e) => events.push(e));
      cleanups.push(() => w.close());
      await w.started;
      await until(() => events.some((e) => e.type === 'synced'), 'the snapshot');
      return events;
    };
    let round = 0;
    const churn = async (rounds: number) => {
      for (let i = 0; i < rounds; i++) {
        round++;
        for (let j = 0; j < PREFIXES.length; j += PER_UPDATE) {
          a.announce(PREFIXES.slice(j, j + PER_UPDATE), { med: round });
        }
        // Each round lands in the RIB before the next: every prefix changes best path once per round.
        await until(
          () => s.rib({ prefix: PREFIXES.at(-1)!, limit: 1 })[0]?.paths[0]?.med === round,
          `round ${round} in the RIB`,
          CHURN_MS,
        );
        // The operator's CLI is served in the middle of it, the session stays up.
        const summary = await callControl(socket, 'summary', {}, { timeoutMs: 30_000 });
        expect(summary.neighbors[0]?.state).toBe('Established');
      }
    };

    // Below the bound: every change, numbered without a gap, each prefix's in the order sent.
    const calm = await watchFrom();
    await churn(CALM_ROUNDS);
    const calmChanges = PREFIXES.length * CALM_ROUNDS;
    await until(
      () => calm.length >= 1 + calmChanges,
      `every change at the reading client (${calm.length - 1} of ${calmChanges})`,
      CHURN_MS,
    );
    expect(calm.map((e) => e.seq)).toEqual(calm.map((_, i) => i + 1));
    const calmMeds = medsByPrefix(calm);
    expect(calmMeds.size).toBe(PREFIXES.length);
    for (const p of PREFIXES) expect(calmMeds.get(p), p).toEqual([1, 2, 3]);
    calm.length = 0;

    // Past the bound: a client that stopped reading is cut off with overflow.
    const stalled = stalledWatcher(socket);
    cleanups.push(() => {
      stalled.socket.destroy();
    });
    const reading = await watchFrom();
    await churn(STORM_ROUNDS);
    const cut = await stalled.drain();
    expect(cut.at(-1)).toMatchObject({
      type: 'overflow',
      message: expect.stringMatching(/events behind \(at most 100000\): watch again/),
    });
    expect(cut.map((e) => e.seq)).toEqual(cut.map((_, i) => i + 1));
    expect(cut.length).toBeLessThan(PREFIXES.length * STORM_ROUNDS);

    // The reading client: in order up to its last event, which is overflow if it fell behind too.
    const stormChanges = PREFIXES.length * STORM_ROUNDS;
    await until(
      () => reading.at(-1)?.type === 'overflow' || reading.length >= 1 + stormChanges,
      `the reading client's stream done (${reading.length - 1} of ${stormChanges})`,
      CHURN_MS,
    );
    expect(reading.map((e) => e.seq)).toEqual(reading.map((_, i) => i + 1));
    expect(reading.slice(0, -1).some((e) => e.type === 'overflow')).toBe(false);
    for (const [p, meds] of medsByPrefix(reading)) expect(ascending(meds), `${p}: ${meds}`).toBe(true);

    // Watching again gives the speaker's table: every prefix at the last round's MED.
    const again = await watchFrom();
    const snapshot = medsByPrefix(again);
    expect(snapshot.size).toBe(PREFIXES.length);
    for (const p of PREFIXES) expect(snapshot.get(p), p).toEqual([round]);
    const after = await callControl(socket, 'summary', {});
    expect(after.neighbors[0]?.state).toBe('Established');
    expect(after.rib['ipv4-unicast']).toBe(PREFIXES.length);
  }, 900_000);
});
