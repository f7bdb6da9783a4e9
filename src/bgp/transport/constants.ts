/**
 * Linux socket numbers the transport needs beyond what node:net exposes, spelled as the
 * kernel headers spell them (linux/socket.h, linux/in.h, linux/in6.h, linux/tcp.h, asm/socket.h).
 * Values are for Linux on x86-64 and arm64 (the asm-generic numbers).
 */

/**
 * Linux's socket address families (AF_INET, AF_INET6 in linux/socket.h): the numbers a
 * sockaddr, an rtnetlink rtmsg and a ZAPI prefix carry. Not BGP's AFI (IANA: IPv4 1, IPv6 2).
 */
export const AF = { INET: 2, INET6: 10 } as const;
export type AfNumber = (typeof AF)[keyof typeof AF];

export const SocketType = {
  SOCK_STREAM: 1,
  /** O_CLOEXEC: the fd must not leak into child processes (daemons we spawn). */
  SOCK_CLOEXEC: 0o2000000,
} as const;

/** Option levels (the `level` argument of setsockopt). */
export const SocketLevel = {
  SOL_SOCKET: 1,
  IPPROTO_IP: 0,
  IPPROTO_TCP: 6,
  IPPROTO_IPV6: 41,
} as const;

export const SocketOption = {
  SO_REUSEADDR: 2,
  /** IPPROTO_IP */
  IP_TTL: 2,
  IP_MINTTL: 21,
  /** IPPROTO_IPV6 */
  IPV6_UNICAST_HOPS: 16,
  IPV6_V6ONLY: 26,
  IPV6_MINHOPCOUNT: 73,
  /** IPPROTO_TCP: RFC 2385 keys, one address per call. */
  TCP_MD5SIG: 14,
  /** IPPROTO_TCP: the same struct, with tcpm_flags honoured (prefix, ifindex). */
  TCP_MD5SIG_EXT: 32,
} as const;

/** tcpm_flags bits, read only with TCP_MD5SIG_EXT. */
export const Md5SigFlag = {
  TCP_MD5SIG_FLAG_PREFIX: 0x1,
  TCP_MD5SIG_FLAG_IFINDEX: 0x2,
} as const;

export const TCP_MD5SIG_MAXKEYLEN = 80;

/**
 * struct tcp_md5sig (linux/tcp.h), 216 bytes:
 *
 *   0                  128    129      130      132       136            216
 *   +------------------+------+--------+--------+---------+--------------+
 *   | tcpm_addr        | flags| prefix | keylen | ifindex | key[80]      |
 *   | sockaddr_storage | u8   | len u8 | u16 h  | i32 h   |              |
 *   +------------------+------+--------+--------+---------+--------------+
 *
 * (h = host byte order). tcpm_addr holds a sockaddr_in or sockaddr_in6, port 0.
 */
export const Md5SigLayout = {
  SIZE: 216,
  ADDR: 0,
  FLAGS: 128,
  PREFIXLEN: 129,
  KEYLEN: 130,
  IFINDEX: 132,
  KEY: 136,
} as const;

/**
 * struct sockaddr_in (16 bytes) and struct sockaddr_in6 (28 bytes) (linux/in.h, linux/in6.h):
 *
 *   in:  | family u16 h | port u16 be | addr[4]  | zero[8] |
 *   in6: | family u16 h | port u16 be | flowinfo u32 be | addr[16] | scope_id u32 h |
 */
export const SockaddrLayout = {
  IN_SIZE: 16,
  IN_ADDR: 4,
  IN6_SIZE: 28,
  IN6_ADDR: 8,
  IN6_SCOPE_ID: 24,
  FAMILY: 0,
  PORT: 2,
} as const;

/** RFC 5082 section 3: GTSM senders use the maximum TTL / Hop Limit. */
export const GTSM_TTL = 255;
export const MAX_TTL = 255;

/** Defaults a caller may override through `init`. */
export const TransportDefaults = {
  /** '::' accepts IPv4 too (v4-mapped) unless net.ipv6.bindv6only is set; we clear V6ONLY. */
  LISTEN_HOST: '::',
  LISTEN_BACKLOG: 64,
  /** Bounded connect: RFC 4271 leaves it to the ConnectRetryTimer; 10 s is well below its 120 s. */
  CONNECT_TIMEOUT_MS: 10_000,
} as const;
