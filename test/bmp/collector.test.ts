/* The collector connection against a real TCP listener on loopback: order, back-off, bounded memory. */
import * as net from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import {
  BmpCollector,
  type BmpMessage,
  type CollectorInit,
  decodeBmpStream,
  type MonitoredSession,
} from '../../src/bmp/index.js';
import { type Scheduler, silentLogger, systemScheduler } from '../../src/components/index.js';
import { eventually } from '../speaker/lab-speaker.js';
import { attrs, FakeSession, routesOf, update } from './support.js';

const HOST = '127.0.0.1';

/** A collector: every connection's messages, decoded as they arrive. */
class Listener {
  readonly connections: BmpMessage[][] = [];
  readonly sockets: net.Socket[] = [];
  readonly server: net.Server;
  /** Stop reading new connections (a collector too slow to keep up). */
  stall = false;

  constructor() {
    this.server = net.createServer((socket) => {
      const got: BmpMessage[] = [];
      this.connections.push(got);
      this.sockets.push(socket);
      if (this.stall) {
        socket.pause();
        return;
      }
      let buf: Uint8Array = new Uint8Array(0);
      socket.on('data', (chunk: Buffer) => {
        const joined = new Uint8Array(buf.length + chunk.length);
        joined.set(buf);
        joined.set(chunk, buf.length);
        const { messages, rest } = decodeBmpStream(joined);
        got.push(...messages);
        buf = rest.slice();
      });
      socket.on('error', () => {});
    });
  }

  listen(port = 0): Promise<number> {
    return new Promise((resolve) =>
      this.server.listen(port, HOST, () => resolve((this.server.address() as net.AddressInfo).port)),
    );
  }

  close(): Promise<void> {
    for (const s of this.sockets) s.destroy();
    return new Promise((resolve) => this.server.close(() => resolve()));
  }
}

/** The system's scheduler, recording each timer's delay. */
function recording(): Scheduler & { delays: number[] } {
  const delays: number[] = [];
  return {
    ...systemScheduler,
    now: () => Date.now(),
    delays,
    setTimeout: (fn, ms, o) => {
      delays.push(ms);
      return systemScheduler.setTimeout(fn, ms, o);
    },
  };
}

const init = (port: number, more: Partial<CollectorInit> = {}): CollectorInit => ({
  address: HOST,
  port,
  views: ['pre', 'post'],
  statisticsInterval: 0,
  minRetryMs: 20,
  maxRetryMs: 80,
  bufferLimit: 1 << 20,
  sysName: 'spk',
  sysDescr: 'test',
  ...more,
});

const cleanups: (() => Promise<void>)[] = [];
afterEach(async () => {
  for (const c of cleanups.splice(0).reverse()) await c();
});

function start(i: CollectorInit, sessions: Map<string, MonitoredSession>, clock = recording()) {
  const c = new BmpCollector(i, { clock, log: silentLogger, sessions: () => sessions });
  cleanups.push(() => c.close());
  c.start();
  return { c, clock };
}

