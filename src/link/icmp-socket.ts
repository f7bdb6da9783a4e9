import { endianness, constants as osConstants } from 'node:os';
import { lastErrno, libc } from '../components/libc.js';
import { Linux } from './constants.js';
import { LinkError } from './errors.js';

/*
 * A raw ICMPv6 socket bound to one interface, through libc (node has no raw sockets). It is
 * non-blocking and read by polling: node cannot watch a raw fd. The kernel fills in and checks
 * ICMPv6 checksums on such a socket (RFC 3542 3.1).
 */

const LE = endianness() === 'LE';

function errnoName(errno: number): string {
  for (const [name, n] of Object.entries(osConstants.errno)) if (n === errno) return name;
  return `errno ${errno}`;
}

function fail(call: string, ifname: string): never {
  const code = errnoName(lastErrno());
  throw new LinkError('syscall', `${call} on ${ifname} failed: ${code}`, code);
}

function intBytes(value: number): Buffer {
  const b = Buffer.alloc(4);
  if (LE) b.writeInt32LE(value);
  else b.writeInt32BE(value);
  return b;
}

/** struct icmp6_filter passing only `types` (a set bit blocks a type, ICMP6_FILTER_SETBLOCKALL + SETPASS). */
export function icmp6Filter(types: readonly number[]): Buffer {
  const words = new Uint32Array(8).fill(0xffffffff);
  for (const t of types) words[t >>> 5] &= ~(1 << (t & 31));
  const b = Buffer.alloc(32);
  for (let i = 0; i < words.length; i++) {
    if (LE) b.writeUInt32LE(words[i], i * 4);
    else b.writeUInt32BE(words[i], i * 4);
  }
  return b;
}

/** struct sockaddr_in6 for an address on the interface `scopeId`. */
export function sockaddrIn6(address: Uint8Array, scopeId: number): Buffer {
  const b = Buffer.alloc(Linux.SOCKADDR_IN6_BYTES);
  if (LE) b.writeUInt16LE(Linux.AF_INET6, 0);
  else b.writeUInt16BE(Linux.AF_INET6, 0);
  b.set(address, 8);
  if (LE) b.writeUInt32LE(scopeId, 24);
  else b.writeUInt32BE(scopeId, 24);
  return b;
}

export interface Received {
  readonly bytes: Uint8Array;
  readonly source: Uint8Array;
}

export class IcmpSocket {
  readonly ifname: string;
  #fd: number;

  private constructor(ifname: string, fd: number) {
    this.ifname = ifname;
    this.#fd = fd;
  }

  /**
   * Opens the socket on `ifname` (SO_BINDTODEVICE: it sees and sends that link's packets only)
   * with hop limit 255 both ways (RFC 4861 6.1: receivers drop anything else), no loop back of
   * our own multicast, and only `types` let through.
   */
  static open(ifname: string, types: readonly number[]): IcmpSocket {
    const c = libc();
    const fd = c.socket(
      Linux.AF_INET6,
      Linux.SOCK_RAW | Linux.SOCK_NONBLOCK | Linux.SOCK_CLOEXEC,
      Linux.IPPROTO_ICMPV6,
    );
    if (fd < 0) fail('socket(AF_INET6, SOCK_RAW, IPPROTO_ICMPV6)', ifname);
    const set = (level: number, opt: number, value: Buffer, name: string) => {
      if (c.setsockopt(fd, level, opt, value, value.length) < 0) {
        const code = errnoName(lastErrno());
        c.close(fd);
        throw new LinkError('syscall', `setsockopt(${name}) on ${ifname} failed: ${code}`, code);
      }
    };
    set(Linux.SOL_SOCKET, Linux.SO_BINDTODEVICE, Buffer.from(`${ifname}\0`), 'SO_BINDTODEVICE');
    set(Linux.IPPROTO_IPV6, Linux.IPV6_MULTICAST_HOPS, intBytes(255), 'IPV6_MULTICAST_HOPS');
    set(Linux.IPPROTO_IPV6, Linux.IPV6_UNICAST_HOPS, intBytes(255), 'IPV6_UNICAST_HOPS');
    set(Linux.IPPROTO_IPV6, Linux.IPV6_MULTICAST_LOOP, intBytes(0), 'IPV6_MULTICAST_LOOP');
    set(Linux.IPPROTO_ICMPV6, Linux.ICMP6_FILTER, icmp6Filter(types), 'ICMP6_FILTER');
    return new IcmpSocket(ifname, fd);
  }

  get closed(): boolean {
    return this.#fd < 0;
  }

  /** Sends one ICMPv6 message to `destination` on interface `ifindex`. */
  send(bytes: Uint8Array, destination: Uint8Array, ifindex: number): void {
    if (this.#fd < 0) throw new LinkError('syscall', `socket on ${this.ifname} is closed`);
    const to = sockaddrIn6(destination, ifindex);
    const buf = Buffer.from(bytes);
    if (libc().sendto(this.#fd, buf, buf.length, 0, to, to.length) < 0) fail('sendto', this.ifname);
  }

  /** One waiting packet, or undefined when none is (EAGAIN). */
  receive(size: number): Received | undefined {
    if (this.#fd < 0) return undefined;
    const buf = Buffer.alloc(size);
    const from = Buffer.alloc(Linux.SOCKADDR_IN6_BYTES);
    const len = [from.length];
    const n = Number(libc().recvfrom(this.#fd, buf, buf.length, Linux.MSG_DONTWAIT, from, len));
    if (n < 0) {
      if (lastErrno() === Linux.EAGAIN) return undefined;
      fail('recvfrom', this.ifname);
    }
    return { bytes: buf.subarray(0, n), source: Uint8Array.from(from.subarray(8, 24)) };
  }

  close(): void {
    if (this.#fd < 0) return;
    libc().close(this.#fd);
    this.#fd = -1;
  }
}
