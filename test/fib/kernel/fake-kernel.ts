/**
 * A kernel behind RtnlSocket for unit tests: a FIB keyed as Linux keys it (table, prefix,
 * metric), NLM_F_CREATE/EXCL/REPLACE and protocol-filtered deletes as fib_table_insert and
 * fib_table_delete treat them, errors always answered and ACKs when asked, strict-check dumps
 * split over datagrams, fibmatch lookups over configured routes, and notifications to every
 * socket in a route group, stamped with the requester's port. Built on the codec under test,
 * which codec.test.ts checks against iproute2's bytes.
 */

import { AF } from '../../../src/bgp/transport/index.js';
import {
  decodeRoute,
  Errno,
  IP6_RT_PRIO_USER,
  type KernelRoute,
  NlmFlag,
  NlmsgType,
  NlView,
  NlWriter,
  Rta,
  type RtnlSocket,
  type RtnlSocketFactory,
  type RtnlSocketOptions,
  type SocketError,
  splitMessages,
  writeAck,
  writeNewRoute,
} from '../../../src/fib/kernel/index.js';
import { parsePrefix, type RibPrefix } from '../../../src/rib/index.js';

interface FakeSocket extends RtnlSocket {
  dropCount: number;
  readonly groups: readonly number[];
  readonly dropFromPort?: number;
  deliver(datagram: Uint8Array): void;
  fail(error: SocketError): void;
  closed: boolean;
}

/** A route the fake can answer a fibmatch lookup with: connected (no gateway) or via a gateway. */
export interface LookupRoute {
  readonly prefix: string;
  readonly gateway?: string;
  readonly ifindex: number;
  readonly protocol?: number;
  readonly type?: number;
  readonly table?: number;
}

const EXTERNAL_PID = 4242;

export class FakeKernel {
  /** `${table}|${prefix}|${priority}` → route. */
  readonly fib = new Map<string, KernelRoute>();
  readonly sockets: FakeSocket[] = [];
  /** Routes lookups consult (longest prefix wins), beside our own routes in the FIB. */
  readonly lookupRoutes: LookupRoute[] = [
    { prefix: '198.18.40.0/24', ifindex: 3, protocol: 2 },
    { prefix: '2001:db8:40::/64', ifindex: 3, protocol: 2 },
  ];
  /** Requests seen, by type, for assertions on batching. */
  readonly writes: { messages: number; acked: number }[] = [];
  /** RTM_NEWROUTE and RTM_DELROUTE requests handled: what a no-op reconcile must not add to. */
  routeRequests = 0;
  /** When set, requests are taken but never answered (a hung kernel). */
  silent = false;
  /** Routes per dump datagram. */
  dumpChunk = 3;
  /** Effective SO_RCVBUF every socket reports. */
  recvBuffer = 8 << 20;
  /** Whether sockets take NETLINK_NO_ENOBUFS (false: as if the fd could not be found). */
  noEnobufs = true;
  /** Drops BPF-filtered messages like the kernel would with "drop-own"; false: the fake cannot filter. */
  filters = true;
  #nextPort = 1000;

  factory: RtnlSocketFactory = (o: RtnlSocketOptions) => this.#open(o);

