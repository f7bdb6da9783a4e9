import { ND_OPTION_UNIT, NdOption, NdType, RA_HEADER_BYTES, RS_HEADER_BYTES } from './constants.js';

/**
 * RFC 4861 section 4.2 Router Advertisement:
 *
 *    0       1       2       3
 *   +-------+-------+---------------+
 *   | 134   | code 0| checksum      |   checksum: the kernel fills and checks it (raw ICMPv6)
 *   +-------+-------+---------------+
 *   | hops  |M|O|   | router lifetime (s)
 *   +-------+-------+---------------+
 *   | reachable time (ms)           |
 *   +-------------------------------+
 *   | retrans timer (ms)            |
 *   +-------------------------------+
 *   | options: type u8, length u8 (units of 8 bytes), body ...
 */
export interface RouterAdvertisement {
  readonly type: 'router-advertisement';
  readonly curHopLimit: number;
  readonly managed: boolean;
  readonly other: boolean;
  /** Seconds; 0: not a default router (RFC 4861 4.2), what a BGP unnumbered link wants. */
  readonly routerLifetime: number;
  readonly reachableTime: number;
  readonly retransTimer: number;
  /** The sender's link-layer address (option 1), when it sent one. */
  readonly sourceLinkLayer?: Uint8Array;
  readonly mtu?: number;
}

/** RFC 4861 section 4.1: a host (or a peer coming up) asks for an RA at once. */
export interface RouterSolicitation {
  readonly type: 'router-solicitation';
  readonly sourceLinkLayer?: Uint8Array;
}

export type NdMessage = RouterAdvertisement | RouterSolicitation;

/** What a received packet is: a message, or why it is dropped (RFC 4861 6.1 silently discards). */
export type NdVerdict = { readonly message: NdMessage } | { readonly drop: string };

const M_FLAG = 0x80;
const O_FLAG = 0x40;
const MAX_LIFETIME = 0xffff;
const U32_MAX = 0xffffffff;

/** True for fe80::/10 (RFC 4291 2.5.6). */
export function isLinkLocal(address: Uint8Array): boolean {
  return address.length === 16 && address[0] === 0xfe && (address[1] & 0xc0) === 0x80;
}

function isUnspecified(address: Uint8Array): boolean {
  return address.every((b) => b === 0);
}

interface Options {
  sourceLinkLayer?: Uint8Array;
  mtu?: number;
}

/** RFC 4861 4.6: options to the end; a zero length is invalid (6.1.1 / 6.1.2). */
function readOptions(bytes: Uint8Array, start: number): Options | string {
  const out: Options = {};
  let off = start;
  while (off < bytes.length) {
    if (off + 2 > bytes.length) return 'an option header is cut short';
    const type = bytes[off];
    const units = bytes[off + 1];
    if (units === 0) return `option ${type} has length 0 (RFC 4861 6.1.2)`;
    const end = off + units * ND_OPTION_UNIT;
    if (end > bytes.length) return `option ${type} runs past the packet`;
    if (type === NdOption.SOURCE_LINK_LAYER_ADDRESS) out.sourceLinkLayer = bytes.slice(off + 2, end);
    else if (type === NdOption.MTU && units === 1) {
      const v = new DataView(bytes.buffer, bytes.byteOffset + off, ND_OPTION_UNIT);
      out.mtu = v.getUint32(4, false);
    }
    // RFC 4861 4.6: options a receiver does not know are skipped.
    off = end;
  }
  return out;
}

/**
 * Checks and reads one received ICMPv6 packet (from its type byte; the kernel checked the
 * checksum already). `source` is the IPv6 source address. Only what RFC 4861 6.1 lets through
 * comes back as a message. The hop limit of 255 (6.1.1, 6.1.2) is not seen here: a raw socket
 * read with recvfrom(2) does not carry it. A link-local source is required instead, and a
 * router never forwards such a packet (RFC 4291 2.5.6), so it came from the link.
 */
