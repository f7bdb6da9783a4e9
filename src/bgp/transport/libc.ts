import { lastErrno, libc } from '../../components/libc.js';
import { errnoName, TransportError } from './errors.js';

/*
 * The few libc calls node:net does not offer: creating, binding and tuning a socket before
 * node adopts it. Every wrapper throws a TransportError carrying the errno name.
 */

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
  const errno = lastErrno();
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
  const fd = libc().socket(domain, type, protocol);
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
  if (libc().setsockopt(fd, level, optname, value, value.length) < 0) fail(context);
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
  if (libc().getsockopt(fd, level, optname, value, length) < 0) fail({ syscall });
  return value.subarray(0, length[0]);
}

/** bind(2) to an encoded sockaddr; address and port only name it in errors. */
export function sysBind(fd: number, sockaddr: Buffer, address: string, port: number): void {
  if (libc().bind(fd, sockaddr, sockaddr.length) < 0) {
    fail({ syscall: 'bind', address, target: port === 0 ? address : `${address} port ${port}` });
  }
}

/** close(2), for fds node has not adopted yet; errors are ignored (the fd is gone either way). */
export function sysClose(fd: number): void {
  libc().close(fd);
}
