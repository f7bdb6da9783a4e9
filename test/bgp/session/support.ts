import net from 'node:net';
import {
  type CollisionEvent,
  type ConnectionInfo,
  type EstablishedInfo,
  type Family,
  type NotificationEvent,
  type Peer,
  Sessions,
  type SessionsComponents,
  type SessionsPeerInit,
  type StateChange,
} from '../../../src/bgp/session/index.js';
import { ErrorCode, HEADER_LENGTH, MessageType } from '../../../src/bgp/wire/constants.js';
import { Framer } from '../../../src/bgp/wire/framer.js';
import { type BgpMessage, decodeMessage } from '../../../src/bgp/wire/message.js';
import type { RouteRefreshMessage } from '../../../src/bgp/wire/route-refresh.js';
import type { UpdateMessage } from '../../../src/bgp/wire/update.js';
import type { Scheduler } from '../../../src/components/index.js';

/**
 * Timers that run only when the test says so (`advance`). Deferred work (the inbound path's
 * yields) runs on the real event loop: sockets are real in these tests.
 */
export class FakeScheduler implements Scheduler {
  #now = 0;
  #seq = 0;
  readonly #timers = new Map<number, { at: number; fn: () => void }>();
  defers = 0;

  now(): number {
    return this.#now;
  }

  setTimeout(fn: () => void, ms: number): number {
    const id = ++this.#seq;
    this.#timers.set(id, { at: this.#now + ms, fn });
    return id;
  }

  clearTimeout(handle: unknown): void {
    this.#timers.delete(handle as number);
  }

  defer(fn: () => void): void {
    this.defers++;
    setImmediate(fn);
  }

  /** Moves the clock `ms` forward, running every timer that falls due, in time order. */
  advance(ms: number): void {
    const end = this.#now + ms;
    for (;;) {
      let next: [number, { at: number; fn: () => void }] | undefined;
      for (const entry of this.#timers) {
        if (entry[1].at <= end && (!next || entry[1].at < next[1].at)) next = entry;
      }
      if (!next) break;
      this.#timers.delete(next[0]);
      this.#now = next[1].at;
      next[1].fn();
    }
    this.#now = end;
  }

  /** Milliseconds until each pending timer fires, soonest first. */
  pending(): number[] {
    return [...this.#timers.values()].map((t) => t.at - this.#now).sort((a, b) => a - b);
  }
}

const WAIT_MS = 5_000;

/** Polls `ok` (real time, bounded) until it holds; throws naming `what` otherwise. */
export async function until(ok: () => boolean, what: string, timeoutMs = WAIT_MS): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!ok()) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 2));
  }
}

/** Everything a peer reported, in order. */
export interface Recorder {
  readonly states: StateChange[];
  readonly established: EstablishedInfo[];
  readonly down: string[];
  readonly updates: UpdateMessage[];
  readonly endOfRib: Family[];
  readonly refreshes: RouteRefreshMessage[];
  readonly notifications: NotificationEvent[];
  readonly collisions: CollisionEvent[];
  readonly connections: ConnectionInfo[];
}

export function record(peer: Peer): Recorder {
  const r: Recorder = {
    states: [],
    established: [],
    down: [],
    updates: [],
    endOfRib: [],
    refreshes: [],
    notifications: [],
    collisions: [],
    connections: [],
  };
  peer.on('state', (c) => r.states.push(c));
  peer.on('established', (i) => r.established.push(i));
  peer.on('down', (why) => r.down.push(why));
  peer.on('update', (u) => r.updates.push(u));
  peer.on('end-of-rib', (f) => r.endOfRib.push(f));
  peer.on('route-refresh', (m) => r.refreshes.push(m));
  peer.on('notification', (n) => r.notifications.push(n));
  peer.on('collision', (c) => r.collisions.push(c));
  peer.on('connection', (c) => r.connections.push(c));
  return r;
}

export interface Side {
  readonly sessions: Sessions;
  readonly peer: Peer;
  readonly scheduler: FakeScheduler;
  readonly rec: Recorder;
}

export const AS_A = 65001;
export const AS_B = 65002;
export const ID_A = '198.18.0.1';
export const ID_B = '198.18.0.2';

export interface PairOptions {
  readonly host?: '127.0.0.1' | '::1';
  readonly a?: Partial<SessionsPeerInit> & { localAs?: number };
  readonly b?: Partial<SessionsPeerInit> & { localAs?: number };
  readonly componentsA?: SessionsComponents;
  readonly componentsB?: SessionsComponents;
}

/** Short timers, so that fake-clock steps stay readable. */
export const TEST_TIMERS = {
  holdTime: 9,
  keepaliveTime: 3,
  connectRetryTime: 5,
  idleHoldTime: 1,
  maxIdleHoldTime: 4,
};

