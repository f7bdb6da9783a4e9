import koffi from 'koffi';
import { errnoName, TransportError } from './errors.js';

/**
 * The few libc calls node:net does not offer: creating, binding and tuning a socket before
 * node adopts it. Every wrapper throws a TransportError carrying the errno name.
 * Bindings load on first use, so importing this module costs nothing.
 */
interface Libc {
  readonly socket: (domain: number, type: number, protocol: number) => number;
  readonly setsockopt: (fd: number, level: number, optname: number, optval: Buffer, optlen: number) => number;
  readonly getsockopt: (
    fd: number,
    level: number,
    optname: number,
    optval: Buffer,
    optlen: number[],
  ) => number;
  readonly bind: (fd: number, addr: Buffer, addrlen: number) => number;
  readonly close: (fd: number) => number;
}

let libc: Libc | undefined;

function load(): Libc {
  if (libc) return libc;
  const lib = koffi.load('libc.so.6');
  libc = {
    socket: lib.func('int socket(int domain, int type, int protocol)'),
    setsockopt: lib.func(
      'int setsockopt(int fd, int level, int optname, const void *optval, uint32_t optlen)',
    ),
    getsockopt: lib.func(
      'int getsockopt(int fd, int level, int optname, _Out_ void *optval, _Inout_ uint32_t *optlen)',
    ),
    bind: lib.func('int bind(int fd, const void *addr, uint32_t addrlen)'),
    close: lib.func('int close(int fd)'),
  };
  return libc;
}

/** What a failed call was about, for the error it throws. */
export interface CallContext {
  /** The libc call, e.g. 'setsockopt(TCP_MD5SIG)'. */
  readonly syscall: string;
  /** The peer or local address concerned, as the caller spelled it. */
  readonly address?: string;
  /** How to name the target in the message when it says more than the address. */
  readonly target?: string;
  /** What we were doing, e.g. 'removing key'. */
  readonly doing?: string;
}

function fail(context: CallContext): never {
  const errno = koffi.errno();
  const code = errnoName(errno);
  const target = context.target ?? context.address;
  const about = target === undefined ? '' : ` for ${target}`;
  const doing = context.doing ? ` (${context.doing})` : '';
  throw new TransportError('syscall', `${context.syscall}${about} failed: ${code}${doing}`, {
    code,
    errno,
    syscall: context.syscall,
    address: context.address,
  });
}

/** socket(2); returns the new fd. */
export function sysSocket(domain: number, type: number, protocol = 0): number {
  const fd = load().socket(domain, type, protocol);
  if (fd < 0) fail({ syscall: 'socket' });
  return fd;
}

/** setsockopt(2) with raw option bytes. */
export function sysSetsockopt(
  fd: number,
  level: number,
  optname: number,
  value: Buffer,
  context: CallContext,
): void {
  if (load().setsockopt(fd, level, optname, value, value.length) < 0) fail(context);
}

/** getsockopt(2) into a buffer of `size` bytes; returns the bytes the kernel wrote. */
export function sysGetsockopt(
  fd: number,
  level: number,
  optname: number,
  size: number,
  syscall: string,
): Buffer {
  const value = Buffer.alloc(size);
  const length = [size];
  if (load().getsockopt(fd, level, optname, value, length) < 0) fail({ syscall });
  return value.subarray(0, length[0]);
}

/** bind(2) to an encoded sockaddr; address and port only name it in errors. */
export function sysBind(fd: number, sockaddr: Buffer, address: string, port: number): void {
  if (load().bind(fd, sockaddr, sockaddr.length) < 0) {
    fail({ syscall: 'bind', address, target: port === 0 ? address : `${address} port ${port}` });
  }
}

/** close(2), for fds node has not adopted yet; errors are ignored (the fd is gone either way). */
export function sysClose(fd: number): void {
  load().close(fd);
}
