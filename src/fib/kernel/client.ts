import type { AfNumber } from '../../bgp/transport/index.js';
import { type Clock, systemScheduler, type TimerHandle } from '../../components/index.js';
import { Errno, errnoName, NlmFlag, NlmsgType } from './constants.js';
import { decodeAck, decodeDone } from './control.js';
import { KernelError, rejectionText } from './errors.js';
import { type NlMessage, NlView, NlWriter, splitMessages } from './nl-buffer.js';
import { decodeRoute, type KernelRoute, writeDumpRoutes, writeGetRoute } from './route-message.js';
import type { RtnlSocket, SocketError } from './rtnl-socket.js';

/** A request the kernel refused: its index in the `send` call and the reason. */
export interface RequestFailure {
  readonly index: number;
  readonly errno: number;
  readonly detail?: string;
}

export interface RtnlClientInit {
  /** Requests per write. */
  readonly batch: number;
  /** Requests written and not yet answered, at most; lowered to what the receive buffer holds. */
  readonly maxInFlight: number;
  /** Kernel memory one queued answer costs against SO_RCVBUF. */
  readonly responseTruesize: number;
  readonly requestTimeoutMs: number;
  /** A write is closed at this many bytes (netlink refuses a datagram over SO_SNDBUF). */
  readonly maxWriteBytes?: number;
}

/** The socket is unref'd (an idle target must not hold the process): a pending request does, through its timer. */
const REQUEST_TIMER = { keepAlive: true } as const;

/** Encodes request `i` with sequence number `seq`; `ack` is NLM_F_ACK on the last of a write, else 0. */
export type EncodeRequest = (w: NlWriter, i: number, seq: number, ack: number) => void;

interface Pending {
  /** Sequence numbers [first, first + count). */
  readonly first: number;
  readonly count: number;
  /** Index of the first request in its `send` call. */
  readonly base: number;
  readonly kind: 'write' | 'dump' | 'lookup';
  readonly failures: RequestFailure[];
  onRoute?: (route: KernelRoute) => void;
  resolve: () => void;
  reject: (e: KernelError) => void;
  timer: TimerHandle;
}

/**
 * Requests and answers over one rtnetlink socket.
 *
 * Route writes go `batch` to a datagram; only the last of each asks for an ACK. The kernel
 * handles a datagram's messages in order and answers every failed one with an NLMSG_ERROR
 * whether or not it asked, so when the last one's answer arrives every failure before it has
 * too, each carrying its request's sequence number. One ACK per write instead of one per route
 * is what makes this fast: the kernel queues each answer as its own skb, and reading it back
 * costs the add-on two syscalls and a JS callback.
 *
 * No answer may be lost: every write can bring up to one answer per message, so at most
 * SO_RCVBUF / truesize messages are unanswered at once (ENOBUFS otherwise, and the routes'
 * outcomes would be unknown). If it happens anyway, every pending request fails with `overrun`.
 */
export class RtnlClient {
  readonly #socket: RtnlSocket;
  readonly #clock: Clock;
  readonly #batch: number;
  readonly #maxInFlight: number;
  readonly #timeoutMs: number;
  readonly #maxWriteBytes: number;
  #seq = 1;
  #drops = 0;
  #inFlight = 0;
  #pending: Pending[] = [];
  #windowWaiters: (() => void)[] = [];
  #dumpChain: Promise<void> = Promise.resolve();
  #closed = false;
  #overrunListeners: ((e: KernelError) => void)[] = [];
  /** Answers with no pending request (late ones after a timeout): counted for status. */
  strays = 0;

