import { readFileSync } from 'node:fs';
import { afterEach, describe, expect, it } from 'vitest';
import { parseIp } from '../../../src/address/index.js';
import { TransportError } from '../../../src/bgp/transport/errors.js';
import { sysClose } from '../../../src/bgp/transport/libc.js';
import { openTcpFd } from '../../../src/bgp/transport/raw-socket.js';
import { getTtlOptions, gtsm, setMd5Key, setTtlOptions } from '../../../src/bgp/transport/socket-options.js';

// Real sockets, never connected: setsockopt needs no privilege and sends nothing.
const open: number[] = [];
function fdOfFamily(family: 4 | 6): number {
  const fd = openTcpFd(parseIp(family === 4 ? '0.0.0.0' : '::'));
  open.push(fd);
  return fd;
}
afterEach(() => {
  for (const fd of open.splice(0)) sysClose(fd);
});

function kernelError(fn: () => void): TransportError {
  try {
    fn();
  } catch (error) {
    expect(error).toBeInstanceOf(TransportError);
    return error as TransportError;
  }
  throw new Error('expected the kernel to refuse');
}

describe('setMd5Key against the kernel', () => {
  it('installs, replaces and removes keys on both families', () => {
    const v4 = fdOfFamily(4);
    setMd5Key(v4, { address: '198.18.200.2', password: 'one' });
    setMd5Key(v4, { address: '198.18.200.2', password: 'two' }); // same address: replaced in place
    setMd5Key(v4, { address: '198.18.200.2', password: null });
    const v6 = fdOfFamily(6);
    setMd5Key(v6, { address: '2001:db8:200::2', password: 'one' });
    setMd5Key(v6, { address: '198.18.200.2', password: 'one', v4mapped: true });
    setMd5Key(v6, { address: '198.18.200.0', prefixLen: 24, password: 'one', v4mapped: true });
    setMd5Key(v6, { address: '2001:db8:200::', prefixLen: 64, password: 'one' });
    setMd5Key(v6, { address: '198.18.200.2', password: null, v4mapped: true });
  });

  it('an AF_INET key on an AF_INET6 socket is EINVAL, naming the peer', () => {
    const error = kernelError(() => setMd5Key(fdOfFamily(6), { address: '198.18.200.2', password: 'k' }));
    expect(error.kind).toBe('syscall');
    expect(error.code).toBe('EINVAL');
    expect(error.errno).toBe(22);
    expect(error.syscall).toBe('setsockopt(TCP_MD5SIG)');
    expect(error.address).toBe('198.18.200.2');
    expect(error.message).toMatch(/198\.18\.200\.2.*EINVAL/);
  });

  it('a v4-mapped key on an AF_INET socket is EINVAL', () => {
    const error = kernelError(() =>
      setMd5Key(fdOfFamily(4), { address: '198.18.200.2', password: 'k', v4mapped: true }),
    );
    expect(error.code).toBe('EINVAL');
    expect(error.address).toBe('198.18.200.2');
    expect(error.message).toContain('::ffff:198.18.200.2');
  });

  it('removing a key that is not there is ENOENT', () => {
    const fd = fdOfFamily(4);
    const error = kernelError(() => setMd5Key(fd, { address: '198.18.200.9', password: null }));
    expect(error.code).toBe('ENOENT');
    expect(error.message).toMatch(/removing key/);
  });

  it('an ifindex that is not a VRF (L3 master) device is EINVAL', () => {
    const error = kernelError(
      () => setMd5Key(fdOfFamily(6), { address: '2001:db8:200::2', password: 'k', ifindex: 1 }), // lo
    );
    expect(error.syscall).toBe('setsockopt(TCP_MD5SIG_EXT)');
    expect(error.code).toBe('EINVAL');
  });

  it('a zero-length prefix keys every address of the family', () => {
    const fd = fdOfFamily(6);
    setMd5Key(fd, { address: '0.0.0.0', prefixLen: 0, password: 'k', v4mapped: true });
    setMd5Key(fd, { address: '::', prefixLen: 0, password: 'k' });
  });

  it('a full key memory (net.core.optmem_max) is ENOMEM with a hint', () => {
    const optmemMax = Number(readFileSync('/proc/sys/net/core/optmem_max', 'utf8'));
    const fd = fdOfFamily(6);
    let error: TransportError | undefined;
    // each key takes well over 64 bytes of option memory, so this loop must hit the limit
    for (let i = 0; i < optmemMax / 64 && !error; i++) {
      const address = `2001:db8:ffff::${i.toString(16)}`;
      error = (() => {
        try {
          setMd5Key(fd, { address, password: 'k' });
          return undefined;
        } catch (e) {
          return e as TransportError;
        }
      })();
    }
    expect(error).toMatchObject({ kind: 'syscall', code: 'ENOMEM' });
    expect(error?.message).toMatch(/optmem_max/);
    expect(error?.address).toMatch(/^2001:db8:ffff::/);
  });

  it('a prefix key goes through TCP_MD5SIG_EXT', () => {
    const error = kernelError(() =>
      setMd5Key(fdOfFamily(4), { address: '2001:db8::', prefixLen: 64, password: 'k' }),
    );
    expect(error.syscall).toBe('setsockopt(TCP_MD5SIG_EXT)');
    expect(error.code).toBe('EINVAL');
  });
});

