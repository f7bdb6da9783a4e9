import type net from 'node:net';
import { tryParseIp, unmapV4 } from '../../address/index.js';
import { GTSM_TTL, MAX_TTL, SocketLevel, SocketOption } from './constants.js';
import { TransportError } from './errors.js';
import { sysGetsockopt, sysSetsockopt } from './libc.js';
import { describeMd5Target, encodeMd5Sig, type Md5KeySpec } from './md5.js';
import { HOST_LITTLE_ENDIAN } from './sockaddr.js';

const INT_SIZE = 4;

/**
 * Installs (password) or removes (password null) the RFC 2385 key for one peer on a socket.
 * On a listening socket the key applies to future connections from that peer; accepted
 * sockets keep the key they were born with. Kernel refusals become TransportError
 * {kind: 'syscall', code: 'EINVAL' | 'ENOENT' | ..., address}.
 */
export function setMd5Key(fd: number, spec: Md5KeySpec): void {
  const { optname, bytes } = encodeMd5Sig(spec);
  const syscall =
    optname === SocketOption.TCP_MD5SIG ? 'setsockopt(TCP_MD5SIG)' : 'setsockopt(TCP_MD5SIG_EXT)';
  try {
    sysSetsockopt(fd, SocketLevel.IPPROTO_TCP, optname, bytes, {
      syscall,
      address: spec.address,
      target: describeMd5Target(spec),
      doing: spec.password === null ? 'removing key' : 'installing key',
    });
  } catch (error) {
    if (!(error instanceof TransportError) || error.code !== 'ENOMEM') throw error;
    // Keys live in the socket's option memory: about 136 bytes each against
    // net.core.optmem_max (131072 by default, so some 960 keys on one listener).
    throw new TransportError(
      'syscall',
      `${error.message}: the socket's key memory is full; raise net.core.optmem_max or key a prefix`,
      error,
      error,
    );
  }
}

/** TTL handling of one socket (RFC 5082 GTSM, or plain eBGP multihop TTL). */
export interface TtlOptions {
  /** IP_TTL / IPV6_UNICAST_HOPS of what we send, 1..255. */
  readonly ttl?: number;
  /** IP_MINTTL / IPV6_MINHOPCOUNT: the kernel drops segments that arrive lower; 0 turns it off. */
  readonly minTtl?: number;
}

/**
 * RFC 5082 section 3: send with TTL 255 and accept only what arrives with at least
 * 256 - hops (255 for a directly connected peer), as FRR's `ttl-security hops N`.
 */
export function gtsm(hops = 1): TtlOptions {
  if (!Number.isInteger(hops) || hops < 1 || hops > MAX_TTL) {
    throw new TransportError('invalid-option', `GTSM hops ${hops} is not in 1..${MAX_TTL}`);
  }
  return { ttl: GTSM_TTL, minTtl: GTSM_TTL + 1 - hops };
}

/**
 * Which IP layer's options a socket needs: 'ipv4' for AF_INET sockets and IPv4 (v4-mapped)
 * peers on AF_INET6 sockets (Linux applies IP_* options to those), 'ipv6' for IPv6 peers,
 * 'dual' for a dual-stack listener that serves both.
 */
export type IpScope = 'ipv4' | 'ipv6' | 'dual';

function checkTtlRange(name: string, value: number | undefined, min: number): void {
  if (value === undefined) return;
  if (!Number.isInteger(value) || value < min || value > MAX_TTL) {
    throw new TransportError('invalid-option', `${name} ${value} is not in ${min}..${MAX_TTL}`);
  }
}

function intBytes(value: number): Buffer {
  const buf = Buffer.alloc(INT_SIZE);
  new DataView(buf.buffer, buf.byteOffset, INT_SIZE).setInt32(0, value, HOST_LITTLE_ENDIAN);
  return buf;
}