  constructor(socket: RtnlSocket, init: RtnlClientInit, clock: Clock = systemScheduler) {
    this.#socket = socket;
    this.#clock = clock;
    this.#maxInFlight = Math.max(
      1,
      Math.min(init.maxInFlight, Math.floor(socket.recvBuffer / init.responseTruesize)),
    );
    this.#batch = Math.max(1, Math.min(init.batch, this.#maxInFlight));
    this.#timeoutMs = init.requestTimeoutMs;
    this.#maxWriteBytes = init.maxWriteBytes ?? 1 << 20;
    this.#drops = socket.drops() ?? 0;
    socket.onMessage((d) => this.#onDatagram(d));
    socket.onError((e) => this.#onSocketError(e));
  }

  get port(): number {
    return this.#socket.port;
  }

  /** Socket options that took effect. */
  get tuned(): readonly string[] {
    return this.#socket.tuned;
  }

  /** The effective window: requests per write and unanswered at once. */
  get window(): { readonly batch: number; readonly maxInFlight: number } {
    return { batch: this.#batch, maxInFlight: this.#maxInFlight };
  }

  /** Called when the socket lost answers (ENOBUFS): what the kernel did is then unknown. */
  onOverrun(listener: (e: KernelError) => void): void {
    this.#overrunListeners.push(listener);
  }

  /**
   * Sends `count` requests and resolves with those the kernel refused, by index. Rejects (and
   * sends nothing more) when the socket fails, an answer is lost or one does not come in time.
   */
  async send(count: number, encode: EncodeRequest): Promise<RequestFailure[]> {
    const writes: Promise<void>[] = [];
    const failures: RequestFailure[] = [];
    let failed: KernelError | undefined;
    let i = 0;
    while (i < count && failed === undefined) {
      await this.#room(Math.min(this.#batch, count - i));
      if (failed !== undefined) break;
      this.#checkOpen();
      const w = new NlWriter(Math.min(this.#maxWriteBytes, (count - i) * 128));
      const first = this.#seq;
      const base = i;
      let n = 0;
      while (i < count && n < this.#batch && w.pos < this.#maxWriteBytes) {
        const last = i === count - 1 || n === this.#batch - 1;
        encode(w, i, this.#nextSeq(), last ? NlmFlag.ACK : 0);
        i++;
        n++;
      }
      // The loop may stop on bytes, after a message written without ACK: end with one that has it.
      if (!isAckedLast(w)) setAckOnLast(w);
      const p = this.#register('write', first, n, base, failures);
      writes.push(
        p.catch((e: KernelError) => {
          failed ??= e;
        }),
      );
      this.#write(w.finish(), first);
    }
    await Promise.all(writes);
    if (failed !== undefined) throw failed;
    return failures.sort((a, b) => a.index - b.index);
  }

  /** Every route of `family` the kernel sends for the filter (strict check) or all of them (without). */
  dump(
    family: AfNumber,
    filter: { readonly table: number; readonly protocol: number },
    onRoute: (route: KernelRoute) => void,
  ): Promise<void> {
    // One dump at a time per socket: the kernel answers a second one with EBUSY.
    const run = this.#dumpChain.then(() => {
      this.#checkOpen();
      const w = new NlWriter(64);
      const seq = this.#nextSeq();
      writeDumpRoutes(w, family, filter, seq);
      const done = this.#register('dump', seq, 1, 0, [], onRoute);
      this.#write(w.finish(), seq);
      return done;
    });
    this.#dumpChain = run.catch(() => {});
    return run;
  }

  /**
   * The FIB entry a lookup of `address` hits (RTM_GETROUTE with RTM_F_FIB_MATCH), or the errno
   * when there is none (ENETUNREACH).
   */
  async lookup(address: string): Promise<KernelRoute | RequestFailure> {
    this.#checkOpen();
    const w = new NlWriter(64);
    const seq = this.#nextSeq();
    writeGetRoute(w, address, { seq, fibMatch: true });
    let found: KernelRoute | undefined;
    const failures: RequestFailure[] = [];
    const done = this.#register('lookup', seq, 1, 0, failures, (r) => {
      found = r;
    });
    this.#write(w.finish(), seq);
    await done;
    return found ?? failures[0] ?? { index: 0, errno: Errno.ENETUNREACH };
  }

  close(): void {
    if (this.#closed) return;
    this.#closed = true;
    this.#failAll(new KernelError('closed', 'the netlink socket was closed'));
    this.#socket.close();
  }

  #checkOpen(): void {
    if (this.#closed) throw new KernelError('closed', 'the netlink socket is closed');
  }

  #nextSeq(): number {
    const s = this.#seq;
    this.#seq = this.#seq >= 0xffffffff ? 1 : this.#seq + 1;
    return s;
  }

  async #room(n: number): Promise<void> {
    while (this.#inFlight > 0 && this.#inFlight + n > this.#maxInFlight && !this.#closed)
      await new Promise<void>((resolve) => this.#windowWaiters.push(resolve));
  }

  #register(
    kind: Pending['kind'],
    first: number,
    count: number,
    base: number,
    failures: RequestFailure[],
    onRoute?: (route: KernelRoute) => void,
  ): Promise<void> {
    return new Promise<void>((resolve, reject) => {
      const p: Pending = { first, count, base, kind, failures, onRoute, resolve, reject, timer: undefined };
      p.timer = this.#clock.setTimeout(() => this.#timedOut(p), this.#timeoutMs, REQUEST_TIMER);
      this.#pending.push(p);
      this.#inFlight += count;
    });
  }

  #timedOut(p: Pending): void {
    const drops = this.#socket.drops();
    if (drops !== undefined && drops > this.#drops) {
      // The answer was dropped for want of room (NETLINK_NO_ENOBUFS turns ENOBUFS into drops).
      this.#drops = drops;
      this.#lost(
        new KernelError('overrun', `the kernel dropped ${drops} answers on our socket`, Errno.ENOBUFS),
      );
      return;
    }
    this.#settle(
      p,
      new KernelError(
        'timeout',
        `no answer to ${p.kind} seq ${p.first + p.count - 1} in ${this.#timeoutMs} ms`,
      ),
    );
  }

  #write(datagram: Uint8Array, first: number): void {
    this.#socket.send(datagram, (e) => {
      if (!e) return;
      const p = this.#pending.find((x) => x.first === first);
      if (p) this.#settle(p, socketFailure('sendmsg', e));
    });
  }

  #settle(p: Pending, error?: KernelError): void {
    const at = this.#pending.indexOf(p);
    if (at < 0) return;
    this.#pending.splice(at, 1);
    this.#inFlight -= p.count;
    this.#clock.clearTimeout(p.timer);
    if (error) p.reject(error);
    else p.resolve();
    for (const w of this.#windowWaiters.splice(0)) w();
  }

  #find(seq: number): Pending | undefined {
    for (const p of this.#pending) if ((seq - p.first) >>> 0 < p.count) return p;
    return undefined;
  }

  #onDatagram(datagram: Uint8Array): void {
    const v = new NlView(datagram);
    try {
      splitMessages(v, (m) => this.#onMessage(v, m));
    } catch (error) {
      // A datagram we cannot parse: its answers are lost to us, as with an overrun.
      this.#lost(error instanceof KernelError ? error : new KernelError('malformed', String(error)));
    }
  }

  #onMessage(v: NlView, m: NlMessage): void {
    const p = this.#find(m.seq);
    if (!p) {
      this.strays++;
      return;
    }
    switch (m.type) {
      case NlmsgType.ERROR: {
        const ack = decodeAck(v, m);
        const last = (m.seq - p.first) >>> 0 === p.count - 1;
        if (ack.errno !== 0) {
          const f = {
            index: p.base + ((m.seq - p.first) >>> 0),
            errno: ack.errno,
            ...(ack.detail !== undefined && { detail: ack.detail }),
          };
          if (p.kind === 'dump') {
            this.#settle(
              p,
              new KernelError('rejected', `dump: ${rejectionText(f.errno, f.detail)}`, f.errno, f.detail),
            );
            return;
          }
          p.failures.push(f);
        }
        if (last) this.#settle(p);
        return;
      }
      case NlmsgType.DONE: {
        // A strict-check dump of a table that does not exist (yet) ends with ENOENT: it is empty.
        const errno = decodeDone(v, m) === Errno.ENOENT ? 0 : decodeDone(v, m);
        this.#settle(
          p,
          errno ? new KernelError('rejected', `dump ended with ${errnoName(errno)}`, errno) : undefined,
        );
        return;
      }
      case NlmsgType.NEWROUTE:
        if (p.onRoute) p.onRoute(decodeRoute(v, m));
        if (p.kind === 'lookup') this.#settle(p);
        return;
      default:
        this.strays++;
    }
  }

  #onSocketError(e: SocketError): void {
    if (e.code === 'ENOBUFS' || e.errno === Errno.ENOBUFS)
      this.#lost(
        new KernelError('overrun', 'the netlink receive queue overflowed: answers were lost', Errno.ENOBUFS),
      );
    else this.#lost(socketFailure('recvmsg', e));
  }

  #lost(error: KernelError): void {
    this.#failAll(error);
    for (const l of this.#overrunListeners) l(error);
  }

  #failAll(error: KernelError): void {
    for (const p of [...this.#pending]) this.#settle(p, error);
  }
}

function socketFailure(call: string, e: SocketError): KernelError {
  return new KernelError('socket', `${call}: ${e.code ?? e.message}`, e.errno);
}

/* The write loop may stop on size after a message written without ACK: patch its flags. */
function isAckedLast(w: NlWriter): boolean {
  return (w.lastFlags() & NlmFlag.ACK) !== 0;
}

function setAckOnLast(w: NlWriter): void {
  w.setLastFlags(w.lastFlags() | NlmFlag.ACK);
}
