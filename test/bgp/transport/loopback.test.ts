import { readdirSync } from 'node:fs';
import type net from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import {
  type BgpListener,
  type ConnectInit,
  connectToPeer,
  createListener,
  fdOf,
  getTtlOptions,
  gtsm,
  type IncomingConnection,
  type ListenerInit,
  type OutgoingConnection,
  setSocketTtl,
  TransportError,
} from '../../../src/bgp/transport/index.js';
import { FakeClock } from '../../components/fake-clock.js';

// Listener and connector over the loopback interface, ephemeral ports only. TCP-MD5 and
// IP_MINTTL work on loopback like on any interface, and need no privilege.

const SHORT_TIMEOUT_MS = 400;
const listeners: BgpListener[] = [];
const sockets: net.Socket[] = [];

afterEach(async () => {
  for (const socket of sockets.splice(0)) socket.destroy();
  await Promise.all(listeners.splice(0).map((l) => l.close()));
});

interface EchoListener {
  readonly listener: BgpListener;
  readonly accepted: IncomingConnection[];
  readonly refused: string[];
}

async function echoListener(init: ListenerInit): Promise<EchoListener> {
  const accepted: IncomingConnection[] = [];
  const refused: string[] = [];
  const listener = await createListener(
    { port: 0, ...init },
    {
      onConnection: (connection) => {
        accepted.push(connection);
        sockets.push(connection.socket);
        connection.socket.on('data', (data) => connection.socket.write(data));
        connection.socket.on('error', () => {});
      },
      onRefused: (peer) => refused.push(peer.address),
    },
  );
  listeners.push(listener);
  return { listener, accepted, refused };
}

async function echoOnce(socket: net.Socket, text: string): Promise<string> {
  sockets.push(socket);
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error('no echo')), 5_000);
    socket.once('data', (data) => {
      clearTimeout(timer);
      resolve(data.toString());
    });
    socket.write(text);
  });
}

async function failure(promise: Promise<unknown>): Promise<TransportError> {
  try {
    await promise;
  } catch (error) {
    expect(error).toBeInstanceOf(TransportError);
    return error as TransportError;
  }
  throw new Error('expected a failure');
}

/**
 * A connect expected to get no answer (the kernel drops the SYN), on a fake clock moved past
 * its timeout at once: the timeout is the transport's, the wait is not the test's.
 */
async function unanswered(init: ConnectInit): Promise<OutgoingConnection> {
  const clock = new FakeClock();
  const connecting = connectToPeer({ ...init, timeoutMs: SHORT_TIMEOUT_MS }, { clock });
  connecting.catch(() => {}); // settled below, awaited by the caller
  await clock.advance(SHORT_TIMEOUT_MS);
  return connecting;
}

const openFdCount = () => readdirSync('/proc/self/fd').length;

