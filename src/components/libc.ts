import koffi from 'koffi';

/**
 * The libc calls node does not offer — sockets created or tuned before node adopts them, raw
 * ICMPv6, unix datagrams, socket options and BPF socket filters — bound once through koffi for
 * every part that needs them. Bindings load on first use (per thread: the BFD worker has its
 * own), so importing this module costs nothing. Each caller keeps its own error words.
 */
export interface Libc {
  readonly socket: (domain: number, type: number, protocol: number) => number;
  readonly bind: (fd: number, addr: Buffer, addrlen: number) => number;
  readonly close: (fd: number) => number;
  readonly setsockopt: (fd: number, level: number, optname: number, optval: Buffer, optlen: number) => number;
  readonly getsockopt: (
    fd: number,
    level: number,
    optname: number,
    optval: Buffer,
    optlen: number[],
  ) => number;
  readonly sendto: (
    fd: number,
    buf: Buffer,
    len: number,
    flags: number,
    addr: Buffer,
    addrlen: number,
  ) => number;
  readonly recvfrom: (
    fd: number,
    buf: Buffer,
    len: number,
    flags: number,
    addr: Buffer,
    addrlen: number[],
  ) => number;
  /** setsockopt with a `struct sock_fprog` (SO_ATTACH_FILTER): `{ len, filter: [{ code, jt, jf, k }] }`. */
  readonly attachFilter: (
    fd: number,
    level: number,
    optname: number,
    prog: SockFprog,
    optlen: number,
  ) => number;
  /** sizeof(struct sock_fprog), the optlen of attachFilter. */
  readonly fprogSize: number;
  /** glibc's malloc tuning (malloc.h): 1 when set, 0 when refused. */
  readonly mallopt: (param: number, value: number) => number;
  /** glibc: gives the system back the free pages of malloc's heaps, `pad` bytes kept at the top. */
  readonly malloc_trim: (pad: number) => number;
}

/** A classic BPF program as the kernel takes it (linux/filter.h). */
export interface SockFprog {
  readonly len: number;
  readonly filter: readonly {
    readonly code: number;
    readonly jt: number;
    readonly jf: number;
    readonly k: number;
  }[];
}

/** mallopt's parameter for the size from which malloc maps a chunk of its own (malloc.h). */
export const M_MMAP_THRESHOLD = -3;

let bound: Libc | undefined;

export function libc(): Libc {
  if (bound) return bound;
  const lib = koffi.load('libc.so.6');
  const filter = koffi.struct('sock_filter', { code: 'uint16', jt: 'uint8', jf: 'uint8', k: 'uint32' });
  const fprog = koffi.struct('sock_fprog', { len: 'uint16', filter: koffi.pointer(filter) });
  bound = {
    socket: lib.func('int socket(int domain, int type, int protocol)'),
    bind: lib.func('int bind(int fd, const void *addr, uint32_t addrlen)'),
    close: lib.func('int close(int fd)'),
    setsockopt: lib.func(
      'int setsockopt(int fd, int level, int optname, const void *optval, uint32_t optlen)',
    ),
    getsockopt: lib.func(
      'int getsockopt(int fd, int level, int optname, _Out_ void *optval, _Inout_ uint32_t *optlen)',
    ),
    sendto: lib.func(
      'intptr_t sendto(int fd, const void *buf, size_t len, int flags, const void *addr, uint32_t addrlen)',
    ),
    recvfrom: lib.func(
      'intptr_t recvfrom(int fd, _Out_ void *buf, size_t len, int flags, _Out_ void *addr, _Inout_ uint32_t *addrlen)',
    ),
    attachFilter: lib.func('setsockopt', 'int', ['int', 'int', 'int', koffi.pointer(fprog), 'uint32']),
    fprogSize: koffi.sizeof(fprog),
    mallopt: lib.func('int mallopt(int param, int value)'),
    malloc_trim: lib.func('int malloc_trim(size_t pad)'),
  };
  return bound;
}

/** errno of this thread's last libc call. */
export function lastErrno(): number {
  return koffi.errno();
}
