import { spawnSync } from 'node:child_process';
import {
  chmodSync,
  existsSync,
  linkSync,
  lstatSync,
  mkdirSync,
  readdirSync,
  readFileSync,
  statSync,
  writeFileSync,
} from 'node:fs';
import { connect, createServer } from 'node:net';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import {
  ControlClientError,
  ControlError,
  callControl,
  MAX_REQUEST_LINE_BYTES,
  SocketFileError,
  startControlServer,
} from '../../src/api/index.js';
import { fakeControl, NEIGHBORS, SPINE1, SUMMARY } from './fake-control.js';
import { controlServers, exchange, request } from './support.js';

const fx = controlServers('run/control.sock');

const start = fx.start;

const parse = (line: string) => JSON.parse(line);

describe('control socket file', () => {
  it('is created with mode 0600 and owned by us, in a directory created 0700 when missing', async () => {
    await start();
    const s = statSync(fx.path);
    expect(s.isSocket()).toBe(true);
    expect(s.mode & 0o777).toBe(0o600);
    expect({ uid: s.uid, gid: s.gid }).toEqual({ uid: process.getuid?.(), gid: process.getgid?.() });
    expect(statSync(join(fx.dir, 'run')).mode & 0o777).toBe(0o700);
  });

  it('leaves nothing else in its directory', async () => {
    await start();
    expect(readdirSync(join(fx.dir, 'run'))).toEqual(['control.sock']);
  });

  // Connecting as another user needs root to switch to it.
  it.skipIf(process.getuid?.() !== 0)(
    'refuses another user even when the directory and the umask let them in',
    async () => {
      // With umask 0 a socket bound without care would be 0777.
      const umask = process.umask(0);
      try {
        await start();
      } finally {
        process.umask(umask);
      }
      chmodSync(join(fx.dir), 0o755);
      chmodSync(join(fx.dir, 'run'), 0o755);
      // A connect attempt as nobody: only the socket's own mode stands in the way.
      const script = `require('node:net').connect(${JSON.stringify(fx.path)})
      .on('connect', () => { console.log('connected'); process.exit(0); })
      .on('error', (e) => { console.log(e.code); process.exit(0); });`;
      const child = spawnSync(process.execPath, ['-e', script], {
        uid: 65534,
        gid: 65534,
        encoding: 'utf8',
        timeout: 10_000,
      });
      expect(child.stdout.trim()).toBe('EACCES');
    },
  );

  it('refuses to start on a socket another server is serving, which keeps serving', async () => {
    await start();
    const second = startControlServer({ path: fx.path, control: fakeControl() });
    await expect(second).rejects.toBeInstanceOf(SocketFileError);
    await expect(second).rejects.toMatchObject({ kind: 'in-use' });
    expect(await callControl(fx.path, 'summary', {})).toEqual(SUMMARY);
  });

  it('replaces a stale socket file nobody listens on', async () => {
    // A socket file left behind by a crash: bound once, its server gone.
    const { dir } = fx;
    const bound = join(dir, 'bound.sock');
    const old = createServer();
    await new Promise<void>((resolve) => old.listen(bound, resolve));
    mkdirSync(join(dir, 'run'));
    linkSync(bound, fx.path);
    await new Promise<void>((resolve) => old.close(() => resolve()));
    const staleIno = lstatSync(fx.path).ino;
    expect(lstatSync(fx.path).isSocket()).toBe(true);

    await start();
    expect(lstatSync(fx.path).ino).not.toBe(staleIno);
    expect(await callControl(fx.path, 'summary', {})).toEqual(SUMMARY);
  });

  it('refuses a path that is not a socket and leaves the file alone', async () => {
    mkdirSync(join(fx.dir, 'run'));
    writeFileSync(fx.path, 'keep me');
    await expect(startControlServer({ path: fx.path, control: fakeControl() })).rejects.toMatchObject({
      kind: 'not-a-socket',
    });
    expect(readFileSync(fx.path, 'utf8')).toBe('keep me');
  });

  it('refuses a path longer than a unix socket address holds', async () => {
    const long = join(fx.dir, 'x'.repeat(120), 'control.sock');
    await expect(startControlServer({ path: long, control: fakeControl() })).rejects.toMatchObject({
      kind: 'path-too-long',
    });
  });

  it('close() removes the socket file; the client then says the speaker is not running', async () => {
    const server = await start();
    await server.close();
    expect(existsSync(fx.path)).toBe(false);
    const err = await callControl(fx.path, 'summary', {}).catch((e) => e);
    expect(err).toBeInstanceOf(ControlClientError);
    expect(err.kind).toBe('not-running');
    expect(err.message).toBe(`cannot connect to ${fx.path}: is the speaker running? (ENOENT)`);
  });

  it('close() drops connected clients and can be called twice', async () => {
    const server = await start();
    const client = connect(fx.path);
    const answered = new Promise((resolve) => client.once('data', resolve));
    const closed = new Promise((resolve) => client.once('close', resolve));
    client.on('error', () => {});
    client.write(request(1, 'summary'));
    await answered;
    await Promise.all([server.close(), server.close()]);
    await closed;
    expect(client.destroyed).toBe(true);
  });
});

