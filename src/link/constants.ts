/**
 * Numbers of IPv6 neighbour discovery (RFC 4861) and of the Linux raw ICMPv6 socket that
 * carries it, spelled as the RFC and the kernel headers (linux/in6.h, linux/icmpv6.h,
 * asm-generic/socket.h) spell them.
 */

/** ICMPv6 message types of RFC 4861 section 4 this module speaks. */
export const NdType = {
  ROUTER_SOLICITATION: 133,
  ROUTER_ADVERTISEMENT: 134,
} as const;

/** RFC 4861 section 4.6 option types. */
export const NdOption = {
  SOURCE_LINK_LAYER_ADDRESS: 1,
  MTU: 5,
} as const;

/** RFC 4861 section 4.6: option lengths count units of 8 bytes. */
export const ND_OPTION_UNIT = 8;
/** RFC 4861 section 4.2: type, code, checksum, hop limit, flags, lifetime, reachable, retrans. */
export const RA_HEADER_BYTES = 16;
/** RFC 4861 section 4.1: type, code, checksum, reserved. */
export const RS_HEADER_BYTES = 8;
/** RFC 4861 section 6.1.1/6.1.2: a neighbour discovery packet arrives with hop limit 255. */
export const ND_HOP_LIMIT = 255;
/** The all-nodes multicast address (RFC 4291 2.7.1), where unsolicited RAs go. */
export const ALL_NODES = 'ff02::1';

export const Linux = {
  AF_INET6: 10,
  SOCK_RAW: 3,
  SOCK_NONBLOCK: 0o4000,
  SOCK_CLOEXEC: 0o2000000,
  SOL_SOCKET: 1,
  SO_BINDTODEVICE: 25,
  IPPROTO_IPV6: 41,
  IPPROTO_ICMPV6: 58,
  IPV6_UNICAST_HOPS: 16,
  IPV6_MULTICAST_IF: 17,
  IPV6_MULTICAST_HOPS: 18,
  IPV6_MULTICAST_LOOP: 19,
  /** IPPROTO_ICMPV6: struct icmp6_filter, 256 bits, a set bit blocks that type. */
  ICMP6_FILTER: 1,
  MSG_DONTWAIT: 0x40,
  EAGAIN: 11,
  /** struct sockaddr_in6: family u16 (host order), port u16, flowinfo u32, addr[16], scope_id u32 (host). */
  SOCKADDR_IN6_BYTES: 28,
} as const;

/** Defaults of the router advertisements we send on an unnumbered link and of their reception. */
export const LinkDefaults = {
  /**
   * Seconds between unsolicited RAs: FRR's own for an unnumbered BGP interface
   * (`ipv6 nd ra-interval 10`, which bgpd turns on by itself).
   */
  RA_INTERVAL_S: 10,
  /** The first RAs go this much sooner (RFC 4861 6.2.4 sends a few early ones too). */
  INITIAL_RA_INTERVAL_MS: 1000,
  INITIAL_RAS: 3,
  /** How often the socket is read: it is non-blocking and node cannot watch a raw fd. */
  POLL_MS: 200,
  /** Packets read per poll at most, so a flood cannot hold the event loop. */
  READS_PER_POLL: 64,
  /** An answer to a Router Solicitation, at most this often (RFC 4861 6.2.6: MIN_DELAY_BETWEEN_RAS 3 s). */
  MIN_DELAY_BETWEEN_RAS_MS: 3000,
  /** The biggest packet read; RAs are a few dozen bytes. */
  RECEIVE_BYTES: 1500,
} as const;
