/**
 * The shell against real sockets on loopback: two services (each a worker thread with its own
 * UDP sockets) bring a session Up over IPv4 and IPv6, a sender 254 TTL away is dropped by the
 * kernel filter (RFC 5881 5) while the same packets at 255 are heard, a silent peer is
 * detected within the Detection Time, and AdminDown is told apart from a failure.
 */
import dgram from 'node:dgram';
import { afterEach, describe, expect, it } from 'vitest';
import { BfdEngine } from '../../src/bfd/engine.js';
import { BfdService, type BfdStatus, type BfdTransition } from '../../src/bfd/index.js';
import type { BfdSessionSpec } from '../../src/bfd/types.js';
import { silentLogger, systemScheduler } from '../../src/components/index.js';

const ANY = { singleHop: 0, multiHop: 0 };
const started: BfdService[] = [];
const sockets: dgram.Socket[] = [];

afterEach(async () => {
  await Promise.all(started.splice(0).map((s) => s.close()));
  for (const s of sockets.splice(0)) s.close();
});

async function service(): Promise<BfdService> {
  const s = await BfdService.start(silentLogger, { ports: ANY });
  started.push(s);
  return s;
}

const spec = (peer: string, port: number, over: Partial<BfdSessionSpec> = {}): BfdSessionSpec => ({
  peer,
  local: undefined,
  multihop: false,
  hops: 1,
  minTxMs: 50,
  minRxMs: 50,
  multiplier: 3,
  port,
  ...over,
});

async function until(check: () => boolean, ms = 5000): Promise<void> {
  const end = Date.now() + ms;
  while (!check()) {
    if (Date.now() > end) throw new Error('timed out');
    await new Promise((r) => setTimeout(r, 10));
  }
}

/** A peer on a plain dgram socket sending with the given TTL, run by an engine in this thread. */
async function rawPeer(target: number, ttl: number) {
  const socket = dgram.createSocket('udp4');
  sockets.push(socket);
  await new Promise<void>((r) => socket.bind(0, '127.0.0.1', () => r()));
  socket.setTTL(ttl);
  const link = { up: true };
  const transitions: BfdTransition[] = [];
  const engine = new BfdEngine({
    clock: systemScheduler,
    wallClock: () => Date.now(),
    random: Math.random,
    transport: {
      open: () => {},
      close: () => {},
      send: (_id, bytes) => {
        if (link.up) socket.send(Buffer.from(bytes), target, '127.0.0.1');
      },
    },
    report: (m) => {
      if (m.type === 'transition') transitions.push(m.transition);
    },
  });
  socket.on('message', (bytes) => engine.receive(bytes, { address: '127.0.0.1', multihop: false }));
  return { engine, link, transitions, port: () => socket.address().port };
}

describe('BfdService on loopback', () => {
  it.each([
    ['IPv4', '127.0.0.1'],
    ['IPv6', '::1'],
  ])('comes Up over %s and reports the negotiated session', async (_name, address) => {
    const [a, b] = [await service(), await service()];
    const seenA: BfdTransition[] = [];
    const ha = a.open(spec(address, b.ports.singleHop), (t) => seenA.push(t));
    const hb = b.open(spec(address, a.ports.singleHop, { minTxMs: 80, multiplier: 5 }), () => {});
    await until(() => ha.status?.state === 'Up' && hb.status?.state === 'Up' && ha.status.polling === false);
    const sa = ha.status as BfdStatus;
    const sb = hb.status as BfdStatus;
    expect(sa.remoteDiscr).toBe(sb.localDiscr);
    expect(sb.remoteDiscr).toBe(sa.localDiscr);
    expect(sa).toMatchObject({ remoteState: 'Up', remoteMultiplier: 5, remoteMinTxMs: 80, multihop: false });
    // A sends at max(its 50, B's 50 RX); A detects B in 5 x max(50, 80).
    expect(sa.txIntervalMs).toBe(50);
    expect(sa.detectionTimeMs).toBe(400);
    // Down to Up directly when the peer's Init comes first (RFC 5880 6.8.6), else through Init.
    expect(seenA.at(-1)?.to).toBe('Up');
    expect(seenA.every((t) => t.to === 'Init' || t.to === 'Up')).toBe(true);
    ha.close();
    hb.close();
  });

  it('drops what arrives with TTL 254 in the kernel and hears TTL 255 (RFC 5881 5)', async () => {
    const a = await service();
    const far = await rawPeer(a.ports.singleHop, 254);
    const hFar = a.open(spec('127.0.0.1', far.port()), () => {});
    far.engine.add(1, spec('127.0.0.1', a.ports.singleHop));
    await new Promise((r) => setTimeout(r, 1500));
    // Our packets reach the peer (it answers), the peer's never reach us.
    expect(far.transitions.map((t) => t.to)).toContain('Init');
    expect(hFar.status).toMatchObject({ state: 'Down', remoteDiscr: 0 });
    far.engine.closeAll();
    hFar.close();

    const near = await rawPeer(a.ports.singleHop, 255);
    const hNear = a.open(spec('127.0.0.1', near.port()), () => {});
    near.engine.add(1, spec('127.0.0.1', a.ports.singleHop));
    await until(() => hNear.status?.state === 'Up');
    near.engine.closeAll();
  });

  it('detects a silent peer within the Detection Time, and hears it again', async () => {
    const a = await service();
    const peer = await rawPeer(a.ports.singleHop, 255);
    const seen: BfdTransition[] = [];
    const h = a.open(spec('127.0.0.1', peer.port()), (t) => seen.push(t));
    peer.engine.add(1, spec('127.0.0.1', a.ports.singleHop));
    // Both sides on the fast timers: the peer's Poll answered and its 50 ms in our Detection Time.
    await until(() => h.status?.state === 'Up' && h.status.detectionTimeMs === 150 && !h.status.polling);
    peer.link.up = false;
    const cut = Date.now();
    await until(() => h.status?.state === 'Down');
    const down = seen.at(-1)!;
    expect(down).toMatchObject({ from: 'Up', to: 'Down', diag: 1, remoteAdminDown: false });
    // 3 x 50 ms after the last packet; the worker's timers are not the test's.
    expect(down.at - cut).toBeLessThan(150 + 100);
    expect(h.status?.lastDownReason).toBe('control detection time expired');
    peer.link.up = true;
    await until(() => h.status?.state === 'Up');
    peer.engine.closeAll();
  });

  it('hears AdminDown from a peer that closes its session (RFC 5882 3.2)', async () => {
    const [a, b] = [await service(), await service()];
    const seen: BfdTransition[] = [];
    const ha = a.open(spec('127.0.0.1', b.ports.singleHop), (t) => seen.push(t));
    const hb = b.open(spec('127.0.0.1', a.ports.singleHop), () => {});
    await until(() => ha.status?.state === 'Up' && hb.status?.state === 'Up');
    await b.close();
    started.splice(started.indexOf(b), 1);
    await until(() => ha.status?.state === 'Down');
    expect(seen.at(-1)).toMatchObject({ from: 'Up', to: 'Down', diag: 3, remoteAdminDown: true });
    expect(ha.status?.lastDownReason).toBe('neighbor signaled session down (administratively down)');
  });
});
