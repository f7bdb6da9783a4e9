import { endianness } from 'node:os';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { Md5SigLayout, SocketOption } from '../../../src/bgp/transport/constants.js';
import { TransportError } from '../../../src/bgp/transport/errors.js';
import { encodeMd5Sig, type Md5KeySpec } from '../../../src/bgp/transport/md5.js';

const zeros = (n: number) => '00'.repeat(n);
const ascii = (s: string) => Buffer.from(s, 'utf8').toString('hex');
/** Joins commented field chunks into one hex string (spaces are for reading only). */
const bytes = (...fields: string[]) => fields.join('').replace(/\s+/g, '');

interface Fixture {
  readonly name: string;
  readonly spec: Md5KeySpec;
  readonly optname: number;
  readonly hex: string;
}

// struct tcp_md5sig as the kernel reads it on little-endian Linux (x86-64, arm64).
const fixtures: readonly Fixture[] = [
  {
    name: 'IPv4 peer, plain TCP_MD5SIG',
    spec: { address: '198.18.200.2', password: 'secret' },
    optname: SocketOption.TCP_MD5SIG,
    hex: bytes(
      '0200', //                   sin_family AF_INET (host order)
      '0000', //                   sin_port 0
      'c612c802', //               sin_addr 198.18.200.2
      zeros(8), //                 sin_zero
      zeros(112), //               rest of sockaddr_storage (128 bytes in all)
      '00', //                     tcpm_flags
      '00', //                     tcpm_prefixlen
      '0600', //                   tcpm_keylen 6 (host order)
      '00000000', //               tcpm_ifindex
      ascii('secret') + zeros(74), // tcpm_key[80]
    ),
  },
  {
    name: 'IPv6 peer',
    spec: { address: '2001:db8:200::2', password: 'secret' },
    optname: SocketOption.TCP_MD5SIG,
    hex: bytes(
      '0a00', //                   sin6_family AF_INET6 (host order)
      '0000', //                   sin6_port 0
      '00000000', //               sin6_flowinfo
      '20010db8020000000000000000000002', // sin6_addr
      '00000000', //               sin6_scope_id
      zeros(100), //               rest of sockaddr_storage
      '00 00', //                  flags, prefixlen
      '0600', //                   keylen 6
      '00000000', //               ifindex
      ascii('secret') + zeros(74),
    ),
  },
  {
    name: 'IPv4 peer v4-mapped (dual-stack listener)',
    spec: { address: '198.18.200.2', password: 'secret', v4mapped: true },
    optname: SocketOption.TCP_MD5SIG,
    hex: bytes(
      '0a00 0000 00000000', //     AF_INET6, port 0, flowinfo
      '00000000000000000000ffff c612c802', // ::ffff:198.18.200.2
      '00000000', //               scope_id
      zeros(100),
      '00 00 0600 00000000',
      ascii('secret') + zeros(74),
    ),
  },
  {
    name: 'delete the IPv4 key (keylen 0)',
    spec: { address: '198.18.200.2', password: null },
    optname: SocketOption.TCP_MD5SIG,
    hex: bytes('0200 0000 c612c802', zeros(8), zeros(112), '00 00 0000 00000000', zeros(80)),
  },
  {
    name: 'delete the v4-mapped key',
    spec: { address: '198.18.200.2', password: null, v4mapped: true },
    optname: SocketOption.TCP_MD5SIG,
    hex: bytes(
      '0a00 0000 00000000 00000000000000000000ffffc612c802 00000000',
      zeros(100),
      '00 00 0000 00000000',
      zeros(80),
    ),
  },
  {
    name: 'v4-mapped prefix: TCP_MD5SIG_EXT, FLAG_PREFIX, length in IPv4 bits',
    spec: { address: '198.18.200.0', prefixLen: 30, password: 'k', v4mapped: true },
    optname: SocketOption.TCP_MD5SIG_EXT,
    hex: bytes(
      '0a00 0000 00000000 00000000000000000000ffffc612c800 00000000',
      zeros(100),
      '01', //                     TCP_MD5SIG_FLAG_PREFIX
      '1e', //                     prefixlen 30
      '0100 00000000',
      ascii('k') + zeros(79),
    ),
  },
  {
    name: 'IPv6 key scoped to a VRF device: FLAG_IFINDEX',
    spec: { address: 'fe80::2', password: 'k', ifindex: 7 },
    optname: SocketOption.TCP_MD5SIG_EXT,
    hex: bytes(
      '0a00 0000 00000000 fe800000000000000000000000000002 00000000',
      zeros(100),
      '02 00', //                  TCP_MD5SIG_FLAG_IFINDEX, prefixlen 0
      '0100',
      '07000000', //               ifindex 7 (host order)
      ascii('k') + zeros(79),
    ),
  },
  {
    name: 'longest key: 80 bytes',
    spec: { address: '198.18.200.2', password: 'x'.repeat(80) },
    optname: SocketOption.TCP_MD5SIG,
    hex: bytes('0200 0000 c612c802', zeros(120), '00 00 5000 00000000', ascii('x'.repeat(80))),
  },
];

