import { linkSync } from 'node:fs';
import { createServer, type Server, type Socket } from 'node:net';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { ControlClientError, ControlError, callControl } from '../../src/api/index.js';
import { tempDir } from './support.js';

let tmp: ReturnType<typeof tempDir>;
let servers: Server[];
let sockets: Socket[];

beforeEach(() => {
  tmp = tempDir();
  servers = [];
  sockets = [];
});

afterEach(async () => {
  for (const s of sockets) s.destroy();
  await Promise.all(servers.map((s) => new Promise((r) => s.close(r))));
  tmp.cleanup();
});

/** A server that does `onLine` with whatever the client sends. */
async function rawServer(onData: (socket: Socket, text: string) => void): Promise<string> {
  const path = join(tmp.dir, 'raw.sock');
  const server = createServer((socket) => {
    sockets.push(socket);
    socket.on('data', (chunk) => onData(socket, chunk.toString()));
    socket.on('error', () => {});
  });
  servers.push(server);
  await new Promise<void>((resolve) => server.listen(path, resolve));
  return path;
}

async function failure(p: Promise<unknown>): Promise<ControlClientError> {
  const e = await p.then(
    () => null,
    (err: unknown) => err,
  );
  expect(e).toBeInstanceOf(ControlClientError);
  return e as ControlClientError;
}

describe('callControl', () => {
  it('sends one request line and returns the result', async () => {
    let seen = '';
    const path = await rawServer((socket, text) => {
      seen += text;
      socket.write(`${JSON.stringify({ id: 1, result: { ok: 'yes' } })}\n`);
    });
    expect(await callControl(path, 'neighbors', { peer: 'spine1' })).toEqual({ ok: 'yes' });
    expect(seen).toBe('{"id":1,"method":"neighbors","params":{"peer":"spine1"}}\n');
  });

  it('throws the speaker’s error with its code; an unknown code reads as internal', async () => {
    const path = await rawServer((socket, text) => {
      const code = text.includes('spine9') ? 'unknown-peer' : 'new-code-from-the-future';
      socket.write(`${JSON.stringify({ id: 1, error: { code, message: 'no neighbor named spine9' } })}\n`);
    });
    await expect(callControl(path, 'neighbors', { peer: 'spine9' })).rejects.toEqual(
      new ControlError('unknown-peer', 'no neighbor named spine9'),
    );
    const e = await callControl(path, 'summary', {}).catch((err) => err);
    expect(e).toBeInstanceOf(ControlError);
    expect(e.code).toBe('internal');
  });

  it('says the speaker may not be running when nothing is at the path', async () => {
    const path = join(tmp.dir, 'none.sock');
    const e = await failure(callControl(path, 'summary', {}));
    expect(e.kind).toBe('not-running');
    expect(e.message).toBe(`cannot connect to ${path}: is the speaker running? (ENOENT)`);
  });

  it('says the same of a socket file nobody listens on', async () => {
    const path = await rawServer(() => {});
    const stale = join(tmp.dir, 'stale.sock');
    linkSync(path, stale);
    await new Promise((r) => servers.pop()!.close(r));
    const e = await failure(callControl(stale, 'summary', {}));
    expect(e.kind).toBe('not-running');
    expect(e.message).toBe(`cannot connect to ${stale}: is the speaker running? (ECONNREFUSED)`);
  });

  it('gives up after the timeout when no answer comes', async () => {
    const path = await rawServer(() => {});
    const e = await failure(callControl(path, 'summary', {}, { timeoutMs: 100 }));
    expect(e.kind).toBe('timeout');
    expect(e.message).toBe(`no answer from ${path} within 100 ms`);
  });

  it('reports a connection closed before the answer', async () => {
    const path = await rawServer((socket) => socket.end());
    const e = await failure(callControl(path, 'summary', {}));
    expect(e.kind).toBe('protocol');
    expect(e.message).toBe(`${path} closed the connection before answering`);
  });

  it.each([
    ['not JSON', 'hello\n', 'answered something that is not JSON'],
    ['another id', '{"id":2,"result":1}\n', 'answered a different request'],
    ['no result', '{"id":1}\n', 'answered a different request'],
  ])('refuses an answer that is %s', async (_, answer, message) => {
    const path = await rawServer((socket) => socket.write(answer));
    const e = await failure(callControl(path, 'summary', {}));
    expect(e.kind).toBe('protocol');
    expect(e.message).toBe(`${path} ${message}`);
  });

  it('refuses an answer larger than it reads', async () => {
    const path = await rawServer((socket) => socket.write(`{"id":1,"result":"${'x'.repeat(200)}"}\n`));
    const e = await failure(callControl(path, 'summary', {}, { maxResponseBytes: 100 }));
    expect(e.kind).toBe('protocol');
    expect(e.message).toBe(`answer from ${path} is larger than the client reads`);
  });

  it('reads an answer that arrives in pieces', async () => {
    const answer = `${JSON.stringify({ id: 1, result: { routerId: '198.18.0.1' } })}\n`;
    const path = await rawServer((socket) => {
      for (const ch of answer) socket.write(ch);
    });
    expect(await callControl(path, 'summary', {})).toEqual({ routerId: '198.18.0.1' });
  });
});