describe('listener + connect with TCP-MD5 over loopback', () => {
  it.each([
    { family: 'IPv4 (v4-mapped key on the :: listener)', peer: '127.0.0.1' },
    { family: 'IPv6', peer: '::1' },
  ])('same key both ends: connects and data flows, $family', async ({ peer }) => {
    const { listener, accepted } = await echoListener({ peers: [{ address: peer, password: 'lab-secret' }] });
    const connection = await connectToPeer({
      host: peer,
      port: listener.address.port,
      password: 'lab-secret',
      timeoutMs: 5_000,
    });
    expect(await echoOnce(connection.socket, 'OPEN?')).toBe('OPEN?');
    expect(connection.peer).toEqual({ address: peer, port: listener.address.port });
    expect(accepted).toHaveLength(1);
    expect(accepted[0].peer.address).toBe(peer); // never ::ffff:127.0.0.1
    expect(accepted[0].peer.port).toBe(connection.local.port);
  });

  it('a v4-mapped peer address connects over IPv4 with an IPv4 key', async () => {
    const { listener, accepted } = await echoListener({ peers: [{ address: '127.0.0.1', password: 'm' }] });
    const c = await connectToPeer({ host: '::ffff:127.0.0.1', port: listener.address.port, password: 'm' });
    expect(c.socket.remoteFamily).toBe('IPv4');
    expect(c.peer.address).toBe('127.0.0.1');
    expect(await echoOnce(c.socket, 'mapped')).toBe('mapped');
    expect(accepted[0].peer.address).toBe('127.0.0.1');
  });

  it('wrong key and missing key: the kernel drops the SYN and connect times out', async () => {
    const { listener, accepted } = await echoListener({
      peers: [{ address: '127.0.0.1', password: 'right' }],
    });
    const port = listener.address.port;
    for (const password of ['wrong', undefined]) {
      const error = await failure(unanswered({ host: '127.0.0.1', port, password }));
      expect(error.kind).toBe('connect-timeout');
      expect(error.code).toBe('ETIMEDOUT');
      expect(error.address).toBe('127.0.0.1');
    }
    expect(accepted).toHaveLength(0);
  });

  it('a key removed at run time makes keyed connections fail and unkeyed ones work', async () => {
    const { listener } = await echoListener({ peers: [{ address: '127.0.0.1', password: 'k1' }] });
    const port = listener.address.port;
    const first = await connectToPeer({ host: '127.0.0.1', port, password: 'k1', timeoutMs: 5_000 });
    sockets.push(first.socket);

    listener.setPeerKey('::ffff:127.0.0.1', null); // any spelling of the peer
    expect(listener.peers()).toEqual(new Map([['127.0.0.1', false]]));
    const error = await failure(unanswered({ host: '127.0.0.1', port, password: 'k1' }));
    expect(error.kind).toBe('connect-timeout');
    const plain = await connectToPeer({ host: '127.0.0.1', port, timeoutMs: 5_000 });
    expect(await echoOnce(plain.socket, 'plain')).toBe('plain');
    // the session that was up keeps its key and keeps working
    expect(await echoOnce(first.socket, 'still')).toBe('still');

    listener.setPeerKey('127.0.0.1', 'k2'); // and back, with a new key
    const again = await connectToPeer({ host: '127.0.0.1', port, password: 'k2', timeoutMs: 5_000 });
    expect(await echoOnce(again.socket, 'k2')).toBe('k2');
  });

  it('peers added and removed at run time', async () => {
    const { listener, accepted, refused } = await echoListener({});
    const port = listener.address.port;
    listener.addPeer('::1', 'six');
    const six = await connectToPeer({ host: '::1', port, password: 'six', timeoutMs: 5_000 });
    sockets.push(six.socket);
    listener.removePeer('::1');
    expect(listener.hasPeer('::1')).toBe(false);
    // no key any more, and not a peer: the connection is reset as soon as it is accepted
    await connectToPeer({ host: '::1', port, timeoutMs: 5_000 })
      .then((c) => sockets.push(c.socket))
      .catch(() => {});
    await waitUntil(() => refused.length === 1);
    expect(refused).toEqual(['::1']);
    expect(accepted).toHaveLength(1);
  });

  it('an unknown peer is reset, and the reason reaches onRefused', async () => {
    const { listener, accepted, refused } = await echoListener({ peers: [{ address: '::1' }] });
    const outcome = await connectToPeer({
      host: '127.0.0.1',
      port: listener.address.port,
      timeoutMs: 5_000,
    }).then(
      (c) => closedOrReset(c.socket),
      (error: TransportError) => error.code,
    );
    expect(['closed', 'ECONNRESET']).toContain(outcome);
    await waitUntil(() => refused.length === 1);
    expect(refused).toEqual(['127.0.0.1']);
    expect(accepted).toHaveLength(0);
  });

  it('setPeerKey changes keys only; membership is addPeer/removePeer', async () => {
    const { listener, refused } = await echoListener({});
    const port = listener.address.port;
    listener.setPeerKey('127.0.0.1', 'k'); // keyed, but not a peer
    expect(listener.peers().size).toBe(0);
    await connectToPeer({ host: '127.0.0.1', port, password: 'k', timeoutMs: 5_000 })
      .then((c) => sockets.push(c.socket))
      .catch(() => {});
    await waitUntil(() => refused.length === 1);
    listener.addPeer('127.0.0.1'); // keeps the key it has
    expect(listener.peers()).toEqual(new Map([['127.0.0.1', true]]));
    const c = await connectToPeer({ host: '127.0.0.1', port, password: 'k', timeoutMs: 5_000 });
    expect(await echoOnce(c.socket, 'member')).toBe('member');
    listener.removePeer('127.0.0.1');
    listener.removePeer('127.0.0.1'); // twice is fine: nothing left to remove
    expect(listener.peers().size).toBe(0);
  });

  it('close() stops accepting at once and leaves accepted sessions open', async () => {
    const { listener } = await echoListener({ peers: [{ address: '127.0.0.1', password: 'k' }] });
    const port = listener.address.port;
    const c = await connectToPeer({ host: '127.0.0.1', port, password: 'k', timeoutMs: 5_000 });
    await listener.close();
    expect(await echoOnce(c.socket, 'after close')).toBe('after close');
    const refused = await failure(connectToPeer({ host: '127.0.0.1', port, timeoutMs: 5_000 }));
    expect(refused.code).toBe('ECONNREFUSED');
    // A signed SYN to a port nobody listens on gets no RST: the kernel will not send an
    // unsigned reset in answer to a signed segment (RFC 2385 section 2.0), so it times out.
    const silent = await failure(unanswered({ host: '127.0.0.1', port, password: 'k' }));
    expect(silent.kind).toBe('connect-timeout');
  });

  it('an isKnownPeer that throws refuses the connection and reports the error', async () => {
    const errors: Error[] = [];
    const refused: string[] = [];
    const listener = await createListener(
      {
        port: 0,
        isKnownPeer: () => {
          throw new Error('peer table unavailable');
        },
      },
      { onConnection: () => {}, onRefused: (p) => refused.push(p.address), onError: (e) => errors.push(e) },
    );
    listeners.push(listener);
    await connectToPeer({ host: '::1', port: listener.address.port, timeoutMs: 5_000 })
      .then((c) => sockets.push(c.socket))
      .catch(() => {});
    await waitUntil(() => refused.length === 1);
    expect(errors.map((e) => e.message)).toEqual(['peer table unavailable']);
  });

  it('isKnownPeer decides instead of the peer set when given', async () => {
    const seen: string[] = [];
    const { listener, accepted } = await echoListener({
      isKnownPeer: (address) => {
        seen.push(address);
        return address === '127.0.0.1';
      },
    });
    const c = await connectToPeer({ host: '127.0.0.1', port: listener.address.port, timeoutMs: 5_000 });
    expect(await echoOnce(c.socket, 'hi')).toBe('hi');
    expect(seen).toEqual(['127.0.0.1']);
    expect(accepted).toHaveLength(1);
  });

  it('an IPv4 listener takes plain AF_INET keys and refuses IPv6 peers', async () => {
    const { listener } = await echoListener({
      host: '127.0.0.1',
      peers: [{ address: '127.0.0.1', password: 'four' }],
    });
    expect(listener.address.address).toBe('127.0.0.1');
    const c = await connectToPeer({ host: '127.0.0.1', port: listener.address.port, password: 'four' });
    expect(await echoOnce(c.socket, 'x')).toBe('x');
    expect(() => listener.addPeer('::1', 'k')).toThrow(expect.objectContaining({ kind: 'family-mismatch' }));
  });

  it.each([
    [{ port: 65536 }, 'invalid-option'],
    [{ port: -1 }, 'invalid-option'],
    [{ host: 'localhost' }, 'invalid-address'],
    [{ host: '0.0.0.0', peers: [{ address: '2001:db8::2' }] }, 'family-mismatch'],
    [{ peers: [{ address: '198.18.200.2', password: 'x'.repeat(81) }] }, 'md5-key-too-long'],
    [{ ranges: [{ prefix: '198.18.200.1/24' }] }, 'invalid-address'],
    [{ host: '0.0.0.0', ranges: [{ prefix: '2001:db8::/64' }] }, 'family-mismatch'],
    [{ ranges: [{ prefix: '198.18.200.0/24', password: 'x'.repeat(81) }] }, 'md5-key-too-long'],
  ] as const)('a bad listener init %j is refused with %s and no fd is left', async (init, kind) => {
    const before = openFdCount();
    const error = await failure(
      createListener({ port: 0, ...init }, { onConnection: (c) => c.socket.destroy() }),
    );
    expect(error.kind).toBe(kind);
    expect(openFdCount()).toBe(before);
  });

  it('a second listener on the same port fails with EADDRINUSE and leaks nothing', async () => {
    const { listener } = await echoListener({});
    const before = openFdCount();
    const error = await failure(
      createListener({ port: listener.address.port }, { onConnection: (c) => c.socket.destroy() }),
    );
    expect(error.code).toBe('EADDRINUSE');
    expect(error.syscall).toBe('bind');
    expect(openFdCount()).toBe(before);
  });
});

