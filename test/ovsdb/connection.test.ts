import { describe, expect, it } from 'vitest';
import { JsonRpcConnection } from '../../src/ovsdb/connection.js';
import type { OvsdbError } from '../../src/ovsdb/errors.js';
import { FakeChannel, FakeClock, flush, quietLogger } from './fakes.js';

function setup(probeIntervalMs = 5000, maxMessageBytes = 1 << 20) {
  const clock = new FakeClock();
  const channel = new FakeChannel();
  const { logger, lines } = quietLogger();
  const conn = new JsonRpcConnection(
    channel,
    { name: 'tcp:test:1', probeIntervalMs, maxMessageBytes },
    { clock, logger },
  );
  let closedWith: OvsdbError | undefined;
  conn.onClose((e) => {
    closedWith = e;
  });
  return { clock, channel, conn, lines, closed: () => closedWith };
}

describe('JsonRpcConnection', () => {
  it('matches responses to requests by id, in any order', async () => {
    const { channel, conn } = setup();
    const a = conn.request('list_dbs', []);
    const b = conn.request('echo', ['x']);
    const [ra, rb] = channel.written as { id: number; method: string }[];
    expect(ra).toEqual({ method: 'list_dbs', params: [], id: ra.id });
    channel.serverSend({ id: rb.id, result: ['x'], error: null });
    channel.serverSend({ id: ra.id, result: ['OVN_Northbound', '_Server'], error: null });
    expect(await a).toEqual(['OVN_Northbound', '_Server']);
    expect(await b).toEqual(['x']);
  });

  it('answers the server echo with its params and the same id (its inactivity probe)', () => {
    const { channel, conn } = setup();
    channel.serverSend('{"id":"echo","method":"echo","params":[]}');
    expect(channel.last()).toEqual({ id: 'echo', result: [], error: null });
    channel.serverSend({ id: ['x', 1], method: 'echo', params: [7, 'y'] });
    expect(channel.last()).toEqual({ id: ['x', 1], result: [7, 'y'], error: null });
    expect(conn.stats.echoesAnswered).toBe(2);
    expect(conn.closed).toBe(false);
  });

  it('turns an error member into rpc-error, string or object', async () => {
    const { channel, conn } = setup();
    const p = conn.request('no_such_method', []);
    channel.serverSend({ id: (channel.last() as { id: number }).id, error: 'unknown method' });
    await expect(p).rejects.toMatchObject({ kind: 'rpc-error', data: { error: 'unknown method' } });
    const q = conn.request('get_schema', ['NoSuchDB']);
    channel.serverSend({
      id: (channel.last() as { id: number }).id,
      error: { error: 'unknown database', details: 'get_schema request specifies unknown database NoSuchDB' },
    });
    await expect(q).rejects.toThrowError(/unknown database: get_schema request specifies/);
    expect(conn.closed).toBe(false);
  });

  it('passes notifications on, in stream order, before a reply that follows them', async () => {
    const { channel, conn } = setup();
    const seen: string[] = [];
    conn.onNotification((method) => seen.push(method));
    const p = conn.request('transact', []).then(() => seen.push('reply'));
    const id = (channel.last() as { id: number }).id;
    channel.serverSend(
      `{"id":null,"method":"update2","params":["m",{}]}{"id":null,"method":"update3","params":["m","0",{}]}{"id":${id},"result":[],"error":null}`,
    );
    await p;
    expect(seen).toEqual(['update2', 'update3', 'reply']);
  });

  it('runs onResult synchronously, before the next message in the same chunk', () => {
    const { channel, conn } = setup();
    const seen: string[] = [];
    conn.onNotification(() => seen.push('update'));
    conn.request('monitor_cond', [], { onResult: () => seen.push('initial') });
    const id = (channel.last() as { id: number }).id;
    channel.serverSend(
      `{"id":${id},"result":{},"error":null}{"id":null,"method":"update2","params":["m",{}]}`,
    );
    expect(seen).toEqual(['initial', 'update']);
  });

  const FAULTS: { name: string; send: string; kind: string }[] = [
    { name: 'malformed JSON', send: '{"id":1,"result":[,]}', kind: 'malformed-json' },
    {
      name: 'garbage between messages',
      send: '{"id":"echo","method":"echo","params":[]}HTTP/1.1',
      kind: 'malformed-json',
    },
    {
      name: 'a response to no request',
      send: '{"id":424242,"result":[],"error":null}',
      kind: 'unknown-response-id',
    },
    { name: 'a JSON array that is no message', send: '[1,2,3]', kind: 'bad-message' },
    {
      name: 'params that are not an array',
      send: '{"id":null,"method":"update2","params":{}}',
      kind: 'bad-message',
    },
  ];
  for (const f of FAULTS) {
    it(`closes with ${f.kind} on ${f.name}, failing outstanding requests`, async () => {
      const { channel, conn, closed } = setup();
      const pending = conn.request('transact', []);
      channel.serverSend(f.send);
      await expect(pending).rejects.toMatchObject({ kind: f.kind });
      expect(closed()?.kind).toBe(f.kind);
      expect(channel.destroyed).toBe(true);
      await expect(conn.request('echo', [])).rejects.toMatchObject({ kind: f.kind });
    });
  }

  it('closes with oversize-message and frees the buffer when a message will not end', () => {
    const { channel, conn, closed } = setup(0, 4096);
    channel.serverSend('{"id":null,"method":"update2","params":["m",{"x":"');
    for (let i = 0; i < 100 && !conn.closed; i++) {
      channel.serverSend('a'.repeat(1000));
      expect(conn.bufferedBytes).toBeLessThanOrEqual(4096 + 1000);
    }
    expect(closed()?.kind).toBe('oversize-message');
    expect(conn.bufferedBytes).toBe(0);
  });

  it('sends its own echo after an idle interval and gives up after another', async () => {
    const { clock, channel, conn, closed } = setup(5000);
    await clock.advance(4999);
    expect(channel.written).toHaveLength(0);
    await clock.advance(1);
    expect(channel.last()).toMatchObject({ method: 'echo', params: [] });
    expect(conn.stats.probesSent).toBe(1);
    // The reply (any traffic) keeps the connection up.
    channel.serverSend({ id: (channel.last() as { id: number }).id, result: [], error: null });
    await clock.advance(4000);
    expect(conn.closed).toBe(false);
    await clock.advance(1000);
    expect(conn.stats.probesSent).toBe(2);
    await clock.advance(5000);
    expect(closed()?.kind).toBe('inactivity-timeout');
  });

  it('does not probe a busy connection', async () => {
    const { clock, channel, conn } = setup(1000);
    for (let i = 0; i < 10; i++) {
      await clock.advance(600);
      channel.serverSend('{"id":"echo","method":"echo","params":[]}');
    }
    expect(conn.stats.probesSent).toBe(0);
  });

  it('fails outstanding requests with connection-lost when the peer hangs up mid-message', async () => {
    const { channel, conn } = setup();
    const p = conn.request('transact', []);
    channel.serverSend('{"id":1,"res');
    channel.hangUp();
    await expect(p).rejects.toThrowError(/closed by peer in the middle of a message/);
    await flush();
  });

  it('times out one request without closing the connection', async () => {
    const { clock, channel, conn } = setup(0);
    const p = conn.request('transact', [], { timeoutMs: 100 });
    const caught = p.catch((e) => e);
    await clock.advance(100);
    expect(await caught).toMatchObject({ kind: 'request-timeout' });
    expect(conn.closed).toBe(false);
    // A late reply to it is dropped, not taken for a reply to no request.
    channel.serverSend({ id: (channel.last() as { id: number }).id, result: [], error: null });
    expect(conn.closed).toBe(false);
  });
});