/**
 * Two speakers on loopback, each with a listener on a free port and the other as its peer.
 * By default A connects and B only listens (no collision); both run on fake clocks.
 */
export async function pair(
  opts: PairOptions = {},
): Promise<{ a: Side; b: Side; close: () => Promise<void> }> {
  const host = opts.host ?? '127.0.0.1';
  const sa = new FakeScheduler();
  const sb = new FakeScheduler();
  const a = await Sessions.create(
    { localAs: opts.a?.localAs ?? AS_A, routerId: ID_A, listen: { host, port: 0 } },
    { scheduler: sa, random: () => 1, ...opts.componentsA },
  );
  const b = await Sessions.create(
    { localAs: opts.b?.localAs ?? AS_B, routerId: ID_B, listen: { host, port: 0 } },
    { scheduler: sb, random: () => 1, ...opts.componentsB },
  );
  // Peers are added disabled so the recorders see every event from the start.
  const pb = b.addPeer({
    address: host,
    remoteAs: opts.a?.localAs ?? AS_A,
    port: a.address!.port,
    passive: true,
    ...TEST_TIMERS,
    ...opts.b,
    enabled: false,
  });
  const pa = a.addPeer({
    address: host,
    remoteAs: opts.b?.localAs ?? AS_B,
    port: b.address!.port,
    ...TEST_TIMERS,
    ...opts.a,
    enabled: false,
  });
  const sideA: Side = { sessions: a, peer: pa, scheduler: sa, rec: record(pa) };
  const sideB: Side = { sessions: b, peer: pb, scheduler: sb, rec: record(pb) };
  if (opts.b?.enabled ?? true) pb.start();
  if (opts.a?.enabled ?? true) pa.start();
  return {
    a: sideA,
    b: sideB,
    close: async () => {
      await Promise.all([a.close(), b.close()]);
    },
  };
}

export async function established(...sides: Side[]): Promise<void> {
  await until(() => sides.every((s) => s.peer.state === 'Established'), 'Established on both sides');
}

/** A scripted peer: a raw socket that writes bytes and collects the messages it gets back. */
export class RawPeer {
  readonly socket: net.Socket;
  readonly messages: BgpMessage[] = [];
  readonly #framer = new Framer(65535);
  closed = false;

  private constructor(socket: net.Socket) {
    this.socket = socket;
    socket.on('data', (chunk) => {
      this.#framer.push(chunk);
      for (let m = this.#framer.next(); m; m = this.#framer.next())
        this.messages.push(decodeMessage(m, LENIENT));
    });
    socket.on('close', () => {
      this.closed = true;
    });
    socket.on('error', () => {});
  }

  static async connect(port: number, host = '127.0.0.1', localAddress?: string): Promise<RawPeer> {
    const socket = net.connect({ port, host, localAddress });
    await new Promise<void>((ok, fail) => {
      socket.once('connect', ok);
      socket.once('error', fail);
    });
    return new RawPeer(socket);
  }

  write(bytes: Uint8Array): void {
    this.socket.write(bytes);
  }

  has(type: BgpMessage['type']): boolean {
    return this.messages.some((m) => m.type === type);
  }

  async next(type: BgpMessage['type']): Promise<BgpMessage> {
    await until(() => this.has(type) || this.closed, `a ${type} from the speaker`);
    const m = this.messages.find((x) => x.type === type);
    if (!m) throw new Error(`connection closed without a ${type}; got ${this.messages.map((x) => x.type)}`);
    return m;
  }

  /** The NOTIFICATION the speaker sent, once the connection closed. */
  async notification(): Promise<{ code: number; subcode: number; data: Uint8Array }> {
    await until(() => this.closed, 'the speaker to close the connection');
    const n = this.messages.find((m) => m.type === 'notification');
    if (n?.type !== 'notification')
      throw new Error(`no NOTIFICATION; got ${this.messages.map((x) => x.type)}`);
    return n;
  }

  destroy(): void {
    this.socket.destroy();
  }
}

/** Decoding what the speaker sends: its UPDATEs may use 4-octet AS paths and any length. */
const LENIENT = {
  update: { as4: true, addPathIpv4: false, addPathIpv6: false, ebgp: true },
  maxLength: 65535,
  enhancedRouteRefresh: true,
};

/** A header with any length and type, for malformed messages. */
export function header(length: number, type: number, marker = 0xff): Uint8Array {
  const b = new Uint8Array(HEADER_LENGTH);
  b.fill(marker, 0, 16);
  b[16] = length >>> 8;
  b[17] = length & 0xff;
  b[18] = type;
  return b;
}

export function concat(...parts: Uint8Array[]): Uint8Array {
  const out = new Uint8Array(parts.reduce((n, p) => n + p.length, 0));
  let at = 0;
  for (const p of parts) {
    out.set(p, at);
    at += p.length;
  }
  return out;
}

export { ErrorCode, MessageType };
