/**
 * The client shell against peers a real zebra cannot play: one that speaks another ZAPI version,
 * one that never answers, one that dribbles its answer byte by byte. (The behaviour against a
 * real zebra is in test/interop/fib-zebra.test.ts.) Each peer is a unix socket in a temp dir.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { createServer, type Server, type Socket } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { Afi } from '../../../src/bgp/wire/index.js';
import { ZapiClient, type ZapiClientInit, ZebraTarget } from '../../../src/fib/zebra/index.js';
import { parsePrefix } from '../../../src/rib/index.js';
import { hex, toHex } from '../../support/hex.js';
import { CAPABILITIES, NOTIFY_INSTALLED_V4, VRF_ADD_DEFAULT } from './fixtures.js';

const cleanups: (() => Promise<void> | void)[] = [];
afterEach(async () => {
  for (const c of cleanups.splice(0).reverse()) await c();
});

interface Peer {
  readonly path: string;
  readonly received: Buffer[];
  connections: number;
}

async function peer(onConnection: (s: Socket, n: number) => void): Promise<Peer> {
  const dir = mkdtempSync(join(tmpdir(), 'obs-zb-unit-'));
  const p: Peer = { path: join(dir, 'zserv.api'), received: [], connections: 0 };
  const sockets = new Set<Socket>();
  const server: Server = createServer((s) => {
    sockets.add(s);
    s.on('data', (d) => p.received.push(d));
    s.on('error', () => {});
    onConnection(s, ++p.connections);
  });
  await new Promise<void>((r) => server.listen(p.path, r));
  cleanups.push(async () => {
    for (const s of sockets) s.destroy();
    await new Promise((r) => server.close(r));
    rmSync(dir, { recursive: true, force: true });
  });
  return p;
}

function client(path: string, log: string[] = [], over: Partial<ZapiClientInit> = {}) {
  const states: string[] = [];
  const c = new ZapiClient(
    {
      socketPath: path,
      routeType: 9,
      instance: 1,
      backoff: { initialMs: 20, maxMs: 40, jitter: 0 },
      handshakeTimeoutMs: 2000,
      ...over,
    },
    {
      up: () => states.push('up'),
      down: (e) => states.push(`down:${e.kind}`),
      notify: (n) => states.push(`notify:${n.note}`),
      routerId: () => {},
    },
    {
      logger: {
        debug: () => {},
        info: () => {},
        warn: (_o, m) => log.push(`warn ${m}`),
        error: (_o, m) => log.push(`error ${m}`),
      },
    },
  );
  cleanups.push(() => c.close());
  return { c, states };
}

async function until(what: string, cond: () => boolean, ms = 3000): Promise<void> {
  const end = Date.now() + ms;
  while (!cond()) {
    if (Date.now() > end) throw new Error(`${what}: not within ${ms} ms`);
    await new Promise((r) => setTimeout(r, 5));
  }
}

describe('ZapiClient', () => {
  it('says HELLO as (BGP, instance 1) asking for notifications, then ROUTER_ID_ADD', async () => {
    const p = await peer((s) => s.write(CAPABILITIES));
    const { c, states } = client(p.path);
    c.start();
    await until('up', () => states.includes('up'));
    await until('both frames', () => Buffer.concat(p.received).length >= 31);
    expect(toHex(Buffer.concat(p.received))).toBe(
      toHex(hex`00 13 fe 06 00 00 00 00 00 12 | 09 | 00 01 | 00 00 00 00 | 01 | 00
                00 0c fe 06 00 00 00 00 00 0f | 00 01`),
    );
  });

  it('refuses a zebra of another ZAPI version with an error naming both, and keeps retrying', async () => {
    const p = await peer((s) => s.write(hex`00 14 fe 05 00 00 00 00 00 13 00 00 00 00 00 00 00 01 00 00`));
    const log: string[] = [];
    const { c, states } = client(p.path, log);
    c.start();
    await until('two attempts', () => p.connections >= 2);
    expect(states).not.toContain('up');
    expect(c.lastError?.kind).toBe('unsupported-version');
    expect(c.lastError?.message).toMatch(/zebra speaks ZAPI version 5, this client speaks only version 6/);
    // Logged once, not once per attempt.
    expect(log.filter((l) => l.includes('version 5'))).toHaveLength(1);
    expect(log[0]).toMatch(/^error /);
  });

  it('a silent zebra: handshake timeout, then a new attempt', async () => {
    const p = await peer(() => {});
    const { c } = client(p.path, [], { handshakeTimeoutMs: 50 });
    c.start();
    await until('second attempt', () => p.connections >= 2);
    expect(c.lastError?.kind).toBe('handshake-timeout');
  });

  it('answers dribbled byte by byte still bring the session up; a loss reports down and reconnects', async () => {
    const stream = Buffer.concat([CAPABILITIES, VRF_ADD_DEFAULT, NOTIFY_INSTALLED_V4]);
    const p = await peer((s, n) => {
      if (n > 1) return void s.write(CAPABILITIES);
      let i = 0;
      const t = setInterval(() => {
        if (i < stream.length) s.write(stream.subarray(i, ++i));
        else {
          clearInterval(t);
          s.destroy();
        }
      }, 0);
    });
    const { c, states } = client(p.path);
    c.start();
    await until('second session', () => c.sessions === 2);
    expect(states).toEqual(['up', 'notify:2', 'down:connection-lost', 'up']);
  });

  it('no socket at the path: connection-failed, retried with back-off', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'obs-zb-unit-'));
    cleanups.push(() => rmSync(dir, { recursive: true, force: true }));
    const { c } = client(join(dir, 'none.api'));
    c.start();
    await until('an error', () => c.lastError !== undefined);
    expect(c.lastError?.kind).toBe('connection-failed');
    expect(c.state === 'backoff' || c.state === 'connecting').toBe(true);
    await expect(c.write(new Uint8Array(1))).rejects.toMatchObject({ kind: 'not-connected' });
  });
});

describe('ZebraTarget without zebra', () => {
  const v4 = { address: '198.18.0.1', afi: Afi.IPV4 } as const;

  it('keeps changes while not connected and says so', async () => {
    const t = new ZebraTarget({ socket: '/nonexistent/zserv.api' });
    await expect(
      t.apply([{ kind: 'add', route: { prefix: parsePrefix('198.19.0.0/24'), nextHops: [v4] } }]),
    ).rejects.toMatchObject({
      kind: 'not-connected',
    });
    expect(t.status()).toMatchObject({ connected: false, routes: 1, pending: 1, installed: 0, instance: 1 });
    await t.reconcile([]).catch(() => {});
    expect(t.status().routes).toBe(0);
    await t.close();
    await expect(t.apply([])).rejects.toMatchObject({ kind: 'closed' });
  });

  it('keeps every change of a batch bigger than one write while not connected, for the replay', async () => {
    const t = new ZebraTarget({ socket: '/nonexistent/zserv.api' });
    const routes = Array.from({ length: 20_000 }, (_, i) => ({
      kind: 'add' as const,
      route: { prefix: parsePrefix(`198.19.${i >> 8}.${i & 255}/32`), nextHops: [v4] },
    }));
    await expect(t.apply(routes)).rejects.toMatchObject({ kind: 'not-connected' });
    expect(t.status()).toMatchObject({ routes: 20_000, pending: 20_000 });
    await t
      .apply(routes.slice(0, 10_000).map((c) => ({ kind: 'withdraw' as const, prefix: c.route.prefix })))
      .catch(() => {});
    expect(t.status().routes).toBe(10_000);
    await t.close();
  });

  it('a route it cannot send is listed as unencodable and replaces the old one', async () => {
    const t = new ZebraTarget({ socket: '/nonexistent/zserv.api' });
    const prefix = parsePrefix('2001:db8:5::/48');
    await t
      .apply([{ kind: 'add', route: { prefix, nextHops: [{ address: '2001:db8::1', afi: Afi.IPV6 }] } }])
      .catch(() => {});
    await t
      .apply([{ kind: 'add', route: { prefix, nextHops: [{ address: 'fe80::1', afi: Afi.IPV6 }] } }])
      .catch(() => {});
    expect(t.routeState(prefix)).toBe('unencodable');
    expect(t.status()).toMatchObject({
      routes: 0,
      failed: [{ prefix: '2001:db8:5::/48', state: 'unencodable' }],
    });
    await t.apply([{ kind: 'withdraw', prefix }]).catch(() => {});
    expect(t.status().failed).toEqual([]);
    await t.close();
  });

  it('refuses instance 0 (bgpd owns it), distance 0 and 256', () => {
    expect(() => new ZebraTarget({ socket: 'x', instance: 0 })).toThrow(/instance 0/);
    expect(() => new ZebraTarget({ socket: 'x', distance: 0 })).toThrow(/distance/);
    expect(() => new ZebraTarget({ socket: 'x', distance: 256 })).toThrow(/distance/);
  });
});
