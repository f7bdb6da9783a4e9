import { createRequire } from 'node:module';
import type { RawNetlinkSocket } from 'netlink/dist/raw.js';
import { lastErrno, libc } from '../../components/libc.js';
import {
  Errno,
  errnoName,
  MONITOR_READ_BUFFER,
  MONITOR_READS_PER_WAKE,
  MsgFlag,
  NETLINK_ROUTE,
  SockOpt,
} from './constants.js';
import { KernelError } from './errors.js';
import { dropMessagesFromPort, netlinkSocketFd, setIntOption, socketDrops } from './sockopt.js';

/** The add-on loads on first use: importing the fib layer must not need a native module. */
let addOn: typeof RawNetlinkSocket | undefined;
function rawSocketClass(): typeof RawNetlinkSocket {
  addOn ??= (
    createRequire(import.meta.url)('netlink/dist/raw.js') as { RawNetlinkSocket: typeof RawNetlinkSocket }
  ).RawNetlinkSocket;
  return addOn;
}

/** What a netlink socket error carries (the add-on's ErrnoException). */
export interface SocketError extends Error {
  readonly code?: string;
  readonly errno?: number;
}

/**
 * The narrow socket the client and the monitor use: one datagram per `send`, one per message
 * event. Unit tests pass a fake kernel behind this interface.
 */
export interface RtnlSocket {
  /** Our port id: the kernel stamps it on the notifications our requests cause. */
  readonly port: number;
  /** SO_RCVBUF as the kernel counts it (twice what was asked for). */
  readonly recvBuffer: number;
  /** Options that took effect, for status: "rcvbuf-force", "no-enobufs", "ext-ack", ... */
  readonly tuned: readonly string[];
  /** Messages the kernel dropped for want of room (sk_drops); undefined when it cannot be read. */
  drops(): number | undefined;
  send(datagram: Uint8Array, done: (error?: SocketError) => void): void;
  onMessage(listener: (datagram: Uint8Array) => void): void;
  onError(listener: (error: SocketError) => void): void;
  close(): void;
}

export interface RtnlSocketOptions {
  readonly recvBuffer: number;
  readonly sendBuffer: number;
  /**
   * Multicast groups to join (RTNLGRP_* numbers). A socket that joins any reads up to
   * MONITOR_READS_PER_WAKE queued notifications each time the event loop finds it readable.
   */
  readonly groups?: readonly number[];
  /** Drop, in the kernel, the messages stamped with this port id (our request socket's). */
  readonly dropFromPort?: number;
}

export type RtnlSocketFactory = (options: RtnlSocketOptions) => RtnlSocket;

/**
 * A NETLINK_ROUTE socket of the `netlink` add-on, in the calling thread's network namespace.
 *
 * Why an overrun aborts a process using the add-on: the kernel marks the socket with
 * sk_err = ENOBUFS, poll(2) then reports POLLERR, libuv hands that to the add-on's poll callback
 * as status UV_EBADF, and the add-on builds its ErrnoException with a NULL syscall name, which
 * makes napi_create_string_utf8 fail and node-addon-api throw a C++ Napi::Error out of a libuv
 * callback: std::terminate. No JS listener is ever reached. So every socket here sets
 * NETLINK_NO_ENOBUFS (an overrun then only drops messages and counts them in sk_drops, which
 * `drops()` reads) and callers learn of losses from that counter. The add-on also aborts when a
 * JS listener throws, so every listener we call is wrapped.
 *
 * Root also gets SO_RCVBUFFORCE/SO_SNDBUFFORCE (past net.core.rmem_max), NETLINK_CAP_ACK
 * (errors without the echoed request), NETLINK_EXT_ACK (the kernel's reason in words) and
 * NETLINK_GET_STRICT_CHK (dumps filtered by table and protocol in the kernel). `tuned` says
 * which took effect. The socket is unref'd: a pending request keeps the process alive through
 * its timer, an idle target does not.
 */
