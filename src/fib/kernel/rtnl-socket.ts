import { createRequire } from 'node:module';
import type { RawNetlinkSocket } from 'netlink/dist/raw.js';
import { lastErrno } from '../../components/libc.js';
import { errnoName, NETLINK_ROUTE, SockOpt } from './constants.js';
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
  /** Multicast groups to join (RTNLGRP_* numbers). */
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
      raw.on('message', (msg) => guard(() => listener(msg)));
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

/** An exception thrown into the add-on's native callback aborts the process: never let one out. */
function guard(fn: () => void): void {
  try {
    fn();
  } catch (error) {
    // Last resort: the callers handle their own errors; this only keeps the process alive.
    process.emitWarning(`netlink listener threw: ${(error as Error).message}`);
  }
}
