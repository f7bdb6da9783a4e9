import { describe, expect, it } from 'vitest';
import { AF } from '../../../src/bgp/transport/index.js';
import { Afi } from '../../../src/bgp/wire/index.js';
import {
  Errno,
  encodeNexthops,
  type KernelError,
  NlmFlag,
  type NlWriter,
  RtnlClient,
  type RtnlSocket,
  type SocketError,
  writeDelRoute,
  writeUnicastRoute,
} from '../../../src/fib/kernel/index.js';
import { parsePrefix, RibPrefix } from '../../../src/rib/index.js';
import { FakeClock } from '../../components/fake-clock.js';
import { FakeKernel } from './fake-kernel.js';

const NH = encodeNexthops(AF.INET, [{ gateway: '198.18.40.2', ifindex: 3, weight: 1, flags: 0 }]);
const BAD_NH = encodeNexthops(AF.INET, [{ gateway: '198.18.77.1', ifindex: 3, weight: 1, flags: 0 }]);
const INIT = { batch: 4, maxInFlight: 64, responseTruesize: 1024, requestTimeoutMs: 1000 };

function v4(i: number): RibPrefix {
  return new RibPrefix(Afi.IPV4, 32, (0xc6130000 + i) >>> 0);
}

function adds(nh: (i: number) => Uint8Array) {
  return (w: NlWriter, i: number, seq: number, ack: number) =>
    writeUnicastRoute(
      w,
      { prefix: v4(i), table: 254, protocol: 186, priority: 20 },
      nh(i),
      NlmFlag.CREATE | NlmFlag.EXCL | ack,
      seq,
    );
}

describe('RtnlClient', () => {
  it('maps each refused request to its index across writes; the rest succeed', async () => {
    const kernel = new FakeKernel();
    const client = new RtnlClient(kernel.factory({ recvBuffer: 1 << 20, sendBuffer: 1 << 20 }), INIT);
    const failures = await client.send(
      10,
      adds((i) => (i === 1 || i === 6 ? BAD_NH : NH)),
    );
    expect(failures.map((f) => [f.index, f.errno, f.detail])).toEqual([
      [1, Errno.ENETUNREACH, 'Nexthop has invalid gateway'],
      [6, Errno.ENETUNREACH, 'Nexthop has invalid gateway'],
    ]);
    expect(kernel.show()).toHaveLength(8);
    // 10 requests, 4 per write, one ACK each.
    expect(kernel.writes.map((w) => [w.messages, w.acked])).toEqual([
      [4, 1],
      [4, 1],
      [2, 1],
    ]);
  });

  it('keeps unanswered requests within what the receive buffer can queue answers for', async () => {
    const kernel = new FakeKernel();
    // 8 KiB / 1 KiB per answer: at most 8 unanswered, so writes of at most 8.
    kernel.recvBuffer = 8 << 10;
    const client = new RtnlClient(kernel.factory({ recvBuffer: 4 << 10, sendBuffer: 1 << 20 }), {
      ...INIT,
      batch: 100,
      maxInFlight: 1000,
    });
    expect(client.window).toEqual({ batch: 8, maxInFlight: 8 });
    await client.send(
      30,
      adds(() => NH),
    );
    expect(Math.max(...kernel.writes.map((w) => w.messages))).toBe(8);
    expect(kernel.show()).toHaveLength(30);
  });

  it('ENOBUFS fails what is pending with `overrun` and tells the owner', async () => {
    let errorListener: ((e: SocketError) => void) | undefined;
    const socket: RtnlSocket = {
      port: 7,
      recvBuffer: 1 << 20,
      tuned: [],
      drops: () => 0,
      send: () => {},
      onMessage: () => {},
      onError: (l) => {
        errorListener = l;
      },
      close: () => {},
    };
    const client = new RtnlClient(socket, INIT);
    const told: string[] = [];
    client.onOverrun((e) => told.push(e.kind));
    const pending = client.send(3, (w, i, seq, ack) =>
      writeDelRoute(
        w,
        { prefix: parsePrefix(`198.19.${i}.0/24`), table: 254, protocol: 186, priority: 20 },
        ack,
        seq,
      ),
    );
    await new Promise((r) => setImmediate(r)); // the write is out, its answer not yet in
    errorListener?.({ name: 'Error', message: 'ENOBUFS', code: 'ENOBUFS', errno: Errno.ENOBUFS });
    await expect(pending).rejects.toMatchObject({ kind: 'overrun' });
    expect(told).toEqual(['overrun']);
  });

  it('a dump ends at NLMSG_DONE across datagrams; lookups answer with the FIB entry or the errno', async () => {
    const kernel = new FakeKernel();
    kernel.dumpChunk = 2;
    const client = new RtnlClient(kernel.factory({ recvBuffer: 1 << 20, sendBuffer: 1 << 20 }), INIT);
    await client.send(
      5,
      adds(() => NH),
    );
    const seen: string[] = [];
    await client.dump(AF.INET, { table: 254, protocol: 0 }, (r) => seen.push(r.prefix.toString()));
    expect(seen).toHaveLength(5);
    expect(await client.lookup('198.18.40.9')).toMatchObject({ protocol: 2, nexthops: [{ ifindex: 3 }] });
    expect(await client.lookup('198.18.77.1')).toMatchObject({ errno: Errno.ENETUNREACH });
  });
});

describe('RtnlClient without answers', () => {
  it('a missing answer with sk_drops up is an overrun; without, a timeout', async () => {
    let drops = 0;
    const socket: RtnlSocket = {
      port: 7,
      recvBuffer: 1 << 20,
      tuned: ['no-enobufs'],
      drops: () => drops,
      send: () => {},
      onMessage: () => {},
      onError: () => {},
      close: () => {},
    };
    const clock = new FakeClock();
    const client = new RtnlClient(socket, { ...INIT, requestTimeoutMs: 10 }, clock);
    const del = (w: NlWriter, i: number, seq: number, ack: number) =>
      writeDelRoute(
        w,
        { prefix: parsePrefix(`198.19.${i}.0/24`), table: 254, protocol: 186, priority: 20 },
        ack,
        seq,
      );
    const timedOut = expect(client.send(1, del)).rejects.toMatchObject({ kind: 'timeout' });
    await clock.advance(10);
    await timedOut;
    drops = 3;
    const overrun = expect(client.send(1, del)).rejects.toMatchObject({ kind: 'overrun' });
    await clock.advance(10);
    await overrun;
  });

  it('a request in flight holds the process through its timer (the socket does not); an answer lets go', async () => {
    const kernel = new FakeKernel();
    const clock = new FakeClock();
    const client = new RtnlClient(kernel.factory({ recvBuffer: 1 << 20, sendBuffer: 1 << 20 }), INIT, clock);
    kernel.silent = true;
    const unanswered = client.lookup('198.18.40.9').then(
      () => 'answered',
      (e: KernelError) => e.kind,
    );
    expect(clock.pending).toEqual({ timers: 1, keepAlive: 1 });
    await clock.advance(INIT.requestTimeoutMs);
    expect(await unanswered).toBe('timeout');
    expect(clock.pending).toEqual({ timers: 0, keepAlive: 0 });
    kernel.silent = false;
    const answered = client.lookup('198.18.40.9');
    expect(clock.pending).toEqual({ timers: 1, keepAlive: 1 });
    expect(await answered).toMatchObject({ protocol: 2 });
    expect(clock.pending).toEqual({ timers: 0, keepAlive: 0 });
  });
});
