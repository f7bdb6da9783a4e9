import { formatIp, type IpAddress, toV4Mapped } from '../../address/index.js';
import { parseTransportAddress } from './address.js';
import { Md5SigFlag, Md5SigLayout, SocketOption, TCP_MD5SIG_MAXKEYLEN } from './constants.js';
import { TransportError } from './errors.js';
import { HOST_LITTLE_ENDIAN, writeSockaddr } from './sockaddr.js';

/** One RFC 2385 key (or its removal) for one peer address or prefix. */
export interface Md5KeySpec {
  /** The peer: an IPv4 or IPv6 literal, or the first address of a prefix. */
  readonly address: string;
  /** Key a whole prefix (TCP_MD5SIG_EXT). With v4mapped it counts IPv4 bits (0..32). */
  readonly prefixLen?: number;
  /** The shared secret; null removes the key (tcpm_keylen 0). */
  readonly password: string | null;
  /**
   * Write an IPv4 peer as ::ffff:a.b.c.d. Required on an AF_INET6 (dual-stack '::') socket,
   * which answers an AF_INET key with EINVAL; an AF_INET socket needs it off.
   */
  readonly v4mapped?: boolean;
  /**
   * Scope the key to a VRF (TCP_MD5SIG_EXT + FLAG_IFINDEX): the kernel takes only the ifindex
   * of an L3 master device and answers any other interface with EINVAL.
   */
  readonly ifindex?: number;
}

/** What to hand to setsockopt(fd, IPPROTO_TCP, optname, bytes, bytes.length). */
export interface EncodedMd5Sig {
  readonly optname: typeof SocketOption.TCP_MD5SIG | typeof SocketOption.TCP_MD5SIG_EXT;
  readonly bytes: Buffer;
}

function checkPrefixLen(spec: Md5KeySpec, ip: IpAddress): void {
  if (spec.prefixLen === undefined) return;
  // Verified: the kernel checks a v4-mapped prefix in IPv4 terms and gives EINVAL above 32.
  const max = ip.family === 4 ? 32 : 128;
  if (!Number.isInteger(spec.prefixLen) || spec.prefixLen < 0 || spec.prefixLen > max) {
    throw new TransportError(
      'md5-prefix-length',
      `TCP-MD5 key for ${spec.address}: prefix length ${spec.prefixLen} is not in 0..${max}`,
      { address: spec.address },
    );
  }
}

function encodeKey(spec: Md5KeySpec): Buffer {
  if (spec.password === null) return Buffer.alloc(0);
  const key = Buffer.from(spec.password, 'utf8');
  if (key.length === 0) {
    // keylen 0 means "delete" to the kernel: an empty password must not silently remove a key.
    throw new TransportError(
      'md5-key-empty',
      `TCP-MD5 key for ${spec.address} is empty (use null to remove a key)`,
      { address: spec.address },
    );
  }
  if (key.length > TCP_MD5SIG_MAXKEYLEN) {
    throw new TransportError(
      'md5-key-too-long',
      `TCP-MD5 key for ${spec.address} is ${key.length} bytes; the kernel takes at most ${TCP_MD5SIG_MAXKEYLEN}`,
      { address: spec.address },
    );
  }
  return key;
}

/**
 * Builds struct tcp_md5sig (layout in Md5SigLayout) for one key. Plain TCP_MD5SIG is used
 * unless a prefix or an interface asks for TCP_MD5SIG_EXT, so older kernels keep working.
 */
export function encodeMd5Sig(spec: Md5KeySpec): EncodedMd5Sig {
  const parsed = parseTransportAddress(spec.address);
  if (spec.v4mapped && parsed.family !== 4) {
    throw new TransportError('family-mismatch', `v4mapped asked for IPv6 peer ${spec.address}`, {
      address: spec.address,
    });
  }
  checkPrefixLen(spec, parsed);
  const key = encodeKey(spec);
  if (spec.ifindex !== undefined && (!Number.isInteger(spec.ifindex) || spec.ifindex <= 0)) {
    throw new TransportError(
      'invalid-option',
      `ifindex ${spec.ifindex} for ${spec.address} is not positive`,
      {
        address: spec.address,
      },
    );
  }

  const bytes = Buffer.alloc(Md5SigLayout.SIZE);
  const view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  writeSockaddr(bytes, Md5SigLayout.ADDR, spec.v4mapped ? toV4Mapped(parsed) : parsed);

  let flags = 0;
  if (spec.prefixLen !== undefined) {
    flags |= Md5SigFlag.TCP_MD5SIG_FLAG_PREFIX;
    bytes[Md5SigLayout.PREFIXLEN] = spec.prefixLen;
  }
  if (spec.ifindex !== undefined) {
    flags |= Md5SigFlag.TCP_MD5SIG_FLAG_IFINDEX;
    view.setInt32(Md5SigLayout.IFINDEX, spec.ifindex, HOST_LITTLE_ENDIAN);
  }
  bytes[Md5SigLayout.FLAGS] = flags;
  view.setUint16(Md5SigLayout.KEYLEN, key.length, HOST_LITTLE_ENDIAN);
  key.copy(bytes, Md5SigLayout.KEY);

  return { optname: flags === 0 ? SocketOption.TCP_MD5SIG : SocketOption.TCP_MD5SIG_EXT, bytes };
}

/** 'peer 198.18.200.2/24 (as ::ffff:198.18.200.2)' for error messages. */
export function describeMd5Target(spec: Md5KeySpec): string {
  const prefix = spec.prefixLen === undefined ? '' : `/${spec.prefixLen}`;
  const mapped = spec.v4mapped ? ` (as ${formatIp(toV4Mapped(parseTransportAddress(spec.address)))})` : '';
  return `${spec.address}${prefix}${mapped}`;
}