export const openRtnlSocket: RtnlSocketFactory = (options) => {
  let raw: RawNetlinkSocket;
  try {
    raw = new (rawSocketClass())(NETLINK_ROUTE, {
      recvBufferSize: options.recvBuffer,
      sendBufferSize: options.sendBuffer,
    });
  } catch (error) {
    const e = error as SocketError;
    throw new KernelError('socket', `cannot open a NETLINK_ROUTE socket: ${e.message}`, e.errno);
  }
  const errorListeners: ((e: SocketError) => void)[] = [];
  raw.on('error', (e) => {
    for (const l of errorListeners) guard(() => l(e));
  });
  raw.unref();
  const port = raw.address().port;
  const tuned: string[] = [];
  let fd: number | undefined;
  try {
    fd = netlinkSocketFd(port);
    if (fd !== undefined) {
      const sock = fd;
      const opt = (name: string, level: number, option: number, value: number) => {
        if (setIntOption(sock, level, option, value)) tuned.push(name);
      };
      opt('no-enobufs', SockOpt.SOL_NETLINK, SockOpt.NETLINK_NO_ENOBUFS, 1);
      opt('rcvbuf-force', SockOpt.SOL_SOCKET, SockOpt.SO_RCVBUFFORCE, options.recvBuffer);
      opt('sndbuf-force', SockOpt.SOL_SOCKET, SockOpt.SO_SNDBUFFORCE, options.sendBuffer);
      opt('cap-ack', SockOpt.SOL_NETLINK, SockOpt.NETLINK_CAP_ACK, 1);
      opt('ext-ack', SockOpt.SOL_NETLINK, SockOpt.NETLINK_EXT_ACK, 1);
      opt('strict-check', SockOpt.SOL_NETLINK, SockOpt.NETLINK_GET_STRICT_CHK, 1);
      if (options.dropFromPort !== undefined && dropMessagesFromPort(sock, options.dropFromPort))
        tuned.push('drop-own');
    }
    for (const g of options.groups ?? []) raw.addMembership(g);
  } catch (error) {
    raw.close();
    const e = error as SocketError;
    throw new KernelError(
      'socket',
      `cannot set up the netlink socket: ${e.message}${e.errno ? ` (${errnoName(lastErrno())})` : ''}`,
      e.errno,
    );
  }
  let closed = false;
  const listeners: ((datagram: Uint8Array) => void)[] = [];
  const deliver = (datagram: Uint8Array) => {
    for (const l of listeners) guard(() => l(datagram));
  };
  const fail = (e: SocketError) => {
    for (const l of errorListeners) guard(() => l(e));
  };
  const drain =
    fd !== undefined && (options.groups?.length ?? 0) > 0
      ? queueDrainer(fd, deliver, fail, () => !closed)
      : undefined;
  raw.on('message', (msg) => {
    deliver(msg);
    drain?.();
  });
  return {
    port,
    recvBuffer: raw.getRecvBufferSize(),
    tuned,
    drops: () => (fd === undefined || closed ? undefined : socketDrops(fd)),
    send: (datagram, done) => {
      try {
        raw.send(datagram, {}, (e) => guard(() => done(e)));
      } catch (error) {
        done(error as SocketError);
      }
    },
    onMessage: (listener) => {
      listeners.push(listener);
    },
    onError: (listener) => {
      errorListeners.push(listener);
    },
    close: () => {
      closed = true;
      raw.close();
    },
  };
};

/**
 * Reads what is queued on a notification socket, up to MONITOR_READS_PER_WAKE datagrams, with
 * recv(2) on its fd. The add-on reads at most 32 datagrams per poll callback and then returns
 * to the event loop; a burst of notifications (one per route) is then read only as fast as the
 * loop turns, which on a busy machine is slower than another process writes. Called after the
 * add-on delivered one, in the same callback: the add-on's next read finds the queue empty
 * (EAGAIN: the fd is non-blocking, as libuv's poll sets it) and returns.
 */
function queueDrainer(
  fd: number,
  deliver: (datagram: Uint8Array) => void,
  fail: (e: SocketError) => void,
  open: () => boolean,
): () => void {
  const buffer = Buffer.alloc(MONITOR_READ_BUFFER);
  const from = Buffer.alloc(NETLINK_SOCKADDR_LEN);
  const fromLen = [NETLINK_SOCKADDR_LEN];
  return () => {
    const c = libc();
    // A listener may close the socket: its fd number must not be read again.
    for (let i = 0; i < MONITOR_READS_PER_WAKE && open(); i++) {
      fromLen[0] = NETLINK_SOCKADDR_LEN;
      const n = Number(
        c.recvfrom(fd, buffer, buffer.length, MsgFlag.DONTWAIT | MsgFlag.TRUNC, from, fromLen),
      );
      if (n < 0) {
        // EAGAIN: the queue is empty. Any other error was taken off the socket by this read
        // (sock_error clears it), so it is reported here or never.
        const errno = lastErrno();
        if (errno !== Errno.EAGAIN && errno !== Errno.EINTR)
          fail(Object.assign(new Error(`recv: ${errnoName(errno)}`), { code: errnoName(errno), errno }));
        return;
      }
      if (n > buffer.length) {
        const e: SocketError = Object.assign(new Error(`a ${n}-byte notification was truncated`), {
          code: 'EMSGSIZE',
          errno: Errno.EMSGSIZE,
        });
        fail(e);
        continue;
      }
      // A copy: a listener may keep what it decodes past this call.
      deliver(new Uint8Array(buffer.subarray(0, n)));
    }
  };
}

/** sizeof(struct sockaddr_nl). */
const NETLINK_SOCKADDR_LEN = 12;

/** An exception thrown into the add-on's native callback aborts the process: never let one out. */
function guard(fn: () => void): void {
  try {
    fn();
  } catch (error) {
    // Last resort: the callers handle their own errors; this only keeps the process alive.
    process.emitWarning(`netlink listener threw: ${(error as Error).message}`);
  }
}
