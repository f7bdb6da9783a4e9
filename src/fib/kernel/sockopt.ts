import { readdirSync, readFileSync, readlinkSync } from 'node:fs';
import { endianness } from 'node:os';
import { libc } from '../../components/libc.js';
import { NETLINK_ROUTE, SockOpt } from './constants.js';

/*
 * Socket options the netlink add-on cannot set. It hides its fd, so we find it: the add-on binds
 * the socket to a port id, /proc/thread-self/net/netlink lists every netlink socket of this
 * thread's namespace with its port id and inode, and /proc/self/fd links each fd to its inode.
 * Then setsockopt(2) through libc.
 */

/** The fd of our NETLINK_ROUTE socket bound to `port`, or undefined when /proc does not tell. */
export function netlinkSocketFd(port: number): number | undefined {
  let inode: string | undefined;
  for (const line of readFileSync('/proc/thread-self/net/netlink', 'utf8').split('\n').slice(1)) {
    // sk Eth Pid Groups Rmem Wmem Dump Locks Drops Inode
    const f = line.trim().split(/\s+/);
    if (f.length >= 10 && Number(f[1]) === NETLINK_ROUTE && Number(f[2]) === port) inode = f[f.length - 1];
  }
  if (inode === undefined) return undefined;
  const want = `socket:[${inode}]`;
  for (const name of readdirSync('/proc/self/fd')) {
    try {
      if (readlinkSync(`/proc/self/fd/${name}`) === want) return Number(name);
    } catch {
      // an fd closed while we looked
    }
  }
  return undefined;
}

function intValue(v: number): Buffer {
  const b = Buffer.alloc(4);
  if (endianness() === 'LE') b.writeInt32LE(v);
  else b.writeInt32BE(v);
  return b;
}

/** setsockopt with an int value; false (errno left in lastErrno()) when the kernel refused. */
export function setIntOption(fd: number, level: number, name: number, value: number): boolean {
  return libc().setsockopt(fd, level, name, intValue(value), 4) === 0;
}

/**
 * A classic BPF filter that drops every message whose nlmsg_pid is `port`: the notifications
 * our own requests cause (the kernel stamps them with the requester's port id). Without it the
 * monitor would read back every route we write, a million at a time.
 *
 *   ld  [12]            ; nlmsg_pid (BPF loads are big-endian, so compare with the bytes as BE)
 *   jeq #port, drop, keep
 *   drop: ret #0
 *   keep: ret #0xffffffff
 */
export function dropMessagesFromPort(fd: number, port: number): boolean {
  const host = intValue(port | 0);
  const k = host.readUInt32BE(0);
  const program = [
    { code: 0x20, jt: 0, jf: 0, k: 12 },
    { code: 0x15, jt: 0, jf: 1, k },
    { code: 0x06, jt: 0, jf: 0, k: 0 },
    { code: 0x06, jt: 0, jf: 0, k: 0xffffffff },
  ];
  const c = libc();
  return (
    c.attachFilter(
      fd,
      SockOpt.SOL_SOCKET,
      SockOpt.SO_ATTACH_FILTER,
      { len: program.length, filter: program },
      c.fprogSize,
    ) === 0
  );
}

/**
 * sk_drops (SO_MEMINFO's SK_MEMINFO_DROPS): messages the kernel could not queue on the socket.
 * With NETLINK_NO_ENOBUFS an overrun raises no error, so this counter is how we learn of it.
 */
export function socketDrops(fd: number): number | undefined {
  const value = Buffer.alloc(64);
  const len = [value.length];
  if (libc().getsockopt(fd, SockOpt.SOL_SOCKET, SockOpt.SO_MEMINFO, value, len) !== 0) return undefined;
  const at = SK_MEMINFO_DROPS * 4;
  if (len[0] < at + 4) return undefined;
  return endianness() === 'LE' ? value.readUInt32LE(at) : value.readUInt32BE(at);
}

/** Index of the drop counter in the u32 array SO_MEMINFO fills (include/uapi/linux/sock_diag.h). */
const SK_MEMINFO_DROPS = 8;