describe.runIf(endianness() === 'LE')('encodeMd5Sig exact bytes', () => {
  it.each(fixtures)('$name', ({ spec, optname, hex }) => {
    const encoded = encodeMd5Sig(spec);
    expect(hex.length).toBe(Md5SigLayout.SIZE * 2); // the fixture itself is 216 bytes
    expect(encoded.optname).toBe(optname);
    expect(encoded.bytes.toString('hex')).toBe(hex);
  });
});

describe('encodeMd5Sig refuses bad keys with an error naming the peer', () => {
  const bad: ReadonlyArray<{ name: string; spec: Md5KeySpec; kind: string; message: RegExp }> = [
    {
      name: '81-byte key',
      spec: { address: '198.18.200.2', password: 'x'.repeat(81) },
      kind: 'md5-key-too-long',
      message: /198\.18\.200\.2.*81 bytes.*at most 80/,
    },
    {
      name: '80 characters that are 160 UTF-8 bytes',
      spec: { address: '2001:db8:200::2', password: 'é'.repeat(80) },
      kind: 'md5-key-too-long',
      message: /2001:db8:200::2.*160 bytes/,
    },
    {
      name: 'empty password (would delete the key)',
      spec: { address: '198.18.200.2', password: '' },
      kind: 'md5-key-empty',
      message: /198\.18\.200\.2.*null to remove/,
    },
    {
      name: 'IPv4 prefix over 32',
      spec: { address: '198.18.200.0', prefixLen: 33, password: 'k' },
      kind: 'md5-prefix-length',
      message: /198\.18\.200\.0.*0\.\.32/,
    },
    {
      name: 'v4-mapped prefix counted in IPv6 bits',
      spec: { address: '198.18.200.0', prefixLen: 120, password: 'k', v4mapped: true },
      kind: 'md5-prefix-length',
      message: /0\.\.32/,
    },
    {
      name: 'IPv6 prefix over 128',
      spec: { address: '2001:db8::', prefixLen: 129, password: 'k' },
      kind: 'md5-prefix-length',
      message: /0\.\.128/,
    },
    {
      name: 'fractional prefix',
      spec: { address: '2001:db8::', prefixLen: 1.5, password: 'k' },
      kind: 'md5-prefix-length',
      message: /1\.5/,
    },
    {
      name: 'v4mapped on an IPv6 peer',
      spec: { address: '2001:db8::2', password: 'k', v4mapped: true },
      kind: 'family-mismatch',
      message: /2001:db8::2/,
    },
    {
      name: 'not an address',
      spec: { address: 'peer-a', password: 'k' },
      kind: 'invalid-address',
      message: /peer-a/,
    },
    {
      name: 'zero ifindex',
      spec: { address: 'fe80::2', password: 'k', ifindex: 0 },
      kind: 'invalid-option',
      message: /fe80::2/,
    },
  ];
  it.each(bad)('$name', ({ spec, kind, message }) => {
    try {
      encodeMd5Sig(spec);
      expect.unreachable();
    } catch (error) {
      expect(error).toBeInstanceOf(TransportError);
      expect((error as TransportError).kind).toBe(kind);
      expect((error as TransportError).message).toMatch(message);
      expect((error as TransportError).address).toBe(spec.address);
    }
  });
});

describe('encodeMd5Sig properties', () => {
  const password = fc.string({ minLength: 1, maxLength: 80, unit: 'grapheme-ascii' });
  const ipv4 = fc.ipV4();
  const ipv6 = fc.ipV6();

  it('keylen and key bytes carry the password, zero-padded, in every layout', () => {
    fc.assert(
      fc.property(fc.oneof(ipv4, ipv6), password, fc.boolean(), (address, pw, mapped) => {
        const v4mapped = mapped && !address.includes(':');
        const { bytes } = encodeMd5Sig({ address, password: pw, v4mapped });
        expect(bytes.length).toBe(Md5SigLayout.SIZE);
        expect(bytes.readUInt16LE(Md5SigLayout.KEYLEN)).toBe(pw.length);
        expect(bytes.subarray(Md5SigLayout.KEY, Md5SigLayout.KEY + pw.length).toString('latin1')).toBe(pw);
        expect(bytes.subarray(Md5SigLayout.KEY + pw.length).every((b) => b === 0)).toBe(true);
        expect(bytes.readUInt16LE(0)).toBe(address.includes(':') || v4mapped ? 10 : 2);
      }),
    );
  });

  it('a delete differs from an install only in keylen and key', () => {
    fc.assert(
      fc.property(fc.oneof(ipv4, ipv6), password, (address, pw) => {
        const install = encodeMd5Sig({ address, password: pw }).bytes;
        const remove = encodeMd5Sig({ address, password: null }).bytes;
        expect(remove.subarray(0, Md5SigLayout.KEYLEN).equals(install.subarray(0, Md5SigLayout.KEYLEN))).toBe(
          true,
        );
        expect(remove.subarray(Md5SigLayout.KEYLEN).every((b) => b === 0)).toBe(true);
      }),
    );
  });
});