export function decodeNdMessage(bytes: Uint8Array, source: Uint8Array): NdVerdict {
  if (bytes.length < 4) return { drop: `${bytes.length} bytes: shorter than an ICMPv6 header` };
  const type = bytes[0];
  if (bytes[1] !== 0) return { drop: `ICMPv6 code ${bytes[1]} is not 0 (RFC 4861 6.1)` };
  if (type === NdType.ROUTER_ADVERTISEMENT) {
    if (bytes.length < RA_HEADER_BYTES)
      return { drop: `RA of ${bytes.length} bytes (at least 16, RFC 4861 6.1.2)` };
    if (!isLinkLocal(source)) return { drop: 'RA from a source that is not link-local (RFC 4861 6.1.2)' };
    const options = readOptions(bytes, RA_HEADER_BYTES);
    if (typeof options === 'string') return { drop: options };
    const v = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
    return {
      message: {
        type: 'router-advertisement',
        curHopLimit: bytes[4],
        managed: (bytes[5] & M_FLAG) !== 0,
        other: (bytes[5] & O_FLAG) !== 0,
        routerLifetime: v.getUint16(6, false),
        reachableTime: v.getUint32(8, false),
        retransTimer: v.getUint32(12, false),
        ...options,
      },
    };
  }
  if (type === NdType.ROUTER_SOLICITATION) {
    if (bytes.length < RS_HEADER_BYTES)
      return { drop: `RS of ${bytes.length} bytes (at least 8, RFC 4861 6.1.1)` };
    const options = readOptions(bytes, RS_HEADER_BYTES);
    if (typeof options === 'string') return { drop: options };
    if (isUnspecified(source) && options.sourceLinkLayer)
      return { drop: 'RS from :: with a source link-layer option (RFC 4861 6.1.1)' };
    return { message: { type: 'router-solicitation', ...options } };
  }
  return { drop: `ICMPv6 type ${type} is not a router solicitation or advertisement` };
}

export interface RouterAdvertisementInit {
  readonly curHopLimit?: number;
  readonly managed?: boolean;
  readonly other?: boolean;
  readonly routerLifetime?: number;
  readonly reachableTime?: number;
  readonly retransTimer?: number;
  /** Our interface's link-layer address (6 bytes on Ethernet): the source link-layer option. */
  readonly sourceLinkLayer?: Uint8Array;
  readonly mtu?: number;
}

function checkRange(name: string, value: number, max: number): void {
  if (!Number.isInteger(value) || value < 0 || value > max) {
    throw new RangeError(`router advertisement ${name} ${value} is not in 0..${max}`);
  }
}

/** An RA with checksum 0 (the kernel computes it on a raw ICMPv6 socket, RFC 3542 3.1). */
export function encodeRouterAdvertisement(init: RouterAdvertisementInit = {}): Uint8Array {
  const hops = init.curHopLimit ?? 0;
  const lifetime = init.routerLifetime ?? 0;
  const reachable = init.reachableTime ?? 0;
  const retrans = init.retransTimer ?? 0;
  checkRange('hop limit', hops, 0xff);
  checkRange('router lifetime', lifetime, MAX_LIFETIME);
  checkRange('reachable time', reachable, U32_MAX);
  checkRange('retrans timer', retrans, U32_MAX);
  const lla = init.sourceLinkLayer;
  // The option pads the address up to a multiple of 8 bytes with the 2-byte header.
  const llaUnits = lla ? Math.ceil((lla.length + 2) / ND_OPTION_UNIT) : 0;
  if (lla && (lla.length === 0 || llaUnits > 0xff)) {
    throw new RangeError(`link-layer address of ${lla.length} bytes cannot be an option`);
  }
  const mtuUnits = init.mtu === undefined ? 0 : 1;
  if (init.mtu !== undefined) checkRange('MTU', init.mtu, U32_MAX);
  const out = new Uint8Array(RA_HEADER_BYTES + (llaUnits + mtuUnits) * ND_OPTION_UNIT);
  const v = new DataView(out.buffer);
  out[0] = NdType.ROUTER_ADVERTISEMENT;
  out[4] = hops;
  out[5] = (init.managed ? M_FLAG : 0) | (init.other ? O_FLAG : 0);
  v.setUint16(6, lifetime, false);
  v.setUint32(8, reachable, false);
  v.setUint32(12, retrans, false);
  let off = RA_HEADER_BYTES;
  if (lla) {
    out[off] = NdOption.SOURCE_LINK_LAYER_ADDRESS;
    out[off + 1] = llaUnits;
    out.set(lla, off + 2);
    off += llaUnits * ND_OPTION_UNIT;
  }
  if (init.mtu !== undefined) {
    out[off] = NdOption.MTU;
    out[off + 1] = 1;
    v.setUint32(off + 4, init.mtu, false);
  }
  return out;
}

/** "aa:bb:cc:dd:ee:ff" as bytes; undefined for anything else (an interface without one). */
export function parseMac(text: string | undefined): Uint8Array | undefined {
  if (text === undefined || !/^[0-9a-f]{2}(:[0-9a-f]{2}){5}$/i.test(text)) return undefined;
  const bytes = Uint8Array.from(text.split(':').map((h) => Number.parseInt(h, 16)));
  return bytes.every((b) => b === 0) ? undefined : bytes;
}
