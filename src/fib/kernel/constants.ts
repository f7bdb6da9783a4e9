/*
 * rtnetlink as Linux defines it: include/uapi/linux/netlink.h, rtnetlink.h, socket.h and
 * filter.h. Each value was checked against what iproute2 6.1 sends (strace) and what a 6.x
 * kernel answers. One `as const` table per enum; the reverse maps are for logs.
 */

/** NETLINK_ROUTE, the protocol of an rtnetlink socket. */
export const NETLINK_ROUTE = 0;

/** `struct nlmsghdr`: u32 len, u16 type, u16 flags, u32 seq, u32 pid. */
export const NLMSG_HDRLEN = 16;
/** Messages and attributes start on 4-byte boundaries (NLMSG_ALIGN, RTA_ALIGN). */
export const NL_ALIGN = 4;
/** `struct rtmsg`: family, dst_len, src_len, tos, table, protocol, scope, type (u8 each), u32 flags. */
export const RTMSG_LEN = 12;
/** `struct rtattr`: u16 len, u16 type. */
export const RTA_HDRLEN = 4;
/** `struct rtnexthop`: u16 len, u8 flags, u8 hops, i32 ifindex. */
export const RTNH_LEN = 8;
/** `struct nlmsgerr`: i32 error, then the request's nlmsghdr (and its body unless CAPPED). */
export const NLMSGERR_LEN = 4 + NLMSG_HDRLEN;

/** Control messages (netlink.h) and the route messages of rtnetlink.h. */
export const NlmsgType = {
  NOOP: 1,
  ERROR: 2,
  DONE: 3,
  OVERRUN: 4,
  NEWROUTE: 24,
  DELROUTE: 25,
  GETROUTE: 26,
} as const;
export type NlmsgTypeCode = (typeof NlmsgType)[keyof typeof NlmsgType];

/** `NLM_F_*`. The high byte means different things for NEW, GET and DEL requests. */
export const NlmFlag = {
  REQUEST: 0x01,
  MULTI: 0x02,
  ACK: 0x04,
  ECHO: 0x08,
  DUMP_INTR: 0x10,
  DUMP_FILTERED: 0x20,
  // GET
  ROOT: 0x100,
  MATCH: 0x200,
  DUMP: 0x300,
  // NEW
  REPLACE: 0x100,
  EXCL: 0x200,
  CREATE: 0x400,
  APPEND: 0x800,
  // ACK
  CAPPED: 0x100,
  ACK_TLVS: 0x200,
} as const;

/** `NLMSGERR_ATTR_*`: the extended ACK TLVs after a CAPPED error (NETLINK_EXT_ACK). */
export const NlmsgerrAttr = { MSG: 1, OFFS: 2, COOKIE: 3 } as const;

/** `enum rtattr_type_t` (only what we send or read). */
export const Rta = {
  DST: 1,
  SRC: 2,
  IIF: 3,
  OIF: 4,
  GATEWAY: 5,
  PRIORITY: 6,
  PREFSRC: 7,
  METRICS: 8,
  MULTIPATH: 9,
  FLOW: 11,
  CACHEINFO: 12,
  TABLE: 15,
  MARK: 16,
  VIA: 18,
  PREF: 20,
  ENCAP_TYPE: 21,
  ENCAP: 22,
  EXPIRES: 23,
  UID: 25,
  NH_ID: 30,
} as const;

/** Route types (`RTN_*`). */
export const Rtn = {
  UNSPEC: 0,
  UNICAST: 1,
  LOCAL: 2,
  BROADCAST: 3,
  ANYCAST: 4,
  MULTICAST: 5,
  BLACKHOLE: 6,
  UNREACHABLE: 7,
  PROHIBIT: 8,
  THROW: 9,
} as const;

/** Scopes (`RT_SCOPE_*`). A delete with NOWHERE matches a route of any scope, as `ip route del` sends. */
export const RtScope = { UNIVERSE: 0, SITE: 200, LINK: 253, HOST: 254, NOWHERE: 255 } as const;

