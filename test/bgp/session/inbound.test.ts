import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { Inbound } from '../../../src/bgp/session/inbound.js';
import type { BgpError } from '../../../src/bgp/wire/errors.js';
import { KEEPALIVE } from '../../../src/bgp/wire/keepalive.js';
import { encodeMessageBytes } from '../../../src/bgp/wire/message.js';
import { buildOpen } from '../../../src/bgp/wire/open.js';
import type { Scheduler } from '../../../src/components/index.js';
import { concat, header } from './support.js';

// The receive path on its own: framing across partial reads, turns of bounded size, and
// flow control through pause/resume of the socket.

const MESSAGES: Uint8Array[] = [
  encodeMessageBytes(
    buildOpen({ as: 65001, bgpId: 1, holdTime: 90, capabilities: [{ name: 'four-octet-as', as: 65001 }] }),
  ),
  encodeMessageBytes(KEEPALIVE),
  encodeMessageBytes({ type: 'route-refresh', afi: 1, subtype: 0, safi: 1 }),
  encodeMessageBytes({ type: 'notification', code: 6, subcode: 2, data: Uint8Array.of(2, 104, 105) }),
  encodeMessageBytes(KEEPALIVE),
];
const STREAM = concat(...MESSAGES);

/** A scheduler whose deferred work runs when the test says; its clock stands still. */
class ManualScheduler implements Scheduler {
  readonly deferred: (() => void)[] = [];
  now = () => 0;
  setTimeout = () => 0;
  clearTimeout = () => {};
  defer(fn: () => void): void {
    this.deferred.push(fn);
  }
  runDeferred(): void {
    for (let fn = this.deferred.shift(); fn; fn = this.deferred.shift()) fn();
  }
}

function harness(messagesPerTurn = 1_000, maxBufferedBytes = 1024 * 1024) {
  const socket = {
    paused: false,
    pauses: 0,
    pause() {
      this.paused = true;
      this.pauses++;
    },
    resume() {
      this.paused = false;
    },
  };
  const got: number[][] = [];
  const errors: BgpError[] = [];
  let reply: (bytes: Uint8Array) => unknown = () => undefined;
  const scheduler = new ManualScheduler();
  const inbound = new Inbound(
    socket,
    {
      message: (bytes) => {
        got.push([...bytes]); // a copy: the view is only valid until the next push
        return reply(bytes);
      },
      headerError: (e) => errors.push(e),
    },
    scheduler,
    { messagesPerTurn, turnBudgetMs: 1_000, maxBufferedBytes },
  );
  return { socket, got, errors, scheduler, inbound, setReply: (f: typeof reply) => (reply = f) };
}

describe('framing', () => {
  it('delivers every message whole and in order, wherever the stream is cut', () => {
    for (let cut = 1; cut < STREAM.length; cut++) {
      const h = harness();
      h.inbound.push(STREAM.subarray(0, cut));
      h.inbound.push(STREAM.subarray(cut));
      expect(h.got).toEqual(MESSAGES.map((m) => [...m]));
    }
  });

  it('one byte at a time', () => {
    const h = harness();
    for (const b of STREAM) h.inbound.push(Uint8Array.of(b));
    expect(h.got).toEqual(MESSAGES.map((m) => [...m]));
    expect(h.socket.paused).toBe(false);
  });

  it('any split into chunks (property)', () => {
    fc.assert(
      fc.property(fc.array(fc.integer({ min: 1, max: STREAM.length - 1 }), { maxLength: 12 }), (cuts) => {
        const points = [...new Set(cuts)].sort((x, y) => x - y);
        const h = harness();
        let from = 0;
        for (const p of [...points, STREAM.length]) {
          h.inbound.push(STREAM.subarray(from, p));
          from = p;
        }
        expect(h.got).toEqual(MESSAGES.map((m) => [...m]));
      }),
    );
  });

  it('a bad header stops the reading and reports the RFC 4271 6.1 error once', () => {
    const h = harness();
    h.inbound.push(concat(MESSAGES[1]!, header(19, 4, 0x00), MESSAGES[1]!));
    expect(h.got).toHaveLength(1);
    expect(h.errors.map((e) => [e.code, e.subcode])).toEqual([[1, 1]]);
    h.inbound.push(MESSAGES[1]!);
    expect(h.got).toHaveLength(1);
  });
});