/** [level, optname, name] of each TTL option, per IP layer. */
const TTL_OPTIONS = {
  ipv4: {
    ttl: [SocketLevel.IPPROTO_IP, SocketOption.IP_TTL, 'IP_TTL'],
    minTtl: [SocketLevel.IPPROTO_IP, SocketOption.IP_MINTTL, 'IP_MINTTL'],
  },
  ipv6: {
    ttl: [SocketLevel.IPPROTO_IPV6, SocketOption.IPV6_UNICAST_HOPS, 'IPV6_UNICAST_HOPS'],
    minTtl: [SocketLevel.IPPROTO_IPV6, SocketOption.IPV6_MINHOPCOUNT, 'IPV6_MINHOPCOUNT'],
  },
} as const;

/** Sets an int option, e.g. SO_REUSEADDR or IPV6_V6ONLY; `address` only names the peer in errors. */
export function setIntOption(
  fd: number,
  level: number,
  optname: number,
  value: number,
  name: string,
  address?: string,
): void {
  sysSetsockopt(fd, level, optname, intBytes(value), { syscall: `setsockopt(${name})`, address });
}

/** Reads an int option (for diagnostics and tests). */
export function getIntOption(fd: number, level: number, optname: number, name: string): number {
  const buf = sysGetsockopt(fd, level, optname, INT_SIZE, `getsockopt(${name})`);
  return new DataView(buf.buffer, buf.byteOffset, INT_SIZE).getInt32(0, HOST_LITTLE_ENDIAN);
}

/** Applies TTL / minimum TTL for the given scope; `address` only names the peer in errors. */
export function setTtlOptions(fd: number, scope: IpScope, options: TtlOptions, address?: string): void {
  checkTtlRange('ttl', options.ttl, 1);
  checkTtlRange('minTtl', options.minTtl, 0);
  const layers = scope === 'dual' ? (['ipv4', 'ipv6'] as const) : ([scope] as const);
  for (const layer of layers) {
    for (const field of ['ttl', 'minTtl'] as const) {
      const value = options[field];
      if (value === undefined) continue;
      const [level, optname, name] = TTL_OPTIONS[layer][field];
      setIntOption(fd, level, optname, value, name, address);
    }
  }
}

/** The TTL options in force for one IP layer (ipv4 reads IP_*, ipv6 reads IPV6_*). */
export function getTtlOptions(fd: number, scope: 'ipv4' | 'ipv6'): Required<TtlOptions> {
  const read = (field: 'ttl' | 'minTtl') => {
    const [level, optname, name] = TTL_OPTIONS[scope][field];
    return getIntOption(fd, level, optname, name);
  };
  return { ttl: read('ttl'), minTtl: read('minTtl') };
}

interface HasHandle {
  readonly _handle?: { readonly fd?: number } | null;
}

/** The kernel fd under a node socket or server (undefined once closed). */
export function fdOf(owner: net.Socket | net.Server): number | undefined {
  const fd = (owner as unknown as HasHandle)._handle?.fd;
  return typeof fd === 'number' && fd >= 0 ? fd : undefined;
}

/** The scope that fits a connected socket: IPv4 and v4-mapped peers use the IP_* options. */
export function scopeOfConnected(socket: net.Socket): 'ipv4' | 'ipv6' {
  const remote = tryParseIp(socket.remoteAddress ?? '');
  if (!remote) throw new TransportError('invalid-option', 'socket is not connected');
  return unmapV4(remote).family === 4 ? 'ipv4' : 'ipv6';
}

/** Applies TTL options to a connected (or accepted) node socket, e.g. per-peer GTSM after accept. */
export function setSocketTtl(socket: net.Socket, options: TtlOptions): void {
  const fd = fdOf(socket);
  if (fd === undefined)
    throw new TransportError('invalid-option', 'socket has no fd (closed or not connected)');
  setTtlOptions(fd, scopeOfConnected(socket), options, socket.remoteAddress);
}
