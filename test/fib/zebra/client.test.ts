/**
 * The client shell against fake zebras that answer as FRR 8.4 or 10.3 would (their frames taken
 * from the captures), and against peers a real zebra cannot play: one that speaks another ZAPI
 * version or numbering, one that never answers, one that dribbles its answer byte by byte. (The
 * behaviour against real zebras is in test/interop/fib-zebra.test.ts.) Each peer is a unix
 * socket in a temp dir.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { createServer, type Server, type Socket } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { Afi, Writer } from '../../../src/bgp/wire/index.js';
import {
  FRR_8_4,
  FRR_10_3,
  writeFrame,
  ZapiClient,
  type ZapiClientInit,
  type ZapiDialect,
  ZapiFramer,
  ZebraErrorType,
  ZebraTarget,
} from '../../../src/fib/zebra/index.js';
import { parsePrefix } from '../../../src/rib/index.js';
import { hex, toHex } from '../../support/hex.js';
import { bytesOf, CAPTURES, connection, framesNamed } from './captures.js';

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

/** What a zebra of dialect `d` sent bgpd, from the capture: its CAPABILITIES, VRF_ADD, an INSTALLED. */
function zebraFrames(d: ZapiDialect) {
  const { capture: c } = CAPTURES.find((x) => x.dialect === d)!;
  const bgpd = connection(c, 'bgpd');
  const first = (name: string) => Buffer.from(bytesOf(framesNamed(c, bgpd, name, 'zebra')[0]));
  const installed = framesNamed(c, bgpd, 'ROUTE_NOTIFY_OWNER', 'zebra').find(
    (f) => f.hex.slice(20, 22) === '02',
  );
  return { caps: first('CAPABILITIES'), vrf: first('VRF_ADD'), installed: Buffer.from(bytesOf(installed!)) };
}

/** ZEBRA_ERROR INVALID_MSG_TYPE (host order) in `d`'s numbering: zebra's answer to a command it has no handler for. */
function invalidMsgType(d: ZapiDialect): Buffer {
  const w = new Writer(16);
  writeFrame(w, d.command.ERROR, (b) =>
    b.bytes(new Uint8Array(Uint32Array.of(ZebraErrorType.INVALID_MSG_TYPE).buffer)),
  );
  return Buffer.from(w.finish());
}

/**
 * A zebra of dialect `d`: CAPABILITIES and VRF_ADD for its own HELLO, ERROR for a command it
 * has no handler for (the other dialect's HELLO), silence for what it takes (routes, requests).
 */
function fakeZebra(d: ZapiDialect) {
  const own = zebraFrames(d);
  const handled = new Set([
    d.command.ROUTER_ID_ADD,
    d.command.ROUTE_NOTIFY_REQUEST,
    d.command.ROUTE_ADD,
    d.command.ROUTE_DELETE,
  ]);
  return (s: Socket) => {
    const framer = new ZapiFramer();
    s.on('data', (chunk) => {
      for (const f of framer.push(chunk)) {
        if (f.command === d.command.HELLO) s.write(Buffer.concat([own.caps, own.vrf]));
        else if (!handled.has(f.command)) s.write(invalidMsgType(d));
      }
    });
  };
}

