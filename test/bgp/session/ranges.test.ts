import { afterEach, describe, expect, it } from 'vitest';
import { type Peer, Sessions } from '../../../src/bgp/session/index.js';
import { ErrorCode } from '../../../src/bgp/wire/constants.js';
import { FakeScheduler, ID_A, ID_B, RawPeer, record, TEST_TIMERS, until } from './support.js';

// Connections from addresses inside a range: the session layer asks who takes them (a dynamic
// neighbour is added then and there), a configured peer inside the range wins, and what is not
// taken is reset. The rule (templates, limits) is the caller's; here only the hand-over.

const AS_LISTENER = 65000;
const cleanups: (() => Promise<void>)[] = [];
afterEach(async () => {
  for (const c of cleanups.splice(0)) await c();
});

async function sessions(
  localAs: number,
  routerId: string,
  host: string,
  extra: Parameters<typeof Sessions.create>[1] = {},
  ranges: { prefix: string; password?: string }[] = [],
): Promise<Sessions> {
  const s = await Sessions.create(
    { localAs, routerId, listen: { host, port: 0, ranges } },
    { scheduler: new FakeScheduler(), random: () => 1, ...extra },
  );
  cleanups.push(() => s.close());
  return s;
}

/** A connecting peer at `address` (127.0.0.N), active towards the listener. */
async function dialer(address: string, as: number, port: number, password?: string): Promise<Peer> {
  const s = await sessions(as, ID_B, address);
  return s.addPeer({
    address: '127.0.0.1',
    remoteAs: AS_LISTENER,
    port,
    localAddress: address,
    ...TEST_TIMERS,
    ...(password && { password }),
  });
}

describe('admitting connections from a range', () => {
  it('an address inside a range is admitted with a peer added for it, remote AS external', async () => {
    const asked: string[] = [];
    let listener: Sessions | undefined;
    listener = await sessions(
      AS_LISTENER,
      ID_A,
      '127.0.0.1',
      {
        admit: (remote) => {
          asked.push(remote.address);
          return listener!.addPeer({
            address: remote.address,
            remoteAs: 'external',
            passive: true,
            keyFromRange: true,
            ...TEST_TIMERS,
          });
        },
      },
      [{ prefix: '127.0.0.0/29', password: 'range-key' }],
    );
    const d = await dialer('127.0.0.5', 65005, listener.address!.port, 'range-key');
    await until(() => d.state === 'Established', 'the dialer Established');
    const admitted = listener.peer('127.0.0.5')!;
    await until(() => admitted.state === 'Established', 'the admitted peer Established');
    expect(asked).toEqual(['127.0.0.5']);
    expect(admitted.established?.negotiated.remoteAs).toBe(65005);
    expect(admitted.config).toMatchObject({ remoteAs: 'external', ebgp: true });
  });

  it('a configured peer inside the range wins: admit is never asked', async () => {
    const asked: string[] = [];
    const listener = await sessions(
      AS_LISTENER,
      ID_A,
      '127.0.0.1',
      {
        admit: (remote) => {
          asked.push(remote.address);
          return undefined;
        },
      },
      [{ prefix: '127.0.0.0/29' }],
    );
    const configured = listener.addPeer({
      address: '127.0.0.4',
      remoteAs: 65004,
      passive: true,
      ...TEST_TIMERS,
    });
    const d = await dialer('127.0.0.4', 65004, listener.address!.port);
    await until(() => d.state === 'Established' && configured.state === 'Established', 'both up');
    expect(asked).toEqual([]);
  });

  it('not admitted: the connection is reset before any OPEN', async () => {
    const asked: string[] = [];
    const listener = await sessions(
      AS_LISTENER,
      ID_A,
      '127.0.0.1',
      {
        admit: (remote) => {
          asked.push(remote.address);
          return undefined;
        },
      },
      [{ prefix: '127.0.0.0/29' }],
    );
    const raw = await RawPeer.connect(listener.address!.port, '127.0.0.1', '127.0.0.6').catch(
      (e: NodeJS.ErrnoException) => e.code ?? String(e),
    );
    if (typeof raw === 'string') expect(raw).toBe('ECONNRESET');
    else {
      await until(() => raw.closed, 'the connection to be reset');
      expect(raw.messages).toEqual([]);
    }
    expect(asked).toEqual(['127.0.0.6']);
    expect(listener.peers()).toEqual([]);
  });

  it('an admitted peer expecting internal refuses another AS with Bad Peer AS', async () => {
    let listener: Sessions | undefined;
    listener = await sessions(
      AS_LISTENER,
      ID_A,
      '127.0.0.1',
      {
        admit: (remote) =>
          listener!.addPeer({ address: remote.address, remoteAs: 'internal', passive: true, ...TEST_TIMERS }),
      },
      [{ prefix: '127.0.0.0/29' }],
    );
    const d = await dialer('127.0.0.3', 65003, listener.address!.port);
    const rec = record(d);
    await until(() => rec.notifications.length > 0, 'a NOTIFICATION to the dialer');
    expect(rec.notifications[0]).toMatchObject({
      direction: 'received',
      code: ErrorCode.OPEN_MESSAGE,
      subcode: 2,
    });
  });

  it('setRanges replaces the ranges: an address left out is refused by the listener, a new one is asked about', async () => {
    const asked: string[] = [];
    const refused: string[] = [];
    const listener = await sessions(
      AS_LISTENER,
      ID_A,
      '127.0.0.1',
      {
        admit: (remote) => {
          asked.push(remote.address);
          return undefined;
        },
        onRefused: (remote) => refused.push(remote.address),
      },
      [{ prefix: '127.0.0.0/29' }],
    );
    listener.setRanges([{ prefix: '127.0.1.0/24' }]);
    for (const from of ['127.0.0.5', '127.0.1.5']) {
      const raw = await RawPeer.connect(listener.address!.port, '127.0.0.1', from).catch(
        (e: NodeJS.ErrnoException) => e.code ?? String(e),
      );
      if (typeof raw !== 'string') await until(() => raw.closed, `the connection from ${from} to be reset`);
    }
    await until(() => refused.length === 1 && asked.length === 1, 'both connections handled');
    expect(refused).toEqual(['127.0.0.5']);
    expect(asked).toEqual(['127.0.1.5']);
  });
});