/** Tables (`RT_TABLE_*`). rtm_table is a u8: larger ids go in RTA_TABLE with rtm_table UNSPEC. */
export const RtTable = { UNSPEC: 0, COMPAT: 252, DEFAULT: 253, MAIN: 254, LOCAL: 255 } as const;

/** `RTPROT_*` (the ones logs name; any u8 is valid). */
export const RtProt = {
  UNSPEC: 0,
  REDIRECT: 1,
  KERNEL: 2,
  BOOT: 3,
  STATIC: 4,
  RA: 9,
  DHCP: 16,
  ZEBRA: 11,
  BIRD: 12,
  BGP: 186,
  ISIS: 187,
  OSPF: 188,
  RIP: 189,
  EIGRP: 192,
  /** RTPROT_OVN: ovn-controller's routes in a router's table (OVN 25.03 dynamic routing); OVN defines it, not Linux. */
  OVN: 84,
} as const;

/**
 * `RTM_F_*` (rtm_flags). FIB_MATCH asks RTM_GETROUTE for the FIB entry a lookup hits;
 * LOOKUP_TABLE makes an IPv4 answer name that entry's table (`ip route get fibmatch` sets it
 * for IPv4 only).
 */
export const RtmFlag = {
  NOTIFY: 0x100,
  CLONED: 0x200,
  EQUALIZE: 0x400,
  PREFIX: 0x800,
  LOOKUP_TABLE: 0x1000,
  FIB_MATCH: 0x2000,
} as const;

/** `RTNH_F_*` (rtnh_flags). */
export const RtnhFlag = {
  DEAD: 1,
  PERVASIVE: 2,
  ONLINK: 4,
  OFFLOAD: 8,
  LINKDOWN: 16,
  UNRESOLVED: 32,
} as const;

/** `enum rtnetlink_groups`: the multicast groups the route monitor joins (group numbers, not masks). */
export const RtnlGroup = { IPV4_ROUTE: 7, IPV6_ROUTE: 11 } as const;

/** IPv6 stores a route added with metric 0 as IP6_RT_PRIO_USER; we compare with what it stores. */
export const IP6_RT_PRIO_USER = 1024;

/** Socket options set through the socket's fd (socket.h, netlink.h). */
export const SockOpt = {
  SOL_SOCKET: 1,
  SO_SNDBUF: 7,
  SO_RCVBUF: 8,
  SO_ATTACH_FILTER: 26,
  SO_SNDBUFFORCE: 32,
  SO_RCVBUFFORCE: 33,
  SO_MEMINFO: 55,
  SOL_NETLINK: 270,
  NETLINK_ADD_MEMBERSHIP: 1,
  NETLINK_NO_ENOBUFS: 5,
  NETLINK_CAP_ACK: 10,
  NETLINK_EXT_ACK: 11,
  NETLINK_GET_STRICT_CHK: 12,
} as const;

/** recv(2) flags (socket.h). */
export const MsgFlag = {
  /** Report the datagram's real length when it did not fit the buffer. */
  TRUNC: 0x20,
  DONTWAIT: 0x40,
} as const;

/**
 * Notifications a monitor socket reads per wake-up of the event loop, on top of the 32 the
 * netlink add-on reads before it returns to the loop. At 32 a wake-up, a table rewritten by
 * another process (ovn-controller deleting 10,000 routes in 0.65 s) was read a second late
 * whenever the loop woke less often than every 2 ms; a few thousand keep a wake-up's work to
 * some milliseconds, so timers and sessions still get their turns.
 */
export const MONITOR_READS_PER_WAKE = 4096;

/** The largest notification read without truncation (the kernel's are a page at most). */
export const MONITOR_READ_BUFFER = 64 << 10;

/** Linux errno values the target tells apart. */
export const Errno = {
  EPERM: 1,
  ENOENT: 2,
  ESRCH: 3,
  EINTR: 4,
  EAGAIN: 11,
  ENOBUFS: 105,
  EEXIST: 17,
  ENODEV: 19,
  EINVAL: 22,
  ENOSPC: 28,
  EAFNOSUPPORT: 97,
  ENETUNREACH: 101,
  EHOSTUNREACH: 113,
  EOPNOTSUPP: 95,
  EMSGSIZE: 90,
} as const;