describe('turns and flow control', () => {
  it('hands out at most messagesPerTurn per turn, pausing the socket until the next turn', () => {
    const h = harness(2);
    h.inbound.push(STREAM);
    expect(h.got).toHaveLength(2);
    expect(h.socket.paused).toBe(true);
    expect(h.inbound.backlogged).toBe(true);
    h.scheduler.runDeferred();
    expect(h.got).toHaveLength(5);
    expect(h.socket.paused).toBe(false);
    expect(h.inbound.backlogged).toBe(false);
  });

  it('a consumer promise holds the next message back until it settles (also when it rejects)', async () => {
    const h = harness();
    let release!: () => void;
    let fail!: (e: Error) => void;
    h.setReply((bytes) => {
      if (bytes[18] === 5) return new Promise<void>((r) => (release = r)); // ROUTE-REFRESH
      if (bytes[18] === 3) return new Promise<void>((_r, j) => (fail = j)); // NOTIFICATION
      return undefined;
    });
    h.inbound.push(STREAM);
    expect(h.got).toHaveLength(3);
    expect(h.socket.paused).toBe(true);
    release();
    await new Promise((r) => setImmediate(r));
    expect(h.got).toHaveLength(4);
    fail(new Error('consumer failed'));
    await new Promise((r) => setImmediate(r));
    expect(h.got).toHaveLength(5);
    expect(h.socket.paused).toBe(false);
  });

  it('pause() keeps messages back until resume(); stop() ends it for good', () => {
    const h = harness();
    h.inbound.pause();
    h.inbound.push(STREAM);
    expect(h.got).toEqual([]);
    expect(h.inbound.backlogged).toBe(true);
    h.inbound.resume();
    expect(h.got).toHaveLength(5);
    h.inbound.stop();
    h.inbound.push(MESSAGES[1]!);
    expect(h.got).toHaveLength(5);
    expect(h.inbound.backlogged).toBe(false);
  });
});

describe('bounded input', () => {
  /** An RFC 8654 maximum-size UPDATE: a header saying 65535 and that many octets. */
  const HUGE = concat(header(65_535, 2), new Uint8Array(65_535 - 19));
  const READ = 64 * 1024;

  it('a stream of 65535-octet messages while the consumer waits: the socket is paused, nothing more is framed', () => {
    const h = harness(1_000, 256 * 1024);
    h.inbound.maxLength = 65_535;
    h.setReply(() => new Promise<void>(() => {})); // a consumer that never catches up
    const stream = concat(HUGE, HUGE, HUGE);
    h.inbound.push(stream.subarray(0, READ));
    h.inbound.push(stream.subarray(READ, 2 * READ));
    expect(h.got).toHaveLength(1);
    expect(h.socket.paused).toBe(true);
    expect(h.errors).toEqual([]);
  });

  it('a socket that keeps delivering while paused is cut off with Cease / Out of Resources at the bound', () => {
    const limit = 256 * 1024;
    const h = harness(1_000, limit);
    h.inbound.maxLength = 65_535;
    h.setReply(() => new Promise<void>(() => {}));
    let pushed = 0;
    // Far more than the bound: the inbound must refuse long before this runs out.
    for (let i = 0; i < 64 && h.errors.length === 0; i++) {
      h.inbound.push(HUGE);
      pushed += HUGE.length;
    }
    expect(h.errors.map((e) => [e.code, e.subcode, e.kind])).toEqual([[6, 8, 'read-buffer-full']]);
    // Held (pushed less the one message handed out) went over the bound by at most one read.
    expect(pushed - HUGE.length).toBeGreaterThan(limit);
    expect(pushed - HUGE.length).toBeLessThanOrEqual(limit + HUGE.length);
    expect(h.errors[0]!.message).toContain(`over the limit of ${limit}`);
    h.inbound.push(HUGE);
    expect(h.errors).toHaveLength(1);
    expect(h.got).toHaveLength(1);
  });

  it('garbage is refused at its first header (Connection Not Synchronized), whatever follows', () => {
    const h = harness();
    const garbage = new Uint8Array(READ).map((_, i) => (i * 131 + 7) & 0xff);
    h.inbound.push(garbage);
    h.inbound.push(garbage);
    expect(h.got).toEqual([]);
    expect(h.errors.map((e) => [e.code, e.subcode])).toEqual([[1, 1]]);
  });
});