describe('ranges (dynamic neighbours): every address of a prefix let through, one key for all', () => {
  const from = (localAddress: string, port: number, password?: string) =>
    connectToPeer({ host: '127.0.0.1', port, localAddress, password, timeoutMs: 5_000 });

  it('a keyed range on a dual-stack listener: inside with the key connects, outside is refused', async () => {
    const { listener, accepted, refused } = await echoListener({
      ranges: [{ prefix: '127.0.0.0/29', password: 'range-key' }],
    });
    const port = listener.address.port;
    expect(listener.ranges()).toEqual(new Map([['127.0.0.0/29', true]]));
    const c = await from('127.0.0.5', port, 'range-key');
    expect(await echoOnce(c.socket, 'in range')).toBe('in range');
    expect(accepted.map((a) => a.peer.address)).toEqual(['127.0.0.5']);
    // Inside the range without the key or with another: the kernel drops the SYN (RFC 2385).
    for (const password of ['other', undefined]) {
      const error = await failure(
        unanswered({ host: '127.0.0.1', port, localAddress: '127.0.0.6', password }),
      );
      expect(error.kind).toBe('connect-timeout');
    }
    // Outside every range and peer: accepted by the kernel, reset by the listener.
    await from('127.0.0.9', port)
      .then((x) => sockets.push(x.socket))
      .catch(() => {});
    await waitUntil(() => refused.length === 1);
    expect(refused).toEqual(['127.0.0.9']);
    expect(accepted).toHaveLength(1);
  });

  it("a peer's own key inside a range wins for that peer (the longest key prefix)", async () => {
    const { listener } = await echoListener({
      peers: [{ address: '127.0.0.3', password: 'own' }],
      ranges: [{ prefix: '127.0.0.0/29', password: 'range-key' }],
    });
    const port = listener.address.port;
    const own = await from('127.0.0.3', port, 'own');
    expect(await echoOnce(own.socket, 'own')).toBe('own');
    const error = await failure(
      unanswered({ host: '127.0.0.1', port, localAddress: '127.0.0.3', password: 'range-key' }),
    );
    expect(error.kind).toBe('connect-timeout');
    const other = await from('127.0.0.4', port, 'range-key');
    expect(await echoOnce(other.socket, 'range')).toBe('range');
  });

  it('ranges set, rekeyed and removed at run time', async () => {
    const { listener, refused } = await echoListener({});
    const port = listener.address.port;
    listener.setRange('127.0.0.0/30', 'k1');
    expect(await echoOnce((await from('127.0.0.2', port, 'k1')).socket, 'k1')).toBe('k1');
    listener.setRange('127.0.0.0/30', null); // key gone, still let through
    expect(listener.ranges()).toEqual(new Map([['127.0.0.0/30', false]]));
    expect(await echoOnce((await from('127.0.0.2', port)).socket, 'open')).toBe('open');
    listener.setRange('127.0.0.0/30', 'k2');
    expect(await echoOnce((await from('127.0.0.2', port, 'k2')).socket, 'k2')).toBe('k2');
    listener.removeRange('127.0.0.0/30');
    listener.removeRange('127.0.0.0/30'); // twice is fine
    expect(listener.ranges().size).toBe(0);
    await from('127.0.0.2', port)
      .then((x) => sockets.push(x.socket))
      .catch(() => {});
    await waitUntil(() => refused.length === 1);
    expect(refused).toEqual(['127.0.0.2']);
  });

  it('an IPv6 range keys the IPv6 prefix', async () => {
    const { listener, accepted } = await echoListener({ ranges: [{ prefix: '::/64', password: 'six' }] });
    const c = await connectToPeer({
      host: '::1',
      port: listener.address.port,
      password: 'six',
      timeoutMs: 5_000,
    });
    expect(await echoOnce(c.socket, 'six')).toBe('six');
    expect(accepted.map((a) => a.peer.address)).toEqual(['::1']);
    const error = await failure(unanswered({ host: '::1', port: listener.address.port, password: 'other' }));
    expect(error.kind).toBe('connect-timeout');
  });
});

