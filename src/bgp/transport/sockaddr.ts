import { endianness } from 'node:os';
import type { IpAddress } from './address.js';
import { AF, SockaddrLayout } from './constants.js';

/** Fields the kernel reads in host byte order (sa_family, tcpm_keylen, ifindex, scope_id). */
export const HOST_LITTLE_ENDIAN = endianness() === 'LE';

/**
 * Writes a struct sockaddr_in (IPv4) or sockaddr_in6 (IPv6) for `ip` and `port` at `offset`
 * (the buffer must be zeroed there) and returns how many bytes the struct takes.
 * Layouts: see SockaddrLayout.
 */
export function writeSockaddr(buf: Buffer, offset: number, ip: IpAddress, port = 0): number {
  const view = new DataView(buf.buffer, buf.byteOffset, buf.byteLength);
  if (ip.family === 4) {
    view.setUint16(offset + SockaddrLayout.FAMILY, AF.INET, HOST_LITTLE_ENDIAN);
    view.setUint16(offset + SockaddrLayout.PORT, port, false);
    buf.set(ip.bytes, offset + SockaddrLayout.IN_ADDR);
    return SockaddrLayout.IN_SIZE;
  }
  view.setUint16(offset + SockaddrLayout.FAMILY, AF.INET6, HOST_LITTLE_ENDIAN);
  view.setUint16(offset + SockaddrLayout.PORT, port, false);
  buf.set(ip.bytes, offset + SockaddrLayout.IN6_ADDR); // flowinfo and scope_id stay 0
  return SockaddrLayout.IN6_SIZE;
}

/** A fresh sockaddr for bind(): the bytes and the length to pass. */
export function encodeSockaddr(ip: IpAddress, port = 0): Buffer {
  const buf = Buffer.alloc(ip.family === 4 ? SockaddrLayout.IN_SIZE : SockaddrLayout.IN6_SIZE);
  writeSockaddr(buf, 0, ip, port);
  return buf;
}