describe('control protocol over the socket', () => {
  it('answers several requests on one connection, in order, with their ids', async () => {
    await start();
    const x = await exchange(
      fx.path,
      request(1, 'summary') + request('two', 'neighbors', { peer: 'spine1' }) + request(3, 'rib', { afi: 6 }),
      3,
    );
    const [a, b, c] = x.lines.map(parse);
    expect(a).toEqual({ id: 1, result: SUMMARY });
    expect(b).toEqual({ id: 'two', result: [SPINE1] });
    expect(c.id).toBe(3);
    expect(c.result.map((e: { prefix: string }) => e.prefix)).toEqual(['2001:db8:100::/48']);
  });

  it('answers every one of many pipelined requests, reading paused while they wait', async () => {
    await start({ maxPending: 4 });
    const many = Array.from({ length: 50 }, (_, i) =>
      request(i, 'neighbors', { peer: NEIGHBORS[i % 3].name }),
    );
    const x = await exchange(fx.path, many.join(''), 50);
    expect(x.lines.map((l) => parse(l).id)).toEqual(Array.from({ length: 50 }, (_, i) => i));
    expect(x.lines.map((l) => parse(l).result[0].name)).toEqual(many.map((_, i) => NEIGHBORS[i % 3].name));
  });

  it('answers a client that half-closes right after its request', async () => {
    await start();
    const x = await exchange(fx.path, request(7, 'summary'), 0, true);
    expect(x.closed).toBe(true);
    expect(x.lines.map(parse)).toEqual([{ id: 7, result: SUMMARY }]);
  });

  it('closes a connection whose request line is longer than the limit, with an error', async () => {
    await start();
    const huge = Buffer.alloc(MAX_REQUEST_LINE_BYTES + 1, 'a'.charCodeAt(0));
    const x = await exchange(fx.path, Buffer.concat([Buffer.from(request(1, 'summary')), huge]), 99);
    expect(x.closed).toBe(true);
    expect(x.lines.map(parse)).toEqual([
      { id: 1, result: SUMMARY },
      {
        id: null,
        error: { code: 'bad-request', message: `request longer than ${MAX_REQUEST_LINE_BYTES} bytes` },
      },
    ]);
  });

  it('accepts a request line of exactly the limit', async () => {
    await start();
    const line = request(1, 'summary').trimEnd();
    const padded = `${line.slice(0, -1)}${' '.repeat(MAX_REQUEST_LINE_BYTES - line.length)}}\n`;
    expect(Buffer.byteLength(padded)).toBe(MAX_REQUEST_LINE_BYTES + 1);
    const x = await exchange(fx.path, padded, 1);
    expect(x.lines.map(parse)).toEqual([{ id: 1, result: SUMMARY }]);
  });

  it('keeps the connection after a bad request and names the problem', async () => {
    await start();
    const x = await exchange(
      fx.path,
      'not json\n' +
        request(2, 'frobnicate') +
        request(3, 'rib', { prefix: '198.18.10.0/33' }) +
        request(4, 'neighbors', { peer: 'spine9' }) +
        request(5, 'summary', { verbose: true }) +
        request(6, 'neighbor.reset', { peer: 'spine1' }),
      6,
    );
    const answers = x.lines.map(parse);
    expect(answers.map((a) => a.error?.code ?? 'ok')).toEqual([
      'bad-request',
      'bad-request',
      'bad-request',
      'unknown-peer',
      'bad-request',
      'ok',
    ]);
    expect(answers[1].error.message).toMatch(/^unknown method "frobnicate" \(known: summary, neighbors, rib/);
    expect(answers[3].error.message).toBe('no neighbor named spine9');
    expect(answers[4].error.message).toBe('unknown param "verbose" (takes: none)');
    expect(answers[5]).toEqual({ id: 6, result: { peer: 'spine1', action: 'reset' } });
  });

  it('serves concurrent clients each their own answer', async () => {
    await start();
    const peers = Array.from({ length: 24 }, (_, i) => NEIGHBORS[i % NEIGHBORS.length]);
    const answers = await Promise.all(
      peers.map((n) => callControl(fx.path, 'neighbors', { peer: n.address })),
    );
    expect(answers).toEqual(peers.map((n) => [n]));
  });

  it('passes the shutdown communication through to the speaker', async () => {
    const control = fakeControl();
    await start({ control });
    const r = await callControl(fx.path, 'neighbor.shutdown', {
      peer: 'spine1',
      message: 'maintenance: ticket 42',
    });
    expect(r).toEqual({ peer: 'spine1', action: 'shutdown' });
    expect(control.calls).toContainEqual(['shutdownNeighbor', 'spine1', 'maintenance: ticket 42']);
  });

  it('maps an unknown peer to its error code for the client', async () => {
    await start();
    const err = await callControl(fx.path, 'neighbor.refresh', { peer: 'spine9' }).catch((e) => e);
    expect(err).toBeInstanceOf(ControlError);
    expect(err).toMatchObject({ code: 'unknown-peer', message: 'no neighbor named spine9' });
  });

  it('reports a speaker failure as internal and keeps serving', async () => {
    await start({
      control: fakeControl({
        summary: () => {
          throw new TypeError('rib not ready');
        },
      }),
    });
    await expect(callControl(fx.path, 'summary', {})).rejects.toMatchObject({
      code: 'internal',
      message: 'rib not ready',
    });
    expect(await callControl(fx.path, 'neighbors', { peer: 'spine1' })).toEqual([SPINE1]);
  });

  it('answers timeout when the speaker does not answer in time', async () => {
    await start({
      requestTimeoutMs: 50,
      control: fakeControl({ resetNeighbor: () => new Promise(() => {}) }),
    });
    await expect(callControl(fx.path, 'neighbor.reset', { peer: 'spine1' })).rejects.toMatchObject({
      code: 'timeout',
      message: 'neighbor.reset not answered within 50 ms',
    });
  });

  it('sends a long result in slices that read back as the whole', async () => {
    const many = Array.from({ length: 50 }, (_, i) => ({ prefix: `198.18.${i}.0/24`, paths: [] }));
    await start({ responseSliceEntries: 7, control: fakeControl({ rib: () => many }) });
    expect(await callControl(fx.path, 'rib', {})).toEqual(many);
  });

  it('closes the connection when a later slice cannot be carried as JSON', async () => {
    const many: unknown[] = Array.from({ length: 20 }, (_, i) => i);
    many[15] = 1n;
    await start({ responseSliceEntries: 5, control: fakeControl({ rib: () => many as never }) });
    await expect(callControl(fx.path, 'rib', {})).rejects.toMatchObject({
      kind: 'protocol',
      message: `${fx.path} closed the connection before answering`,
    });
    many[15] = 15;
    many[2] = 1n;
    await expect(callControl(fx.path, 'rib', {})).rejects.toMatchObject({ code: 'internal' });
  });

  it('says so when a result cannot be carried as JSON', async () => {
    await start({
      control: fakeControl({ summary: () => ({ ...SUMMARY, localAs: 1n as unknown as number }) }),
    });
    await expect(callControl(fx.path, 'summary', {})).rejects.toMatchObject({ code: 'internal' });
  });
});
