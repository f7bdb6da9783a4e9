import type { IpAddress } from './address.js';
import { AF, SocketType } from './constants.js';
import { sysBind, sysClose, sysSocket } from './libc.js';
import { encodeSockaddr } from './sockaddr.js';

/** A new, unbound, blocking TCP socket of the family of `ip`; node makes it non-blocking on adoption. */
export function openTcpFd(ip: IpAddress): number {
  const domain = ip.family === 4 ? AF.INET : AF.INET6;
  return sysSocket(domain, SocketType.SOCK_STREAM | SocketType.SOCK_CLOEXEC);
}

/** bind(2) to ip:port; `text` is the address as the caller spelled it, for errors. */
export function bindFd(fd: number, ip: IpAddress, port: number, text: string): void {
  sysBind(fd, encodeSockaddr(ip, port), text, port);
}

/**
 * Runs `setup` on a fresh fd and returns what it returns; if it throws, the fd is closed
 * first, so a failed setup never leaks a descriptor. `setup` must hand the fd to an owner
 * (node) only as its last step.
 */
export function withNewFd<T>(ip: IpAddress, setup: (fd: number) => T): T {
  const fd = openTcpFd(ip);
  try {
    return setup(fd);
  } catch (error) {
    sysClose(fd);
    throw error;
  }
}