describe('connect failures leave no fd behind', () => {
  it('timeout, refusal, bad bind, abort and bad input', async () => {
    const { listener, accepted } = await echoListener({
      peers: [{ address: '127.0.0.1', password: 'right' }],
    });
    const port = listener.address.port;
    const closed = await echoListener({});
    const closedPort = closed.listener.address.port;
    await listeners.pop()?.close();
    // warm up: libuv and koffi open what they keep for the life of the process
    (await connectToPeer({ host: '127.0.0.1', port, password: 'right' })).socket.destroy();
    await waitUntil(() => accepted.length === 1 && accepted[0].socket.destroyed);

    const before = openFdCount();
    const kinds: string[] = [];
    const attempts: Array<() => Promise<unknown>> = [
      () => unanswered({ host: '127.0.0.1', port, password: 'wrong' }),
      () => connectToPeer({ host: '127.0.0.1', port: closedPort, timeoutMs: 5_000 }),
      () => connectToPeer({ host: '127.0.0.1', port, localAddress: '198.18.200.2', password: 'right' }),
      () => connectToPeer({ host: '127.0.0.1', port, password: 'x'.repeat(81) }),
      () => connectToPeer({ host: '127.0.0.1', port, localAddress: '::1' }),
      () => connectToPeer({ host: '127.0.0.1', port, ttl: { ttl: 0 } }),
      () => connectToPeer({ host: '127.0.0.1', port, password: 'wrong', signal: AbortSignal.timeout(100) }),
      () => connectToPeer({ host: '127.0.0.1', port, signal: AbortSignal.abort() }),
    ];
    for (let round = 0; round < 3; round++) {
      for (const attempt of attempts) kinds.push(`${(await failure(attempt())).kind}`);
    }
    expect(kinds.slice(0, attempts.length)).toEqual([
      'connect-timeout',
      'connect-failed',
      'syscall', // bind: EADDRNOTAVAIL
      'md5-key-too-long',
      'family-mismatch',
      'invalid-option',
      'connect-aborted',
      'connect-aborted',
    ]);
    await waitUntil(() => openFdCount() <= before, 2_000).catch(() => {}); // closes may finish a tick later
    expect(openFdCount()).toBe(before);
  });

  it('refused connect carries the errno name and the peer', async () => {
    const { listener } = await echoListener({});
    const port = listener.address.port;
    await listeners.pop()?.close();
    const error = await failure(connectToPeer({ host: '::1', port, timeoutMs: 5_000 }));
    expect(error).toMatchObject({ kind: 'connect-failed', code: 'ECONNREFUSED', errno: 111, address: '::1' });
  });

  it('bind to a foreign local address names it', async () => {
    const error = await failure(
      connectToPeer({ host: '127.0.0.1', port: 1, localAddress: '198.18.200.2', timeoutMs: 1_000 }),
    );
    expect(error).toMatchObject({ kind: 'syscall', code: 'EADDRNOTAVAIL', syscall: 'bind' });
    expect(error.address).toBe('198.18.200.2');
  });
});

