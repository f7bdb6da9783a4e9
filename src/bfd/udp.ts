import dgram from 'node:dgram';
import { endianness } from 'node:os';
import { type IpAddress, normalizeAddress, parseIp } from '../address/index.js';
import { lastErrno, libc } from '../components/libc.js';
import { BFD_TTL, BfdPort } from './constants.js';

/*
 * The UDP sockets of BFD. Node cannot read a received datagram's TTL, and Linux applies
 * IP_MINTTL / IPV6_MINHOPCOUNT to TCP only, so the RFC 5881 section 5 check (single hop:
 * TTL 255 only) is a classic BPF socket filter on each receive socket: it loads the TTL (IPv4
 * byte 8) or Hop Limit (IPv6 byte 7) from the network header and drops the datagram in the
 * kernel unless it is at least the minimum. The fd is made here, filtered and bound, then
 * handed to node:dgram.
 */

const AF_INET = 2;
const AF_INET6 = 10;
const SOCK_DGRAM = 2;
const SOCK_CLOEXEC = 0o2000000;
const SOCK_NONBLOCK = 0o4000;
const SOL_SOCKET = 1;
const SO_ATTACH_FILTER = 26;
const IPPROTO_IPV6 = 41;
const IPV6_V6ONLY = 26;

/** Classic BPF (linux/filter.h): load byte absolute, jump if >=, return. */
const Bpf = {
  LD_B_ABS: 0x30,
  JGE_K: 0x35,
  RET_K: 0x06,
  /** SKF_NET_OFF: offsets from the network header, whatever the socket's own data offset. */
  NET_OFF: -0x100000,
  ACCEPT: 0xffffffff,
  DROP: 0,
} as const;

/** Where the TTL / Hop Limit sits in each IP header. */
const TTL_OFFSET = { 4: 8, 6: 7 } as const;

const LITTLE = endianness() === 'LE';

/** A failed libc call, with the errno's number (its name is in the message the caller logs). */
export class BfdSocketError extends Error {
  constructor(
    readonly syscall: string,
    readonly errno: number,
  ) {
    super(`${syscall} failed: errno ${errno}`);
  }
}

function check(rc: number, syscall: string): void {
  if (rc < 0) throw new BfdSocketError(syscall, lastErrno());
}

function sockaddr(ip: IpAddress | null, family: 4 | 6, port: number): Buffer {
  const buf = Buffer.alloc(family === 4 ? 16 : 28);
  if (LITTLE) buf.writeUInt16LE(family === 4 ? AF_INET : AF_INET6, 0);
  else buf.writeUInt16BE(family === 4 ? AF_INET : AF_INET6, 0);
  buf.writeUInt16BE(port, 2);
  if (ip) buf.set(ip.bytes, family === 4 ? 4 : 8);
  return buf;
}

/** A filter that keeps datagrams whose TTL / Hop Limit is at least `minTtl`. */
export function ttlFilter(
  family: 4 | 6,
  minTtl: number,
): { code: number; jt: number; jf: number; k: number }[] {
  return [
    { code: Bpf.LD_B_ABS, jt: 0, jf: 0, k: (Bpf.NET_OFF + TTL_OFFSET[family]) >>> 0 },
    { code: Bpf.JGE_K, jt: 0, jf: 1, k: minTtl },
    { code: Bpf.RET_K, jt: 0, jf: 0, k: Bpf.ACCEPT },
    { code: Bpf.RET_K, jt: 0, jf: 0, k: Bpf.DROP },
  ];
}

/** Replaces the socket's filter: from now on the kernel drops what arrives below `minTtl`. */
export function setMinTtl(fd: number, family: 4 | 6, minTtl: number): void {
  const c = libc();
  const filter = ttlFilter(family, minTtl);
  check(
    c.attachFilter(fd, SOL_SOCKET, SO_ATTACH_FILTER, { len: filter.length, filter }, c.fprogSize),
    'setsockopt(SO_ATTACH_FILTER)',
  );
}

export interface ReceiveSocket {
  readonly socket: dgram.Socket;
  readonly fd: number;
  readonly port: number;
}

/**
 * A socket on the wildcard address of one family at `port` (3784 single hop, 4784 multihop,
 * 0 for any), dropping in the kernel what arrives with a TTL below `minTtl`.
 */
export async function openReceiveSocket(family: 4 | 6, port: number, minTtl: number): Promise<ReceiveSocket> {
  const c = libc();
  const fd = c.socket(family === 4 ? AF_INET : AF_INET6, SOCK_DGRAM | SOCK_CLOEXEC | SOCK_NONBLOCK, 0);
  check(fd, 'socket');
  try {
    // The filter goes on before bind, so no datagram is ever queued unchecked.
    setMinTtl(fd, family, minTtl);
    if (family === 6) {
      const one = Buffer.alloc(4);
      one.writeInt32LE(1);
      check(c.setsockopt(fd, IPPROTO_IPV6, IPV6_V6ONLY, one, 4), 'setsockopt(IPV6_V6ONLY)');
    }
    const addr = sockaddr(null, family, port);
    check(c.bind(fd, addr, addr.length), `bind(port ${port})`);
  } catch (error) {
    c.close(fd);
    throw error;
  }
  const socket = dgram.createSocket({ type: family === 4 ? 'udp4' : 'udp6' });
  await new Promise<void>((resolve, reject) => {
    socket.once('error', reject);
    socket.bind({ fd }, () => {
      socket.off('error', reject);
      resolve();
    });
  });
  return { socket, fd, port: socket.address().port };
}

/** How many source ports are tried before giving up (each one taken is another session's). */
const SOURCE_PORT_TRIES = 64;

/**
 * A socket to send one session's packets from: a source port in 49152-65535, the same for the
 * whole session (RFC 5881 section 4), and TTL 255 (RFC 5881 section 5; FRR and BIRD send
 * multihop packets with 255 too). `local` binds our source address when it is configured.
 */
export async function openSendSocket(
  family: 4 | 6,
  local: string | undefined,
  random: () => number,
): Promise<dgram.Socket> {
  const span = BfdPort.SOURCE_MAX - BfdPort.SOURCE_MIN + 1;
  const first = Math.floor(random() * span);
  let lastError: unknown;
  for (let i = 0; i < SOURCE_PORT_TRIES; i++) {
    const port = BfdPort.SOURCE_MIN + ((first + i) % span);
    const socket = dgram.createSocket({ type: family === 4 ? 'udp4' : 'udp6' });
    try {
      await new Promise<void>((resolve, reject) => {
        socket.once('error', reject);
        socket.bind({ port, ...(local === undefined ? {} : { address: local }), exclusive: true }, () => {
          socket.off('error', reject);
          resolve();
        });
      });
      socket.setTTL(BFD_TTL);
      return socket;
    } catch (error) {
      socket.close();
      lastError = error;
      if ((error as NodeJS.ErrnoException).code !== 'EADDRINUSE') throw error;
    }
  }
  throw lastError;
}

/** 4 or 6, for an address the configuration already checked. */
export function familyOf(address: string): 4 | 6 {
  return parseIp(address).family;
}

/** A received datagram's source, as the configuration spells peers (RFC 5952, no zone). */
export function sourceAddress(rinfo: dgram.RemoteInfo): string {
  const bare = rinfo.address.replace(/%.*$/, '');
  try {
    return normalizeAddress(bare);
  } catch {
    return bare;
  }
}