  #open(o: RtnlSocketOptions): FakeSocket {
    const messageListeners: ((d: Uint8Array) => void)[] = [];
    const errorListeners: ((e: SocketError) => void)[] = [];
    const port = this.#nextPort++;
    const kernel = this;
    const s: FakeSocket = {
      port,
      recvBuffer: this.recvBuffer,
      tuned: [
        ...(this.noEnobufs ? ['no-enobufs'] : []),
        ...(o.dropFromPort !== undefined && this.filters ? ['drop-own'] : []),
      ],
      dropCount: 0,
      drops: () => s.dropCount,
      groups: o.groups ?? [],
      ...(o.dropFromPort !== undefined && { dropFromPort: o.dropFromPort }),
      closed: false,
      send(datagram, done) {
        if (s.closed) return done({ name: 'Error', message: 'closed', code: 'EBADF' });
        queueMicrotask(() => done());
        kernel.#handle(s, datagram);
      },
      onMessage: (l) => {
        messageListeners.push(l);
      },
      onError: (l) => {
        errorListeners.push(l);
      },
      close() {
        s.closed = true;
      },
      deliver(d) {
        if (s.closed) return;
        setImmediate(() => {
          if (!s.closed) for (const l of messageListeners) l(d);
        });
      },
      fail(e) {
        setImmediate(() => {
          for (const l of errorListeners) l(e);
        });
      },
    };
    this.sockets.push(s);
    return s;
  }

  /** Our routes: those of `protocol` in `table`, as "prefix via a,b" lines, sorted. */
  show(table = 254, protocol = 186): string[] {
    return [...this.fib.values()]
      .filter((r) => r.table === table && r.protocol === protocol)
      .map(
        (r) =>
          `${r.prefix} metric ${r.priority} via ${r.nexthops.map((n) => `${n.gateway}@${n.ifindex}`).join(',')}`,
      )
      .sort();
  }

  /** A route someone else adds (ip route add), notified to the monitors with another port. */
  externalAdd(route: KernelRoute, flags = NlmFlag.CREATE | NlmFlag.EXCL): void {
    const key = fibKey(route.table, route.prefix, route.priority);
    if (this.fib.has(key) && !(flags & NlmFlag.REPLACE)) throw new Error(`fake: ${key} exists`);
    this.fib.set(key, route);
    this.#notify(NlmsgType.NEWROUTE, route, flags & NlmFlag.REPLACE, EXTERNAL_PID);
  }

  externalDelete(table: number, prefix: string, priority: number): KernelRoute {
    const key = fibKey(table, parsePrefix(prefix), priority);
    const r = this.fib.get(key);
    if (!r) throw new Error(`fake: no ${key}`);
    this.fib.delete(key);
    this.#notify(NlmsgType.DELROUTE, r, 0, EXTERNAL_PID);
    return r;
  }

  /** A route put in the FIB with no notification: one a monitor lost (then `overrunMonitors`). */
  addQuietly(route: KernelRoute): void {
    this.fib.set(fibKey(route.table, route.prefix, route.priority), route);
  }

  /** A route taken out of the FIB with no notification: one a monitor lost. */
  deleteQuietly(table: number, prefix: string, priority: number): void {
    if (!this.fib.delete(fibKey(table, parsePrefix(prefix), priority))) throw new Error(`fake: no ${prefix}`);
  }

  /** One next hop of a multipath route deleted (IPv6 does it so): the route stays with the others. */
  externalDeleteNexthop(table: number, prefix: string, priority: number, gateway: string): void {
    const key = fibKey(table, parsePrefix(prefix), priority);
    const r = this.fib.get(key);
    const hop = r?.nexthops.find((n) => n.gateway === gateway);
    if (!r || !hop || r.nexthops.length < 2) throw new Error(`fake: no multipath ${key} via ${gateway}`);
    this.fib.set(key, { ...r, nexthops: r.nexthops.filter((n) => n !== hop) });
    this.#notify(NlmsgType.DELROUTE, { ...r, nexthops: [hop] }, 0, EXTERNAL_PID);
  }

  /** A datagram as it is, to every socket in a route group (a notification the codec would not write). */
  notifyRaw(datagram: Uint8Array): void {
    for (const s of this.sockets) if (s.groups.length > 0) s.deliver(datagram);
  }

  /** Notifications dropped on every socket in a route group (the monitor), as NO_ENOBUFS counts them. */
  overrunMonitors(dropped = 10): void {
    for (const s of this.sockets) if (s.groups.length > 0) s.dropCount += dropped;
  }

  #handle(s: FakeSocket, datagram: Uint8Array): void {
    const v = new NlView(datagram);
    const out = new NlWriter(256);
    let messages = 0;
    let acked = 0;
    splitMessages(v, (m) => {
      messages++;
      if (m.flags & NlmFlag.ACK) acked++;
      if (this.silent) return;
      const reply = (errno: number, detail?: string) => {
        if (errno !== 0 || m.flags & NlmFlag.ACK) writeAck(out, { ...m, pid: s.port }, errno, detail);
      };
      if (m.type === NlmsgType.GETROUTE && (m.flags & NlmFlag.DUMP) === NlmFlag.DUMP) {
        this.#dump(s, v, m.body, m.end, m.seq);
        return;
      }
      if (m.type === NlmsgType.GETROUTE) {
        const r = decodeRoute(v, m);
        const hit = this.#lookup(r.prefix);
        if ('errno' in hit) reply(hit.errno);
        else writeNewRoute(out, hit, { flags: 0, seq: m.seq });
        return;
      }
      const r = decodeRoute(v, m);
      this.routeRequests++;
      const priority = r.priority === 0 && r.prefix.afi === 2 ? IP6_RT_PRIO_USER : r.priority;
      const key = fibKey(r.table, r.prefix, priority);
      if (m.type === NlmsgType.NEWROUTE) {
        const bad = r.nexthops.find((n) => !this.#reachable(n.gateway ?? ''));
        if (bad) return reply(Errno.ENETUNREACH, 'Nexthop has invalid gateway');
        const have = this.fib.get(key);
        if (have && (m.flags & NlmFlag.EXCL || !(m.flags & NlmFlag.REPLACE))) return reply(Errno.EEXIST);
        if (!have && !(m.flags & NlmFlag.CREATE)) return reply(Errno.ENOENT);
        const stored = { ...r, priority };
        this.fib.set(key, stored);
        this.#notify(NlmsgType.NEWROUTE, stored, have ? NlmFlag.REPLACE : 0, s.port);
        return reply(0);
      }
      if (m.type === NlmsgType.DELROUTE) {
        const have = this.fib.get(key);
        if (!have || (r.protocol !== 0 && have.protocol !== r.protocol)) return reply(Errno.ESRCH);
        this.fib.delete(key);
        this.#notify(NlmsgType.DELROUTE, have, 0, s.port);
        return reply(0);
      }
      reply(Errno.EOPNOTSUPP);
    });
    this.writes.push({ messages, acked });
    // Each answer is its own datagram, as the kernel queues one skb per answer.
    const bytes = out.finish();
    const v2 = new NlView(bytes);
    splitMessages(v2, (m) => s.deliver(bytes.slice(m.body - 16, m.end)));
  }

  #dump(s: FakeSocket, v: NlView, body: number, end: number, seq: number): void {
    const family = v.u8(body);
    const protocol = v.u8(body + 5);
    let table = 0;
    for (let off = body + 12; off + 4 <= end; off += (v.u16(off) + 3) & ~3)
      if (v.u16(off + 2) === Rta.TABLE) table = v.u32(off + 4);
    const routes = [...this.fib.values()].filter(
      (r) =>
        (family === AF.INET ? r.prefix.afi === 1 : r.prefix.afi === 2) &&
        (table === 0 || r.table === table) &&
        (protocol === 0 || r.protocol === protocol),
    );
    for (let i = 0; i < routes.length || i === 0; i += this.dumpChunk) {
      const w = new NlWriter(256);
      for (const r of routes.slice(i, i + this.dumpChunk)) writeNewRoute(w, r, { flags: NlmFlag.MULTI, seq });
      if (i + this.dumpChunk >= routes.length) {
        const d = w.begin(NlmsgType.DONE, NlmFlag.MULTI, seq);
        w.i32(0);
        w.end(d);
      }
      s.deliver(w.finish());
      if (routes.length === 0) break;
    }
  }

  #lookup(p: RibPrefix): KernelRoute | { errno: number } {
    let best: LookupRoute | undefined;
    for (const l of this.lookupRoutes) {
      const lp = parsePrefix(l.prefix);
      if (lp.afi !== p.afi || lp.len > p.len) continue;
      if (!parsePrefix(`${p.addr}/${lp.len}`).equals(lp)) continue;
      if (!best || lp.len > parsePrefix(best.prefix).len) best = l;
    }
    if (!best) return { errno: Errno.ENETUNREACH };
    return {
      prefix: parsePrefix(best.prefix),
      table: best.table ?? 254,
      protocol: best.protocol ?? 4,
      scope: best.gateway ? 0 : 253,
      type: best.type ?? 1,
      flags: 0,
      priority: 0,
      nexthops: [
        best.gateway
          ? { gateway: best.gateway, ifindex: best.ifindex, weight: 1, flags: 0 }
          : { ifindex: best.ifindex, weight: 1, flags: 0 },
      ],
    };
  }

  #reachable(gateway: string): boolean {
    const hit = this.#lookup(parsePrefix(`${gateway}/${gateway.includes(':') ? 128 : 32}`));
    return !('errno' in hit) && hit.nexthops[0]?.gateway === undefined;
  }

  #notify(type: number, r: KernelRoute, flags: number, pid: number): void {
    const w = new NlWriter(128);
    writeNewRoute(w, r, { flags, seq: 0 });
    const bytes = w.finish();
    // The writer wrote NEWROUTE and pid 0: set the type and the requester's port as the kernel does.
    const dv = new DataView(bytes.buffer);
    dv.setUint16(4, type, true);
    dv.setUint32(12, pid, true);
    for (const s of this.sockets) {
      if (s.groups.length === 0 || s.closed) continue;
      if (this.filters && s.dropFromPort === pid) continue;
      s.deliver(bytes);
    }
  }
}

function fibKey(table: number, prefix: RibPrefix, priority: number): string {
  return `${table}|${prefix}|${priority}`;
}

/** Lets the fake's setImmediate deliveries and the target's promise chains run. */
export async function settle(rounds = 5): Promise<void> {
  for (let i = 0; i < rounds; i++) await new Promise((r) => setImmediate(r));
}