describe('TTL and GTSM options', () => {
  it('gtsm(hops) follows RFC 5082: send 255, accept 256 - hops', () => {
    expect(gtsm()).toEqual({ ttl: 255, minTtl: 255 });
    expect(gtsm(2)).toEqual({ ttl: 255, minTtl: 254 });
    expect(gtsm(255)).toEqual({ ttl: 255, minTtl: 1 });
    for (const hops of [0, 256, 1.5, Number.NaN]) {
      expect(() => gtsm(hops)).toThrow(TransportError);
    }
  });

  it('IPv4 socket: IP_TTL and IP_MINTTL', () => {
    const fd = fdOfFamily(4);
    setTtlOptions(fd, 'ipv4', gtsm());
    expect(getTtlOptions(fd, 'ipv4')).toEqual({ ttl: 255, minTtl: 255 });
    setTtlOptions(fd, 'ipv4', { minTtl: 0 });
    expect(getTtlOptions(fd, 'ipv4')).toEqual({ ttl: 255, minTtl: 0 });
  });

  it('IPv6 socket: IPV6_UNICAST_HOPS and IPV6_MINHOPCOUNT, leaving the IPv4 ones alone', () => {
    const fd = fdOfFamily(6);
    const before = getTtlOptions(fd, 'ipv4');
    setTtlOptions(fd, 'ipv6', { ttl: 200, minTtl: 250 });
    expect(getTtlOptions(fd, 'ipv6')).toEqual({ ttl: 200, minTtl: 250 });
    expect(getTtlOptions(fd, 'ipv4')).toEqual(before);
  });

  it('dual scope sets both layers of an AF_INET6 socket (IPv4 peers arrive v4-mapped)', () => {
    const fd = fdOfFamily(6);
    setTtlOptions(fd, 'dual', gtsm());
    expect(getTtlOptions(fd, 'ipv4')).toEqual({ ttl: 255, minTtl: 255 });
    expect(getTtlOptions(fd, 'ipv6')).toEqual({ ttl: 255, minTtl: 255 });
  });

  it('IPv6 options on an AF_INET socket are refused by the kernel', () => {
    const error = kernelError(() => setTtlOptions(fdOfFamily(4), 'ipv6', { ttl: 255 }, '2001:db8::2'));
    expect(error.kind).toBe('syscall');
    expect(error.syscall).toBe('setsockopt(IPV6_UNICAST_HOPS)');
    expect(error.code).toBe('ENOPROTOOPT');
    expect(error.address).toBe('2001:db8::2');
  });

  it.each([{ ttl: 0 }, { ttl: 256 }, { minTtl: -1 }, { minTtl: 256 }, { ttl: 1.5 }])(
    'rejects %j before any call',
    (options) => {
      const error = kernelError(() => setTtlOptions(fdOfFamily(4), 'ipv4', options));
      expect(error.kind).toBe('invalid-option');
    },
  );
});