function reverse(table: Record<string, number>): ReadonlyMap<number, string> {
  return new Map(Object.entries(table).map(([k, v]) => [v, k]));
}
export const ERRNO_NAMES = reverse(Errno);
export const NLMSG_TYPE_NAMES = reverse(NlmsgType);
export const RTN_NAMES = reverse(Rtn);
export const RTPROT_NAMES = reverse(RtProt);

export function errnoName(errno: number): string {
  return ERRNO_NAMES.get(errno) ?? `errno ${errno}`;
}

/**
 * Changes planned, written and recorded per turn (two writes of KERNEL_DEFAULTS.batch):
 * planning, encoding and the kernel's own work on a write all run in our thread, and a whole
 * table at once would hold the event loop (and keepalives) for long.
 */
export const APPLY_SLICE = 8192;

/** The target's defaults; `sinks.kernel` in the configuration overrides table, metric, protocol, on_stop. */
export const KERNEL_DEFAULTS = {
  table: RtTable.MAIN,
  metric: 20,
  protocol: RtProt.BGP,
  onStop: 'flush',
  /**
   * Route messages in one write, and in flight at once. Each may come back as an NLMSG_ERROR
   * queued on our socket, so in flight x RESPONSE_TRUESIZE must fit the receive buffer
   * (see socket.ts); 4096 per write was the fastest size measured (docs/fib-kernel.md).
   */
  batch: 4096,
  maxInFlight: 16_384,
  /** SO_RCVBUF we ask for (root: SO_RCVBUFFORCE, past net.core.rmem_max); the kernel doubles it. */
  recvBuffer: 32 << 20,
  sendBuffer: 4 << 20,
  /** The monitor sees every route change of the namespace: a deep queue rides out bursts. */
  monitorRecvBuffer: 64 << 20,
  /** A write whose last message is not answered within this is failed (and the socket reopened). */
  requestTimeoutMs: 30_000,
  /** A route of ours taken away is put back at most this many times per window... */
  repairLimit: 3,
  repairWindowMs: 60_000,
  /** ...after this quiet time, so a burst of deletes is put back in one write. */
  repairDelayMs: 50,
  /** After a monitor overrun (lost notifications): compare the kernel with what we hold, at most this often. */
  verifyIntervalMs: 5_000,
  /** How often the monitor reads its socket's drop counter. */
  dropCheckMs: 1_000,
} as const;

/**
 * Kernel memory one queued answer (an ACK or a capped error) costs against SO_RCVBUF: skb
 * truesize measured at 832 bytes on Linux 6.18 (/proc/net/netlink Rmem after 1000 ACKs);
 * rounded up for extended-ACK text.
 */
export const RESPONSE_TRUESIZE = 1536;

/** The kernel table reader's defaults (table-reader.ts). */
export const TABLE_READER_DEFAULTS = {
  /** ovn-controller's routes. */
  protocols: [RtProt.OVN] as readonly number[],
  /** A burst ends after this much quiet: its changes go out in one callback... */
  settleMs: 5,
  /**
   * ...or after this long, however busy the table is, so a long rewrite still reports as it
   * goes: ten calls a second at most (10,000 routes written by one process take about a second).
   */
  maxHoldMs: 100,
  /** After lost notifications, the table is dumped again after this much quiet... */
  resyncDelayMs: 20,
  /** ...and at most once per this, so a table that keeps overrunning us costs one dump a second. */
  resyncIntervalMs: 1_000,
  /** Dump answers only: the kernel sends the next part of a dump when the last one was read. */
  recvBuffer: 1 << 20,
  /** The monitor hears every route change of the namespace; 10,000 at once fit. */
  monitorRecvBuffer: 64 << 20,
  requestTimeoutMs: 30_000,
  /** Lost notifications are noticed this soon at most (sk_drops read through SO_MEMINFO). */
  dropCheckMs: 250,
} as const;