function client(path: string, log: string[] = [], over: Partial<ZapiClientInit> = {}) {
  const states: string[] = [];
  const dialects: string[] = [];
  const c = new ZapiClient(
    {
      socketPath: path,
      routeType: 'BGP',
      instance: 1,
      backoff: { initialMs: 20, maxMs: 40, jitter: 0 },
      handshakeTimeoutMs: 2000,
      ...over,
    },
    {
      up: (_caps, d) => {
        states.push('up');
        dialects.push(d.name);
      },
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
  return { c, states, dialects };
}

async function until(what: string, cond: () => boolean, ms = 3000): Promise<void> {
  const end = Date.now() + ms;
  while (!cond()) {
    if (Date.now() > end) throw new Error(`${what}: not within ${ms} ms`);
    await new Promise((r) => setTimeout(r, 5));
  }
}

describe('ZapiClient', () => {
  it('FRR 10.3: HELLO as (BGP 10, instance 1), then ROUTE_NOTIFY_REQUEST and ROUTER_ID_ADD', async () => {
    const p = await peer(fakeZebra(FRR_10_3));
    const { c, states, dialects } = client(p.path);
    c.start();
    await until('up', () => states.includes('up'));
    await until('three frames', () => Buffer.concat(p.received).length >= 41);
    expect(toHex(Buffer.concat(p.received))).toBe(
      toHex(hex`00 12 fe 06 00 00 00 00 00 13 | 0a | 00 01 | 00 00 00 00 | 00   # HELLO: no notify byte
                00 0b fe 06 00 00 00 00 00 7e | 01                              # ROUTE_NOTIFY_REQUEST on
                00 0c fe 06 00 00 00 00 00 10 | 00 01                           # ROUTER_ID_ADD afi 1`),
    );
    expect(dialects).toEqual(['FRR 10.3']);
    expect(c.dialect).toBe(FRR_10_3);
  });

  it("FRR 8.4: its ERROR to 10.3's HELLO, then HELLO as (BGP 9, instance 1) asking for notifications", async () => {
    const p = await peer(fakeZebra(FRR_8_4));
    const { c, states, dialects } = client(p.path);
    c.start();
    await until('up', () => states.includes('up'));
    await until('three frames', () => Buffer.concat(p.received).length >= 49);
    expect(toHex(Buffer.concat(p.received))).toBe(
      toHex(hex`00 12 fe 06 00 00 00 00 00 13 | 0a 00 01 00 00 00 00 00       # 10.3's HELLO: 19 is CAPABILITIES to 8.4
                00 13 fe 06 00 00 00 00 00 12 | 09 | 00 01 | 00 00 00 00 | 01 | 00   # 8.4's, notify 1
                00 0c fe 06 00 00 00 00 00 0f | 00 01`),
    );
    expect(dialects).toEqual(['FRR 8.4']);
    expect(states).toEqual(['up']);
  });

  it('dialects in another order: 8.4 first, and a 10.3 zebra still comes up as 10.3', async () => {
    const p = await peer(fakeZebra(FRR_10_3));
    const { c, dialects } = client(p.path, [], { dialects: [FRR_8_4, FRR_10_3] });
    c.start();
    await until('up', () => dialects.length > 0);
    expect(dialects).toEqual(['FRR 10.3']);
  });

  it('a zebra that answers HELLO as neither would: refused naming what it sent, retried, logged once', async () => {
    // A CAPABILITIES of 8.4's numbering straight away: what no zebra sends to 10.3's HELLO.
    const { caps } = zebraFrames(FRR_8_4);
    const p = await peer((s) => s.write(caps));
    const log: string[] = [];
    const { c, states } = client(p.path, log);
    c.start();
    await until('two attempts', () => p.connections >= 2);
    expect(states).not.toContain('up');
    expect(c.lastError?.kind).toBe('unsupported-version');
    expect(c.lastError?.message).toMatch(/answered FRR 10\.3's HELLO with command 19 \(10 bytes\)/);
    expect(log.filter((l) => l.includes('command 19'))).toHaveLength(1);
  });

  it('refuses to be made with no dialect to say HELLO in', () => {
    expect(() => client('/nonexistent/zserv.api', [], { dialects: [] })).toThrow(/no ZAPI dialect/);
  });

  it('a CAPABILITIES shorter than its dialect has is refused too', async () => {
    const p = await peer((s) => s.write(hex`00 14 fe 06 00 00 00 00 00 14 00 00 00 00 00 00 00 01 00 00`));
    const { c } = client(p.path);
    c.start();
    await until('an error', () => c.lastError !== undefined);
    expect(c.lastError?.kind).toBe('unsupported-version');
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
    const z = zebraFrames(FRR_10_3);
    const stream = Buffer.concat([z.caps, z.vrf, z.installed]);
    const p = await peer((s, n) => {
      if (n > 1) return void s.write(z.caps);
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