describe('TTL security over loopback', () => {
  it('GTSM on the listener drops a peer that sends TTL 64 and accepts one that sends 255', async () => {
    const { listener, accepted } = await echoListener({ peers: [{ address: '127.0.0.1' }], ttl: gtsm() });
    const port = listener.address.port;
    const low = await failure(unanswered({ host: '127.0.0.1', port, ttl: { ttl: 64 } }));
    expect(low.kind).toBe('connect-timeout');
    const high = await connectToPeer({ host: '127.0.0.1', port, ttl: gtsm(), timeoutMs: 5_000 });
    expect(await echoOnce(high.socket, 'gtsm')).toBe('gtsm');
    expect(getTtlOptions(fdOf(high.socket)!, 'ipv4')).toEqual({ ttl: 255, minTtl: 255 });
    // accepted sockets inherit the listener's options
    expect(getTtlOptions(fdOf(accepted[0].socket)!, 'ipv4')).toEqual({ ttl: 255, minTtl: 255 });
  });

  it('IPv6: GTSM through IPV6_MINHOPCOUNT', async () => {
    const { listener } = await echoListener({ peers: [{ address: '::1' }], ttl: gtsm() });
    const port = listener.address.port;
    const low = await failure(unanswered({ host: '::1', port }));
    expect(low.kind).toBe('connect-timeout');
    const high = await connectToPeer({ host: '::1', port, ttl: gtsm(), timeoutMs: 5_000 });
    expect(await echoOnce(high.socket, 'v6')).toBe('v6');
  });

  it('setSocketTtl picks the IPv4 options for a v4-mapped accepted socket', async () => {
    const { listener, accepted } = await echoListener({ peers: [{ address: '127.0.0.1' }] });
    const c = await connectToPeer({ host: '127.0.0.1', port: listener.address.port, timeoutMs: 5_000 });
    sockets.push(c.socket);
    await waitUntil(() => accepted.length === 1);
    const socket = accepted[0].socket;
    expect(socket.remoteAddress).toBe('::ffff:127.0.0.1');
    setSocketTtl(socket, { ttl: 17, minTtl: 3 });
    expect(getTtlOptions(fdOf(socket)!, 'ipv4')).toEqual({ ttl: 17, minTtl: 3 });
  });
});

async function waitUntil(done: () => boolean, timeoutMs = 5_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!done()) {
    if (Date.now() > deadline) throw new Error('condition not met in time');
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
}

function closedOrReset(socket: net.Socket): Promise<string> {
  return new Promise((resolve) => {
    const timer = setTimeout(() => resolve('still open'), 5_000);
    socket.on('error', (error: NodeJS.ErrnoException) => {
      clearTimeout(timer);
      resolve(error.code ?? 'error');
    });
    socket.on('close', () => {
      clearTimeout(timer);
      resolve('closed');
    });
  });
}