describe('a BMP collector connection', () => {
  it('Initiation, then the state of the sessions up, then what happens, in that order; Termination at close', async () => {
    const l = new Listener();
    cleanups.push(() => l.close());
    const port = await l.listen();
    const s = new FakeSession();
    s.pre.set('198.19.1.0/24', attrs());
    s.post.set('198.19.1.0/24', attrs(5));
    const sessions = new Map<string, MonitoredSession>([[s.peer.name, s]]);
    const { c } = start(init(port), sessions);
    await eventually(() => (c.status().state === 'up' && !c.status().dumping ? true : undefined), 'the dump');
    // A live UPDATE, a second session coming up, the first going down.
    s.post.set('198.19.2.0/24', attrs(6));
    c.update(s, update(['198.19.2.0/24'], attrs()));
    const t = new FakeSession('gobgp4', '198.18.0.6');
    sessions.set(t.peer.name, t);
    c.up(t);
    sessions.delete(s.peer.name);
    c.down(s.peer, { notification: null });
    await c.close();
    const got = await eventually(
      () => (l.connections[0]?.at(-1)?.type === 'termination' ? l.connections[0] : undefined),
      'termination',
    );
    expect(got.map((m) => m.type)).toEqual([
      'initiation',
      'peer-up',
      'route-monitoring', // pre: 198.19.1.0/24
      'route-monitoring', // pre: End-of-RIB
      'route-monitoring', // post: 198.19.1.0/24 with MED 5
      'route-monitoring', // post: End-of-RIB
      'route-monitoring', // live, pre
      'route-monitoring', // live, post
      'peer-up',
      'peer-down',
      'termination',
    ]);
    expect(routesOf(got[4]!)).toEqual({ announced: ['198.19.1.0/24'], withdrawn: [], med: 5 });
    expect(routesOf(got[7]!)).toEqual({ announced: ['198.19.2.0/24'], withdrawn: [], med: 6 });
    expect(got[8]).toMatchObject({ peer: { address: '198.18.0.6' } });
    expect(got[9]).toMatchObject({ type: 'peer-down', peer: { address: '198.18.0.2' }, reason: 4 });
    expect(c.status()).toMatchObject({ state: 'closed', connects: 1, drops: 0 });
  });

  it('while the collector is away it tries again, each wait doubled up to the bound; once it listens it gets the state', async () => {
    const probe = new Listener();
    const port = await probe.listen();
    await probe.close(); // the port is free and nothing listens on it
    const s = new FakeSession();
    s.pre.set('198.19.1.0/24', attrs());
    const { c, clock } = start(init(port, { views: ['pre'] }), new Map([[s.peer.name, s]]));
    await eventually(() => (clock.delays.length >= 5 ? true : undefined), 'five attempts');
    expect(clock.delays.slice(0, 5)).toEqual([20, 40, 80, 80, 80]);
    expect(c.status()).toMatchObject({ state: expect.stringMatching(/waiting|connecting/), connects: 0 });
    expect(c.status().lastError).toMatch(/ECONNREFUSED/);
    const l = new Listener();
    cleanups.push(() => l.close());
    await l.listen(port);
    const got = await eventually(
      () => (l.connections[0]?.length === 4 ? l.connections[0] : undefined),
      'the state',
    );
    expect(got.map((m) => m.type)).toEqual(['initiation', 'peer-up', 'route-monitoring', 'route-monitoring']);
    expect(c.status().connects).toBe(1);
  });

  it('a collector that stops reading: past the limit the queue is dropped with the connection, and the next one gets the state afresh', async () => {
    const l = new Listener();
    cleanups.push(() => l.close());
    l.stall = true;
    const port = await l.listen();
    const s = new FakeSession();
    s.pre.set('198.19.1.0/24', attrs());
    const { c } = start(init(port, { views: ['pre'], bufferLimit: 65_536 }), new Map([[s.peer.name, s]]));
    await eventually(() => (c.status().state === 'up' && !c.status().dumping ? true : undefined), 'up');
    l.stall = false;
    const u = update(['198.19.7.0/24'], attrs());
    // Bounded: the kernel's buffers fill first, then ours; far fewer than this reach the limit.
    for (let i = 0; i < 500_000 && c.status().drops === 0; i++) {
      c.update(s, u);
      if (i % 1000 === 999) await new Promise((r) => setImmediate(r));
    }
    expect(c.status().drops).toBe(1);
    expect(c.status().queued).toBeLessThanOrEqual(65_536 + 200);
    const again = await eventually(
      () => (l.connections[1]?.length === 4 ? l.connections[1] : undefined),
      'a fresh state',
    );
    expect(again.map((m) => m.type)).toEqual([
      'initiation',
      'peer-up',
      'route-monitoring',
      'route-monitoring',
    ]);
    expect(c.status()).toMatchObject({ state: 'up', connects: 2, drops: 1 });
    expect(c.status().lastError).toBeUndefined();
  });

  it('sends a Statistics Report per session told, every interval', async () => {
    const l = new Listener();
    cleanups.push(() => l.close());
    const port = await l.listen();
    const s = new FakeSession();
    s.pre.set('198.19.1.0/24', attrs());
    const clock = recording();
    // The interval is in seconds: a clock whose timers run 1000 times faster.
    const fast: Scheduler = { ...clock, setTimeout: (fn, ms, o) => clock.setTimeout(fn, ms / 1000, o) };
    start(init(port, { views: ['pre'], statisticsInterval: 5 }), new Map([[s.peer.name, s]]), fast as never);
    const stats = await eventually(() => {
      const got = l.connections[0]?.filter((m) => m.type === 'statistics-report') ?? [];
      return got.length >= 2 ? got : undefined;
    }, 'two reports');
    expect(stats[0]).toMatchObject({ peer: { address: '198.18.0.2' }, stats: [{ type: 7, value: 1 }] });
  });
});
