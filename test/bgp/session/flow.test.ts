import { afterEach, describe, expect, it } from 'vitest';
import { parseIpv4 } from '../../../src/address/index.js';
import { SessionError } from '../../../src/bgp/session/index.js';
import { Afi } from '../../../src/bgp/wire/constants.js';
import { KEEPALIVE } from '../../../src/bgp/wire/keepalive.js';
import { encodeMessageBytes } from '../../../src/bgp/wire/message.js';
import { PrefixList } from '../../../src/bgp/wire/prefix-list.js';
import { UpdatePacker } from '../../../src/bgp/wire/update-packer.js';
import { Writer } from '../../../src/bgp/wire/writer.js';
import { AS_A, established, pair, TEST_TIMERS, until } from './support.js';

// Backpressure both ways, bounded buffers, and long work cut into turns of the event loop.

let cleanup: (() => Promise<void>) | undefined;
afterEach(async () => {
  await cleanup?.();
  cleanup = undefined;
});

async function up(opts: Parameters<typeof pair>[0] = {}) {
  const p = await pair(opts);
  cleanup = p.close;
  await established(p.a, p.b);
  return p;
}

/** `count` /32 prefixes from 198.18.0.0/15 starting at `first`. */
function hostRoutes(count: number, first = 0): PrefixList {
  const list = new PrefixList(Afi.IPV4, false, count);
  const base = parseIpv4('198.18.0.0');
  for (let i = 0; i < count; i++) {
    const at = list.grow();
    list.words[at] = (base + first + i) >>> 0;
    list.lens[at] = 32;
  }
  return list;
}

/** Full-size UPDATEs announcing `count` host routes, as one buffer (what the RIB hands the session). */
function packed(count: number, first = 0): Uint8Array {
  const packer = new UpdatePacker({ as4: true });
  const attrs = packer.prepare({
    origin: 0,
    asPath: [{ type: 2, asns: [AS_A] }],
    nextHop: parseIpv4('127.0.0.1'),
  });
  const w = new Writer(64 * 1024);
  packer.announce(w, attrs, hostRoutes(count, first));
  return w.finish();
}

/** `count` UPDATEs of one prefix each: many small messages, as a table dump often is. */
function manySmall(count: number): { bytes: Uint8Array; messages: number } {
  const packer = new UpdatePacker({ as4: true });
  const w = new Writer(count * 64);
  const routes = hostRoutes(count);
  let messages = 0;
  for (let i = 0; i < count; i++) {
    // A distinct MED per message keeps the packer from merging them.
    const attrs = packer.prepare({
      origin: 0,
      asPath: [{ type: 2, asns: [AS_A] }],
      nextHop: parseIpv4('127.0.0.1'),
      med: i,
    });
    messages += packer.announce(w, attrs, routes, i, i + 1);
  }
  return { bytes: w.finish(), messages };
}

const turns = (n: number) =>
  (async () => {
    for (let i = 0; i < n; i++) await new Promise((r) => setImmediate(r));
  })();

describe('receive backpressure', () => {
  it('a consumer that returns a promise stops the reading; the peer is told to wait; keepalives go on', async () => {
    const { a, b } = await up();
    let release!: () => void;
    const gate = new Promise<void>((r) => {
      release = r;
    });
    let first = true;
    b.peer.on('update', () => {
      if (!first) return;
      first = false;
      return gate;
    });
    // A writes until its queue asks it to wait: B's socket buffers fill while B reads nothing.
    let chunks = 0;
    let more = true;
    while (more && chunks < 2_000) {
      more = a.peer.sendRaw(packed(4_000, chunks * 4_000));
      chunks++;
    }
    expect(more).toBe(false);
    let drained = false;
    const drain = a.peer.drain().then(() => {
      drained = true;
    });
    await turns(20);
    expect(drained).toBe(false);
    expect(b.rec.updates).toHaveLength(1);
    expect(a.peer.writeQueueBytes).toBeGreaterThan(0);

    // Timers are not reading: B still sends keepalives, and its hold timer waits for the
    // messages it has not read yet instead of blaming the peer.
    const keepalives = a.peer.stats.received.keepalive;
    b.scheduler.advance(TEST_TIMERS.holdTime * 1000 * 2);
    await until(() => a.peer.stats.received.keepalive > keepalives, 'a keepalive from the paused side');
    expect(b.rec.notifications).toEqual([]);
    expect(b.peer.state).toBe('Established');

    release();
    await drain;
    await until(() => b.peer.stats.received.update === a.peer.stats.sent.update, 'every UPDATE at B');
    expect(b.rec.updates).toHaveLength(a.peer.stats.sent.update);
    expect(b.rec.notifications).toEqual([]);
  });

  it('pause() and resume() hold the UPDATEs back and then deliver all of them in order', async () => {
    const { a, b } = await up();
    b.peer.pause();
    a.peer.sendRaw(packed(3_000));
    await until(() => a.peer.writeQueueBytes === 0, 'A to hand everything to the kernel');
    await turns(10);
    expect(b.rec.updates).toEqual([]);
    b.peer.resume();
    await until(() => b.rec.updates.length === a.peer.stats.sent.update, 'the UPDATEs');
    const prefixes = b.rec.updates.flatMap((u) => u.nlri.toArray().map((p) => p.addr));
    expect(prefixes).toHaveLength(3_000);
    expect(prefixes[0]).toBe('198.18.0.0');
    expect(prefixes[2_999]).toBe('198.18.11.183');
  });
});

describe('send bounds', () => {
  it('refuses UPDATEs once the write queue limit is reached, instead of buffering without bound', async () => {
    const { a, b } = await up({ a: { maxWriteQueueBytes: 256 * 1024 } });
    b.peer.pause();
    const chunk = packed(16_000); // about 64 KiB
    let error: unknown;
    for (let i = 0; i < 10_000 && error === undefined; i++) {
      try {
        a.peer.sendRaw(chunk);
      } catch (e) {
        error = e;
      }
      if (i % 16 === 0) await turns(1);
    }
    expect(error).toBeInstanceOf(SessionError);
    expect((error as SessionError).kind).toBe('write-queue-full');
    expect(a.peer.writeQueueBytes).toBeLessThanOrEqual(256 * 1024 + chunk.length);
    b.peer.resume();
    await a.peer.drain();
  });

  it('sendRaw takes whole UPDATE messages only', async () => {
    const { a } = await up();
    const kinds: string[] = [];
    for (const bad of [packed(10).subarray(0, 30), encodeMessageBytes(KEEPALIVE), new Uint8Array(19)]) {
      try {
        a.peer.sendRaw(bad);
      } catch (e) {
        kinds.push((e as SessionError).kind);
      }
    }
    expect(kinds).toEqual(['invalid-message', 'invalid-message', 'invalid-message']);
    expect(a.peer.stats.sent.update).toBe(0);
  });
});

describe('long work yields to the event loop', () => {
  it('a burst of thousands of UPDATEs is handled in turns: other callbacks run in between', async () => {
    const { a, b } = await up();
    const { bytes, messages } = manySmall(6_000);
    let seenByProbe = -1;
    b.peer.on('update', () => {
      if (b.rec.updates.length === 1) {
        setImmediate(() => {
          seenByProbe = b.rec.updates.length;
        });
      }
    });
    a.peer.sendRaw(bytes);
    await until(() => b.rec.updates.length === messages, 'the whole burst');
    // The probe, queued while the first message was handled, ran before the last one was.
    expect(seenByProbe).toBeGreaterThan(0);
    expect(seenByProbe).toBeLessThan(messages);
    expect(b.scheduler.defers).toBeGreaterThan(0);
  });
});
